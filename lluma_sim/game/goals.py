"""Each trainee's goals and the rules that judge them (no dice, no drawing: functions over a career's numbers).

As in the real career (FACTS): make the debut, place top N in a named race, earn a fan count, then the finale's
races. A goal race is run on its own turn ("Race Day": the hub offers nothing else that ends a turn); a goal not
met on its turn ends the career, though a lost race may first be run again for an Alarm Clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lluma_sim.game.calendar import career_turn
from lluma_sim.game.content import CALENDAR, START_STATS, Race

START_TOTAL = sum(START_STATS.values())
# Stat points a sensible player gains per career turn (training, rests and events together): a race's field is set
# against it so a goal race is as hard in a 24-turn career as in a 78-turn one. Measured on NUMBERS' rules with the
# tests' truth-reading player (rest below 50, train Speed otherwise, race when due or short of fans), seeds 0-7:
# 19-23 a turn in 78-turn careers, 18-22 in 24-turn ones, all 16 completed; with no training (tests'
# lose_goal_race) the first race goal is lost.
GROWTH_PER_TURN = 14
ALARM_CLOCKS = 3  # Alarm Clocks a career starts with: each runs a lost goal race again
MOVE_SLACK = 2  # career turns a goal may move off its date (or a quarter of its turn, if more) to fit the next
FIRST_GOAL_TURN = 2  # the first turn of a career is never a goal's: a player sees the goal before it is due


@dataclass(frozen=True)
class Goal:
    text: str  # as the hub prints it
    turn: int  # the calendar turn (1..78) it is judged on
    race: str = ""  # a goal race's name, run on that turn
    grade: str = ""
    distance: str = ""
    top: int = 0  # the place it needs; 0 with a race: running is enough
    fans: int = 0  # fans it needs by its turn
    level: float = 1.0  # its race's difficulty against the stats a sensible player has by then
    win_fans: int = 0  # fans for a win (a share of them for a lower place)


DEBUT = Goal("Run in Junior Make Debut", 12, "Junior Make Debut", "Debut", "1600m Turf", level=0.7, win_fans=700)
# NUMBERS §0/§8: the Finals on turns 74, 76, 78, each to be won; fans §6b
FINALE = (
    Goal("Place 1st in URA Finale Qualifier", 74, "URA Finale Qualifier", "EX", "2000m Turf", 1, win_fans=7000),
    Goal("Place 1st in URA Finale Semifinal", 76, "URA Finale Semifinal", "EX", "2000m Turf", 1, win_fans=10000),
    Goal("Place 1st in URA Finale Finals", 78, "URA Finale Finals", "EX", "2400m Turf", 1, win_fans=30000),
)
# A fan goal at the Classic year's end (FACTS quotes "Earn N fans" goals): the goal races before it, placed as they
# ask, earn it (the fewest, Special Week's four at 5th place, about 9,000); a trainee who lost them races for it.
# Its turn and count are a guess (NUMBERS §6e has no fan goals).
FANS = Goal("Earn 8000 fans", 48, fans=8000)


def _race(text: str, turn: int, top: int) -> Goal:
    """A goal to place top `top` in a calendar race (its grade, distance and fans from content.CALENDAR)."""
    _, name, grade, distance, _, _, fans = next(e for e in CALENDAR if e[0] == turn)
    return Goal(text.format(name), turn, name, grade, distance, top, win_fans=fans)


# One list per trainee, in screens_app.TRAINEES order (Special Week, Silence Suzuka, Tokai Teio): 11 goals, as the
# real lists hold 11-13 counting the debut and the Finals (NUMBERS §6e). Special Week's races are MEE's example's;
# the others' are guesses on the real calendar. The place each needs is OPEN in NUMBERS: top 5 in the Classic
# year, top 3 in the Senior, as the client's goals read ("Place top 5 in Japanese Derby", FACTS).
GOALS: tuple[tuple[Goal, ...], ...] = (
    (DEBUT, _race("Place top 5 in {}", 27, 5), _race("Place top 5 in {}", 34, 5),
     _race("Place top 5 in {}", 44, 5), FANS, _race("Place top 3 in {}", 56, 3), _race("Place top 3 in {}", 70, 3),
     _race("Place top 3 in {}", 72, 3), *FINALE),
    (DEBUT, _race("Place top 5 in {}", 30, 5), _race("Place top 5 in {}", 34, 5),
     _race("Place top 3 in {}", 42, 3), _race("Place top 5 in {}", 46, 5), FANS, _race("Place top 3 in {}", 60, 3),
     _race("Place top 3 in {}", 68, 3), *FINALE),
    (DEBUT, _race("Place top 3 in {}", 31, 3), _race("Place top 3 in {}", 34, 3), FANS,
     _race("Place top 5 in {}", 54, 5), _race("Place top 3 in {}", 60, 3), _race("Place top 3 in {}", 70, 3),
     _race("Place top 5 in {}", 72, 5), *FINALE),
)


def schedule(trainee: int, max_turns: int) -> tuple[tuple[Goal, int], ...]:
    """The trainee's goals with the career turn each is judged on. A shorter career compresses them: each keeps its
    place on the calendar where it can, is moved earlier to leave the next goal its own turn (and a free turn
    between two races, as the finale has), and is dropped when that leaves it before FIRST_GOAL_TURN."""
    kept: list[tuple[Goal, int]] = []
    for goal in reversed(GOALS[trainee % len(GOALS)]):
        turn = placed = career_turn(goal.turn, max_turns)
        if kept:
            after, at = kept[-1]
            turn = min(turn, at - (2 if goal.race and after.race else 1))
        if turn < FIRST_GOAL_TURN:
            break
        if placed - turn > max(MOVE_SLACK, placed // 4):
            continue  # squeezed far off its date: the short career goes without it
        if goal.fans and turn < placed:  # fewer turns to earn them in, and fewer races: squared
            fans = goal.fans * turn * turn // (placed * placed) // 100 * 100
            goal = replace(goal, fans=fans, text=f"Earn {fans} fans")
        kept.append((goal, turn))
    return tuple(reversed(kept))


def goal_race(goal: Goal, turn: int) -> Race:
    """A goal's race as it is run on career turn `turn`: as hard as the stats a sensible player has by then."""
    difficulty = round((START_TOTAL + GROWTH_PER_TURN * (turn - 1)) * goal.level)
    points = 30 + 10 * (goal.grade in ("G1", "EX"))
    track, direction = next(((e[4], e[5]) for e in CALENDAR if e[1] == goal.race), ("Tokyo", "Left"))
    return Race(goal.race, goal.grade, goal.distance, difficulty, points, goal.win_fans, track, direction)


def met(goal: Goal, index: int, fans: int, won: frozenset[int]) -> bool:
    """Whether goal `index` is met so far: its race run well enough (`won`), or the fans it needs earned."""
    return index in won if goal.race else fans >= goal.fans


def status(goal: Goal, achieved: bool) -> str:
    """The line under the goal (the Global client's words, FACTS)."""
    if achieved:
        return "Goal Achieved!"
    return "Entry criteria met!" if goal.race else ""


def turns_left(left: int) -> str:
    return f"{left} turn(s) left"
