"""`runPlan(name, args)`: a named procedure the coordinator carries out step by step (issue 40, item 3).

An input tool like goTo: it is this turn's one action, the guard and a person in the loop see its first press as
`runPlan(<name>)`, planned here on the current screen; the rest is the loop's (lluma_agent/loop/plans.py): each later
press sent through the same gate, each checked against the screen it must lead to, a surprise stops it and the
model is told what was done and where it is, next turn.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import Field

from lluma_agent.tools.actions import PlannedAction
from lluma_agent.tools.goto import Walk
from lluma_agent.tools.toolkit import Args
from lluma_vision.models import VisionOutput


class PlanRouter(Protocol):
    def first_step(self, name: str, args: dict[str, Any], vision: VisionOutput) -> PlannedAction:
        """The plan's first press on the screen `vision` reads, labelled `runPlan(<name>)`; ActionError (with the
        known procedures, or why it cannot start) when there is none."""
        ...

    def listing(self) -> str:
        """The built-in procedures, one line each."""
        ...


class RunPlanArgs(Args):
    name: str = Field(min_length=1, max_length=40, description="The procedure's name.")
    args: dict[str, str | list[str]] = Field(
        default_factory=dict, description="Its arguments by name (a list where it takes several, e.g. skills).")


class RunPlan(Walk):
    name = "runPlan"
    args = RunPlanArgs

    def __init__(self, router: PlanRouter) -> None:
        self.router = router
        self.description = (
            "Carry out a named procedure step by step without asking you at each screen: every step is checked "
            "against the screen it must reach, nothing that spends is pressed, and on a surprise the plan stops and "
            "the result says what was done and where you are. It is this turn's one input action. Procedures: "
            f"{router.listing()}. You may write your own in memory file procedures.yaml (name: {{about, args, steps}}; "
            "a step is goto: <screen>, press: <button> with optional expect: <screen> (and if_shown: true to skip "
            "it when the button is not there), or choose: <option>; "
            "{arg} uses an argument; at most 12 steps)."
        )

    def plan(self, args: RunPlanArgs, vision: VisionOutput) -> PlannedAction:
        return self.router.first_step(args.name, dict(args.args), vision)
