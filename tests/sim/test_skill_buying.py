"""The stand-in buys skills as a careful player would, from the request alone: on the skill list it marks, with one
plan, the "+" plates the points it reads reach, a hint's discount first (a skill's rating is fixed, NUMBERS §7);
rows it cannot afford are left; with nothing left to mark in view it scrolls for more while every row in view is
marked or owned, else confirms what it marked."""

from __future__ import annotations

import json
from typing import Any

from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api import skill_read
from lluma_sim.api.policy import ScriptedPolicy

PLANS = {"name": "runPlan", "description": "Run a procedure by its name.",  # offered with plans on (as shipped)
         "input_schema": {"type": "object", "properties": {"name": {"type": "string"}, "args": {"type": "object"}},
                          "required": ["name"]}}


def skill_list(points: int, scroll_down: bool = True, marked: tuple[str, ...] = (),
               costs: dict[str, int] | None = None) -> dict[str, Any]:
    """The Learn list as the compact reading gives it (the simulator's hard style, read by the truth reader): four
    rows, the third with a hint at 30% off, the fourth too dear for the points; `marked` rows' "-" lit, "+" greyed."""
    costs = costs or {"Corner Adept": 90, "Straightaway Adept": 110, "Slick Surge": 126, "Late Charge": 400}
    buttons = []
    for k, (name, cost) in enumerate(costs.items(), start=1):
        tag = "" if k == 1 else f"#{k}"
        buttons += [{"name": f"-{tag}", "meta": name if name in marked else f"disabled, {name}"},
                    {"name": f"+{tag}", "meta": str(cost) + (", disabled" if cost > points or name in marked else "")}]
    rows = [f"{name} | - | {cost} | + | A skill." + (" | Hint Lvl 3 | 30% OFF!" if name == "Slick Surge" else "")
            for name, cost in costs.items()]
    confirm = {"name": "Confirm", **({} if marked else {"meta": "disabled"})}
    return {"buttons": [*buttons, confirm, {"name": "Reset"}, {"name": "Back"}],
            "texts": ["Learn", "Skill Points", str(points)], "values": {"Skill Points": str(points)},
            "rows": rows, "scroll": {"up": False, "down": scroll_down}}


def reply_to(vision: dict[str, Any], plans: bool = True) -> tuple[str, dict[str, Any]]:
    request = {"tools": [*tool_definitions(), *([PLANS] if plans else [])],
               "messages": [{"role": "user", "content": f"<vision>{json.dumps(vision)}</vision>"}]}
    content = ScriptedPolicy(memory_every=1000).respond(request).content
    use = next(b for b in content if b["type"] == "tool_use" and not b["name"].endswith("MemoryFile"))
    return use["name"], use["input"]


def test_the_hinted_row_comes_first_and_only_what_the_points_reach_is_marked() -> None:
    assert skill_read.points(skill_list(240)) == 240
    assert skill_read.picks(skill_list(240)) == ["+#3", "+"]  # 126 at 30% off, then the cheapest: 216 of 240
    assert skill_read.picks(skill_list(1000)) == ["+#3", "+", "+#2", "+#4"]
    assert skill_read.picks(skill_list(80)) == []


def test_one_plan_marks_them_all_and_a_list_with_nothing_to_afford_scrolls_on() -> None:
    assert reply_to(skill_list(240)) == ("runPlan", {"name": "skills", "args": {"skills": ["+#3", "+"]}})
    assert reply_to(skill_list(80))[0] == "back"  # no row in view it can afford: the points ran out
    every = skill_list(0, marked=("Corner Adept", "Straightaway Adept"),
                       costs={"Corner Adept": 90, "Straightaway Adept": 110})
    assert reply_to(every)[0] == "scrollDown"  # all in view marked: more may be below
    marked = skill_list(14, marked=("Corner Adept", "Straightaway Adept", "Slick Surge"))
    assert skill_read.short(marked) and reply_to(marked) == ("pressButton", {"name": "Confirm"})
    assert reply_to(skill_list(240), plans=False) == ("pressButton", {"name": "+#3"})  # without plans: one by one


def test_on_the_turn_before_the_final_the_training_screen_goes_back_for_the_last_skill_trip() -> None:
    """Landed on the training screen (a resume) on the career's last turn before the Final: back to the hub first,
    for the skill list (points left at the end add nothing); on an earlier turn it trains there."""
    def training(turn: int) -> dict[str, Any]:
        return {"buttons": [{"name": n} for n in ("Speed", "Stamina", "Power", "Guts", "Wit", "Back")],
                "texts": ["Training"], "values": {"Turn": f"{turn}/78"}, "gauges": {"Energy": 0.9},
                "selected": "Speed"}
    assert reply_to(training(77))[0] == "back"
    assert reply_to(training(60))[1]["name"] in ("Speed", "Stamina", "Power", "Guts", "Wit")  # a training, there


def test_a_list_whose_rows_read_as_buttons_is_the_skill_list_not_an_event() -> None:
    """The OCR's reading of the hard list on seed 11 (turn 135 of the players bench): no "+" found, each row a
    button named by its skill ("Front Runner Corners" reads like an event's choice); it is the skill list: nothing
    to mark in view, so the player scrolls for rows below rather than "choosing" a row."""
    names = ["Straightaway Adept", "Updrafters", "Corner Adept", "Pace Keeper", "Slick Surge", "Front Runner Corners"]
    seen = {"buttons": [{"name": "Reset"}, {"name": "Back"}, {"name": "Confirm", "meta": "disabled"},
                        *({"name": n} for n in names)],
            "texts": ["Learn", "Energy", "90", "99", "180", "160", "105", "80"], "scroll": {"up": False, "down": True},
            "values": {"Turn": "31/78", "Skill Points": "327"},
            "rows": ["Corner Adept | 90 | Increase velocity on corners.", "Pace Keeper | 80 | Keep a steady pace."]}
    assert reply_to(seen)[0] == "scrollDown"


def test_the_ocrs_plus_icons_pair_with_the_rows_the_points_reach() -> None:
    """The OCR reads the hard list's enabled "+" steppers as "Plus" icons (no word of their rows: `lluma vision` on
    the simulator's Learn list, issue 52) and leaves the greyed ones out: the k-th icon is the k-th row the points
    reach, not learned."""
    rows = ["Corner Adept | 90 | Increase velocity on corners.", "Slick Surge | 180 | Increase acceleration.",
            "Updrafters | Obtained | Increase velocity on uphills.", "Front Runner Corners | 117 | On corners.",
            "Pace Keeper | 80 | Keep a steady pace early on."]
    vision = {"buttons": [{"name": n} for n in ("Reset", "Back", "Plus", "Plus#2", "Plus#3", "Corner Adept")] + [
        {"name": "Confirm", "meta": "disabled"}], "values": {"Skill Points": "120"}, "rows": rows,
        "scroll": {"up": False, "down": True}}
    assert [(r.plus, r.cost) for r in skill_read.rows(vision)] == [("Plus", 90), ("Plus#2", 117), ("Plus#3", 80)]
    assert skill_read.picks(vision) == ["Plus#3"]  # the cheapest first; 40 points left reach no other
    assert reply_to(vision) == ("runPlan", {"name": "skills", "args": {"skills": ["Plus#3"]}})
