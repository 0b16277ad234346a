"""The stand-in player's game-turn choice from what a request says (issue 52): a survey's gains weighed by the
rating each adds where the stat stands, its failure, its cards, and a rest when the cap leaves only much lesser
options; and the floors a career bench measures against (lluma_sim.api.floors), which ignore all of that."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api.floors import Floor
from lluma_sim.api.policy import ScriptedPolicy

TILES = ["Speed", "Stamina", "Power", "Guts", "Wit"]
PLANS = {"name": "runPlan", "description": "Run a procedure by its name.",  # offered with plans on (as shipped)
         "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
TOOLS = [*tool_definitions(), PLANS]


def request(vision: dict[str, Any], *more: str) -> dict[str, Any]:
    blocks = [{"type": "text", "text": f"<vision>{json.dumps(vision)}</vision>"}] + [
        {"type": "text", "text": t} for t in more]
    return {"model": "claude-haiku-4-5", "max_tokens": 512, "tools": TOOLS,
            "messages": [{"role": "user", "content": blocks}]}


def pressed(reply: Any) -> tuple[str, dict[str, Any]]:
    call = next(b for b in reply.content if b["type"] == "tool_use" and "Memory" not in b["name"])
    return call["name"], call["input"]


def training(energy: float, turn: int = 30, selected: str = "Power", **values: str) -> dict[str, Any]:
    return {"buttons": [{"name": n} for n in [*TILES, "Back"]], "selected": selected,
            "gauges": {"Energy": energy}, "values": {"Turn": f"{turn}/78", **values}}


def hub(energy: float, turn: int = 30) -> dict[str, Any]:
    return {"buttons": [{"name": n} for n in ("Rest", "Training", "Skills", "Recreation", "Races")],
            "gauges": {"Energy": energy}, "values": {"Turn": f"{turn}/78"}}


def survey(*rows: str) -> str:
    return "<survey>Training: each option raised and read this turn (Power is raised now).\n" + "\n".join(
        f"- {r}" for r in rows) + "\nPress an option's name once: the coordinator raises it if needed and commits " \
        "it.</survey>"


# Turn 30 of 78, each stat near its share of NUMBERS §8's profile: Speed, ahead, has the steepest rating slope.
AHEAD = {"Speed": "500", "Stamina": "300", "Power": "350", "Guts": "180", "Wit": "250"}
TABLE = survey("Speed: gains Speed +12, Power +6, Skill Pts +2; failure 0%; energy 0.80 -> 0.59",
               "Stamina: gains Stamina +20, Guts +8, Skill Pts +2; failure 0%; energy 0.80 -> 0.60",
               "Wit: gains Speed +2, Wit +12, Skill Pts +5; failure 0%; energy not read")


def test_a_gain_is_weighed_at_the_rating_it_adds_where_its_stat_stands() -> None:
    assert pressed(ScriptedPolicy().respond(request(training(0.8, **AHEAD), TABLE))) == (
        "pressButton", {"name": "Speed"})  # 18 points of Speed and Power at 3.5-6.8 a point beat 28 at 1.8-3.3
    even = {k: "150" for k in AHEAD}  # every stat alike: the most points win
    assert pressed(ScriptedPolicy().respond(request(training(0.8, **even), TABLE))) == (
        "pressButton", {"name": "Stamina"})


def test_a_careful_player_spreads_the_stats_as_a_good_career_ends() -> None:
    """Issue 52: the player pushed Speed to the cap and left Stamina, Guts and Wit at 220-300. A stat whose pace
    passes the cap needs fewer trainings, and none is left under its share of NUMBERS §8's profile."""
    pushed = {"Speed": "700", "Stamina": "150", "Power": "300", "Guts": "150", "Wit": "150"}  # Speed's pace: 1,684
    assert pressed(ScriptedPolicy().respond(request(training(0.8, **pushed), TABLE))) == (
        "pressButton", {"name": "Stamina"})
    capped = {**pushed, "Speed": "1200"}  # a point past the cap adds nothing
    assert pressed(ScriptedPolicy().respond(request(training(0.8, **capped), TABLE))) == (
        "pressButton", {"name": "Stamina"})
    late = {"Speed": "1000", "Stamina": "600", "Power": "650", "Guts": "300", "Wit": "600"}  # turn 70: the pace
    assert pressed(ScriptedPolicy().respond(request(training(0.8, turn=70, **late), TABLE))) == (  # stops short
        "pressButton", {"name": "Speed"})


def test_a_rest_when_the_cap_leaves_only_a_much_lesser_option() -> None:
    risky = survey("Speed: gains Speed +12, Power +6, Skill Pts +2; failure 30%; energy 0.38 -> 0.17",
                   "Stamina: gains Stamina +10, Guts +4, Skill Pts +2; failure 28%; energy 0.38 -> 0.18",
                   "Wit: gains Speed +2, Wit +12, Skill Pts +5; failure 0%; energy not read")
    assert pressed(ScriptedPolicy().respond(request(training(0.38, **AHEAD), risky))) == (
        "runPlan", {"name": "rest"})
    even = {k: "150" for k in AHEAD}  # Wit is worth most of what Speed would be: train it, no rest
    assert pressed(ScriptedPolicy().respond(request(training(0.38, **even), risky))) == (
        "pressButton", {"name": "Wit"})


def test_the_raised_floor_trains_what_was_raised_and_rests_under_half() -> None:
    floor = Floor("raised")
    assert pressed(floor.respond(request(training(0.9, selected="Guts")))) == ("pressButton", {"name": "Guts"})
    assert pressed(floor.respond(request(hub(0.45)))) == ("pressButton", {"name": "Rest"})
    assert pressed(floor.respond(request(hub(0.55)))) == ("pressButton", {"name": "Training"})


def test_the_random_floor_draws_a_turn_s_choice_once() -> None:
    floor = Floor("random", seed=3)
    picks = Counter()
    for turn in range(20, 60):
        on_hub = pressed(floor.respond(request(hub(0.9, turn))))[1]["name"]
        on_tiles = pressed(floor.respond(request(training(0.9, turn))))[1]["name"]
        assert on_tiles in TILES
        if on_hub == "Training":  # the tile it raises and the one it trains are the turn's one draw
            assert pressed(floor.respond(request(training(0.9, turn, selected=on_tiles))))[1]["name"] == on_tiles
            picks[on_tiles] += 1
        else:
            picks[on_hub] += 1
    assert len(picks) >= 5 and max(picks.values()) <= 20  # spread over the choices, none most of the time
