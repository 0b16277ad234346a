"""What a flow (lluma_sim.game.flows: a module of functions over the game's state) may use of the game.

A flow's action is a function `(game, *args) -> None` that changes `game.state`; the game dispatches a widget's
action through its table of them (game.ACTIONS), checked: a name not in the table is an error, not a lookup. The
game satisfies this protocol; flows import this, never the game (no cycle).
"""

from __future__ import annotations

import random
from typing import Protocol

from lluma_sim.game.state import Action, CareerData, DialogState, GameState

CAREER_TP = 30  # a career costs 30 TP of 100 (FACTS)
MAX_TP = 100  # FACTS: 30 TP of 100


class Play(Protocol):
    state: GameState

    @property
    def rng(self) -> random.Random:
        """The game's one generator (`state.rng`)."""
        ...

    def live(self) -> CareerData:
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

    def do(self, action: Action) -> None:
        """Run one action now, through the checked table."""
        ...

    def next_phase(self) -> None:
        """The queued phases up to the next animation (a skipped one ends at once)."""
        ...

    def start_app(self) -> bool:
        """Start the game to its title (False: it was running)."""
        ...

    def stop_app(self) -> bool:
        """Stop the game to the launcher, the career kept (False: it was not running)."""
        ...


def dialog_of(g: Play, kind: str, words: tuple[str, tuple[str, ...]], buttons: tuple[tuple[str, str, Action], ...],
              back: bool = False) -> None:
    """A dialog of the game's own words (lluma_sim.game.hazards: a title and its lines) with `buttons`."""
    title, lines = words
    g.state.dialog = DialogState(kind=kind, title=title, lines=lines, buttons=buttons, back=back)
