"""An event: its pages (a tap on the box or Next turns one; Skip jumps to the choices; Quick keeps skipping), then a
choice, whose outcome is drawn on the game's one generator (`apply_choice`); then the hub, or the career's end after
its last turn. Which events come is NUMBERS §5's: the random-event model's queue (`plan`, `scheduled`: a support
card's chain, a card's one-off, a card from outside the deck, the trainee's own from `EVENTS` via `pick_event`) and
the fixed URA events (`fixed`), all drawn on the game's one generator."""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game.content import (
    BOND_START,
    CARDS,
    CONDITIONS,
    DIRECTOR_END,
    EVENTS,
    EXTRA_WORDS,
    FAST_LEARNER,
    OUTSIDE_PAGES,
    OUTSIDE_TITLE,
    STATS,
    SUPPORT_PAGES,
    SUPPORT_TYPE,
    URA_EVENT,
    Choice,
    Event,
)
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


def show(g: Play, event: Event) -> None:
    """`event` on screen from its first page (its choices at once in Quick mode)."""
    g.state.event, g.state.page, g.state.screen = event, 0, "event"
    if g.state.quick:
        g.state.page = len(event.pages)


def plan(c: CareerData, rng: random.Random) -> None:
    """The career's events to come (NUMBERS §5, MEE's model), in a random order: each card's chain steps (not the
    Pal's), a one-off for CARD_EVENTS of them, OUTSIDE_EVENTS from outside the deck, the trainee's six and, in
    FAST_LEARNER of the runs, Fast Learner."""
    cards = [n for n, kind in SUPPORT_TYPE.items() if kind in STATS]
    coming = [f"chain:{n}" for n in cards for _ in range(numbers.CHAIN_STEPS[CARDS[n].rarity])]
    coming += [f"card:{n}" for n in rng.sample(cards, numbers.CARD_EVENTS)] + ["outside"] * numbers.OUTSIDE_EVENTS
    coming += ["trainee"] * (len(STATS) + 1) + (["fast"] if rng.random() < numbers.FAST_LEARNER else [])
    rng.shuffle(coming)
    c.coming = coming


def due(c: CareerData) -> bool:
    """An event of the model comes this turn: an even calendar turn before EVENT_UNTIL, not at a camp."""
    real = c.real_turn
    return bool(c.coming) and real % 2 == 0 and real < numbers.EVENT_UNTIL and not c.camp


def scheduled(c: CareerData, rng: random.Random) -> Event:
    """The next of the events to come (call when `due`), its outcomes drawn now."""
    entry, c.coming = c.coming[0], c.coming[1:]
    kind, _, card = entry.partition(":")
    if kind == "trainee":
        return pick_event(c, rng)
    if kind == "fast":
        event = FAST_LEARNER
    elif kind == "outside":
        event = _support_event(rng, OUTSIDE_TITLE, OUTSIDE_PAGES, rng.choice(STATS), numbers.CARD_GAIN, "")
    elif kind == "card":
        event = _support_event(rng, f"{card}'s Visit", SUPPORT_PAGES, SUPPORT_TYPE[card], numbers.CARD_GAIN, card)
    else:
        steps = numbers.CHAIN_STEPS[CARDS[card].rarity]
        step = steps - sum(e == entry for e in c.coming)  # 1-based: the steps left after this one say which
        event = _support_event(rng, f"{card} ({step}/{steps})", SUPPORT_PAGES, SUPPORT_TYPE[card],
                               numbers.CHAIN_GAIN[step - 1], card, big=step == 3)
    c.met = c.met | {event.title}
    return event


def _support_event(rng: random.Random, title: str, pages: tuple[str, ...], stat: str, gain: int, card: str,
                   big: bool = False) -> Event:
    """A support event: `gain` to `stat` (and EVENT_BOND to `card`) on each of two choices, each with its own
    extra drawn from MEE's weights (a chain's last step: the bigger ones); the two extras differ."""
    table = numbers.BIG_EXTRA if big else numbers.SMALL_EXTRA
    choices: list[Choice] = []
    taken: set[str] = set()
    for _ in range(2):
        left = [x for x in table if x[0] not in taken]
        key, value, _ = rng.choices(left, weights=[w for *_, w in left])[0]
        taken.add(key)
        effects = {stat: gain, **({"Bond": numbers.EVENT_BOND} if card else {})}
        effects[key] = effects.get(key, 0) + value
        choices.append(Choice(EXTRA_WORDS[key], effects))
    return Event(title, tuple(p.format(card=card) for p in pages), tuple(choices), card=card)


def fixed(c: CareerData) -> Event | None:
    """A fixed URA event due now (NUMBERS §5): the one of calendar turn URA_EVENT_TURN (the first turn on or after
    it, in a shorter career), and at a completed career's end the Director's; None otherwise."""
    if c.over:
        done = c.ended is None and DIRECTOR_END.title not in c.met
        event = DIRECTOR_END if done else None
    else:
        event = URA_EVENT if c.real_turn >= numbers.URA_EVENT_TURN and URA_EVENT.title not in c.met else None
    if event is not None:
        c.met = c.met | {event.title}
    return event


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
