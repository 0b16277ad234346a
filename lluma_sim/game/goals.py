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
# Stat points a sensible player gains per career turn (training, rests and events together): a goal race is set
# against it so it is as hard in a 24-turn career as in a 78-turn one. Measured with the tests' truth-reading
# player (rest below 50, train Speed otherwise, race when due), seeds 0-11: 11-20 a turn in 24-turn careers,
# 17-23 in 78-turn ones (support cards included); at 14 all 24 of those careers completed.
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
FINALE = (
    Goal("Place 1st in URA Finale Qualifier", 74, "URA Finale Qualifier", "EX", "2000m Turf", 1, level=0.75,
         win_fans=5000),
    Goal("Place 1st in URA Finale Semifinal", 76, "URA Finale Semifinal", "EX", "2000m Turf", 1, level=0.75,
         win_fans=8000),
    Goal("Place 1st in URA Finale Finals", 78, "URA Finale Finals", "EX", "2400m Turf", 1, level=0.75,
         win_fans=12000),
)
# One table per trainee, in screens_app.TRAINEES order (Special Week, Silence Suzuka, Tokai Teio).
GOALS: tuple[tuple[Goal, ...], ...] = (
    (DEBUT,
     Goal("Place top 5 in Japanese Derby", 34, "Japanese Derby", "G1", "2400m Turf", 5, win_fans=5000),
     Goal("Earn 3000 fans", 48, fans=3000),
     Goal("Place top 3 in Japan Cup", 70, "Japan Cup", "G1", "2400m Turf", 3, level=0.95, win_fans=6000),
     *FINALE),
    (DEBUT,
     Goal("Place top 5 in Satsuki Sho", 31, "Satsuki Sho", "G1", "2000m Turf", 5, win_fans=5000),
     Goal("Earn 3000 fans", 46, fans=3000),
     Goal("Place top 3 in Tenno Sho (Autumn)", 68, "Tenno Sho (Autumn)", "G1", "2000m Turf", 3, level=0.95,
          win_fans=6000),
     *FINALE),
    (DEBUT,
     Goal("Place top 3 in Satsuki Sho", 31, "Satsuki Sho", "G1", "2000m Turf", 3, level=0.95, win_fans=5000),
     Goal("Earn 3500 fans", 48, fans=3500),
     Goal("Place top 5 in Arima Kinen", 72, "Arima Kinen", "G1", "2500m Turf", 5, win_fans=6000),
     *FINALE),
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
