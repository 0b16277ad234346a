"""The stand-in's VLM answers like a model reading the screen: buttons are buttons, text stays text."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lluma_sim.api.vlm import read_screen
from lluma_sim.game import GroundTruth, SimGame
from lluma_sim.sight_of_truth import seer
from lluma_vision.jpeg import jpeg_base64
from lluma_vision.models import Box

TAPPABLE = ("button", "tab", "choice")


def vlm_request(g: SimGame) -> tuple[dict[str, Any], list[str], GroundTruth]:
    """A VLM reading request for the current frame, shaped like lluma_vision.pipeline.vlm's; the OCR lines are the
    drawn texts and the buttons' labels (tight boxes, as OCR finds them), in the sent image's pixels."""
    img, t = g.capture(), g.truth()
    data, (w, h) = jpeg_base64(img, max_side=896)  # as the VLM request sends it
    media = "image/jpeg"
    sx, sy = w / t.width, h / t.height
    lines = []
    for e in t.elements:
        if e.kind == "icon":
            continue
        b = e.box
        if e.kind != "text":  # the label's glyphs inside the button, boxed tightly as OCR boxes them
            m = max(6, b.height // 6)  # inside the border
            ink = img.crop((b.x0 + m, b.y0 + m, b.x1 - m, b.y1 - m)).convert("L").point(lambda v: 255 * (v < 150))
            gx0, gy0, gx1, gy1 = ink.getbbox() or (0, 0, b.width - 2 * m, b.height - 2 * m)
            b = Box(x0=b.x0 + m + gx0, y0=b.y0 + m + gy0, x1=b.x0 + m + gx1, y1=b.y0 + m + gy1)
        box = [round(b.x0 * sx), round(b.y0 * sy), round(b.x1 * sx), round(b.y1 * sy)]
        lines.append(f"{len(lines)}\t{e.name}\t[{','.join(map(str, box))}]")
    text = "<ocr>\n" + "\n".join(lines) + "\n</ocr>"
    image = {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"messages": [{"role": "user", "content": [image, {"type": "text", "text": text}]}]}, [text], t


def game_on(*taps: str) -> SimGame:
    """A small game after tapping these labels in turn (waiting out animations)."""
    g = SimGame(seed=0, width=540, height=960)
    for name in taps:
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
        while g.truth().cinematic in ("loading", "cutscene"):
            g.capture()
    return g


def screens() -> list[SimGame]:
    """home, hub, training, the Rest dialog."""
    career = ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!")
    return [game_on(), game_on(*career), game_on(*career, "Training"), game_on(*career, "Rest")]


@pytest.mark.parametrize("game", screens(), ids=lambda g: g.truth().screen)
def test_with_ground_truth_it_names_exactly_the_tappable_elements(game: SimGame) -> None:
    request, texts, t = vlm_request(game)
    answer = json.loads(read_screen(request, texts, seer(game.truth))[0])
    assert sorted(b["name"] for b in answer["buttons"]) == sorted(e.name for e in t.elements if e.kind in TAPPABLE)
    for icon in answer["icons"]:  # icon-only buttons: image fractions that land on the icon
        fx0, fy0, fx1, fy1 = icon["box"]
        truth = t.element(icon["name"])
        assert truth is not None and truth.box.contains((fx0 + fx1) / 2 * t.width, (fy0 + fy1) / 2 * t.height)
    if t.screen == "hub":
        assert [i["name"] for i in answer["icons"]] == ["Menu"]
    if t.screen == "confirm":
        assert {b["region"] for b in answer["buttons"]} == {"dialog"}


@pytest.mark.parametrize("game", screens()[1:], ids=lambda g: g.truth().screen)
def test_from_visual_cues_plated_buttons_are_buttons_and_text_is_not(game: SimGame) -> None:
    request, texts, t = vlm_request(game)
    text, decision = read_screen(request, texts)
    named = {b["name"] for b in json.loads(text)["buttons"]}
    assert "visual cues" in decision
    # every plate, a greyed one too (Races before the debut: its faint border is still a plate's edge)
    plates = {e.name for e in t.elements if e.kind in TAPPABLE}
    assert plates <= named, plates - named
    texts = {e.name for e in t.elements if e.kind == "text"} - {e.name for e in t.elements if e.kind in TAPPABLE}
    # Seen alone, a one-line plate (the mood pill, the hub's status bubble) may be a button: a model may list it.
    one_line_plates = {"Mood: Normal", "Your career begins. Good luck!", "GOAL"}  # the goal's badge too
    assert not (named & texts) - one_line_plates, named & texts
