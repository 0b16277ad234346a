"""Run folders: every run writes into a folder of its own, and two runs never share one.

`new_run_dir` makes `logs/run-20261123-101500` (then `-2`, `-3`... when that name is taken) with an
exclusive mkdir, so two runs started in the same second, even in two processes, get two folders.
`check_fresh` refuses a folder that already holds a run unless the caller resumes it.
"""

from __future__ import annotations

import time
from pathlib import Path

RUN_MARKERS = ("turn_*.json", "turns.sqlite", "run.json")


class LogDirInUse(Exception):
    """The log folder already holds a run; writing into it would mix two runs. Nothing was written."""


def holds_run(folder: Path) -> bool:
    return folder.is_dir() and any(any(folder.glob(m)) for m in RUN_MARKERS)


def check_fresh(folder: Path, resume: bool = False) -> None:
    """Refuse a folder that holds a run (turn logs, turns.sqlite or run.json), unless resuming it."""
    if resume or not holds_run(folder):
        return
    turns = len(list(folder.glob("turn_*.json")))
    raise LogDirInUse(
        f"{folder} already holds a run ({turns} turn log(s)); a second run there would mix the two. "
        "Choose another folder, or leave the option out and a new folder is made"
    )


def new_run_dir(root: Path, prefix: str = "run", now: float | None = None) -> Path:
    """A new, empty folder `root/<prefix>-<YYYYmmdd-HHMMSS>[-n]`, created here (exclusively)."""
    root.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    for n in range(1, 10_000):
        path = root / (f"{prefix}-{stamp}" if n == 1 else f"{prefix}-{stamp}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise LogDirInUse(f"no free run folder name for {prefix}-{stamp} in {root}")
