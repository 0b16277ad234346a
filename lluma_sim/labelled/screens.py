"""Where the labelled real-game screenshots are (tests and benchmarks hold vision to them).

They live outside the repository, in `shared/data/screens` beside it (or above it, for a clone
nested deeper); `LLUMA_SCREENS_DIR` points elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # lluma_sim/labelled/screens.py -> the repository


def screens_dir() -> Path:
    """The folder holding labels.json, or the first place looked at when none is found."""
    if env := os.environ.get("LLUMA_SCREENS_DIR"):
        return Path(env)
    candidates = [parent / "shared" / "data" / "screens" for parent in REPO.parents]
    return next((c for c in candidates if (c / "labels.json").is_file()), candidates[0])


def labelled_sources() -> list[Path]:
    """Every labelled folder: `screens_dir()` and its siblings holding a labels.json (screens2, ...).
    `LLUMA_SCREENS_DIRS` (os.pathsep-separated) names them explicitly."""
    if env := os.environ.get("LLUMA_SCREENS_DIRS"):
        return [Path(p) for p in env.split(os.pathsep) if p]
    first = screens_dir()
    if not (first / "labels.json").is_file():
        return []
    siblings = sorted(p for p in first.parent.glob(first.name + "*") if p != first and (p / "labels.json").is_file())
    return [first, *siblings]


def facts_path(source: str) -> Path:
    """The hand labels of the facts on a labelled folder's screens (bench/labels/README.md), by the folder's name."""
    return REPO / "bench" / "labels" / f"{source}.facts.json"
