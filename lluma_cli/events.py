"""`lluma events [DIR] [--json]`: what each event choice did, as the agent measured it in play (issue 40).

Each event by its title, the most recently met first, and under it each choice: how often its outcome was read
and the mean change of each fact (stats, skill points, energy in percent of the bar, mood in badge steps). DIR is
found as `lluma map` finds the map (a run folder, a memory folder, the map file or the book itself); the book is
the map's sibling, `memory.events.json`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lluma_agent.navmap import MapError
from lluma_agent.navmap.events import EventBook
from lluma_agent.navmap.jsonfile import BookError
from lluma_cli.report.bookview import BookView
from lluma_cli.report.eventdata import find_book, ordered, read_book, rows


def as_json(book: EventBook, path: Path) -> dict[str, Any]:
    return {"book": str(path), "events": {
        name: {"last_seen": rec.last_seen, "choices": {c: {"times": r.times, "means": r.means()}
                                                       for c, r in rec.choices.items()}}
        for name, rec in ordered(book)}}


def as_text(book: EventBook, path: Path) -> str:
    choices = sum(len(r.choices) for r in book.events.values())
    times = sum(c.times for r in book.events.values() for c in r.choices.values())
    lines = [f"{path}: {len(book.events)} event(s), {choices} choice(s) measured {times:,} time(s)"]
    if not book.events:
        return lines[0] + "\n  (nothing measured yet)"
    for name, rec in ordered(book):
        lines.append(f"\n{name}")
        lines += [f"  {choice!r}  {times}x: {means}" for choice, times, means in rows(rec)]
    return "\n".join(lines)


VIEW = BookView("lluma events", __doc__ or "", json_help="one JSON object: the book's path and its events",
                dir_help="a run folder, a memory folder, the map file or the event book (default: the book beside the "
                         "map `lluma map` reads)",
                find=find_book, read=read_book, errors=(MapError, BookError), as_json=as_json, as_text=as_text)
main = VIEW.main
