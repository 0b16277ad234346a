"""Stuck detection and the recovery ladder: actions that leave the screen unchanged, or an A-B-A-B loop between
two screens, and what is done about them.

Levels rise with the streak: "warn" puts a warning into the current turn, "force" makes the coordinator take a
different kind of action instead of the model's; at "pause" the model's rungs are spent and the coordinator climbs
the rest of the ladder itself, one rung a turn and no model call: `back`, `safe_tap`, `restart` (the game stopped
and started again; only where the device can), `wait` (recovery.wait_s). The ladder goes back to its first rung
only after `recovery.calm_turns` turns in a row without being stuck: a game that is stuck again soon after a
rung (a restart that leads back to the same screen) goes on up the same ladder. A ladder climbed to its top in
vain starts over from "warn" (the detector forgets the streak), and counts as failed; the run pauses only once
`recovery.max_cycles` ladders failed within `recovery.window_s` (max_cycles 0: no ladder, the run pauses at
"pause" as it always did). A turn on one of the coordinator's rungs is logged with level "recover"; only the turn
that pauses has "pause".

A game that keeps stopping (killed from outside, crashing at once) is started again on most turns and shows a new
screen each time, so no streak builds: the ladder counts those starts instead, and `recovery.max_starts` of them
within `recovery.calm_turns` turns count as a ladder climbed in vain, toward the same pause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from lluma_agent.sentences import say

Level = Literal["ok", "warn", "force", "recover", "pause"]
Does = Literal["warn", "force", "input", "restart", "wait"]


@dataclass(frozen=True)
class Rung:
    """One rung of the recovery ladder: a new rung is one entry of `LADDER`. `does` says who acts and how: the
    model warned (`warn`) or its input replaced (`force`), else the coordinator's own turn (no model call): an input
    (`tool`, planned with its default arguments, through the guard and a person in the loop), the game started
    again (`restart`, only where the device can) or a wait (`wait`, recovery.wait_s). `what` names it for the model
    (the ladder told whole when it failed: `ladder_over`); `said` is the sentence (sentences.yaml) the model reads of
    it when it is taken."""

    name: str
    does: Does
    what: str
    said: str
    tool: str = ""

    @property
    def own(self) -> bool:
        """The coordinator's own rung, one a turn once the model's are spent."""
        return self.does not in ("warn", "force")


LADDER: tuple[Rung, ...] = (  # bottom to top
    Rung("warn", "warn", "warning", "stuck_warning"),
    Rung("force", "force", "forced action", "forced"),
    Rung("back", "input", "back", "rung_ran", tool="back"),
    Rung("safe_tap", "input", "a safe tap", "rung_ran", tool="safeTap"),
    Rung("restart", "restart", "restarting the game", "rung_restarted"),
    Rung("wait", "wait", "waiting", "rung_waited_alone"),
)
RUNGS = tuple(r.name for r in LADDER)  # the names a turn log's `recovery.rung` counts (stats, careers)
OWN_RUNGS = tuple(r.name for r in LADDER if r.own)  # the coordinator's own, one a turn, no model call
ENDS = ("over", "pause")  # a ladder climbed in vain: from the bottom again (over), or the run pauses


def own_rungs(can_restart: bool) -> list[Rung]:
    """The rungs the coordinator takes itself, bottom to top (a restart only where the game can be started)."""
    return [r for r in LADDER if r.own and (r.does != "restart" or can_restart)]


def rung(name: str) -> Rung:
    """The ladder's rung `name` (KeyError for one the ladder does not have)."""
    for r in LADDER:
        if r.name == name:
            return r
    raise KeyError(name)


def on_ladder(name: str) -> bool:
    """A rung of the ladder (a turn counted in the run's recoveries), not one of ENDS."""
    return any(r.name == name for r in LADDER)


def ladder_words() -> str:
    """The whole ladder as the model is told of it: "warning, forced action, back, ..."."""
    return ", ".join(r.what for r in LADDER)


class Climb(BaseModel):
    """What the ladder does this turn, once the model's rungs are spent: an own rung's name, or one of ENDS."""

    rung: str  # over: failed, starting again from warn
    failed: int = 0  # ladders climbed in vain within the window, this one included (over, pause)

    @field_validator("rung")
    @classmethod
    def _on_the_ladder(cls, name: str) -> str:
        known = (*(r.name for r in LADDER if r.own), *ENDS)
        if name not in known:
            raise ValueError(f"{name!r} is no rung the coordinator climbs ({', '.join(known)})")
        return name


class StuckState(BaseModel):
    level: Level = "ok"
    unchanged_streak: int = 0
    loop_streak: int = 0
    reason: str = ""
    warning: str = ""


class StuckCounts(BaseModel):
    """What the detector has seen (saved in the checkpoint); its thresholds come from the config."""

    unchanged: int
    screens: list[str]
    actions: list[str]
    climbed: int = 0  # the coordinator's rungs taken in the current episode
    calm: int = 0  # turns in a row without being stuck since
    failed: list[float] = Field(default_factory=list)  # epoch times of ladders climbed in vain (within the window)
    starts: list[int] = Field(default_factory=list)  # turns the game had to be started again on (not by the ladder)


def _equal(a: str, b: str) -> bool:
    return a == b


