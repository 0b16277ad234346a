"""Races: the date's list, the entry, the race's own screens, and a lost goal race's Try Again.

hub Races -> the list (the raised race's details above its rows; a tap on a row raises it) -> Race -> a "Warning"
first when it would be a third race in a row (FACTS) -> the "Race Entry" confirm -> loading -> the lobby (View
Results, or Race to watch it) -> the placing (Next) -> for a goal race lost, "Try Again" for an Alarm Clock (a
spend, the player's word) or the goal is missed -> the rewards (Next: the turn ends). On Race Day the goal's race
is the list's only row.
"""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game import races as race_rules
from lluma_sim.game.content import MAX_ENERGY, MOODS, PLACES, RACE_COINS, STATS, Race
from lluma_sim.game.flow import Play
from lluma_sim.game.goals import goal_race
from lluma_sim.game.state import CareerData, DialogState, RaceResult

IN_A_ROW = 2  # races on the turns just before this one after which the game warns first (FACTS: a third in a row)


def list_races(g: Play) -> None:
    c = g.live()
    day = c.race_day()
    # Race Day: the goal's race alone
    g.state.races = c.races_available() if day is None else [goal_race(c.goals()[day][0], c.turn)]
    g.state.race_sel = 0


def select_race(g: Play, index: int) -> None:
    g.state.race_sel = index


def race_prompt(g: Play) -> None:
    c = g.live()
    # NUMBERS §6c: a goal race never warns (Race -> Goal -> Goal is safe)
    if c.race_day() is None and c.streak >= IN_A_ROW and c.last_race == c.turn - 1:
        g.state.dialog = DialogState(
            kind="race_warning", title="Warning",
            lines=("Racing many times in a row", "may lower mood or cause a condition.", "Race anyway?"),
            buttons=(("Cancel", "white", ("close",)), ("OK", "green", ("race_warned",))))
        return
    race_warned(g)


def race_warned(g: Play) -> None:
    race = g.state.races[g.state.race_sel]
    g.confirm("Race Entry", [f"Enter the {race.name}?", "Racing uses a turn and energy."], ("race",))


def race(g: Play) -> None:
    g.state.dialog = None
    c = g.live()
    g.state.result = run_race(c, g.rng, g.state.races[g.state.race_sel], c.race_day())
    g.play([("anim", "loading"), ("goto", "race_lobby")])


def view_results(g: Play) -> None:
    g.state.screen = "race_result"


def watch_race(g: Play) -> None:
    g.play([("anim", "cutscene", "race"), ("goto", "race_result")])


def race_next(g: Play) -> None:
    """The placing's Next: the rewards, or, for a goal race lost, "Try Again" for an Alarm Clock when one is left
    (the item is spent only on the player's word), else the goal is missed."""
    c, r = g.live(), g.state.result
    if r is None or r.goal is None or c.goal_met(r.goal):
        g.state.screen = "race_rewards"
    elif c.clocks > 0:
        g.state.dialog = DialogState(
            kind="try_again",
            title="Try Again",
            lines=("Use 1 Alarm Clock to try again?", f"Alarm Clocks owned: {c.clocks}"),
            buttons=(("Cancel", "white", ("give_up",)), ("Try Again", "green", ("try_again",))),
        )
    else:
        g.goal_missed()


def try_again(g: Play) -> None:
    assert g.state.result is not None
    g.state.dialog = None
    g.state.result = rerun_race(g.live(), g.rng, g.state.result)
    g.play([("anim", "loading"), ("goto", "race_lobby")])


def give_up(g: Play) -> None:
    g.goal_missed()


def run_race(c: CareerData, rng: random.Random, race: Race, goal: int | None = None) -> RaceResult:
    """Run `race` (for goal `goal`, when it is one's): the trainee's strength for its distance and surface
    (lluma_sim.game.races.strength) against a field of rivals (races.place); the rewards of NUMBERS §6a-6b,
    a share of a win's for a lower place."""
    power = race_rules.strength(c.stats, c.trainee, race, c.mood, c.learned)
    place = race_rules.place(power, race.difficulty, rng)
    if c.last_race != c.turn:  # a Try Again runs the same turn's race again: no new race in a row
        c.streak = c.streak + 1 if c.last_race == c.turn - 1 else 1
        c.last_race = c.turn
    share = numbers.PLACE_SHARE[place - 1]
    final = race_rules.final_round(race.name)
    each, count, points = numbers.race_reward(race.grade, goal is not None, final)
    each, points = int(each * share), int(points * share)
    stats = dict.fromkeys(rng.sample(list(STATS), count), each) if each else {}
    energy = 0 if goal is not None else numbers.OPTIONAL_ENERGY
    fans = round(race.fans * share)
    c.energy = max(0, c.energy - energy)
    for stat, v in stats.items():
        c.add(stat, v)
    c.skill_points += points
    c.fans += fans
    coins = RACE_COINS[min(place, len(RACE_COINS)) - 1]
    c.coins += coins
    c.wins += place == 1
    c.races += 1
    c.top3 += 1 < place <= 3
    if goal is not None and place <= (c.goals()[goal][0].top or len(PLACES)):
        c.won = c.won | {goal}
    c.status = f"{race.name}: {PLACES[place - 1]} place, fans +{fans}, skill points +{points}"
    return RaceResult(race=race, place=place, points=points, fans=fans, goal=goal, coins=coins, stats=stats,
                      energy=energy)


def rerun_race(c: CareerData, rng: random.Random, lost: RaceResult) -> RaceResult:
    """An Alarm Clock spent on a lost goal race: as if it had not been run, in a better mood (FACTS: the
    clock raises the mood a level), then run again."""
    c.clocks -= 1
    c.energy = min(MAX_ENERGY, c.energy + lost.energy)
    for stat, v in lost.stats.items():
        c.add(stat, -v)
    c.skill_points -= lost.points
    c.fans -= lost.fans
    c.coins -= lost.coins
    c.wins -= lost.place == 1
    c.races -= 1
    c.top3 -= 1 < lost.place <= 3
    c.mood = min(len(MOODS) - 1, c.mood + 1)
    return run_race(c, rng, lost.race, lost.goal)
