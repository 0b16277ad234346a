"""The state a run carries from one turn to the next, saved after every turn so `--resume` can go on.

`checkpoint.json` (atomic) is written after a turn's JSON log and its SQLite row, never before: a turn
log newer than the checkpoint is a turn the run did not finish (resume.py sets it aside). It holds
exactly what the loop carries between turns (ARCHITECTURE.md, "One turn"): history as stored records
(the folded summary, the memory snapshot in `system`, the past turns with their verbatim messages), so
a resumed request renders the same bytes; the pending input action and the tool results owed to the
model; the stuck detector's counts; the run totals; the memory folder as the model last knew it; and
an opaque `env` of the caller's own (the demo's simulated game and its stand-in's signing key).

Counters of failures in a row (model errors, refusals, internal errors, the device's outage) are not
kept: they judge one sitting, and a resumed sitting starts them over.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.atomic import atomic_write_text
from lluma_agent.context.history import PastTurn
from lluma_agent.interrupts import no_interrupt
from lluma_agent.loop.acting import Pending
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.stop import disk_error
from lluma_agent.loop.turn import RunTotals
from lluma_agent.model.calls import ToolResult
from lluma_agent.runlog.runs import CHECKPOINT
from lluma_agent.runlog.turnlog import TurnLog, TurnLogger

CHECKPOINT_FILE = CHECKPOINT  # runlog.runs names it: a folder without one has no completed turn
FORMAT = 1  # bump when the fields below change meaning; an older checkpoint is refused, not misread

EnvState = Callable[[], dict[str, Any]]


class HistoryState(BaseModel):
    """`History` as stored: rendering is a pure function of these, so the rebuilt prefix is byte-identical."""

    turns: list[PastTurn]
    summary: str
    seen: dict[str, int]
    folds: int
    memory: str | None  # the memory snapshot in `system` (refreshed only at folds)


class StuckCounts(BaseModel):
    unchanged: int
    screens: list[str]
    actions: list[str]


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
    totals: RunTotals
    memory: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="The memory folder as the model last knew it (the state file's form)."
    )
    env: dict[str, Any] = Field(default_factory=dict, description="The caller's own state (the demo's game).")


def capture(c: Coordinator, env: dict[str, Any] | None = None) -> Checkpoint:
    h, s = c.history, c.stuck
    return Checkpoint(
        turn=c.turn, model=c.cfg.model.name, layout=c.cfg.context.layout, written_at=time.time(),
        history=HistoryState(turns=list(h.turns), summary=h.summary, seen=dict(h.seen), folds=h.folds,
                             memory=h.memory),
        pending=c.pending, owed=list(c.owed),
        stuck=StuckCounts(unchanged=s.unchanged, screens=list(s.screens), actions=list(s.actions)),
        totals=c.totals.model_copy(update={"stop_reason": "", "stop_kind": None}),
        memory=c.memory.state(), env=env or {},
    )


def apply(c: Coordinator, cp: Checkpoint) -> None:
    """Put a checkpoint's state into a freshly built coordinator: the next step plays turn `cp.turn + 1`."""
    h = c.history
    h.turns, h.summary, h.seen = list(cp.history.turns), cp.history.summary, dict(cp.history.seen)
    h.folds, h.memory = cp.history.folds, cp.history.memory
    c.pending, c.owed = cp.pending, list(cp.owed)
    c.stuck.unchanged, c.stuck.screens, c.stuck.actions = cp.stuck.unchanged, list(cp.stuck.screens), list(
        cp.stuck.actions)
    c.totals = cp.totals.model_copy(update={"stop_reason": "", "stop_kind": None})
    c.turn = cp.turn


def path(folder: Path) -> Path:
    return Path(folder) / CHECKPOINT_FILE


def save(folder: Path, cp: Checkpoint) -> None:
    with no_interrupt():
        atomic_write_text(path(folder), cp.model_dump_json())


class Checkpointer:
    """The coordinator's `on_turn` hook that saves the checkpoint, only once the turn's log and row are on
    disk (a turn whose log could not be written stays behind the checkpoint, and is played again)."""

    def __init__(self, coordinator: Coordinator, logger: TurnLogger, env: EnvState | None = None) -> None:
        self.coordinator, self.logger, self.env = coordinator, logger, env

    def __call__(self, log: TurnLog, totals: RunTotals) -> None:
        if self.logger.last_written != log.turn:
            return
        try:
            save(self.logger.folder, capture(self.coordinator, self.env() if self.env else None))
        except (OSError, ValueError) as exc:
            if disk_error(exc):  # a full or read-only folder ends the run after this turn (the coordinator says so)
                raise
            print(f"turn {log.turn}: the checkpoint could not be written: {exc}", file=sys.stderr, flush=True)
