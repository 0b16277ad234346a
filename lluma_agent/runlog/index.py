"""Full-text index of every turn (SQLite FTS5, in the run's `turns.sqlite`) and searching it.

A turn is indexed when its log is written and again when its action's effect is known. Columns: the
screen summary, the action with its effect and the tool calls, the model's reasoning (thinking and
text), what vision read (texts, button names and hints), the tool results sent that turn, and the
memory changes. People search with `lluma search`, the agent with its `searchHistory` tool.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel

from lluma_agent.runlog.folder import RunFolder

TABLE = "turns_fts"
# A row is (turn, *COLUMNS); `turnlog.search_row` builds it from a TurnLog.
COLUMNS = ("screen", "action", "reasoning", "read", "results", "memory")
Row = tuple[int, str, str, str, str, str, str]
SNIPPET_TOKENS = 12
# A query's cost grows with the square of its prefix terms (measured on a 200-turn run: 50 `a*` terms 0.5 s,
# 100 1.5 s, 200 7.3 s; 2,000 ran for minutes). A person's or the model's look-up needs a few words.
MAX_QUERY_CHARS = 300
MAX_PREFIX_TERMS = 16
SEARCH_TIMEOUT_S = 3.0  # whatever the query, SQLite is stopped after this long
_PROGRESS_STEPS = 10_000  # SQLite virtual-machine steps between two looks at the clock


class SearchError(ValueError):
    """A query SQLite FTS5 cannot parse, or no index to search; the message says what to do."""


class Hit(BaseModel):
    turn: int
    screen: str
    action: str
    snippet: str  # the best-matching stretch of any column, matches in [brackets]


def ensure(db: sqlite3.Connection) -> bool:
    """Create the index table if missing. Returns True when it was created (an older run's database)."""
    exists = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is not None
    if not exists:
        # The rowid is the turn number (re-indexing a turn replaces it); porter: "trained" finds "Training".
        db.execute(f"CREATE VIRTUAL TABLE {TABLE} USING fts5({', '.join(COLUMNS)}, tokenize = 'porter unicode61')")
    return not exists


def index(db: sqlite3.Connection, row: Row) -> None:
    """(Re)index one turn; the caller commits (together with the turn's row in `turns`)."""
    db.execute(f"DELETE FROM {TABLE} WHERE rowid = ?", (row[0],))
    db.execute(f"INSERT INTO {TABLE} (rowid, {', '.join(COLUMNS)}) VALUES (?,?,?,?,?,?,?)", row)


def forget_after(db: sqlite3.Connection, turn: int) -> None:
    """Drop the index rows of turns after `turn` (a resumed run plays them again); the caller commits."""
    db.execute(f"DELETE FROM {TABLE} WHERE rowid > ?", (turn,))


def search(db: sqlite3.Connection, query: str, limit: int = 10) -> list[Hit]:
    """Best matches first (bm25). A query FTS5 cannot parse raises SearchError with a hint."""
    if not query.strip():
        raise SearchError("empty search query")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise SearchError("the search query is not valid UTF-8 text") from None
    if len(query) > MAX_QUERY_CHARS:
        raise SearchError(f"the search query is {len(query):,} characters; at most {MAX_QUERY_CHARS} are searched")
    if query.count("*") > MAX_PREFIX_TERMS:
        raise SearchError(f"the search query has {query.count('*')} prefix* terms; at most {MAX_PREFIX_TERMS} "
                          "(each one multiplies the work)")
    sql = (
        f"SELECT rowid, screen, action, snippet({TABLE}, -1, '[', ']', '…', {SNIPPET_TOKENS}) FROM {TABLE}"
        f" WHERE {TABLE} MATCH ? ORDER BY rank, rowid LIMIT ?"
    )
    deadline = time.monotonic() + SEARCH_TIMEOUT_S
    db.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_STEPS)
    try:
        rows = db.execute(sql, (query, max(1, limit))).fetchall()
    except sqlite3.OperationalError as exc:
        if time.monotonic() > deadline and "interrupt" in str(exc):
            raise SearchError(f"the search ran over {SEARCH_TIMEOUT_S:.0f} s and was stopped; use fewer or longer "
                              "words (a prefix* of one or two letters matches almost everything)") from None
        if "no such table" in str(exc):
            raise SearchError("this run's database has no search index") from None
        raise SearchError(
            f"cannot search for {query!r}: {exc}. Words are matched as they are; put text with "
            'punctuation in double quotes ("Fail 12%"), combine with AND / OR / NOT, prefix* matches a start'
        ) from None
    finally:
        db.set_progress_handler(None, 0)
    return [Hit(turn=t, screen=s, action=a.split("\n", 1)[0], snippet=" ".join(snip.split())) for t, s, a, snip in rows]


def phrase(query: str) -> str:
    """`query` as one FTS5 phrase: every character taken as text (a button name such as `Learn#2`)."""
    return '"' + query.replace('"', '""') + '"'


def search_text(db: sqlite3.Connection, query: str, limit: int = 10) -> tuple[list[Hit], str]:
    """search(), and when FTS5 cannot parse `query` (`Learn#2`, `Fail 12%`), the same text as one phrase. Returns
    the hits and a note saying it was searched as a phrase ("" when the query was used as written)."""
    try:
        return search(db, query, limit), ""
    except SearchError as exc:
        if "cannot search for" not in str(exc):
            raise
        return search(db, phrase(query), limit), f"{query!r} is not FTS5 syntax; searched as the phrase {phrase(query)}"


def open_index(folder: Path | RunFolder, rows: Callable[[], Iterable[Row]]) -> sqlite3.Connection:
    """The run's database; an older run's (no index yet) is indexed from `rows()` (its turn logs) first."""
    db = sqlite3.connect(RunFolder.at(folder).db)
    if ensure(db):
        for r in rows():
            index(db, r)
        db.commit()
    return db
