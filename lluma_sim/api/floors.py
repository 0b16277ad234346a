"""The floors a career bench measures players against (bench/careers.py --players): the stand-in player with its
game-turn choice replaced by one that ignores what the screen says.

- `raised`: on the training screen it presses the tile raised on arrival (the reading's `selected`), whatever it
  gains or risks; on the hub it rests under FLOOR_REST energy and trains otherwise.
- `random`: each career turn one of the trainings, Rest or Recreation, drawn from the seed and the turn as read
  (so the press that raises a tile and the one that trains it agree).

Both keep everything else the stand-in does (the setup, events, the goal's race on Race Day, dialogs), so a career
they play ends as the game decides; like the stand-in, each answer is a function of its request alone.
"""

from __future__ import annotations

import random
import re
from typing import Any, Literal

from lluma_sim.api.policy import STATS, ScriptedPolicy, Turn, press
from lluma_sim.api.recall import Action
from lluma_sim.api.turn_read import GoalRead, career_turn

FloorKind = Literal["raised", "random"]
FLOOR_REST = 0.5  # the floor: "rests below 50 energy"
RANDOM_CHOICES = (*STATS, "Rest", "Recreation")  # what a game turn can be spent on from the hub, bar races


class Floor(ScriptedPolicy):
    """The stand-in playing a floor's game turns (`kind`), and the stand-in's own play everywhere else."""

    def __init__(self, kind: FloorKind, seed: int = 0, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.kind = kind

    def _pick(self, turn: Turn, at: int | None, power: float | None) -> str:
        """This game turn's choice: a training's name, "Training" (the raised one), "Rest" or "Recreation"."""
        if self.kind == "raised":
            return "Rest" if power is not None and power < FLOOR_REST else "Training"
        return random.Random(f"floor-{self.seed}-{at if at is not None else len(turn.past)}").choice(RANDOM_CHOICES)

    def _hub(self, turn: Turn, names: set[str], texts: str, power: float | None, badge: Any = None,
             now: GoalRead | None = None, at: tuple[int, int] | None = None, on_the_hub: bool = True) -> list[Action]:
        day = next((n for n in names if re.sub(r"\W", "", n).lower() == "raceday"), None)
        if day is not None:  # the goal's race: nothing else ends the turn
            return [("runPlan", (("name", "race_day"),)), press(day)]
        pick = self._pick(turn, at[0] if at else None, power)  # `at`: the career's turn and length
        return [press("Training" if pick in STATS else pick), press("Training"), press("Rest")]

    def _training(self, turn: Turn, v: dict[str, Any], names: set[str], power: float | None,
                  texts: str) -> list[Action]:
        pick = self._pick(turn, career_turn(v, texts), power)
        target = str(v.get("selected") or "") if pick not in STATS else pick
        return [press(n) for n in dict.fromkeys([target, *STATS]) if n in names]
