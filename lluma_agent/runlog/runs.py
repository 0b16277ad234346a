"""Run folders: every run writes into a folder of its own, and two runs never share one.

`new_run_dir` makes `logs/run-20261123-101500` (then `-2`, `-3`... when that name is taken) with an
exclusive mkdir, so two runs started in the same second, even in two processes, get two folders.
`check_fresh` refuses a folder that already holds a run unless the caller resumes it. `RunLock` keeps a
second process out of a folder while a run writes it (a run resumed twice at once would mix two runs).
"""

from __future__ import annotations

import time
from pathlib import Path

from lluma_agent.runlog.folder import RunFolder

try:
    import fcntl
except ImportError:  # Windows: no flock; folders are still made exclusively
    fcntl = None  # type: ignore[assignment]



class LogDirInUse(Exception):
    """The log folder already holds a run; writing into it would mix two runs. Nothing was written."""


def holds_run(folder: Path) -> bool:
    """A completed turn is there (its checkpoint), or turn logs of more than one turn (a run logged without
    checkpoints). A folder with neither (a run killed in its first turn, or started on a full disk) can be
    started over: its turn files are set aside (`resume.start_over`)."""
    if not folder.is_dir():
        return False
    run = RunFolder.at(folder)
    return run.checkpoint.is_file() or len(run.turn_logs()) > 1


def has_files_of_a_run(folder: Path) -> bool:
    run = RunFolder.at(folder)
    return folder.is_dir() and (run.has_turn_logs() or run.db.exists() or run.summary.exists())


def check_fresh(folder: Path, resume: bool = False) -> None:
    """Refuse a folder that holds a run (turn logs, turns.sqlite or run.json), unless resuming it."""
    if resume or not holds_run(folder):
        return
    turns = len(RunFolder.at(folder).turn_logs())
    raise LogDirInUse(
        f"{folder} already holds a run ({turns} turn log(s)); a second run there would mix the two. "
        "Choose another folder, or leave the option out and a new folder is made"
    )


class RunLock:
    """An exclusive lock on a run folder while this process writes it. flock: the system releases it when the
    process ends, even when killed, so a crashed run never leaves its folder locked."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.handle = RunFolder.at(folder).lock.open("a")
        if fcntl is None:
            return
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.handle.close()
            raise LogDirInUse(f"another LLuMa process is writing {folder} right now; let it finish, or stop it "
                              "first") from None

    def release(self) -> None:
        self.handle.close()


def _last_logged(folder: Path) -> tuple[float, str]:
    return max((p.stat().st_mtime for p in RunFolder.at(folder).turn_logs()), default=0.0), folder.name


def runs_newest_first(root: Path) -> list[Path]:
    """The runs under `root` (its folders holding turn logs: `run-*`, `demo-*`, one named with `--logs`), the newest
    first. The newest run is the one whose last turn was logged last (a run resumed today is newer than one started
    yesterday and left), the one meaning of "the newest run" wherever it is said: `lluma logs`, `stats`, `report`,
    `search`, `memory`, `map`, `events` and `lluma run --resume` without a folder (README, "Logs")."""
    found = [d for d in root.iterdir() if d.is_dir() and RunFolder.at(d).has_turn_logs()] if root.is_dir() else []
    return sorted(found, key=_last_logged, reverse=True)


def newest_run(root: Path) -> Path | None:
    """The newest run under `root` (runs_newest_first), or None when it holds none."""
    return next(iter(runs_newest_first(root)), None)


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
