"""`lluma search QUERY [DIR] [--limit N] [--json]`: full-text search over a run's turns (SQLite FTS5).

QUERY is FTS5 syntax: words (all must appear), "a phrase", OR, NOT, prefix*; text FTS5 cannot parse (a button
name such as Learn#2) is searched as one phrase, and stderr says so. DIR is a run folder or a
log root (its newest run is searched). A run logged before the index existed is indexed first.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path

from lluma_agent.runlog import index as history_index
from lluma_agent.runlog.logread import LogDirError, add_dir_argument, clip, load_run, resolve_dir
from lluma_agent.runlog.turnlog import rebuild_db, search_row
from lluma_cli.errors import one_line


def _query(folder: Path, query: str, limit: int) -> tuple[list[history_index.Hit], str]:
    db = history_index.open_index(folder, lambda: [search_row(t) for t in load_run(folder).turns])
    try:
        return history_index.search_text(db, query, limit)
    finally:
        db.close()


def _search(folder: Path, query: str, limit: int) -> tuple[list[history_index.Hit], str]:
    """The hits and search_text's note; a damaged turns.sqlite is rebuilt from the turn logs first (they are the
    truth). Where the folder cannot be written, an error that says what to do."""
    try:
        return _query(folder, query, limit)
    except sqlite3.DatabaseError as exc:
        problem = exc
    try:
        rebuild_db(folder)
    except (sqlite3.Error, OSError) as exc:
        raise sqlite3.DatabaseError(
            f"turns.sqlite in {folder} cannot be searched ({problem}) and cannot be rebuilt from the turn logs here "
            f"({one_line(exc)}); copy the run folder somewhere writable and search the copy") from None
    print(f"lluma search: turns.sqlite in {folder} was damaged ({problem}); rebuilt from the turn logs",
          file=sys.stderr)
    return _query(folder, query, limit)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma search", description=__doc__.splitlines()[0])
    ap.add_argument("query", help='FTS5 query: words, "a phrase", OR, NOT, prefix*')
    add_dir_argument(ap)
    ap.add_argument("--limit", type=int, default=20, help="most hits shown (default 20)")
    ap.add_argument("--json", action="store_true", help="a JSON list of hits: turn, screen, action, snippet")
    args = ap.parse_args(argv)
    try:
        folder, note = resolve_dir(args.dir)
    except LogDirError as exc:
        print(f"lluma search: {exc}", file=sys.stderr)
        return 1
    if note:
        print(f"lluma search: {note}", file=sys.stderr)
    try:
        hits, note = _search(folder, args.query, args.limit)
    except history_index.SearchError as exc:
        print(f"lluma search: {exc}", file=sys.stderr)
        return 2
    except (sqlite3.Error, OSError) as exc:
        print(f"lluma search: {exc}", file=sys.stderr)
        return 1
    if note:
        print(f"lluma search: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps([h.model_dump() for h in hits], ensure_ascii=False))
        return 0
    if not hits:
        print(f"no turn in {folder} matches {args.query!r}")
    for h in hits:
        print(f"T{h.turn:<5} {clip(h.screen, 40):<40} {clip(h.action, 28):<28} {h.snippet}")
    return 0
