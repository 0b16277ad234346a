"""Numbers checked before they are facts (facts/checks.py): a value the game could not show is re-read from its
own pixels, and marked doubtful (shown with a "?" and listed in the compact JSON) when the re-read cannot show it
either; a value the game could show is never touched."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image, ImageDraw

from lluma_sim.game.draw import font
from lluma_vision.facts.checks import broken_rule, check
from lluma_vision.facts.compact import compact, summarize
from lluma_vision.geometry import Rect
from lluma_vision.models import Box, CaptionedValue, Gauge, VisionOutput
from lluma_vision.pixels.ocr import Line, prepare

BOX = Box(x0=10, y0=10, x1=200, y1=60)


def value(caption: str, text: str, kind: str = "value") -> CaptionedValue:
    return CaptionedValue.model_validate({"caption": caption, "value": text, "kind": kind, "bounds": BOX})


@pytest.mark.parametrize(("caption", "text"), [
    ("Speed", "1234/1200"),  # a stat over its printed cap
    ("Wit", "1500"),  # a stat over the game's cap, none printed
    ("Failure", "340%"),  # a percentage over 100
    ("Failure", "140"),  # a failure rate out of 0..100, its % lost
    ("turn(s) left", "97"),  # more turns left than a career has
])
def test_a_value_the_game_could_not_show_breaks_a_rule(caption: str, text: str) -> None:
    assert broken_rule(value(caption, text)) is not None


@pytest.mark.parametrize(("caption", "text", "kind"), [
    ("Speed", "434/1200", "value"), ("Guts", "1200/1200", "value"), ("Failure", "0%", "value"),
    ("Failure", "100%", "value"), ("turn(s) left", "12", "value"), ("Skill Pts", "920", "value"),
    ("turn(s) left", "77", "value"),  # a 78-turn career's first turn (FACTS: 78 turns, not 75)
    ("Power", "+26", "gain"), ("Speed", "Lvl 3", "value"), ("Concert in turn(s)", "19", "value"),
])
def test_a_value_the_game_could_show_breaks_none(caption: str, text: str, kind: str) -> None:
    assert broken_rule(value(caption, text, kind)) is None


def _number_frame(printed: str) -> tuple[Image.Image, tuple[float, float, float, float]]:
    """A white frame with `printed` in the game's dark ink, and its box."""
    img = Image.new("RGB", (720, 1280), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.text((200, 400), printed, font=font(44), fill=(62, 44, 32))
    x0, y0, x1, y1 = d.textbbox((200, 400), printed, font=font(44))
    return img, (x0 - 6, y0 - 6, x1 + 6, y1 + 6)


def _read_as(printed: str, misread: str) -> CaptionedValue:
    img, box = _number_frame(printed)
    work = prepare(img)
    line = Line(text=misread, conf=0.9, box=Rect(*box).scale(work.scale))
    v = CaptionedValue(caption="Speed", value=misread, bounds=Box(x0=round(box[0]), y0=round(box[1]),
                                                                  x1=round(box[2]), y1=round(box[3])))
    return check(work, [line], [v])[0]


def test_a_misread_over_its_cap_is_read_again_and_the_reread_kept() -> None:
    fixed = _read_as("434/1200", "4341/1200")
    assert (fixed.value, fixed.doubtful) == ("434/1200", False)


def test_a_value_still_impossible_when_read_again_is_doubtful_and_kept_as_read() -> None:
    kept = _read_as("1434/1200", "1434/1200")  # the pixels say it too: nothing to take instead
    assert (kept.value, kept.doubtful) == ("1434/1200", True)


def test_values_the_game_could_show_pass_untouched_without_a_reread() -> None:
    work = prepare(Image.fromarray(np.full((1280, 720, 3), 255, np.uint8)))
    values = [value("Speed", "434/1200"), value("Failure", "12%"), value("Power", "+26", "gain")]
    assert check(work, [], values) == values


def test_the_model_sees_a_doubtful_value_with_a_question_mark_and_listed() -> None:
    out = VisionOutput(width=720, height=1280, values=[
        value("Skill Pts", "920").model_copy(update={"doubtful": True}), value("Speed", "434/1200"),
        value("Power", "+26", "gain")], gauges=[
        Gauge(label="Energy", fill=0.62, bounds=BOX, doubtful=True), Gauge(label="Energy after", fill=0.4, bounds=BOX)])
    view = json.loads(compact(out).to_json())
    assert view["values"] == {"Skill Pts": "920?", "Speed": "434/1200"} and view["gains"] == {"Power": "+26"}
    assert view["gauges"] == {"Energy": 0.62, "Energy after": 0.4}
    assert view["doubtful"] == ["Energy", "Skill Pts"]
    assert "Energy 62%?" in summarize(out) and "Energy after 40%," not in summarize(out)


def test_nothing_doubtful_leaves_the_compact_json_as_it_was() -> None:
    out = VisionOutput(width=720, height=1280, values=[value("Speed", "434/1200")],
                       gauges=[Gauge(label="Energy", fill=0.62, bounds=BOX)])
    assert compact(out).to_json() == '{"gauges":{"Energy":0.62},"values":{"Speed":"434/1200"}}'
