"""The simulator's rules against the real career's numbers (/work/shared/NUMBERS.md): its worked examples and
derived tables, and the career rules that use them (failure, bond, facility levels, camps, races, the rating)."""

from __future__ import annotations

import random

import pytest

from lluma_sim.game import numbers
from lluma_sim.game.content import Race, bond_level
from lluma_sim.game.flows.hub import rested
from lluma_sim.game.flows.races import run_race
from lluma_sim.game.flows.training import train
from lluma_sim.game.races import place
from lluma_sim.game.state import CareerData

# NUMBERS §3a [DERIVED]: failure % by energy (0, 10, 20, 30, 40, 45, 50, 55) per facility and level
FAILURE_TABLE = {
    ("Speed", 1): (99, 95, 64, 39, 18, 10, 3, 0),
    ("Speed", 5): (99, 99, 68, 42, 21, 12, 5, 0),
    ("Stamina", 1): (99, 92, 62, 37, 17, 8, 1, 0),
    ("Power", 1): (99, 94, 64, 38, 18, 10, 2, 0),
    ("Guts", 1): (99, 98, 67, 41, 20, 12, 4, 0),
    ("Guts", 5): (99, 99, 70, 44, 23, 14, 6, 0),
    ("Wit", 1): (80, 50, 24, 4, 0, 0, 0, 0),
    ("Wit", 5): (81, 51, 25, 5, 0, 0, 0, 0),
}


@pytest.mark.parametrize(("facility", "want"), FAILURE_TABLE.items())
def test_failure_follows_the_derived_table(facility: tuple[str, int], want: tuple[int, ...]) -> None:
    training, level = facility
    got = tuple(numbers.failure(e, numbers.FAIL_BASE[training][level - 1]) for e in (0, 10, 20, 30, 40, 45, 50, 55))
    assert got == want
    assert numbers.failure(100, 520) == 0 and numbers.failure(30, 520, condition="Practice Poor") == 41  # +2


def test_the_gain_formula_gives_the_worked_example() -> None:
    """§2: Lv1 Speed of the 2022 table, Great mood, 2 cards with no bonuses, Speed growth +10%: 15 Speed, 7 Power."""
    assert numbers.gain(11, 10, [], 4, 0, 0, 2) == 15  # 11 x 1.1 x 1.2 x 1.10 = 15.97
    assert numbers.gain(6, 0, [], 4, 0, 0, 2) == 7  # 7.92
    assert numbers.gain(0, 30, [35], 4, 60, 15, 5) == 0  # a stat the facility does not raise
    assert numbers.gain(90, 30, [35, 30], 4, 60, 15, 5) == numbers.MAX_GAIN  # at most 100 from one training


def test_the_training_table_is_the_2021_ones_with_levels() -> None:
    """§1b (the Global bots' table): +10 Speed, +5 Power, +2 SP at Lv1; Lv5 14/7; energy and FailBase from §1a."""
    assert numbers.base("Speed", 1) == {"Speed": 10, "Power": 5, "Skill Pts": 2}
    assert numbers.base("Speed", 5) == {"Speed": 14, "Power": 7, "Skill Pts": 2}
    assert numbers.base("Wit", 1) == {"Speed": 2, "Wit": 9, "Skill Pts": 4}
    assert (numbers.ENERGY["Guts"][4], numbers.ENERGY["Wit"][0], numbers.FAIL_BASE["Stamina"][0]) == (-28, 5, 507)


def _career(seed: int = 0, **update: object) -> tuple[CareerData, random.Random]:
    """A 78-turn career and the dice its rules roll."""
    c = CareerData(max_turns=78)
    for k, v in update.items():
        setattr(c, k, v)
    return c, random.Random(seed)


def test_a_facility_levels_up_after_four_successful_trainings_and_camps_are_level_5() -> None:
    career, rng = _career(placed={})
    for k in range(8):
        career.energy = 100  # never fails
        assert career.level("Power") == 1 + k // 4
        train(career, rng, "Power")
    assert career.level("Power") == 3 and career.level("Speed") == 1
    career.turn = 37  # Classic Early Jul: the first summer camp (§0)
    assert all(career.level(t) == 5 for t in numbers.STATS)
    career.energy = 100
    train(career, rng, "Speed")
    assert career.trained.get("Speed", 0) == 0  # camp trainings do not count (§1c)
    career.energy = 10
    rested(career, rng)
    assert career.energy == 50 and career.status.startswith("Rest & Recreation")  # §5: +40, +1 mood


