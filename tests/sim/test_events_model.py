"""NUMBERS §5's events in the simulator: the random-event model's queue and schedule (MEE's approximation), what a
support card's chain gives, and the fixed URA events (turn 45, the Director's at a completed career's end)."""

from __future__ import annotations

import random

from lluma_sim.game import calendar, numbers
from lluma_sim.game.content import CARDS, DIRECTOR_END, STATS, SUPPORT_TYPE, URA_EVENT
from lluma_sim.game.flows import events
from lluma_sim.game.flows.ending import next_turn
from lluma_sim.game.state import CareerData

DECK = [n for n, kind in SUPPORT_TYPE.items() if kind in STATS]  # the Pal card has no chain


def _career(max_turns: int, seed: int) -> tuple[CareerData, random.Random]:
    """A career whose goals all hold (every goal race won, fans plenty), with its events planned."""
    c, rng = CareerData(max_turns=max_turns), random.Random(seed)
    c.won, c.fans = frozenset(range(len(c.goals()))), 10**6
    events.plan(c, rng)
    return c, rng


def _play(c: CareerData, rng: random.Random) -> list[tuple[int, str]]:
    """Every turn to the career's end, each event's first choice taken: (calendar turn, title) of each event."""
    shown = []
    while not c.over:
        event = next_turn(c, rng)
        if event is not None:
            shown.append((calendar.REAL_TURNS if c.over else c.real_turn, event.title))
            events.apply_choice(c, rng, event.choices[0], event)
    return shown


def test_the_queue_holds_each_cards_chain_its_one_offs_and_the_trainees_six() -> None:
    for seed in range(20):
        c, _ = _career(78, seed)
        for name in DECK:
            assert c.coming.count(f"chain:{name}") == numbers.CHAIN_STEPS[CARDS[name].rarity]
        assert sum(e.startswith("card:") for e in c.coming) == numbers.CARD_EVENTS
        assert c.coming.count("outside") == numbers.OUTSIDE_EVENTS and c.coming.count("trainee") == 6
    fast = sum("fast" in _career(78, seed)[0].coming for seed in range(400))
    assert 120 < fast < 200  # Fast Learner in about 40% of runs


def test_events_come_on_every_even_turn_before_72_outside_the_camps_until_the_queue_is_empty() -> None:
    for seed in range(10):
        c, rng = _career(78, seed)
        planned = len(c.coming)
        shown = _play(c, rng)
        model = [(t, title) for t, title in shown if title not in (URA_EVENT.title, DIRECTOR_END.title)]
        due = [t for t in range(2, numbers.EVENT_UNTIL, 2) if not calendar.summer_camp(t)]
        assert [t for t, _ in model] == due[:planned]  # one on each due turn, in order, none elsewhere
        assert (numbers.URA_EVENT_TURN, URA_EVENT.title) in shown and shown[-1] == (78, DIRECTOR_END.title)


def test_a_chain_gives_its_cards_stat_10_15_then_20_and_bond_7_on_either_choice() -> None:
    c, rng = CareerData(max_turns=78), random.Random(3)
    c.coming = ["chain:Kitasan Black"] * 3
    for step, gain in enumerate(numbers.CHAIN_GAIN, start=1):
        event = events.scheduled(c, rng)
        assert event.title == f"Kitasan Black ({step}/3)" and event.card == "Kitasan Black"
        assert len({ch.text for ch in event.choices}) == 2  # two extras, two different words
        for ch in event.choices:
            extra = sum(v for k, v in ch.effects.items() if k == "Speed") - gain
            assert ch.effects["Bond"] == numbers.EVENT_BOND and extra in (0, 5, 10)
            assert sum(k in STATS for k in ch.effects) <= 2
    before = c.bonds["Kitasan Black"]
    events.apply_choice(c, rng, event.choices[0], event)
    assert c.bonds["Kitasan Black"] == before + numbers.EVENT_BOND


def test_the_turn_45_event_and_the_directors_thanks_give_what_numbers_says() -> None:
    c, rng = _career(78, 1)
    c.coming = []  # only the fixed events
    while c.real_turn < numbers.URA_EVENT_TURN - 1:
        assert next_turn(c, rng) is None
    wit, points = c.stats["Wit"], c.skill_points
    event = next_turn(c, rng)
    assert event is URA_EVENT and c.real_turn == numbers.URA_EVENT_TURN
    events.apply_choice(c, rng, event.choices[0], event)
    assert (c.stats["Wit"] - wit, c.skill_points - points) == (20, 20)
    while not c.over:
        event = next_turn(c, rng)
    assert event is DIRECTOR_END
    stats, points = dict(c.stats), c.skill_points
    events.apply_choice(c, rng, event.choices[0], event)
    assert all(c.stats[s] - stats[s] == 15 for s in STATS) and c.skill_points - points == 50


def test_a_short_career_meets_the_turn_45_event_once_and_a_missed_goal_has_no_directors_thanks() -> None:
    c, rng = _career(24, 2)
    titles = [title for _, title in _play(c, rng)]
    assert titles.count(URA_EVENT.title) == 1 and titles[-1] == DIRECTOR_END.title
    c, rng = CareerData(max_turns=24), random.Random(2)  # no race won: the debut goal is missed
    while not c.ended:
        assert next_turn(c, rng) is None or c.real_turn < calendar.DEBUT_TURN
    assert events.fixed(c) is None
