"""How often the stand-in's rest-or-train call, made on the Energy gauge it read, is the call the game's truth makes.

The scripted player (lluma_sim.api.policy) only sees the reading; it reports each call it makes on the hub. This
audit, on the simulator's side, puts the game's true energy at that moment beside it and applies the same rule.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from lluma_sim.api.policy import REST_BELOW
from lluma_sim.game.content import MAX_ENERGY
from lluma_sim.game.truth import GroundTruth


class GaugeAgreement(BaseModel):
    """`agree` of `of` rest-or-train calls matched the truth's; `share` is agree/of (None before any call)."""

    agree: int = 0
    of: int = 0
    share: float | None = None
    largest_error: float | None = Field(None, description="Largest |gauge - true energy| (shares of full), a call's")
    unread: int = Field(0, description="Calls made with no energy read (the player trains then)")


class GaugeAudit:
    """Collects (energy read, rests?, true energy) per call; `on_call` is the policy's `on_rest_or_train`."""

    def __init__(self, truth: Callable[[], GroundTruth]) -> None:
        self.truth = truth
        self.calls: list[tuple[float | None, bool, float]] = []

    def on_call(self, read: float | None, rests: bool) -> None:
        energy = self.truth().energy
        if energy is not None:  # a call off the career (never on the hub) has nothing to compare with
            self.calls.append((read, rests, energy / MAX_ENERGY))

    def summary(self) -> GaugeAgreement:
        agree = sum(rests == (true < REST_BELOW) for _, rests, true in self.calls)
        errors = [abs(read - true) for read, _, true in self.calls if read is not None]
        n = len(self.calls)
        return GaugeAgreement(agree=agree, of=n, share=round(agree / n, 3) if n else None,
                              largest_error=round(max(errors), 3) if errors else None,
                              unread=sum(read is None for read, _, _ in self.calls))