def test_a_failed_training_costs_no_energy_gives_nothing_and_does_not_count() -> None:
    """§3b: no energy spent, no gains, no bond, no step to the next level; a mood and a stat lost."""
    kinds = set()
    for seed in range(60):
        c, rng = _career(seed, energy=5, placed={"Kitasan Black": "Speed"})
        before, bond, stats = c.energy, c.bonds["Kitasan Black"], dict(c.stats)
        train(c, rng, "Speed")  # 99% failure
        if not c.failed:
            continue
        assert c.bonds["Kitasan Black"] == bond and c.trained == {} and c.mood < 2
        assert c.energy in (before, before + 10)
        lost = {s for s in stats if c.stats[s] < stats[s]}
        kinds.add(len(lost))
        assert "Speed" in lost and c.stats["Speed"] == stats["Speed"] - (10 if len(lost) == 3 else 5)
    assert kinds == {3}  # at 99% every failure is the worst kind (UREF: 100% from 80%)


def test_bond_grows_7_a_training_and_5_more_for_a_hint_with_the_colour_bands() -> None:
    c, rng = _career(energy=100, placed={"Kitasan Black": "Speed", "Sakura Bakushin O": "Speed",
                                     "Tazuna Hayakawa": "Speed"}, hints=frozenset({"Sakura Bakushin O"}))
    train(c, rng, "Speed")
    assert (c.bonds["Kitasan Black"], c.bonds["Sakura Bakushin O"], c.bonds["Tazuna Hayakawa"]) == (22, 27, 19)
    assert [bond_level(b) for b in (0, 1, 59, 60, 79, 80, 99, 100)] == [
        "grey", "blue", "blue", "green", "green", "orange", "orange", "MAX"]


def test_the_career_starts_with_120_skill_points_and_stats_stop_at_the_cap() -> None:
    c, _ = _career()
    assert c.skill_points == 120 and c.energy == 100
    c.apply({"Speed": 5000})
    assert c.stats["Speed"] == numbers.STAT_CAP == 1200


def test_race_rewards_and_fans_by_grade() -> None:
    """§6a/6b: a won optional G1 gives +10 to one stat, 45 SP, costs 15 energy; a won goal G1 +3 to all five, 45 SP,
    no energy; the Final +10 to all and 80 SP."""
    assert numbers.race_reward("G1", goal=False) == (10, 1, 45)
    assert numbers.race_reward("G3", goal=True) == (3, 4, 35)
    assert numbers.race_reward("EX", goal=True, final=3) == (10, 5, 80)
    c, rng = _career(stats=dict.fromkeys(numbers.STATS, 1000))
    easy = Race("Tenno Sho (Autumn)", "G1", "2000m Turf", 200, 60, 15000)
    r = run_race(c, rng, easy)
    assert (r.place, r.fans, r.points, r.energy, sum(r.stats.values())) == (1, 15000, 45, 15, 10)


def test_a_race_is_won_against_a_field_that_is_stronger_than_the_trainee_rarely() -> None:
    """The placing model (a guess, ARCHITECTURE): 10% above the field's best wins most races, 10% below few."""
    rng = random.Random(0)
    above = [place(1100, 1000, rng) for _ in range(400)]
    below = [place(900, 1000, rng) for _ in range(400)]
    assert above.count(1) > 0.6 * 400 and below.count(1) < 0.15 * 400
    assert sum(below) / 400 > sum(above) / 400 + 2


def test_the_rating_is_the_games_with_its_rank_bands() -> None:
    """§7: Speed 1100 scores 3171; §8's decent run 1200/800/900/400/600 scores 9578 in stats; bands every 2,000."""
    assert numbers.stat_score(1100) == 3171 and numbers.stat_score(50) == 25 and numbers.stat_score(75) == 45
    assert sum(numbers.stat_score(v) for v in (1200, 800, 900, 400, 600)) == 9578
    assert sum(numbers.stat_score(v) for v in (800, 500, 500, 300, 400)) == 4431
    assert [numbers.rank(r) for r in (7999, 8000, 10000, 12000, 14000)] == ["B", "B+", "A", "A+", "S"]
    c, _ = _career(stats={"Speed": 1200, "Stamina": 800, "Power": 900, "Guts": 400, "Wit": 600},
                   learned=frozenset({"Corner Adept"}))
    assert c.rating() == 9578 + 135 + 510  # Corner Adept 90 SP x 1.5; a 3-star unique skill at level 3
