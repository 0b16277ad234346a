"""Loose OCR text joins its label or its button: the model reads "Speed 90" and "Fail 12%" where they belong."""

import pytest

from lluma_sim.game import SimGame
from lluma_vision.config import VisionConfig
from lluma_vision.facts.associate import associate
from lluma_vision.facts.compact import compact
from lluma_vision.models import Box, Button, TextLine, VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


def _t(text, x0, y0, x1, y1):
    return TextLine(text=text, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))


def test_value_under_label_and_beside_label_join_but_counters_are_not_labels():
    out = VisionOutput(width=1080, height=1920, texts=[
        _t("Speed", 60, 900, 200, 940), _t("90", 100, 1000, 160, 1050),
        _t("Turn 1/24", 720, 40, 1000, 90), _t("Energy", 40, 130, 160, 160), _t("100/100", 740, 125, 880, 165),
    ])
    texts = [t.text for t in associate(out).texts]
    assert "Speed 90" in texts and "Energy 100/100" in texts and "Turn 1/24" in texts


def test_row_text_becomes_meta_of_the_nearest_button_without_crossing_another():
    out = VisionOutput(
        width=1080, height=1920,
        buttons=[Button(name="Speed", bounds=Box(x0=60, y0=300, x1=470, y1=450)),
                 Button(name="Back", bounds=Box(x0=30, y0=1750, x1=320, y1=1860))],
        texts=[_t("Fail 12%", 540, 310, 660, 350), _t("Energy -20", 860, 310, 1020, 350),
               _t("Skill List", 40, 40, 300, 90)],
    )
    got = associate(out)
    assert got.buttons[0].meta == "Fail 12%, Energy -20"
    # still read texts (pressButton can tap them), marked as shown in Speed's meta: the model sees them once
    assert [(t.text, t.meta_of) for t in got.texts] == [
        ("Skill List", None), ("Fail 12%", "Speed"), ("Energy -20", "Speed")]
    assert compact(got).texts == ["Skill List"]


def test_a_speech_bubble_beside_a_button_is_no_meta_of_it_but_a_sentence_on_its_row_is():
    """The real lobby: the trainee's bubble (four lines of speech) left of the round "Full Stats" button stays text
    of its own; the near miss, one line of a goal beside its button, stays the button's meta."""
    bubble = ("Now then, what should we do? How about we try twisting the microfilaments in your cells by three "
              "rotations?")
    out = VisionOutput(
        width=417, height=482,
        buttons=[Button(name="Full Stats", bounds=Box(x0=338, y0=286, x1=359, y1=304)),
                 Button(name="Goal", bounds=Box(x0=173, y0=32, x1=196, y1=54))],
        texts=[_t(bubble, 125, 271, 252, 312), _t("Place top 5 in Hanshin J.F.", 199, 33, 314, 46)],
    )
    got = associate(out)
    assert got.button("Full Stats").meta == "" and got.button("Goal").meta == "Place top 5 in Hanshin J.F."
    assert compact(got).texts == [bubble]


@pytest.fixture(scope="module")
def vision():
    return Vision(VisionConfig(backend="ocr"))


def _settle(game):
    for _ in range(12):
        img = game.capture()
    return img


def _tap(game, name):
    game.tap(*next(e for e in game.truth().elements if e.name == name and e.kind != "text").box.center)


def test_sim_hub_stats_are_attached_and_the_raised_trainings_failure_rate_is_read(vision):
    g = SimGame(seed=4)
    _settle(g)
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):  # the career setup
        _tap(g, name)
        _settle(g)
    hub = vision.analyze(_settle(g))
    values = {v.caption: v.value for v in hub.values}  # each stat as a captioned value, not a loose text
    for stat, value in g.truth().stats.items():
        assert values.get(stat) == str(value), (stat, value, values)
    _tap(g, "Training")
    for name in ("Stamina", "Wit"):  # Speed is raised on arrival (a tap on it would train)
        _tap(g, name)  # raised: its failure rate alone shows, in a pill over it
        training = vision.analyze(_settle(g))
        read = [t.text for t in training.texts] + [b.meta for b in training.buttons]
        shown = f"Failure {g.career.fail_chance(name) if g.career else -1}%"
        assert g.truth().selected == name and sum(shown in r for r in read) == 1, read
        assert not any("Fail " in r for r in read)  # no other tile's rate (the old screen's "Fail N%" per row)
