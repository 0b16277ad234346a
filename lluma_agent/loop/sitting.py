"""This sitting of a run, shared by the parts that wait or end it: a person's stop, the end a turn found, when the
sitting started (run.max_hours counts from it), and the waits they cut short."""

from __future__ import annotations

from lluma_agent.loop.stop import RunEnded, StopFlag, StopKind
from lluma_facts.clock import Clock


class Sitting:
    def __init__(self, clock: Clock, max_hours: float) -> None:
        self.clock, self.max_hours = clock, max_hours
        self.stop = StopFlag()
        self.ending: RunEnded | None = None  # found during the turn being played: the run ends once it is reported
        self.started = clock.now()
        self.turn = 0  # the turn in play (the request log names it)

    def ends(self, kind: StopKind, reason: str) -> None:
        """The turn being played ends the run (the first cause found is the one told)."""
        self.ending = self.ending or RunEnded(kind, reason)

    def sleep(self, seconds: float) -> float:
        """Sleep up to `seconds`, cut short by a person's stop (Ctrl+C) or run.max_hours; returns the seconds slept."""
        started = self.clock.now()
        hours = self.max_hours
        end = min(started + seconds, self.started + hours * 3600 if hours else float("inf"))
        while not self.stop.requested and (left := end - self.clock.now()) > 0:
            self.clock.sleep(min(left, 0.5))
        return self.clock.now() - started
