"""The training screen (FACTS): a tap on another tile raises it (its gains, failure and cards show), a tap on the
raised one trains and ends the turn. Where the support cards sit each turn (`deal`) and what a training comes to
(`train`: NUMBERS §2-4) are drawn on the game's one generator."""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game.content import BOND_START, HINT_CHANCE, MAX_ENERGY, STATS, SUPPORT_ABSENT, SUPPORT_TYPE, SUPPORTS
from lluma_sim.game.flow import Play
from lluma_sim.game.flows.skills import hint
from lluma_sim.game.state import CareerData


def tile(g: Play, stat: str) -> None:
    c = g.live()
    if c.sel != stat:
        c.sel = stat
        return
    train(c, g.rng, stat)
    g.end_turn()


def deal(c: CareerData, rng: random.Random) -> None:
    """Where the support cards sit this turn: each on a training, or on none; some show a hint."""
    placed, hints = {}, set()
    for name, _ in SUPPORTS:
        if rng.random() < SUPPORT_ABSENT:
            placed[name] = ""
            continue
        placed[name] = rng.choice(STATS)
        if rng.random() < HINT_CHANCE:
            hints.add(name)
    c.placed, c.hints = placed, frozenset(hints)


def train(c: CareerData, rng: random.Random, training: str) -> None:
    """NUMBERS §2-4: a success gives what the screen showed, bond to the cards on it and a step towards the
    facility's next level (not at a camp); a failure costs no energy and has §3b's outcomes."""
    fail = c.fail_chance(training)
    if rng.random() * 100 < fail:
        _fail(c, rng, training, fail)
        return
    gains = c.gains(training)
    friends = " (friendship)" if c.friendship(training) else ""
    c.energy = max(0, min(MAX_ENERGY, c.energy + c.energy_change(training)))
    points = gains.pop("Skill Pts")
    for k, v in gains.items():
        c.add(k, v)
    c.skill_points += points
    for name in c.cards_on(training):
        if name in c.hints:  # the "!": a skill hint of the card's type
            hint(c, rng, SUPPORT_TYPE[name] if SUPPORT_TYPE[name] in STATS else None)
        gain = (numbers.BOND_PAL if SUPPORT_TYPE[name] == "Pal" else numbers.BOND_TRAINING) + (
            numbers.BOND_HINT if name in c.hints else 0)
        c.bonds = {**c.bonds, name: min(100, c.bonds.get(name, BOND_START) + gain)}
    if not c.camp:
        c.trained = {**c.trained, training: c.trained.get(training, 0) + 1}
    c.status = f"{training} training{friends}: " + ", ".join(f"{k} +{v}" for k, v in gains.items() if v)


def _fail(c: CareerData, rng: random.Random, training: str, fail: int) -> None:
    """NUMBERS §3b (UREF's odds, the top choice): no energy spent, no gains; the worst kind also loses two
    other stats and gives 10 energy; either may bring Practice Poor."""
    worst = rng.random() < numbers.worst_chance(fail)
    kind = numbers.WORST_FAIL if worst else numbers.NORMAL_FAIL
    c.failed += 1
    c.mood = max(0, c.mood + kind.mood)
    c.energy = min(MAX_ENERGY, c.energy + kind.energy)
    if training != "Wit":  # MEE: a failed Wit training gives only its energy result
        c.add(training, kind.trained)
    others = rng.sample([s for s in STATS if s != training], kind.others)
    for stat in others:
        c.add(stat, -10)
    if c.condition is None and rng.random() < kind.poor:
        c.condition = numbers.PRACTICE_POOR
    lost = ", ".join(f"{s} -10" for s in others)
    c.status = (f"{training} training failed! {training} {kind.trained}"
                + (f", {lost}" if lost else "") + ", mood down")
