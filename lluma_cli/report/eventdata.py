"""The event book as `lluma events` and the report read it: found beside the map, read only, in a person's order."""

from __future__ import annotations

from pathlib import Path

from lluma_agent.navmap.events import BOOK, SUFFIX, EventBook, EventRecord, events_path
from lluma_agent.navmap.jsonfile import read_only
from lluma_cli.report.mapdata import find_map


def find_book(where: Path | None) -> Path:
    """The event book `where` names, or the one beside the map `lluma map` would read."""
    if where is not None and where.name.endswith(SUFFIX):
        return where
    return events_path(find_map(where))


def read_book(path: Path) -> EventBook:
    """The book at `path` (read only); BookError names the file when it is missing, no regular file or damaged."""
    return read_only(path, BOOK)


def ordered(book: EventBook) -> list[tuple[str, EventRecord]]:
    """The events, the most recently met first."""
    return sorted(book.events.items(), key=lambda kv: -kv[1].last_seen)


def change_words(means: dict[str, float]) -> str:
    """A choice's mean changes in words: "Speed +5, Skill Pts +0, Energy -10"; one that moved none of the facts
    read says so ("did nothing: Speed, Energy, Mood read unchanged"), and one whose outcome showed no fact too."""
    if not means:
        return "no outcome read (no fact showed before and after)"
    if not any(means.values()):
        return f"did nothing: {', '.join(means)} read unchanged"
    return ", ".join(f"{k} {v:+g}" for k, v in means.items())


def rows(rec: EventRecord) -> list[tuple[str, int, str]]:
    """Each choice of an event, the most measured first: (choice, times, the mean changes in words)."""
    return [(choice, c.times, change_words(c.means()))
            for choice, c in sorted(rec.choices.items(), key=lambda kv: -kv[1].times)]
