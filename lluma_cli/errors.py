"""How a command fails in front of a person: one line, never a traceback.

`one_line` turns an exception into the line a person reads. `main` catches what no command caught (a bug)
and prints one line naming the file that keeps the traceback, so the bug can still be reported whole.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from lluma_sim.game.calendar import MAX_CAREER_TURNS

INTERNAL_EXIT = 1  # README's exit statuses: 1, a failure (an internal error among them)
INTERRUPTED_EXIT = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl+C


def one_line(exc: BaseException) -> str:
    """The exception as one line: an OSError names its file; a message over several lines is joined."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename is not None else ""
        return f"{where}{exc.strerror}"
    return " ".join(str(exc).split()) or type(exc).__name__


def keep_traceback(command: str, exc: BaseException) -> Path | None:
    """The full traceback in a file of its own (for a bug report); None when even that cannot be written."""
    text = "".join(traceback.format_exception(exc))
    try:
        with tempfile.NamedTemporaryFile("w", prefix=f"lluma-{command}-{time.strftime('%Y%m%d-%H%M%S')}-",
                                         suffix=".txt", delete=False, encoding="utf-8") as fh:
            fh.write(text)
        return Path(fh.name)
    except OSError:
        return None


def internal_error(command: str, exc: BaseException) -> str:
    """The one line for a bug: what it was, and where its traceback is kept."""
    kept = keep_traceback(command, exc)
    where = f"; traceback in {kept}" if kept else ""
    return f"lluma {command}: internal error: {type(exc).__name__}: {one_line(exc)}{where} (a bug: please report it)"




def career_length(text: str) -> int:
    """An argparse type for a simulated career's length in game turns: 1 to MAX_CAREER_TURNS. Only the check: each
    command keeps its own default."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of game turns, got {text!r}") from None
    if not 1 <= value <= MAX_CAREER_TURNS:
        raise argparse.ArgumentTypeError(f"a career lasts 1 to {MAX_CAREER_TURNS:,} game turns (78 is the real "
                                         f"game's), got {value:,}")
    return value


class OneLineParser(argparse.ArgumentParser):
    """A command's arguments, a bad one refused in one line (exit 2), not argparse's usage block before it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def at_least_one(text: str) -> int:
    """An argparse type for a count of turns: a whole number of at least 1 (0 would mean no limit at all)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def rate(per: str) -> Callable[[str], float]:
    """An argparse type for a rate between 0 and 1, `per` naming its unit ("faults per turn")."""
    import argparse

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {per}, got {text!r}") from None
        if not 0.0 <= value <= 1.0:
            raise argparse.ArgumentTypeError(f"must be between 0 and 1 {per}, got {text}")
        return value

    return parse


def hours(text: str) -> float:
    """An argparse type for a time limit in hours: more than 0, at most a year."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of hours, got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= 8_760:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 8760 hours, got {text}")
    return value


def dollars(text: str) -> float:
    """An argparse type for a budget in dollars: a finite number, not negative."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of dollars, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of dollars, 0 or more, got {text}")
    return value


def disk_line(where: object, exc: BaseException) -> str:
    """A write the folder refused, naming the file (or the folder) once: `cannot write X: Read-only file system`."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"cannot write {exc.filename if exc.filename is not None else where}: {exc.strerror}"
    return f"cannot write {where}: {one_line(exc)}"


def start_failed(prog: str, where: object, exc: Exception) -> int:
    """A run that cannot start (`lluma run`, `lluma demo`): one line and README's exit status: 2 for
    configuration, a used or unresumable folder, a model that cannot be used; 1 for a device away or a folder
    that refuses writes (named once). Anything else is a bug and is raised again."""
    import sys

    from lluma_agent.config import ConfigError
    from lluma_agent.device.protocol import DeviceError
    from lluma_agent.loop.resume import ResumeError
    from lluma_agent.loop.stop import FAILED_EXIT, START_EXIT, disk_error
    from lluma_agent.model.claude import ModelError
    from lluma_agent.runlog.runs import LogDirInUse

    if disk_error(exc):
        print(f"lluma {prog}: {disk_line(where, exc)}", file=sys.stderr)
        return FAILED_EXIT
    if not isinstance(exc, ConfigError | ModelError | DeviceError | LogDirInUse | ResumeError | OSError):
        raise exc
    print(f"lluma {prog}: {one_line(exc)}", file=sys.stderr)
    return FAILED_EXIT if isinstance(exc, DeviceError) else START_EXIT
