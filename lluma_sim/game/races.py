"""The race list's rules: which races a date offers, how hard each is, the trainee's aptitudes, the strength a
trainee brings to a race (its stats weighed for the distance, NUMBERS §6d's aptitude and mood coefficients, the
skills learned) and the place it earns against the field (on the game's dice, passed in).

The placing model is a guess (NUMBERS §6d: "no simple placing model was found"): a field of rivals whose best is
the race's difficulty, the stats a sensible player has by then weighed by grade, each runner's day a few percent
either way.
"""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game.calendar import REAL_TURNS, real_turn
from lluma_sim.game.content import CALENDAR, FILLERS, SKILLS, STATS, Race
from lluma_sim.game.goals import FINALE, GROWTH_PER_TURN, START_TOTAL

FIRST_RACE = 13  # calendar turn: the list opens after the debut (Junior Late Jun), as Races is greyed before it
# A race's difficulty against the stats a sensible player has by then, by grade (a G1 is an even fight for them).
GRADE_LEVEL = {"EX": 0.75, "G1": 1.0, "G2": 0.92, "G3": 0.86, "OP": 0.78, "Pre-OP": 0.72, "Debut": 0.7}
GRADE_POINTS = {"EX": 40, "G1": 60, "G2": 45, "G3": 35, "OP": 25, "Pre-OP": 20, "Debut": 30}
ROWS = 3  # rows the list shows
# The stats a distance leans on (each row sums to 5: a trainee even in all is as strong at every distance).
WEIGHTS = {
    "Sprint": {"Speed": 1.3, "Stamina": 0.6, "Power": 1.2, "Guts": 0.9, "Wit": 1.0},
    "Mile": {"Speed": 1.25, "Stamina": 0.8, "Power": 1.1, "Guts": 0.85, "Wit": 1.0},
    "Med": {"Speed": 1.15, "Stamina": 1.0, "Power": 1.0, "Guts": 0.95, "Wit": 0.9},
    "Long": {"Speed": 1.0, "Stamina": 1.35, "Power": 0.85, "Guts": 0.95, "Wit": 0.85},
}
FIT = ("A", "B")  # the bots keep races whose aptitudes are B or better (FACTS); the row's star marks them
# Each trainee's aptitudes (screens_app.TRAINEES order): surface, then distance classes.
APTITUDES: tuple[dict[str, str], ...] = (
    {"Turf": "A", "Dirt": "G", "Sprint": "E", "Mile": "B", "Med": "A", "Long": "A"},
    {"Turf": "A", "Dirt": "G", "Sprint": "D", "Mile": "A", "Med": "A", "Long": "E"},
    {"Turf": "A", "Dirt": "E", "Sprint": "E", "Mile": "C", "Med": "A", "Long": "B"},
)
SKILL_POWER = 2  # each learned skill's bonus counts this many times in a race [GUESS]
# The field [GUESS, NUMBERS §6d has no placing model]: RIVALS runners, the best at the race's difficulty, each next
# one RIVAL_STEP weaker; every runner's day (the trainee's too) varies by DAY_SPREAD (a standard deviation). At
# 0.06 a trainee 10% above the difficulty wins about four races in five, 10% below about one in ten.
RIVALS = 7
RIVAL_STEP = 0.03
DAY_SPREAD = 0.06


def difficulty(grade: str, turn: int, level: float | None = None) -> int:
    """How hard a race of `grade` is on career turn `turn`."""
    return round((START_TOTAL + GROWTH_PER_TURN * (turn - 1)) * (GRADE_LEVEL[grade] if level is None else level))


def _race(entry: tuple[str, str, str, str, str, int], turn: int) -> Race:
    name, grade, distance, track, direction, fans = entry
    return Race(name, grade, distance, difficulty(grade, turn), GRADE_POINTS[grade], fans, track, direction)


def on_turn(turn: int, max_turns: int) -> list[Race]:
    """The races career turn `turn` offers: the graded races of its calendar span, then OP and Pre-OP ones to fill
    the list (two on a date without a graded race), the most fans first; none before the debut."""
    first = real_turn(turn, max_turns)
    last = real_turn(turn + 1, max_turns) - 1 if turn < max_turns else REAL_TURNS
    if last < FIRST_RACE or first > 72:
        return []
    graded = [_race(e[1:], turn) for e in CALENDAR if first <= e[0] <= max(first, last)]
    fill = [_race(FILLERS[(first * k + k // 7) % len(FILLERS)], turn) for k in (3, 7)]
    races = sorted({r.name: r for r in [*graded, *fill]}.values(), key=lambda r: -r.fans)
    return races[:ROWS]


def aptitudes(trainee: int) -> dict[str, str]:
    return APTITUDES[trainee % len(APTITUDES)]


def fits(trainee: int, race: Race) -> bool:
    """The row's aptitude star: the trainee is B or better on its surface and at its distance."""
    apt = aptitudes(trainee)
    return apt.get(race.surface, "G") in FIT and apt.get(race.category, "G") in FIT


def strength(stats: dict[str, int], trainee: int, race: Race, mood: int, learned: frozenset[str]) -> float:
    """What the trainee brings to `race`, comparable with `race.difficulty` (a stat total): the stats weighed for
    the distance, times NUMBERS §6d's distance and surface aptitude and mood coefficients. Energy does not count
    (§6c)."""
    weights = WEIGHTS[race.category]
    weighed = sum(stats[s] * weights[s] for s in STATS)
    apt = aptitudes(trainee)
    fit = numbers.DISTANCE_APT[apt.get(race.category, "G")] * numbers.SURFACE_APT[apt.get(race.surface, "G")]
    skills = SKILL_POWER * sum(s.bonus for s in SKILLS if s.name in learned)
    return (weighed * fit + skills) * numbers.MOOD_RACE[mood]


def place(power: float, difficulty: int, rng: random.Random) -> int:
    """The trainee's place (1-based) against the field: one more for each rival whose day beats hers."""
    mine = power * (1 + rng.gauss(0, DAY_SPREAD))
    return 1 + sum(difficulty * (1 - RIVAL_STEP * i) * (1 + rng.gauss(0, DAY_SPREAD)) > mine for i in range(RIVALS))


def final_round(name: str) -> int:
    """1-3 for the URA Finals' rounds (their rewards, NUMBERS §6a), else 0."""
    return next((i + 1 for i, g in enumerate(FINALE) if g.race == name), 0)
