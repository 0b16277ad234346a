"""Readings checked across turns (lluma_agent.context.plausible): a number that moved as the game cannot move it is
marked doubtful before the model sees it; what a turn can do is never marked."""

from __future__ import annotations

import json

from lluma_agent.context.plausible import Plausible
from lluma_vision.facts.compact import compact
from lluma_vision.models import Box, CaptionedValue, Gauge, VisionOutput

BOX = Box(x0=10, y0=10, x1=100, y1=40)


def reading(frame: str = "a", energy: float | None = None, **values: str) -> VisionOutput:
    captions = {"skill": "Skill Pts", "turns": "turn(s) left", "speed": "Speed"}
    return VisionOutput(
        width=720, height=1280, screen_hash=frame,
        values=[CaptionedValue(caption=captions[k], value=v, bounds=BOX) for k, v in values.items()],
        gauges=[] if energy is None else [Gauge(label="Energy", fill=energy, bounds=BOX)])


def doubtful(out: VisionOutput) -> list[str]:
    return compact(out).doubtful


def test_skill_points_read_tenfold_are_doubtful_and_shown_so() -> None:
    p = Plausible()
    assert doubtful(p.check(reading(skill="92", turns="12"), acted=True)) == []
    out = p.check(reading(skill="920", turns="12"), acted=True)  # a digit gained: 92 -> 920
    assert doubtful(out) == ["Skill Pts"]
    assert json.loads(compact(out).to_json())["values"]["Skill Pts"] == "920?"
    # the trusted value stays 92: the next true reading is not doubtful
    assert doubtful(p.check(reading(skill="111", turns="11"), acted=True)) == []


def test_skill_points_beyond_what_the_turns_passed_can_give_are_doubtful() -> None:
    p = Plausible()
    p.check(reading(skill="300", turns="20"), acted=True)
    assert doubtful(p.check(reading(skill="380", turns="19"), acted=True)) == []  # a race win's +80
    assert doubtful(p.check(reading(skill="980", turns="18"), acted=True)) == ["Skill Pts"]  # +600 in a turn
    p2 = Plausible()
    p2.check(reading(skill="300", turns="20"), acted=True)
    for left in ("19", "18", "17", "16"):  # four turns on screens with no skill points
        p2.check(reading(turns=left), acted=True)
    assert doubtful(p2.check(reading(skill="900", turns="16"), acted=True)) == []  # +600 over four turns


def test_skill_points_spent_then_a_pending_buy_undone_are_not_doubtful() -> None:
    p = Plausible()
    for shown in ("300", "30", "300", "120"):  # the skill list: buys pending lower the count, Reset restores it
        assert doubtful(p.check(reading(skill=shown), acted=True)) == [], shown


def test_turns_left_may_go_down_by_one_or_restart_after_a_goal_only() -> None:
    p = Plausible()
    assert doubtful(p.check(reading(turns="12"), acted=True)) == []
    assert doubtful(p.check(reading(turns="12"), acted=True)) == []  # several actions in one game turn
    assert doubtful(p.check(reading(turns="11"), acted=True)) == []
    assert doubtful(p.check(reading(turns="71"), acted=True)) == ["turn(s) left"]  # "11" misread as "71"
    assert doubtful(p.check(reading(turns="9"), acted=True)) == ["turn(s) left"]  # two turns gone in one step
    for left in range(10, 0, -1):
        assert doubtful(p.check(reading(turns=str(left)), acted=True)) == []
    assert doubtful(p.check(reading(turns="14"), acted=True)) == []  # the goal reached: the count restarts


def test_anything_that_moves_with_nothing_done_is_doubtful() -> None:
    p = Plausible()
    p.check(reading(energy=0.62, skill="92", turns="12"), acted=True)
    out = p.check(reading(energy=0.95, skill="93", turns="11"), acted=False)
    assert doubtful(out) == ["Energy", "Skill Pts", "turn(s) left"]
    # the same numbers after an action that did something: a rest, an event
    assert doubtful(p.check(reading(energy=0.95, skill="93", turns="11", frame="b"), acted=True)) == []


def test_a_new_value_seen_again_on_another_frame_is_taken_as_true() -> None:
    p = Plausible()
    p.check(reading(turns="5"), acted=True)
    assert doubtful(p.check(reading(turns="40", frame="x"), acted=True)) == ["turn(s) left"]
    assert doubtful(p.check(reading(turns="40", frame="x"), acted=True)) == ["turn(s) left"]  # the same frame again
    assert doubtful(p.check(reading(turns="40", frame="y"), acted=True)) == []  # another screen shows it too
    assert doubtful(p.check(reading(turns="39", frame="z"), acted=True)) == []


def test_unwatched_values_and_a_reading_with_nothing_doubtful_pass_unchanged() -> None:
    p = Plausible()
    first = reading(energy=0.5, speed="434/1200")
    assert p.check(first, acted=True) is first
    again = reading(energy=0.5, speed="1434/1200")  # the within-screen grammar is lluma_vision.facts.checks' job
    assert p.check(again, acted=False) is again
