"""The game's clock: a run's progress is the career's turn or date moving on, a race run, a career ended; never the
screen changing (a survey, a walk to a list and back, a dialog opened and shut all change the screen).

`ProgressWatch` is fed every turn log (the reading as the model saw it, the turn's cost) and counts the agent
turns and dollars since the game's clock last moved. A turn the game itself asked to wait (a notice to come back
later, waited out on a routine pass) is not counted: a maintenance is the game's time, not the agent's. The watch
says `warn` from `run.progress_warn_after` turns (the model is told what has not moved), `climb` from
`run.progress_after` (the coordinator climbs the recovery ladder's own rungs, one a turn) and `stop` once they are
spent: the run ends with stop kind `no_progress`. Dollars count too: once the run has seen `MIN_GAME_TURNS` game
turns, a stretch that has cost `run.progress_cost_factor` times the run's median per game turn climbs as well.
"""

from __future__ import annotations

import statistics
from typing import Literal

from pydantic import BaseModel, Field

from lluma_agent.config import RunConfig
from lluma_agent.runlog.careers import CareerBook, view_of
from lluma_agent.runlog.turnlog import TurnLog

# The run's median cost per game turn needs a few game turns behind it before a stretch is judged by it: the first
# game turns of a career carry its setup (choosing a trainee and cards: 4 calls on seed 11's careers bench).
MIN_GAME_TURNS = 5

Level = Literal["ok", "warn", "climb", "stop"]


class ProgressState(BaseModel):
    level: Level = "ok"
    turns: int = 0  # agent turns since the game's clock last moved
    usd: float = 0.0  # dollars spent since then
    at: str = ""  # where the clock stands, in words: "game turn 12, Classic Year Early Apr"
    reason: str = ""  # why this is no progress, for the model and the stop reason


class ProgressCounts(BaseModel):
    """What the watch has seen (saved in the checkpoint)."""

    careers: int = 0
    game_turn: int = 0
    races: int = 0
    dates: list[str] = Field(default_factory=list)  # the dates this career has shown
    turns: int = 0
    usd: float = 0.0
    per_game_turn: list[float] = Field(default_factory=list)  # dollars each stretch between progress cost
    climbed: int = 0  # the ladder's rungs taken for this stretch


class ProgressWatch:
    def __init__(self, cfg: RunConfig, rungs: int) -> None:
        """`rungs`: the coordinator's own rungs it can climb (restart left out where the device cannot)."""
        self.cfg, self.rungs = cfg, rungs
        self.book = CareerBook()
        self.c = ProgressCounts()

    def add(self, log: TurnLog) -> None:
        """One finished turn."""
        self.book.add(log)
        view = view_of(log)
        careers, game_turn, races = self.book.clock()
        date = view.date if view is not None and view.date else None
        moved = (careers > self.c.careers or races > self.c.races or (game_turn or 0) > self.c.game_turn
                 or (date is not None and date not in self.c.dates))
        if careers > self.c.careers:
            self.c.careers, self.c.game_turn, self.c.races, self.c.dates = careers, 0, 0, []
        self.c.game_turn = max(self.c.game_turn, game_turn or 0)
        self.c.races = max(self.c.races, races)
        if date is not None and date not in self.c.dates:
            self.c.dates.append(date)
        if moved:
            if self.c.turns:
                self.c.per_game_turn = [*self.c.per_game_turn, self.c.usd + log.cost.turn_usd][-200:]
            self.c.turns, self.c.usd, self.c.climbed = 0, 0.0, 0
            return
        if log.routine is not None and log.routine.waited_s > 0:  # the game asked to come back later
            return
        self.c.turns += 1
        self.c.usd += log.cost.turn_usd

    def climbed(self) -> None:
        """A rung of the ladder was taken for this stretch."""
        self.c.climbed += 1

    def where(self) -> str:
        if not self.c.game_turn and not self.c.dates:
            return "no career's turn or date has shown"
        parts = [f"game turn {self.c.game_turn}" if self.c.game_turn else "", self.c.dates[-1] if self.c.dates else ""]
        return ", ".join(p for p in parts if p)

    def state(self) -> ProgressState:
        run, c = self.cfg, self.c
        if not run.progress_after:
            return ProgressState(turns=c.turns, usd=c.usd)
        median = statistics.median(c.per_game_turn) if len(c.per_game_turn) >= MIN_GAME_TURNS else 0.0
        costly = bool(median and run.progress_cost_factor and c.usd > run.progress_cost_factor * median)
        reason = (f"the game's clock has not moved for {c.turns} agent turns and ${c.usd:.4f} (still at "
                  f"{self.where()})")
        if costly:
            reason += f": {c.usd / median:.0f} times the run's median cost of a game turn"
        if c.turns >= run.progress_after or costly:
            level: Level = "climb" if c.climbed < self.rungs else "stop"
        elif c.turns >= run.progress_warn_after:
            level = "warn"
        else:
            return ProgressState(turns=c.turns, usd=c.usd, at=self.where())
        return ProgressState(level=level, turns=c.turns, usd=c.usd, at=self.where(), reason=reason)

    def saved(self) -> ProgressCounts:
        return self.c.model_copy(deep=True)

    def restore(self, counts: ProgressCounts, turns: list[TurnLog]) -> None:
        """A resumed run: the book refolded from the turns before the checkpoint, the counts as they were."""
        for t in sorted(turns, key=lambda t: t.turn):
            self.book.add(t)
        self.c = counts.model_copy(deep=True)
