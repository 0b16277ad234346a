"""The state a run carries from one turn to the next, saved after every turn so `--resume` can go on.

`checkpoint.json` (atomic) is written after a turn's JSON log and its SQLite row, never before: a turn
log newer than the checkpoint is a turn the run did not finish (resume.py sets it aside). It holds
exactly what the loop carries between turns (ARCHITECTURE.md, "One turn"): history as stored records
(the folded summary, the memory snapshot in `system`, the past turns with their verbatim messages), so
a resumed request renders the same bytes; the pending input action and the tool results owed to the
model; the stuck detector's counts; the run totals; the memory folder as the model last knew it; where the run
plays (`RunSetup`: the device, the adb server, the API's URL, the memory folder; never the key); and an opaque
`env` of the caller's own (the demo's simulated game and its stand-in's signing key).

The loop's own state is `LoopState` (loop/state.py): its `Carried` part is saved here field for field;
counters of failures in a row (model errors, refusals, internal errors, the device's outage) are not
kept: they judge one sitting, and a resumed sitting starts them over. History and the stuck detector
save and restore themselves (`saved()` / `restore()`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.atomic import atomic_write_text
from lluma_agent.context.history import HistoryState
from lluma_agent.context.stuck import StuckCounts
from lluma_agent.interrupts import no_interrupt
from lluma_agent.loop.acting import Pending
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.progress import ProgressCounts
from lluma_agent.loop.state import Carried, LoopState
from lluma_agent.loop.stop import disk_error
from lluma_agent.loop.turn import RunTotals
from lluma_agent.model.calls import ToolResult
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.turnlog import TurnLog, TurnLogger

FORMAT = 1  # bump when the fields below change meaning; an older checkpoint is refused, not misread

EnvState = Callable[[], dict[str, Any]]


class RunSetup(BaseModel):
    """Where the run plays, so `lluma run --resume` in a fresh shell goes on there (loop/setup.py): the device as
    adb named it when the run found it, the adb server, the API's base URL and the memory folder. Never the API key:
    only the name of the variable that held it."""

    serial: str | None = None
    connect: str | None = None  # the host:port `adb connect`ed first (an emulator)
    adb_host: str
    adb_port: int
    base_url: str | None = None  # None: Anthropic's API
    api_key_env: str = "ANTHROPIC_API_KEY"
    memory_dir: str | None = None  # absolute


class Checkpoint(BaseModel):
    format: int = FORMAT
    turn: int = Field(description="The last turn whose JSON log and SQLite row are written.")
    model: str
    layout: str
    written_at: float
    history: HistoryState
    pending: Pending | None = None
    owed: list[ToolResult] = Field(default_factory=list)
    stuck: StuckCounts
    progress: ProgressCounts = Field(default_factory=ProgressCounts)  # the game's clock (loop/progress.py)
    totals: RunTotals
    memory: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="The memory folder as the model last knew it (the state file's form)."
    )
    env: dict[str, Any] = Field(default_factory=dict, description="The caller's own state (the demo's game).")
    setup: RunSetup | None = None  # None: a checkpoint written before it was kept (resumed as configured)


def capture(c: Coordinator, env: dict[str, Any] | None = None, setup: RunSetup | None = None) -> Checkpoint:
    carried = c.state.carried()
    return Checkpoint(
        turn=carried.turn, model=c.cfg.model.name, layout=c.layout.name, written_at=time.time(),
        history=c.history.saved(), pending=carried.pending, owed=list(carried.owed), stuck=c.stuck.saved(),
        progress=c.progress.saved(),
        totals=c.totals.model_copy(update={"stop_reason": "", "stop_kind": None}),
        memory=c.memory.state(), env=env or {}, setup=setup,
    )


def apply(c: Coordinator, cp: Checkpoint) -> None:
    """Put a checkpoint's state into a freshly built coordinator: the next step plays turn `cp.turn + 1`."""
    c.history.restore(cp.history)
    c.stuck.restore(cp.stuck)
    c.state = LoopState.resumed(Carried(turn=cp.turn, pending=cp.pending, owed=tuple(cp.owed)))
    c.totals = cp.totals.model_copy(update={"stop_reason": "", "stop_kind": None})


def save(folder: Path, cp: Checkpoint) -> None:
    with no_interrupt():
        atomic_write_text(RunFolder.at(folder).checkpoint, cp.model_dump_json())


class Checkpointer:
    """The coordinator's `on_turn` hook that saves the checkpoint, only once the turn's log and row are on
    disk (a turn whose log could not be written stays behind the checkpoint, and is played again)."""

    def __init__(self, coordinator: Coordinator, logger: TurnLogger, env: EnvState | None = None,
                 setup: RunSetup | None = None) -> None:
        self.coordinator, self.logger, self.env, self.setup = coordinator, logger, env, setup

    def __call__(self, log: TurnLog, totals: RunTotals) -> None:
        if self.logger.last_written != log.turn:
            return
        try:
            save(self.logger.folder, capture(self.coordinator, self.env() if self.env else None, self.setup))
        except (OSError, ValueError) as exc:
            if disk_error(exc):  # a full or read-only folder ends the run after this turn (the coordinator says so)
                raise
            print(f"turn {log.turn}: the checkpoint could not be written: {exc}", file=sys.stderr, flush=True)
