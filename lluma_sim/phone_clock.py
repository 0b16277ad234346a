"""The demo's one clock (`lluma demo`, the tests' `sim_agent`): the agent's waits live on the simulated phone.

The simulated game has its own clock, moved by inputs and captures and never by the machine's (the same seed and
inputs give the same frames however long the phone sits idle). A wait of the agent's (`Sitting.sleep`: a
maintenance's "try again later", TP coming back, the recovery ladder's wait rung) is the one thing that should move
it without an input: on a real phone the maintenance ends while the agent waits. So the wait returns at once, the
run's clock (the agent's timings, the stand-in's cache TTL) jumps by it, and the game's clock moves by exactly the
seconds waited (`SimGame.idle`): a seed, its inputs and its waits give the same frames, and a demo through a
maintenance takes seconds, not the minutes a real one would. `lluma run` against `lluma sim phone` (another
process) waits for real and its phone's clock does not move while it does.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lluma_sim.api.cache import ShiftedClock


class PhoneClock(ShiftedClock):
    def __init__(self, idle: Callable[[float], None]) -> None:
        super().__init__()
        self.idle = idle

    def wall(self) -> float:
        return time.time() + self.shift

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)
        self.idle(seconds)
