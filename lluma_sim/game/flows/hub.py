"""The hub's turn actions besides training and races: Rest (after its confirm), Recreation (an outing's cutscene),
the Infirmary (lit only with a condition). Each ends the turn; what each comes to (NUMBERS §5, FACTS) is drawn on
the game's one generator."""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game.content import MAX_ENERGY, MOODS
from lluma_sim.game.flow import Play
from lluma_sim.game.state import CareerData


def rest_prompt(g: Play) -> None:
    g.confirm("Rest", ["Rest for this turn?", "Energy will recover."], ("rest",))


def rest(g: Play) -> None:
    g.state.dialog = None
    rested(g.live(), g.rng)
    g.end_turn()


def recreation(g: Play) -> None:
    recreated(g.live(), g.rng)
    g.play([("anim", "cutscene", "outing"), ("end_turn",)])


def infirmary(g: Play) -> None:
    treated(g.live(), g.rng)
    g.end_turn()


def rested(c: CareerData, rng: random.Random) -> None:
    """NUMBERS §5: +70/+50/+30 energy (a few +30s bring Night Owl); a summer camp's Rest & Recreation instead."""
    if c.camp:
        return _camp_rest(c)
    gain, _, owl = rng.choices(numbers.REST, weights=[w for _, w, _ in numbers.REST])[0]
    c.energy = min(MAX_ENERGY, c.energy + gain)
    if owl and c.condition is None:
        c.condition = "Night Owl"
    c.status = f"Rested: energy +{gain}"


def recreated(c: CareerData, rng: random.Random) -> None:
    """NUMBERS §5 (UREF's odds): +2 mood, or +1 mood and +10 to +30 energy."""
    if c.camp:
        return _camp_rest(c)
    mood, energy, _ = rng.choices(numbers.RECREATION, weights=[w for _, _, w in numbers.RECREATION])[0]
    c.mood = min(len(MOODS) - 1, c.mood + mood)
    c.energy = min(MAX_ENERGY, c.energy + energy)
    c.status = f"Recreation: mood {c.mood_word}, energy +{energy}"


def _camp_rest(c: CareerData) -> None:
    energy, mood = numbers.CAMP_REST
    c.energy = min(MAX_ENERGY, c.energy + energy)
    c.mood = min(len(MOODS) - 1, c.mood + mood)
    c.status = f"Rest & Recreation: energy +{energy}, mood {c.mood_word}"


def treated(c: CareerData, rng: random.Random) -> None:
    """FACTS: a condition cured about 85% of the time, +20 energy."""
    had = c.condition
    if rng.random() < numbers.INFIRMARY_CURES:
        c.condition = None
    c.energy = min(MAX_ENERGY, c.energy + numbers.INFIRMARY_ENERGY)
    c.status = f"Infirmary: {had} cured" if c.condition is None else f"Infirmary: {had} not cured yet"
