"""What the turn's input leads to before the turn ends, in one shape: a goTo's later steps (loop/navigate.py), a
plan's (loop/plans.py), a survey's commit (loop/survey.py). Each is a `FollowUp`: handed the input as it stands and
the means to take steps of its own, it returns what was done (`Followed`), and the coordinator alone writes that
into the turn."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from lluma_agent.loop.acting import Acted, Actor
from lluma_agent.loop.turn import Observation
from lluma_agent.runlog.turnlog import NavigationStep, PlanLog
from lluma_agent.tools.toolkit import ToolContext


@dataclass
class Hands:
    """The means of a part's own steps in this turn: the actor every input goes out through, the tool context of a
    screen read, and `--step`'s question before each step (None: nobody asks)."""

    actor: Actor
    ctx_of: Callable[[Observation], ToolContext]
    before_step: Callable[[str], bool] | None


@dataclass
class Followed:
    """What a follow-up did: the turn's input as the model reads of it next turn (its account pending, with what the
    gate said on the way: a person's answers, the guard's refusals), and the lines of the turn log it fills."""

    acted: Acted
    navigation: list[NavigationStep] = field(default_factory=list)  # a goTo walk's steps
    plan: PlanLog | None = None  # a plan's steps
    failures: list[str] = field(default_factory=list)  # what a person must read in the turn log
    decided_on_options: bool = False  # the input pressed an option of a screen that raises before it commits


class FollowUp(Protocol):
    def follow(self, acted: Acted, reading: Observation, hands: Hands) -> Followed | None:
        """What this part did after `acted` was sent on `reading`; None when the turn was none of its."""
        ...
