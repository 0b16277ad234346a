"""What one turn hands to the next, as one value.

The coordinator keeps a single `LoopState`; each stage that changes it returns a new one (the model is
frozen), so what a turn changed is visible at the call site and nothing else edits it. The checkpoint
saves the part a resumed run goes on with (`Carried`: the turn number, the action whose effect the next
capture shows, the tool results the model is still owed) as it is. The rest judges one sitting: failures
in a row, a device outage, the quiet time after an input whose fate is unknown; a resumed sitting starts
them over. Why a run ends is not state: the turn that finds it raises it (Sitting.ends).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from lluma_agent.loop.acting import Pending
from lluma_agent.model.calls import ToolResult


class Carried(BaseModel):
    """The state a resumed run needs to go on exactly where it left off (saved in checkpoint.json)."""

    model_config = ConfigDict(frozen=True)

    turn: int = 0  # the last turn played (its log written or attempted)
    pending: Pending | None = None  # the last input action, until the next capture shows its effect
    owed: tuple[ToolResult, ...] = ()  # tool results the model has not been sent yet


class LoopState(Carried):
    """`Carried` plus what judges this sitting only."""

    model_errors: int = 0  # non-retryable model errors in a row
    internal_errors: int = 0  # turns in a row that hit a bug
    refusals: int = 0  # refused turns in a row
    failed_starts: int = 0  # starts of the game the device refused in a row (game.start_tries of them end the run)
    device_down_since: float | None = None  # monotonic time of the current outage's first failed capture
    model_down_since: float | None = None  # start of the turn whose model call first failed, retried (an outage)
    model_answered: bool = False  # a decision came back in this sitting
    last_model_error: str = ""

    def carried(self) -> Carried:
        return Carried(turn=self.turn, pending=self.pending, owed=self.owed)

    @classmethod
    def resumed(cls, carried: Carried) -> LoopState:
        return cls(turn=carried.turn, pending=carried.pending, owed=carried.owed)

    def but(self, **changes: object) -> LoopState:
        """A copy with `changes` (validated: a wrong field name is an error, not a silent new attribute)."""
        unknown = set(changes) - set(type(self).model_fields)
        if unknown:
            raise AttributeError(f"LoopState has no field(s) {sorted(unknown)}")
        return self.model_copy(update=changes)



