"""The real URA career's numbers (/work/shared/NUMBERS.md, each table's section named beside it) and the formulas
that use them. Pure functions over plain values: `CareerData` (state.py) and the flows (flows/) apply them, the
painters show what they make. A choice where NUMBERS says DISAGREE or OPEN is a knob naming its row.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

STATS = ("Speed", "Stamina", "Power", "Guts", "Wit")

# --- §1 the training table ------------------------------------------------------------------------------------

# NUMBERS 1b [DISAGREE/OPEN: which table Global uses]: the Global bots found (GLBOT, JohnWittnebel/URASim) use the
# 2021 table, so the simulator does; "2022" names 1a's "new URA" table instead.
TABLE_ROW = "2021"
_T21 = {  # §1b: per level 1-5 the stats it raises, then SP
    "Speed": ({"Speed": (10, 11, 12, 13, 14), "Power": (5, 5, 5, 6, 7)}, 2),
    "Stamina": ({"Stamina": (9, 10, 11, 12, 13), "Guts": (4, 4, 4, 5, 6)}, 2),
    "Power": ({"Stamina": (5, 5, 5, 6, 7), "Power": (8, 9, 10, 11, 12)}, 2),
    "Guts": ({"Speed": (4, 4, 4, 5, 5), "Power": (4, 4, 4, 4, 5), "Guts": (8, 9, 10, 11, 12)}, 2),
    "Wit": ({"Speed": (2, 2, 2, 3, 4), "Wit": (9, 10, 11, 12, 13)}, 4),
}
_T22 = {  # §1a
    "Speed": ({"Speed": (11, 12, 13, 14, 15), "Power": (6, 6, 6, 7, 8)}, 4),
    "Stamina": ({"Stamina": (10, 11, 12, 13, 14), "Guts": (6, 6, 6, 7, 8)}, 4),
    "Power": ({"Stamina": (6, 6, 6, 7, 8), "Power": (9, 10, 11, 12, 13)}, 4),
    "Guts": ({"Speed": (5, 5, 5, 5, 6), "Power": (5, 5, 5, 5, 5), "Guts": (8, 9, 10, 12, 13)}, 4),
    "Wit": ({"Speed": (2, 2, 2, 3, 4), "Wit": (10, 11, 12, 13, 14)}, 5),
}
# §1a (the same in 1b): energy per level (negative: a cost; Wit restores) and the failure constant FailBase
ENERGY = {"Speed": (-21, -22, -23, -25, -27), "Stamina": (-19, -20, -21, -23, -25), "Power": (-20, -21, -22, -24, -26),
          "Guts": (-22, -23, -24, -26, -28), "Wit": (5, 5, 5, 5, 5)}
FAIL_BASE = {"Speed": (520, 524, 528, 532, 536), "Stamina": (507, 511, 515, 519, 523),
             "Power": (516, 520, 524, 528, 532), "Guts": (532, 536, 540, 544, 548), "Wit": (320, 321, 322, 323, 324)}
LEVEL_EVERY = 4  # §1c: a facility levels up after 4 successful trainings on it, up to 5
MAX_LEVEL = 5  # also every facility's level through a summer camp (§1c)


def base(training: str, level: int) -> dict[str, int]:
    """The facility's base gains at `level` (1-5), "Skill Pts" included (§1)."""
    stats, sp = (_T21 if TABLE_ROW == "2021" else _T22)[training]
    return {**{s: v[level - 1] for s, v in stats.items()}, "Skill Pts": sp}


# --- §2 the gain formula --------------------------------------------------------------------------------------

MOOD_MULT = (-0.2, -0.1, 0.0, 0.1, 0.2)  # §2: Awful .. Great
MAX_GAIN = 100  # §2 (MEE maxValue): at most this much of one stat from one training
CARD_SHARE = 0.05  # §2: +5% for each card on the tile


def gain(base_value: int, growth: int, friendship: Sequence[int], mood: int, mood_effect: int, effect: int,
         cards: int) -> int:
    """One stat's gain from one training (§2): floor of base x growth x each friendship card x mood (with the cards'
    mood effect) x the cards' training effect x 5% a card, at most MAX_GAIN; 0 when the facility gives none."""
    if base_value <= 0:
        return 0
    value = base_value * (1 + growth / 100)
    for bonus in friendship:
        value *= 1 + bonus / 100
    value *= 1 + MOOD_MULT[mood] * (1 + mood_effect / 100)
    value *= (1 + effect / 100) * (1 + CARD_SHARE * cards)
    return min(MAX_GAIN, math.floor(value + 0.0002))  # MEE's +0.0002 absorbs float error before the floor


