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
        left = min(seconds, self.started + hours * 3600 - started if hours else seconds)
        # in steps of the asked seconds, not of what the clock says is left: a clock whose sleep moves a simulated
        # phone (lluma_sim.phone_clock) then moves it by exactly the wait asked, whatever the machine's speed
        while not self.stop.requested and left > 0:
            step = min(left, 0.5)
            self.clock.sleep(step)
            left -= step
        return self.clock.now() - started
