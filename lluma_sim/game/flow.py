"""What a flow (lluma_sim.game.flows: a module of functions over the game's state) may use of the game.

A flow's action is a function `(game, *args) -> None` that changes `game.state`; the game dispatches a widget's
action through its table of them (game.ACTIONS), checked: a name not in the table is an error, not a lookup. The
game satisfies this protocol; flows import this, never the game (no cycle).
"""

from __future__ import annotations

import random
from typing import Protocol

from lluma_sim.game.career import Career
from lluma_sim.game.state import Action, GameState


class Play(Protocol):
    state: GameState
    rng: random.Random

    def live(self) -> Career:
        """The career going on (an action of a career without one is a bug)."""
        ...

    def play(self, phases: list[Action]) -> None:
        """Run `phases` (animations and the actions after them) in order, one animation per capture."""
        ...

    def confirm(self, title: str, lines: list[str], ok: Action) -> None:
        """A Cancel / OK dialog whose OK runs `ok`."""
        ...

    def end_turn(self) -> None:
        """A turn-consuming action is done: an event, the next turn, a missed goal or the career's end."""
        ...

    def goal_missed(self) -> None:
        ...
