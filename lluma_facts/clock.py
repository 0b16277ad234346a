"""The one clock of a run: built once (`lluma_agent.loop.app.build`, the demo's wiring) and handed to every part that
waits or times (the coordinator, the actor, the navigator, the event book, the Messages API stand-in), so a test
gives one fake and a wait of an hour takes none. Here, at the bottom of the layers, because the agent and the
simulator share it and neither may import the other.

`now()` is monotonic seconds (waits, timings, outage windows); `wall()` is epoch seconds, for what outlives the
process (the screen map's times, failed ladders kept in a checkpoint); `sleep(s)` waits. Calling the clock is
`now()`, so it stands wherever a plain `() -> float` clock is taken (the stand-in's cache, the retry window).
"""

from __future__ import annotations

import time


class Clock:
    """The system's clock; a test's clock overrides the three methods (tests/fakes.py FakeClock)."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def __call__(self) -> float:
        return self.now()