class StuckDetector:
    def __init__(
        self, warn_after: int = 3, force_after: int = 6, pause_after: int = 10,
        same: Callable[[str, str], bool] = _equal,
    ) -> None:
        """`same(a, b)` says whether two screen hashes are the same screen (the coordinator passes the
        perceptual-distance test it uses everywhere else)."""
        self.warn_after, self.force_after, self.pause_after = warn_after, force_after, pause_after
        self.same = same
        self.unchanged = 0
        self.screens: list[str] = []  # screen hash before each action
        self.actions: list[str] = []  # action signature per turn
        self.climbed = 0  # the coordinator's rungs taken in this episode (OWN_RUNGS, restart left out where it cannot)
        self.calm = 0  # turns in a row without being stuck (recovery.calm_turns of them end the episode)
        self.failed: list[float] = []  # epoch times of ladders climbed in vain (a resumed run keeps them)
        self.starts: list[int] = []  # turns the game had to be started again on, within the last calm turns

    def record(self, screen_hash: str, action: str, changed: bool | None) -> None:
        """One finished action: the screen it was taken on, what it was, whether the screen changed."""
        if changed is None:  # no input action this turn (memory only, or an error): not evidence either way
            return
        self.unchanged = 0 if changed else self.unchanged + 1
        self.screens = (self.screens + [screen_hash])[-12:]
        self.actions = (self.actions + [action])[-12:]

    def forget_loop(self) -> None:
        """The screens and actions so far are no loop of the agent's: the game said to come back later, and the
        coordinator waits between its tries (a maintenance: title -> notice -> title)."""
        self.screens, self.actions = [], []

    def saved(self) -> StuckCounts:
        return StuckCounts(unchanged=self.unchanged, screens=list(self.screens), actions=list(self.actions),
                           climbed=self.climbed, calm=self.calm, failed=list(self.failed), starts=list(self.starts))

    def restore(self, counts: StuckCounts) -> None:
        self.unchanged, self.screens, self.actions = counts.unchanged, list(counts.screens), list(counts.actions)
        self.climbed, self.calm, self.failed = counts.climbed, counts.calm, list(counts.failed)
        self.starts = list(counts.starts)

    def climb(self, can_restart: bool, max_cycles: int, window_s: float, now: float) -> Climb:
        """The coordinator's rung for a turn whose level is "pause" (see the module's docstring). `now` is epoch
        time, so failed ladders in a checkpoint still count in a resumed run's window."""
        if max_cycles == 0:
            return Climb(rung="pause")
        rungs = [r.name for r in own_rungs(can_restart)]
        self.calm = 0
        if self.climbed < len(rungs):
            self.climbed += 1
            return Climb(rung=rungs[self.climbed - 1])
        climb = self._in_vain(max_cycles, window_s, now)
        if climb.rung == "over":
            self.unchanged, self.screens, self.actions, self.climbed = 0, [], [], 0  # from the bottom again
        return climb

    def _in_vain(self, max_cycles: int, window_s: float, now: float) -> Climb:
        """A ladder climbed in vain: the run pauses once `max_cycles` of them fell within `window_s`."""
        self.failed = [t for t in self.failed if now - t < window_s] + [now]
        if len(self.failed) >= max_cycles:
            return Climb(rung="pause", failed=len(self.failed))
        return Climb(rung="over", failed=len(self.failed))

    def game_started(self, turn: int, max_starts: int, within: int, max_cycles: int, window_s: float, now: float
                     ) -> Climb | None:
        """The game had to be started again on `turn` (it was not in the foreground). The `max_starts`th start within
        `within` turns is a ladder climbed in vain ("over", or "pause" as `climb` decides; at once with
        max_cycles 0); None before."""
        self.starts = [t for t in self.starts if turn - t < within] + [turn]
        if len(self.starts) < max_starts:
            return None
        self.starts = []
        return Climb(rung="pause") if max_cycles == 0 else self._in_vain(max_cycles, window_s, now)

    def settled(self, calm_turns: int) -> None:
        """A turn that is not stuck: after `calm_turns` of them in a row the episode is over, and the next one
        climbs from the bottom."""
        self.calm += 1
        if self.calm >= calm_turns:
            self.climbed = 0

    def unsettled(self) -> None:
        """A turn on the model's rungs (warn, force): not calm."""
        self.calm = 0

    def _loop_len(self) -> int:
        """Length of the trailing run where screens alternate between exactly two (A-B-A-B)."""
        s = self.screens
        if len(s) < 4 or self.same(s[-1], s[-2]):
            return 0
        n = 2
        while n < len(s) and self.same(s[-1 - n], s[-1 - (n % 2)]):
            n += 1
        return n if n >= 4 else 0

    def state(self) -> StuckState:
        loop = self._loop_len()
        streak = max(self.unchanged, loop)
        if streak < self.warn_after:
            return StuckState(unchanged_streak=self.unchanged, loop_streak=loop)
        if self.unchanged >= loop:
            reason = f"the last {self.unchanged} actions did not change the screen"
        else:
            reason = f"the last {loop} screens alternate between the same two (A-B-A-B loop)"
        level: Level = "warn"
        if streak >= self.pause_after:
            level = "pause"
        elif streak >= self.force_after:
            level = "force"
        warning = say(rung("warn").said, reason=reason, recent=", ".join(self.actions[-4:]))
        return StuckState(level=level, unchanged_streak=self.unchanged, loop_streak=loop, reason=reason,
                          warning=warning)
