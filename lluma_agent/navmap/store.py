"""The map on disk: one JSON file beside the memory folder, written atomically after each turn.

Beside the folder, not in it: everything in the memory folder is a memory file sent to the model. The file is
kept across runs and resumes that use the same memory folder. A crash mid-write leaves the old file or the new
one (lluma_agent/atomic.py). A file that cannot be read as a map is never silently replaced: `load_map` raises
`MapError`, and `open_map` sets it aside under a new name (kept for a person to look at) and starts afresh; so is a
path that is not a regular file (a FIFO, a folder), refused without reading it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from pydantic import ValidationError

from lluma_agent.atomic import NotRegular, atomic_write_text, read_regular
from lluma_agent.navmap.model import MAP_VERSION, ScreenMap

SUFFIX = ".map.json"


class MapError(ValueError):
    """A map file that cannot be used; the message names the file and what is wrong."""


def map_path_for(memory_dir: Path | str) -> Path:
    """`memory/` -> `memory.map.json`, its sibling (never inside: the memory folder is sent to the model)."""
    folder = Path(memory_dir)
    name = folder.resolve().name if folder.name in ("", ".", "..") else folder.name
    return folder.parent / f"{name}{SUFFIX}"


def load_map(path: Path | str) -> ScreenMap:
    """The map in `path`; an empty map when there is no file; MapError when the file is damaged."""
    p = Path(path)
    try:
        data = read_regular(p)
    except FileNotFoundError:
        return ScreenMap()
    except NotRegular as exc:  # a FIFO blocked the run's start: no turn in 90 s (issue 39)
        raise MapError(f"{p}: {exc.kind}, not a screen map file") from None
    except OSError as exc:
        raise MapError(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MapError(f"{p}: not a screen map (not JSON: {exc})") from None
    if not isinstance(raw, dict):
        raise MapError(f"{p}: not a screen map (a JSON {type(raw).__name__}, not an object)")
    if raw.get("version", MAP_VERSION) != MAP_VERSION:
        raise MapError(f"{p}: a screen map of version {raw.get('version')!r}; this LLuMa reads version {MAP_VERSION}")
    try:
        return ScreenMap.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(root)"
        raise MapError(f"{p}: not a screen map ({where}: {first['msg']})") from None


def save_map(path: Path | str, screen_map: ScreenMap) -> None:
    """Write the map atomically (a reader or a crash sees the old file or the new one)."""
    atomic_write_text(path, screen_map.model_dump_json(indent=1) + "\n")


def set_aside(path: Path | str, now: float | None = None) -> Path:
    """Rename a damaged map out of the way (`memory.map.json` -> `memory.map.damaged-20261126-140512.json`)."""
    p = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    target = p.with_name(f"{p.name.removesuffix(SUFFIX)}.map.damaged-{stamp}.json")
    n = 1
    while target.exists():
        n += 1
        target = p.with_name(f"{p.name.removesuffix(SUFFIX)}.map.damaged-{stamp}-{n}.json")
    p.rename(target)
    return target


def open_map(path: Path | str) -> tuple[ScreenMap, str]:
    """The map to go on with, and what a person should be told ("" when nothing): a damaged file is set aside and
    a new map started."""
    try:
        return load_map(path), ""
    except MapError as exc:
        try:
            kept = set_aside(path)
        except OSError as err:
            raise MapError(f"{exc}; and it could not be set aside ({err.strerror or err})") from None
        return ScreenMap(), f"{exc}: set aside as {kept.name}; a new map is started"
