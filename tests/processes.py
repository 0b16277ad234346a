"""Is a process still running: what a test of killed commands checks (notify's process groups)."""

from __future__ import annotations

import time
from pathlib import Path


def running(pid: int) -> bool:
    """The process runs; a zombie runs no more (only its parent's reaping is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def all_gone(pids: list[int], within_s: float = 5.0) -> bool:
    """Every pid has stopped running within `within_s`: a SIGKILL is delivered at once, the exit a moment later."""
    deadline = time.monotonic() + within_s
    while any(running(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
