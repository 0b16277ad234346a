"""An event: its pages (a tap on the box or Next turns one; Skip jumps to the choices; Quick keeps skipping), then a
choice, whose outcome is drawn on the game's one generator (`apply_choice`); then the hub, or the career's end after
its last turn. Which event comes (`pick_event`) is drawn there too."""

from __future__ import annotations

import random

from lluma_sim.game.content import BOND_START, CONDITIONS, EVENTS, Choice, Event
from lluma_sim.game.flow import Play
from lluma_sim.game.flows.skills import hint
from lluma_sim.game.state import CareerData


def page(g: Play) -> None:
    if g.state.event and g.state.page < len(g.state.event.pages):
        g.state.page += 1


def skip(g: Play) -> None:
    if g.state.event:
        g.state.page = len(g.state.event.pages)


def quick(g: Play) -> None:
    g.state.quick = not g.state.quick
    skip(g)


def choose(g: Play, index: int) -> None:
    event = g.state.event
    assert event is not None
    apply_choice(g.live(), g.rng, event.choices[index], event)
    g.state.event = None
    if g.live().over:
        g.state.finished = True
        g.play([("anim", "loading"), ("goto", "career_summary")])
    else:
        g.state.screen = "hub"


def pick_event(c: CareerData, rng: random.Random) -> Event:
    """An event from the table: a chain's next step (once) only after its first was met."""
    pool = [e for e in EVENTS if not e.after or (e.after in c.met and e.title not in c.met)]
    event = rng.choice(pool)
    c.met = c.met | {event.title}
    return event


def apply_choice(c: CareerData, rng: random.Random, choice: Choice, event: Event | None = None) -> None:
    """A choice's outcome: its effects, or, with its risk, the other ones."""
    effects = choice.otherwise if choice.risk and rng.random() < choice.risk else choice.effects
    said = []
    for key, v in effects.items():
        if key == "Bond" and event is not None and event.card:
            c.bonds = {**c.bonds, event.card: min(100, c.bonds.get(event.card, BOND_START) + v)}
            said.append(f"{event.card} bond +{v}")
        elif key == "Hint":
            said += [f"{hint(c, rng)} hint" for _ in range(v)]
        elif key == "Condition":
            if c.condition is None:
                c.condition = rng.choice(CONDITIONS)
                said.append(f"condition {c.condition}")
        else:
            said += c.apply({key: v})
    c.status = "Event: " + ", ".join(said)
