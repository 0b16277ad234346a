"""`lluma map [DIR] [--json]`: the screen map the agent learned from play, as a person reads it.

Every screen by name with how often it was seen, and under it each way out: the action, the screen it led to, how
often it was taken, how often it failed (the screen reached was not the one the map expected), and how long it took.
DIR is a run folder (a demo keeps its memory, and its map beside it, in the run's folder; a run on a phone shares
the map beside `memory.dir`), a memory folder, or the map file itself; by default the map beside `memory.dir`, else
the newest run's under `logs.dir` (as `lluma memory` finds the newest run's memory).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.navmap import MapError, ScreenMap, Transition, load_map, map_path_for
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import default_root


class WayOut(BaseModel):
    """One way out of a screen as `lluma map` shows it: the map's transition with names and times worked out."""

    src: str
    src_name: str
    action: str
    dst: str
    dst_name: str
    count: int
    fails: int  # times it was expected (a goTo step, a routine pass) and another screen came
    seconds_mean: float | None  # from the input sent to the next still reading
    stays: bool  # the action left the screen where it was (a scroll, a page turned): kept, never walked


def _config_memory() -> Path | None:
    try:
        return load_config(find_config(None)).memory.dir
    except (ConfigError, OSError, ValueError):
        return None  # a reader must not fail on a config it does not need


def _is_run(folder: Path) -> bool:
    run = RunFolder.at(folder)
    return run.checkpoint.is_file() or run.summary.is_file() or any(folder.glob("turn_*.json"))


def _newest_run_map(logs: Path) -> Path | None:
    found = [(p.stat().st_mtime, p) for d in (logs.iterdir() if logs.is_dir() else [])
             if d.is_dir() and (p := map_path_for(d / "memory")).is_file()]
    return max(found)[1] if found else None


def find_map(where: Path | None) -> Path:
    """The map file `where` names (see the module's doc); raises MapError when there is none to find."""
    if where is not None and where.is_file():
        return where
    if where is not None and not where.exists():
        raise MapError(f"{where}: no such folder")
    if where is not None and _is_run(where):
        own = map_path_for(where / "memory")  # a demo's: its memory and map live in the run's folder
        if own.is_file() or (where / "memory").is_dir():
            return own
        memory = _config_memory()  # a run on a phone: the map it shared, beside memory.dir
        return map_path_for(memory) if memory is not None else own
    if where is not None:
        return map_path_for(where)
    memory = _config_memory()
    if memory is not None and map_path_for(memory).is_file():
        return map_path_for(memory)
    newest = _newest_run_map(default_root())
    if newest is not None:
        return newest
    return map_path_for(memory if memory is not None else Path("memory"))


def read_map(path: Path) -> ScreenMap:
    """The map at `path` (read only: a damaged file stays where it is); MapError names the file when it is missing
    or damaged."""
    if not path.is_file():
        raise MapError(f"no screen map at {path}: a run with map.enabled (the default) writes it there as it plays")
    try:
        return load_map(path)
    except MapError as exc:
        raise MapError(f"{exc}; the next run sets it aside and starts a new map") from None


def name_of(m: ScreenMap, screen: str) -> str:
    """The screen's name, with its id when another screen shares the name."""
    return m.label(screen)


def way_out(m: ScreenMap, t: Transition) -> WayOut:
    return WayOut(
        src=t.src, src_name=name_of(m, t.src), action=t.action, dst=t.dst, dst_name=name_of(m, t.dst), count=t.count,
        fails=t.fails, seconds_mean=round(t.mean_seconds, 2) if t.count else None, stays=t.loop,
    )


def ordered_screens(m: ScreenMap) -> list[str]:
    """Screen ids, the most seen first (ties by name, so the listing is the same every time)."""
    return sorted(m.screens, key=lambda s: (-m.screens[s].seen, name_of(m, s), s))


def as_json(m: ScreenMap, path: Path) -> dict[str, Any]:
    ways = [way_out(m, t) for t in sorted(m.transitions, key=lambda t: (t.src, -t.count, t.action, t.dst))]
    return {
        "map": str(path),
        "screens": {s: {"name": m.screens[s].name, "seen": m.screens[s].seen,
                        "ways_out": sum(1 for w in ways if w.src == s and not w.stays)} for s in ordered_screens(m)},
        "transitions": [w.model_dump() for w in ways],
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
        lines.append(f"\n{name_of(m, s)} [{s}]  seen {info.seen:,}")
        ways = sorted((way_out(m, t) for t in m.transitions if t.src == s), key=lambda w: (-w.count, w.action, w.dst))
        if not ways:
            lines.append("  (no way out recorded)")
        width = max((len(w.action) for w in ways), default=0)
        lines += [_line(w, width) for w in ways]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma map", description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path, default=None,
                    help="a run folder, a memory folder or the map file (default: the map beside memory.dir, else "
                         "the newest run's under logs.dir)")
    ap.add_argument("--json", action="store_true", help="one JSON object: screens and transitions")
    args = ap.parse_args(argv)
    try:
        path = find_map(args.dir)
        m = read_map(path)
    except MapError as exc:
        print(f"lluma map: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(as_json(m, path), indent=2, ensure_ascii=False) if args.json else as_text(m, path))
    return 0
