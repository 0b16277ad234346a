"""Every name in a run folder, in one place.

    turn_000012.json            the turn log (TURN_GLOB), written last for its turn
    turns.sqlite                one row per turn and the full-text index (rebuilt from the turn logs if lost)
    run.json                    why and how the run ended
    checkpoint.json             what a resume goes on with; a folder without one completed no turn
    screens/turn_000012.jpg     the turn's screenshot (the newest logs.keep_screenshots are kept)
    requests/turn_000012.json.gz  the request as sent; requests/images/<digest>.<ext> each image sent, once
    memory_at_start.json        the memory folder as the run found it; memory_at_turn_N.json for a resume at N
    .lluma-run.lock             held while a process writes the folder

The root is `logs.dir` (a run writes run-<time>/ inside it; logread.default_root). Modules that write or read
these files take their names from here, never spell them.
"""

from __future__ import annotations

from pathlib import Path

TURN_GLOB = "turn_*.json"
DB_FILE = "turns.sqlite"
SUMMARY_FILE = "run.json"
CHECKPOINT = "checkpoint.json"
SCREENS_DIR = "screens"
REQUESTS_DIR = "requests"
IMAGES_DIR = "images"  # under requests/
LOCK_FILE = ".lluma-run.lock"
MEMORY_AT_START = "memory_at_start.json"
MEMORY_AT_TURN_GLOB = "memory_at_turn_*.json"
REQUEST_GLOB = "turn_*.json.gz"  # under requests/


def turn_log(folder: Path, turn: int) -> Path:
    return Path(folder) / f"turn_{turn:06d}.json"


def screenshot(folder: Path, turn: int) -> Path:
    return Path(folder) / SCREENS_DIR / f"turn_{turn:06d}.jpg"


def request(folder: Path, turn: int) -> Path:
    return Path(folder) / REQUESTS_DIR / f"turn_{turn:06d}.json.gz"


def memory_at_turn(turn: int) -> str:
    """The memory snapshot's name for a sitting resumed at `turn`."""
    return f"memory_at_turn_{turn:06d}.json"


def resumed_at(path: Path) -> int | None:
    """The turn a `memory_at_turn_N.json` was written for, or None for any other name."""
    digits = path.stem.rsplit("_", 1)[-1]
    return int(digits) if path.name.startswith("memory_at_turn_") and digits.isdigit() else None
