"""Going on with a run that stopped (`lluma run --resume [DIR]`, `lluma demo --resume DIR`).

`open_point` reads a run folder without changing it: its checkpoint (the last complete turn) and the
files written after it, by a turn the run did not finish (killed between its JSON log, its SQLite row
and the checkpoint, or cut off mid-turn). `set_aside` then renames those to `*.torn` (nothing is lost)
and forgets their SQLite rows, so the turn is played again and never half-used. `restore` puts the
checkpoint into a freshly built coordinator: history, pending action, owed results, stuck counts and
totals as they were; turn numbers go on; the sitting's limits count from here.
"""

from __future__ import annotations

import re
import shlex
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lluma_agent.config import Config
from lluma_agent.loop import checkpoint
from lluma_agent.loop.checkpoint import Checkpoint
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.layouts import CachedLayout
from lluma_agent.runlog import runs
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.runs import LogDirInUse, RunLock, has_files_of_a_run, holds_run
from lluma_agent.runlog.turnlog import TurnLogger, read_turn, rebuild_db
from lluma_facts.registry import RetiredModelError, UnknownModelError, model_spec, usable_model

_NUMBERED = re.compile(r"^turn_(\d+)\.json(?:\.gz)?$")
TORN = ".torn"


class ResumeError(Exception):
    """Nothing to resume there, or a checkpoint this run cannot take. Nothing was changed."""


@dataclass
class ResumePoint:
    folder: Path
    checkpoint: Checkpoint
    torn: list[Path] = field(default_factory=list)  # files of turns after the checkpoint
    another_device: bool = False  # a person allowed it to go on on another device than its own (loop/setup.py)

    @property
    def turn(self) -> int:
        return self.checkpoint.turn


def _number(p: Path) -> int:
    m = _NUMBERED.match(p.name)
    return int(m.group(1)) if m else 0


def newest_run(root: Path) -> Path:
    """The newest run under `root` (`run --resume` without DIR): the one `lluma logs` shows (runs.newest_run)."""
    if (newest := runs.newest_run(root)) is None:
        raise ResumeError(f"no run to resume under {root} (no folder there holds turn logs)")
    return newest


def how_to_go_on(folder: Path, command: str = "lluma run", more: str = "") -> str:
    """The line that tells a person how to go on with a run that stopped: `to go on where it stopped: lluma run
    --resume DIR`, `command` as this lluma runs (lluma_cli/invoked.py); "" when the folder has no checkpoint (no
    turn was finished: nothing to go on with)."""
    if not RunFolder.at(folder).checkpoint.is_file():
        return ""
    return f"to go on where it stopped: {command} --resume {shlex.quote(str(folder))}{f' {more}' if more else ''}"


def _has_row(folder: Path, turn: int) -> bool:
    db_path = RunFolder.at(folder).db
    if not db_path.is_file():
        return False
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT 1 FROM turns WHERE turn = ?", (turn,)).fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        db.close()


class NoCompletedTurn(ResumeError):
    """The folder holds the files of a run that never finished a turn: it can be started over in place."""


def open_point(folder: Path) -> ResumePoint:
    """The run in `folder` as it can be resumed; ResumeError (nothing changed) when it cannot. A turns.sqlite
    that is missing or damaged is rebuilt from the turn logs (they and the checkpoint are the truth)."""
    if not folder.is_dir():
        raise ResumeError(f"no log folder at {folder}")
    if not has_files_of_a_run(folder):
        raise ResumeError(f"{folder} holds no run to resume (no turn logs, turns.sqlite or run.json)")
    try:
        RunLock(folder).release()  # not while another process writes it (build() holds the lock for the run)
    except LogDirInUse as exc:
        raise ResumeError(str(exc)) from None
    cp_path = RunFolder.at(folder).checkpoint
    if not holds_run(folder):
        raise NoCompletedTurn(
            f"{folder} has no {cp_path.name}: the run stopped before finishing its first turn, so there is nothing "
            "to go on with; it can be started over there"
        )
    if not cp_path.is_file():
        raise ResumeError(f"{folder} has no {cp_path.name} although it holds several turns: it was logged by a "
                          "LLuMa without --resume, or the checkpoint was deleted. Start a new run")
    try:
        cp = Checkpoint.model_validate_json(cp_path.read_bytes())
    except (OSError, ValueError, ValidationError) as exc:
        raise ResumeError(f"{cp_path} cannot be read ({str(exc).splitlines()[0]}); start a new run") from None
    if cp.format != checkpoint.FORMAT:
        raise ResumeError(f"{cp_path} has format {cp.format}; this LLuMa reads format {checkpoint.FORMAT}. "
                          "Resume it with the version that made it, or start a new run")
    last = RunFolder.at(folder).turn_log(cp.turn)
    try:
        if read_turn(last).turn != cp.turn:
            raise ValueError(f"it holds another turn than {cp.turn}")
    except (OSError, ValueError, ValidationError) as exc:
        raise ResumeError(f"the checkpoint ends at turn {cp.turn} but {last.name} cannot be read "
                          f"({str(exc).splitlines()[0]}); was the folder changed by hand?") from None
    if not _has_row(folder, cp.turn):  # deleted, truncated, garbage: the turn logs hold every row
        try:
            rebuild_db(folder)
        except (OSError, sqlite3.Error) as exc:
            raise ResumeError(f"turns.sqlite in {folder} is damaged and cannot be rebuilt from the turn logs "
                              f"({type(exc).__name__}: {exc})") from None
        if not _has_row(folder, cp.turn):
            raise ResumeError(f"the checkpoint ends at turn {cp.turn} but the turn logs rebuilt into turns.sqlite "
                              "have no row for it; was the folder changed by hand?")
    run = RunFolder.at(folder)
    later = [*run.turn_logs(), *run.stored_requests()]
    return ResumePoint(folder, cp, sorted((p for p in later if _number(p) > cp.turn), key=_number))


