"""The map on disk: one JSON file beside the memory folder, written atomically after each turn.

Beside the folder, not in it: everything in the memory folder is a memory file sent to the model. The file is
kept across runs and resumes that use the same memory folder. A crash mid-write leaves the old file or the new
one (lluma_agent/atomic.py). A file that cannot be read as a map is never silently replaced: `load_map` raises
`MapError`, and `open_map` sets it aside under a new name (kept for a person to look at) and starts afresh. The
event book is kept the same way (jsonfile.py holds how; shared.py how runs on one memory folder share both).
"""

from __future__ import annotations

from pathlib import Path

from lluma_agent.navmap.jsonfile import BookError, Kind, load_book, open_book, save_book
from lluma_agent.navmap.model import MAP_VERSION, ScreenMap

SUFFIX = ".map.json"
MAP = Kind(ScreenMap, "a screen map", MAP_VERSION, SUFFIX, "map")
MapError = BookError  # a map file that cannot be used; the message names the file and what is wrong


def map_path_for(memory_dir: Path | str, shared_dir: Path | str | None = None) -> Path:
    """`memory/` -> `memory.map.json`, its sibling (never inside: the memory folder is sent to the model); with
    `shared_dir` (memory.shared_dir: devices of a fleet, each with its own memory) `shared_dir/memory.map.json`."""
    folder = Path(shared_dir) / "memory" if shared_dir is not None else Path(memory_dir)
    name = folder.resolve().name if folder.name in ("", ".", "..") else folder.name
    return folder.parent / f"{name}{SUFFIX}"


def load_map(path: Path | str) -> ScreenMap:
    """The map in `path`; an empty map when there is no file; MapError when the file is damaged."""
    return load_book(path, MAP)


def save_map(path: Path | str, screen_map: ScreenMap) -> None:
    """Write the map atomically (a reader or a crash sees the old file or the new one)."""
    save_book(path, screen_map)


def open_map(path: Path | str) -> tuple[ScreenMap, str]:
    """The map to go on with, and what a person should be told ("" when nothing): a damaged file is set aside and
    a new map started."""
    return open_book(path, MAP)

