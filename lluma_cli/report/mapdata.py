"""The screen map as `lluma map` and the report read it: where its file is, the file read (never moved or
rewritten), each way out with names and times worked out. Below the command modules (docs/ARCHITECTURE.md,
Layers), so `lluma map` and the report's picture share it."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from lluma_agent.atomic import what_is
from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.navmap import Interruption, MapError, ScreenMap, Transition, map_path_for
from lluma_agent.navmap.jsonfile import read_only
from lluma_agent.navmap.store import MAP
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import default_root
from lluma_agent.runlog.runs import runs_newest_first


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


class CameOver(BaseModel):
    """An interruption as `lluma map` shows it: a screen that came over another after an action (a hazard, a
    popup), with names worked out; kept apart from the ways out."""

    screen: str
    screen_name: str
    over: str
    over_name: str
    action: str  # the action after which it came
    way_out: str  # the action that dismissed it, the last time
    count: int


def _config_memory() -> Path | None:
    try:
        return load_config(find_config(None)).memory.dir
    except (ConfigError, OSError, ValueError):
        return None  # a reader must not fail on a config it does not need


def _is_run(folder: Path) -> bool:
    run = RunFolder.at(folder)
    return run.checkpoint.is_file() or run.summary.is_file() or any(folder.glob("turn_*.json"))


def _newest_run_map(logs: Path) -> Path | None:
    """The map of the newest run under `logs` that keeps one (a demo's; the newest as `lluma logs` means it)."""
    return next((p for d in runs_newest_first(logs) if (p := map_path_for(d / "memory")).is_file()), None)


def find_map(where: Path | None) -> Path:
    """The map file `where` names (see the module's doc); raises MapError when there is none to find."""
    if where is not None and where.is_file():
        return where
    if where is not None and not where.exists():
        raise MapError(f"{where}: no such folder")
    if where is not None and not where.is_dir():
        raise MapError(f"{where} is {what_is(where)}, not a screen map file, a run folder or a memory folder")
    if where is not None and _is_run(where):
        own = map_path_for(where / "memory")  # a demo's: its memory and map live in the run's folder
        if own.is_file() or (where / "memory").is_dir():
            return own
        memory = _config_memory()  # a run on a phone: the map it shared, beside memory.dir
        return map_path_for(memory) if memory is not None else own
    if where is not None:
        beside = map_path_for(where)
        if not beside.exists():
            raise MapError(f"no screen map at {beside}: {where} is a folder, not a run folder; a memory folder's map "
                           "is kept beside it under that name")
        return beside
    memory = _config_memory()
    if memory is not None and map_path_for(memory).is_file():
        return map_path_for(memory)
    newest = _newest_run_map(default_root())
    if newest is not None:
        return newest
    return map_path_for(memory if memory is not None else Path("memory"))


def read_map(path: Path) -> ScreenMap:
    """The map at `path` (read only: a damaged file stays where it is); MapError names the file when it is missing,
    no regular file or damaged."""
    return read_only(path, MAP)


def name_of(m: ScreenMap, screen: str) -> str:
    """The screen's name, with its id when another screen shares the name."""
    return m.label(screen)


def way_out(m: ScreenMap, t: Transition) -> WayOut:
    return WayOut(
        src=t.src, src_name=name_of(m, t.src), action=t.action, dst=t.dst, dst_name=name_of(m, t.dst), count=t.count,
        fails=t.fails, seconds_mean=round(t.mean_seconds, 2) if t.count else None, stays=t.loop,
    )


def came_over(m: ScreenMap, i: Interruption) -> CameOver:
    return CameOver(screen=i.screen, screen_name=name_of(m, i.screen), over=i.over, over_name=name_of(m, i.over),
                    action=i.action, way_out=i.way_out, count=i.count)


def interruptions(m: ScreenMap) -> list[CameOver]:
    """The map's interruptions, the most frequent first (then by name, so the listing is the same every time)."""
    out = [came_over(m, i) for i in m.interruptions]
    return sorted(out, key=lambda c: (-c.count, c.screen_name, c.over_name, c.action))


def ordered_screens(m: ScreenMap) -> list[str]:
    """Screen ids, the most seen first (ties by name, so the listing is the same every time)."""
    return sorted(m.screens, key=lambda s: (-m.screens[s].seen, name_of(m, s), s))