def check_settings(point: ResumePoint, cfg: Config) -> None:
    """The settings a checkpoint's history depends on must not change (a model's thinking is its own), except
    the model of a run whose model has since retired: any current model goes on with it, its history kept as
    text (`moves_model`); the error names the replacement."""
    cp = point.checkpoint
    retired = _retired(cp.model)
    if retired is not None and cp.model == cfg.model.name:
        new = retired.replacement
        instead = f"--model {new}" if new else "--model MODEL (`lluma models` lists the current ones)"
        raise ResumeError(f"the run in {point.folder} was played with {cp.model}, retired on "
                          f"{model_spec(cp.model).retires}; go on with {new or 'a current model'}: add {instead} "
                          "(its history is then sent as text)")
    if cp.model != cfg.model.name and retired is None:
        raise ResumeError(f"the run in {point.folder} was played with {cp.model}; resuming it with "
                          f"{cfg.model.name} is not possible (set model.name: {cp.model}, or start a new run)")
    if cp.layout != CachedLayout.name:  # a benchmark's run (bench/baseline_layout.py): its layout is not the agent's
        raise ResumeError(f"the run in {point.folder} used a benchmark's context layout ({cp.layout}); it cannot be "
                          "resumed")


def _retired(model: str) -> RetiredModelError | None:
    try:
        usable_model(model)
    except RetiredModelError as exc:
        return exc
    except UnknownModelError:
        return None  # check_model names it at start
    return None


def moves_model(point: ResumePoint, cfg: Config) -> bool:
    """The resumed run goes on with another model than the one that played it (allowed once that one retired)."""
    return point.checkpoint.model != cfg.model.name


def _aside(p: Path) -> Path:
    target, n = p.with_name(p.name + TORN), 1
    while target.exists():
        n += 1
        target = p.with_name(f"{p.name}{TORN}-{n}")
    p.rename(target)
    return target


def set_aside(point: ResumePoint, logger: TurnLogger) -> list[str]:
    """Rename the files of turns after the checkpoint to `*.torn` and forget their rows; one warning per turn."""
    moved = _set_aside(point.folder, point.torn, point.turn, logger)
    return [f"turn {n} was not finished (it is newer than the checkpoint of turn {point.turn}); set aside as "
            f"{', '.join(names)}, and played again" for n, names in moved]


def start_over(folder: Path, logger: TurnLogger) -> list[str]:
    """A folder whose run never completed a turn: its turn files set aside (`*.torn`), so a run starts there."""
    run = RunFolder.at(folder)
    files = sorted([*run.turn_logs(), *run.stored_requests()], key=_number)
    return [f"turn {n} of a run that completed no turn: set aside as {', '.join(names)}; starting over"
            for n, names in _set_aside(folder, files, 0, logger)]


def _set_aside(folder: Path, files: list[Path], after: int, logger: TurnLogger) -> list[tuple[int, list[str]]]:
    """Whole or not at all: the rows after `after` go first (one transaction), then the renames; a rename that
    fails (a full disk) puts back the ones done, so the folder is as it was and can be tried again."""
    logger.forget_after(after)
    done: list[tuple[Path, Path]] = []
    try:
        for p in files:
            done.append((p, _aside(p)))
    except OSError:
        for original, moved in reversed(done):
            moved.rename(original)
        raise
    by_turn: dict[int, list[str]] = {}
    for p, moved in done:
        by_turn.setdefault(_number(p), []).append(moved.relative_to(folder).as_posix())
    return sorted(by_turn.items())


def paused(c: Coordinator) -> bool:
    """The checkpoint is of a run the ladder paused: its failed ladders reached recovery.max_cycles, or its streak
    is at the pause with no rung climbed (no ladder: max_cycles 0, then or now). A run stopped while the coordinator
    climbed its rungs (Ctrl+C, a kill, a limit) has a streak at "pause" too, and goes on up the ladder where it was."""
    rc, stuck = c.cfg.recovery, c.stuck
    return (stuck.state().level == "pause" and stuck.climbed == 0) or 0 < rc.max_cycles <= len(stuck.failed)


def restore(point: ResumePoint, c: Coordinator) -> None:
    """The checkpoint into a freshly built coordinator. `run.max_turns` and `run.max_cost_usd` then count from
    here (N more turns, that many more dollars: `Coordinator.before`, and the stop says "12 more"); the totals stay
    the whole run's."""
    cp = point.checkpoint
    checkpoint.apply(c, cp)
    if moves_model(point, c.cfg):  # the kept turns' thinking is the retired model's own: sent as text from now
        c.history.drop_thinking()
    if paused(c):  # a person resuming a run paused as stuck has looked at it
        c.stuck.unchanged, c.stuck.screens, c.stuck.actions = 0, [], []
        c.stuck.climbed, c.stuck.failed, c.stuck.starts = 0, [], []  # and the ladder starts afresh
    c.before = c.totals.model_copy(deep=True)
