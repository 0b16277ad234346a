"""Races: the date's list, the entry, the race's own screens, and a lost goal race's Try Again.

hub Races -> the list (the raised race's details above its rows; a tap on a row raises it) -> Race -> a "Warning"
first when it would be a third race in a row (FACTS) -> the "Race Entry" confirm -> loading -> the lobby (View
Results, or Race to watch it) -> the placing (Next) -> for a goal race lost, "Try Again" for an Alarm Clock (a
spend, the player's word) or the goal is missed -> the rewards (Next: the turn ends). On Race Day the goal's race
is the list's only row.
"""

from __future__ import annotations

from lluma_sim.game.flow import Play
from lluma_sim.game.goals import goal_race
from lluma_sim.game.state import DialogState

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
    g.state.result = c.run_race(g.state.races[g.state.race_sel], c.race_day())
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
    g.state.result = g.live().try_again(g.state.result)
    g.play([("anim", "loading"), ("goto", "race_lobby")])


def give_up(g: Play) -> None:
    g.goal_missed()
