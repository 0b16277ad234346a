"""`lluma map [DIR] [--json]`: the screen map the agent learned from play, as a person reads it.

Every screen by name with how often it was seen, and under it each way out: the action, the screen it led to, how
often it was taken, how often it failed (the screen reached was not the one the map expected), and how long it took.
Then, apart, the interruptions: screens that came over another after an action (Android's not-responding dialog, a
connection error, a tutorial) and, dismissed, left the game where the action leads; they are no way out.
DIR is a run folder (a demo keeps its memory, and its map beside it, in the run's folder; a run on a phone shares
the map beside `memory.dir`), a memory folder, or the map file itself; by default the map beside `memory.dir`, else
the newest run's under `logs.dir` (as `lluma memory` finds the newest run's memory).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lluma_agent.navmap import MapError, ScreenMap
from lluma_cli.report.bookview import BookView
from lluma_cli.report.mapdata import WayOut, find_map, interruptions, name_of, ordered_screens, read_map, way_out


def as_json(m: ScreenMap, path: Path) -> dict[str, Any]:
    ways = [way_out(m, t) for t in sorted(m.transitions, key=lambda t: (t.src, -t.count, t.action, t.dst))]
    return {
        "map": str(path),
        "screens": {s: {"name": m.screens[s].name, "seen": m.screens[s].seen,
                        "ways_out": sum(1 for w in ways if w.src == s and not w.stays)} for s in ordered_screens(m)},
        "transitions": [w.model_dump() for w in ways],
        "interruptions": [c.model_dump() for c in interruptions(m)],
    }


def _line(w: WayOut, width: int) -> str:
    where = "(stays)" if w.stays else f"-> {w.dst_name}"
    fails = f", {w.fails:,} failed" if w.fails else ""
    took = f", {w.seconds_mean:.1f} s on average" if w.seconds_mean is not None and not w.stays else ""
    return f"  {w.action:<{width}}  {where}  {w.count:,} use(s){fails}{took}"


def as_text(m: ScreenMap, path: Path) -> str:
    steps = sum(t.count for t in m.transitions)
    lines = [f"{path}: {len(m.screens)} screen(s), {len(m.transitions)} way(s) out, {steps:,} step(s) recorded"]
    if not m.screens:
        return lines[0] + "\n  (nothing recorded yet)"
    for s in ordered_screens(m):
        info = m.screens[s]
        lines.append(f"\n{name_of(m, s)}  seen {info.seen:,}")  # by name; its id only where two share it
        ways = sorted((way_out(m, t) for t in m.transitions if t.src == s), key=lambda w: (-w.count, w.action, w.dst))
        if not ways:
            lines.append("  (no way out recorded)")
        width = max((len(w.action) for w in ways), default=0)
        lines += [_line(w, width) for w in ways]
    came = interruptions(m)
    if came:
        lines.append("\nInterruptions (came over a screen after an action; dismissed, the game went on: no way out)")
        lines += [f"  {c.screen_name} over {c.over_name} after {c.action}: {c.count:,} time(s), "
                  f"dismissed by {c.way_out or '?'}" for c in came]
    return "\n".join(lines)


VIEW = BookView("lluma map", __doc__ or "", json_help="one JSON object: screens and transitions",
                dir_help="a run folder, a memory folder or the map file (default: the map beside memory.dir, else the "
                         "newest run's under logs.dir)",
                find=find_map, read=read_map, errors=(MapError,), as_json=as_json, as_text=as_text)
main = VIEW.main