# --- §3 failure -----------------------------------------------------------------------------------------------

PRACTICE_POOR = "Practice Poor"  # §3a: +2 failure while it lasts
CONDITION_FAIL = {PRACTICE_POOR: 2}


def failure(energy: int, fail_base: int, fail_down: Iterable[int] = (), condition: str | None = None) -> int:
    """Failure percent of a training (§3a, MEE and UmaAi identical): 0 at full energy or above FailBase / 10."""
    if energy >= 100:
        raw = 0.0
    else:
        raw = min(99.0, max(0.0, (energy - 100) * (energy * 10 - fail_base) / 400))
    for down in fail_down:
        raw *= 1 - down / 100
    return max(0, min(100, math.ceil(raw) + CONDITION_FAIL.get(condition or "", 0)))


# §3b (UREF's measured odds; MEE and UmaAi DISAGREE with their own models): the chance a failure is the worst kind,
# by failure percent, then each kind's top choice, the one the simulator takes.
def worst_chance(fail: int) -> float:
    return 0.0 if fail < 20 else 0.3 if fail < 80 else 1.0


@dataclass(frozen=True)
class Failed:
    mood: int
    trained: int  # to the stat trained
    others: int  # how many other stats lose 10
    energy: int
    poor: float  # the chance of Practice Poor


NORMAL_FAIL = Failed(mood=-1, trained=-5, others=0, energy=0, poor=0.08)
WORST_FAIL = Failed(mood=-3, trained=-10, others=2, energy=10, poor=0.5)

# --- §4 bond --------------------------------------------------------------------------------------------------

BOND_TRAINING = 7  # a Speed/Stamina/Power/Guts/Wit card, each successful training
BOND_PAL = 4  # a Pal card
BOND_HINT = 5  # a hint's card: this much more
FRIENDSHIP_BOND = 80  # orange or MAX: the card's own facility makes a friendship training
# the bar's colours by value (§4, Umaplay's bands); an empty bar (bond 0) draws no colour: grey (FACTS' first level)
BOND_LEVELS: tuple[tuple[int, str], ...] = ((100, "MAX"), (80, "orange"), (60, "green"), (1, "blue"), (0, "grey"))

# --- §5 rest, recreation, infirmary, camp ---------------------------------------------------------------------

# UREF (MEE and UmaAi DISAGREE, minor): (energy, weight, Night Owl)
REST = ((70, 25.0, False), (50, 62.5, False), (30, 10.0, False), (30, 2.5, True))
RECREATION = ((2, 0, 35.0), (1, 10, 30.0), (1, 10, 20.0), (1, 20, 10.0), (1, 30, 5.0))  # UREF: (mood, energy, weight)
INFIRMARY_CURES = 0.85  # GW: 84-85% over ~230 tries
INFIRMARY_ENERGY = 20
CAMP_REST = (40, 1)  # a summer camp's Rest & Recreation: energy, mood (guaranteed)

# §5 "Random-event model (MEE approximation)" [model, not data: MEE's SimulationEvents.kt, its notes of 55 JP runs]:
# a queue made at the career's start (each non-Pal card's chain: 3 steps for an SSR, 2 for an SR; a one-off event
# for 3 of those cards; 2 from cards outside the deck; the trainee's 6: +15 to each stat, or +10 energy), drawn in a
# random order, one on every even calendar turn before EVENT_UNTIL outside the summer camps, until it is empty.
EVENT_UNTIL = 72
CHAIN_STEPS = {"SSR": 3, "SR": 2}
CHAIN_GAIN = (10, 15, 20)  # the card's own stat, by chain step
CARD_EVENTS = 3  # deck cards with one non-chain event (+CARD_GAIN to their own stat)
CARD_GAIN = 10
OUTSIDE_EVENTS = 2  # events of cards outside the deck: +CARD_GAIN to a random stat, no bond
TRAINEE_GAIN = 15  # a trainee event: one stat ...
TRAINEE_ENERGY = 10  # ... or energy (one of the six)
EVENT_BOND = 7  # a support card's event, to that card
# each support event's extra, MEE's weights: +5 to one stat (10% each), +10 skill points 10%, +10 energy 20%,
# +1 mood 20%; a chain's last step's instead: +10 to one stat (1/7 each) or +20 skill points (2/7)
SMALL_EXTRA: tuple[tuple[str, int, int], ...] = (
    *((s, 5, 1) for s in STATS), ("Skill Pts", 10, 1), ("Energy", 10, 2), ("Mood", 1, 2))
