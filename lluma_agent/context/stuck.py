"""Stuck detection: actions that leave the screen unchanged, or an A-B-A-B loop between two screens.

Levels rise with the streak: "warn" puts a warning into the current turn, "force" makes the
coordinator take a different kind of action itself, "pause" stops the run and says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

Level = Literal["ok", "warn", "force", "pause"]


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

    def record(self, screen_hash: str, action: str, changed: bool | None) -> None:
        """One finished action: the screen it was taken on, what it was, whether the screen changed."""
        if changed is None:  # no input action this turn (memory only, or an error): not evidence either way
            return
        self.unchanged = 0 if changed else self.unchanged + 1
        self.screens = (self.screens + [screen_hash])[-12:]
        self.actions = (self.actions + [action])[-12:]

    def saved(self) -> StuckCounts:
        return StuckCounts(unchanged=self.unchanged, screens=list(self.screens), actions=list(self.actions))

    def restore(self, counts: StuckCounts) -> None:
        self.unchanged, self.screens, self.actions = counts.unchanged, list(counts.screens), list(counts.actions)

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
        recent = ", ".join(self.actions[-4:])
        warning = f"STUCK WARNING: {reason} (recent: {recent}). Try a different kind of action."
        return StuckState(level=level, unchanged_streak=self.unchanged, loop_streak=loop, reason=reason,
                          warning=warning)
