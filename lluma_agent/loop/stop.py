"""Why a run ended, as a kind, and the exit status each kind gives (one table, read by README's test).

The loop ends a run by raising `RunEnded(kind, reason)`: the kind decides the exit status, the reason is
the sentence a person reads (in the summary line, `run.json`, `lluma stats`). Nothing decides from the words.
"""

from __future__ import annotations

import errno
import sqlite3
from enum import StrEnum


class StopKind(StrEnum):
    MAX_TURNS = "max_turns"  # run.max_turns reached (every turn counts, failed ones too)
    MAX_COST = "max_cost"  # run.max_cost_usd reached
    PERSON = "person"  # Ctrl+C or SIGTERM: stopped after the turn
    PERSON_NOW = "person_now"  # a second Ctrl+C: stopped at once (files consistent)
    STUCK = "stuck"  # paused: still stuck after forced actions
    MODEL = "model"  # model calls failed: non-retryable errors in a row, or the API away too long
    DEVICE = "device"  # the device did not come back, or gave no usable frame for too long
    REFUSALS = "refusals"  # the model refused several turns in a row
    INTERNAL = "internal"  # several turns in a row hit a bug (their turn logs say where)
    DISK = "disk"  # the log or memory folder could not be written (a full disk, a read-only folder)
    CRASHED = "crashed"  # the run ended without a stop (its run.json written on the way out)
    MAX_CAREERS = "max_careers"  # run.max_careers careers ended (`--careers N`)
    MAX_HOURS = "max_hours"  # run.max_hours hours played (`--hours H`)
    SESSION = "session"  # the game said the account logged in elsewhere ("Session Error"): a person must look
    GAME_START = "game_start"  # the game could not be started game.start_tries times in a row (not installed?)
    NO_PROGRESS = "no_progress"  # the game's clock did not move for run.progress_after turns, the ladder climbed


class StopFlag:
    """A person's stop (Ctrl+C, `q` at a prompt), set once and read by every part that waits or walks (the
    coordinator before each turn and in its waits, the navigator before each goTo step)."""

    def __init__(self) -> None:
        self.requested = False

    def set(self) -> None:
        self.requested = True


# exit statuses as README says them (definitions): 0 ended as asked, 1 failed, 3 stuck, 4 no progress
OK_EXIT = 0
FAILED_EXIT = 1
STUCK_EXIT = 3
NO_PROGRESS_EXIT = 4
PERSON_NOW_EXIT = 130  # 128 + SIGINT: what a shell reports for a command stopped by Ctrl+C

EXIT_STATUS: dict[StopKind, int] = {
    StopKind.MAX_TURNS: OK_EXIT,
    StopKind.MAX_COST: OK_EXIT,
    StopKind.PERSON: OK_EXIT,
    StopKind.PERSON_NOW: PERSON_NOW_EXIT,
    StopKind.STUCK: STUCK_EXIT,
    StopKind.MODEL: FAILED_EXIT,
    StopKind.DEVICE: FAILED_EXIT,
    StopKind.REFUSALS: FAILED_EXIT,
    StopKind.INTERNAL: FAILED_EXIT,
    StopKind.DISK: FAILED_EXIT,
    StopKind.CRASHED: FAILED_EXIT,
    StopKind.MAX_CAREERS: OK_EXIT,
    StopKind.MAX_HOURS: OK_EXIT,
    StopKind.SESSION: FAILED_EXIT,
    StopKind.GAME_START: FAILED_EXIT,
    StopKind.NO_PROGRESS: NO_PROGRESS_EXIT,
}

START_EXIT = 2  # refused at start: configuration, log folder, resume point (one line naming the key)


def exit_status(kind: StopKind | str | None) -> int:
    """The exit status of a run that ended for `kind`; a run with no kind did not end properly (1)."""
    if kind is None or kind == "":
        return FAILED_EXIT
    return EXIT_STATUS[StopKind(kind)]


class RunEnded(Exception):
    """Terminating: the run stops, with its kind and the sentence that says why."""

    def __init__(self, kind: StopKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO})


def disk_error(exc: BaseException) -> bool:
    """A write the folder refused (full, over quota, read-only, no permission), as opposed to a bug."""
    if isinstance(exc, OSError):
        return exc.errno in _DISK_ERRNOS
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return any(w in text for w in ("disk is full", "readonly", "read-only", "disk i/o error", "unable to open"))
    return False