BIG_EXTRA: tuple[tuple[str, int, int], ...] = (*((s, 10, 1) for s in STATS), ("Skill Pts", 20, 2))
# UREF "Fast Learner": +5 all stats and +2 mood, in 40% of runs (one more trainee event when it comes)
FAST_LEARNER = 0.4
FAST_LEARNER_GAIN = 5
# §5 "Fixed URA events" [exact Global values unverified]: calendar turn 45 +20 Wit and +20 skill points; the career's
# end with the Director's bond maxed +15 to every stat and +50 skill points. The simulator has no Director on the
# tiles (NUMBERS §2 GUESS), so his bond is taken as maxed: a careful player trains with him most of a career.
URA_EVENT_TURN = 45
URA_EVENT = {"Wit": 20, "Skill Pts": 20}
DIRECTOR_END = {**{s: 15 for s in STATS}, "Skill Pts": 50}

# --- §0 the skeleton ------------------------------------------------------------------------------------------

START_SKILL_POINTS = 120  # §0 (UmaAi newGame): 120 skill points and 100 energy at the start
MAX_ENERGY = 100  # §0, as above
# §0 [DISAGREE: 1200 in one GLBOT version, 1400 in another]: the screens print "/1200" (FACTS), so 1200
STAT_CAP = 1200

# --- §6 races -------------------------------------------------------------------------------------------------


def race_reward(grade: str, goal: bool, final: int = 0) -> tuple[int, int, int]:
    """A win's reward (§6a): (stats given, how many stats get it, skill points). An optional race gives one stat;
    a goal race +3 to 5/4/3 stats by grade; a finals round (1-3) +10 to all."""
    if final:
        return 10, 5, (40, 60, 80)[final - 1]
    if goal:
        return (3, 5, 45) if grade in ("G1", "EX") else (3, 4, 35) if grade in ("G2", "G3") else (3, 3, 30)
    return (10, 1, 45) if grade == "G1" else (8, 1, 35) if grade in ("G2", "G3") else (5, 1, OP_POINTS)


OP_POINTS = 35  # §6a [DISAGREE: UREF 35, MEE 30]: UREF is the Global guide
OPTIONAL_ENERGY = 15  # §6a/6c: an optional race costs this; a goal race nothing
# §6a/6b [OPEN: rewards and fans for places 2-5 and 6+ not found]: a share of a win's, by place
PLACE_SHARE = (1.0, 0.6, 0.45, 0.3, 0.25, 0.15, 0.1, 0.1)
# §6d: aptitude and mood coefficients of the real race engine
DISTANCE_APT = {"S": 1.05, "A": 1.0, "B": 0.9, "C": 0.8, "D": 0.6, "E": 0.4, "F": 0.2, "G": 0.1}
SURFACE_APT = {"S": 1.05, "A": 1.0, "B": 0.9, "C": 0.8, "D": 0.7, "E": 0.5, "F": 0.3, "G": 0.1}
MOOD_RACE = (0.96, 0.98, 1.0, 1.02, 1.04)

# --- §7 the rating --------------------------------------------------------------------------------------------

# §7 (UmaAi FiveStatusFinalScore, every 50 points; linear between, as NUMBERS says it nearly is)
_STAT_SCORE = (0, 25, 66, 116, 181, 261, 352, 457, 577, 707, 847, 993, 1143, 1298, 1463, 1633, 1808, 2004, 2209,
               2419, 2635, 2895, 3171, 3501, 3841)
RANKS = ((14000, "S"), (12000, "A+"), (10000, "A"), (8000, "B+"), (6000, "B"), (4000, "C+"), (2000, "C"), (0, "D"))


def stat_score(value: int) -> int:
    """A stat's share of the rating (§7 table, interpolated between its 50-point rows)."""
    value = max(0, min(value, 1200))
    i, rest = divmod(value, 50)
    if i >= len(_STAT_SCORE) - 1:
        return _STAT_SCORE[-1]
    return _STAT_SCORE[i] + (_STAT_SCORE[i + 1] - _STAT_SCORE[i]) * rest // 50


def unique_skill(stars: int, level: int) -> int:
    """§7 (UmaAi's model): a 3-star trainee's unique skill at level 4 scores 680 (ogatetsu)."""
    return (170 if stars >= 3 else 120) * level


def rank(rating: int) -> str:
    """§7 rank bands, every 2,000 points (eieio.jp; below B+ DERIVED, unverified)."""
    return next(r for floor, r in RANKS if rating >= floor)
