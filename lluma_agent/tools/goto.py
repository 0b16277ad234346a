"""`goTo(screen)`: walk the shortest known path of the screen map to a screen (issue 30).

An input tool like the others: it is this turn's one action, the guard and a person in the loop see it once, as
`goTo(<screen>)`, and its first step is planned here (the recorded action on the current screen) and sent like any
tap. The rest of the walk is the loop's (lluma_agent/loop/navigate.py): each later step is sent, the screen read
and checked against the map, without a model call; a surprise stops it. The map is the `Router`'s.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import Field

from lluma_agent.tools.actions import ActionDone, InputTool, PlannedAction
from lluma_agent.tools.toolkit import Args
from lluma_vision.models import VisionOutput


class Router(Protocol):
    def first_step(self, screen: str, vision: VisionOutput) -> PlannedAction:
        """Step 1 of the way to `screen` from the screen `vision` reads, as the action to send (its label
        `goTo(<screen>)`); ActionError (with the known screens, or the ways out) when there is no known way."""
        ...


class GoToArgs(Args):
    screen: str = Field(min_length=1, description="The screen to reach: its name as <map> names it, or its id.")


class Walk(InputTool):
    """An input tool whose first press is this turn's action and whose rest the loop walks (goTo, runPlan): its
    account names the tool, its target and step 1."""

    def describe(self, done: ActionDone) -> str:
        p = done.planned
        where = f" at ({done.point[0]},{done.point[1]})" if done.point else ""
        return f"{self.name}({p.target}): step 1 {p.note}{where}"

    def brief(self, done: ActionDone) -> str:
        return f"{self.name} {done.planned.target}"


class GoTo(Walk):
    name = "goTo"
    args = GoToArgs
    description = (
        "Walk the shortest known path to a screen of the map learned from play, by its name (as <map> names "
        "screens) or id, without asking you at each step. Every step is checked against the map; on a surprise "
        "the walk stops and the result says what happened and where you are. An unknown screen returns the known "
        "ones. It is this turn's one input action; the result arrives next turn."
    )

    def __init__(self, router: Router) -> None:
        self.router = router

    def plan(self, args: GoToArgs, vision: VisionOutput) -> PlannedAction:
        return self.router.first_step(args.screen, vision)
