"""The truth vision (lluma_sim.truth_vision): the plumbing tests' reading, made from the game's truth, chosen only
by the demo's --truth-vision; the OCR stays the default."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import run_demo
from lluma_sim.game import SimGame
from lluma_sim.truth_vision import TruthVision
from lluma_vision.facts.compact import compact
from lluma_vision.facts.raised import raised
from lluma_vision.pipeline.vision import Vision

SETUP = ["Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"]  # home -> the career hub


def _press(game: SimGame, name: str) -> None:
    game.capture()
    element = game.truth().element(name)
    assert element is not None, (name, game.truth().screen)
    game.tap(*element.box.center)
    for _ in range(12):  # through any animation
        game.capture()


@pytest.fixture(scope="module")
def hub() -> SimGame:
    game = SimGame(seed=5)
    for name in SETUP:
        _press(game, name)
    assert game.truth().screen == "hub"
    return game


def test_the_hub_reads_as_drawn_with_its_gauge_and_greyed_tiles(hub: SimGame) -> None:
    out = TruthVision(hub.truth).analyze(hub.capture())
    truth = hub.truth()
    tappable = {e.name for e in truth.elements if e.kind in ("button", "tab", "choice", "icon")}
    assert {b.name for b in out.buttons} == tappable >= {"Rest", "Training", "Races", "Menu"}
    assert out.button("Infirmary") is not None and out.button("Infirmary").meta == "disabled"  # no condition yet
    assert out.button("Training") is not None and out.button("Training").meta == ""
    assert [(g.label, g.fill) for g in out.gauges] == [("Energy", (truth.energy or 0) / 100)]
    assert {"Mood: Normal", "Speed"} <= {t.text for t in out.texts}
    assert out.screen is not None and out.screen.name == "Career"  # identified as the OCR's readings are
    assert out.backend == "truth" and out.screen_hash


@pytest.fixture(scope="module")
def training() -> SimGame:
    """The hard style's training screen on arrival (the real client's: plate-less tiles, the mood a badge)."""
    game = SimGame.hard(seed=5)
    for name in [*SETUP, "Training"]:
        _press(game, name)
    assert game.truth().screen == "training"
    return game


def test_the_training_screen_reads_its_raised_tile_gains_failure_and_cards(training: SimGame) -> None:
    seen = compact(TruthVision(training.truth).analyze(training.capture()))
    c = training.state.career
    assert c is not None
    assert seen.selected == c.sel == "Speed"
    assert seen.gains == {k: f"+{v}" for k, v in c.gains(c.sel).items() if v}  # "Skill Pts" too
    assert seen.values["Failure"] == f"{c.fail_chance(c.sel)}%"
    bonds = [(s.bond, s.hint) for s in training.truth().supports]
    assert [(s.bond, s.hint) for s in seen.supports] == bonds and bonds  # each portrait a card
    assert not {s.name for s in training.truth().supports} & {b.name for b in seen.buttons}
    after = c.energy - min(c.energy, -c.energy_change(c.sel))
    assert seen.gauges == {"Energy": c.energy / 100, "Energy after": after / 100}
    assert seen.goal is not None and seen.goal.status == training.truth().goal_status == "Entry criteria met!"
    assert seen.date == c.date and seen.mood == c.mood_word.upper()
    r = raised(TruthVision(training.truth).analyze(training.capture()))
    assert r is not None and "Back" not in r.options and r.options == ["Speed", "Stamina", "Power", "Guts", "Wit"]


@pytest.mark.ocr
def test_the_truth_reads_the_training_screen_as_the_ocr_does(training: SimGame) -> None:
    frame = training.capture()
    truth, ocr = compact(TruthVision(training.truth).analyze(frame)), compact(Vision().analyze(frame))
    for key in ("selected", "gains", "supports", "goal", "date", "mood", "gauges"):
        assert getattr(truth, key) == getattr(ocr, key), key
    assert truth.values["Failure"] == ocr.values["Failure"]


def test_a_frame_of_another_size_is_refused() -> None:
    game = SimGame(seed=1)
    with pytest.raises(ValueError, match="frame is 540x960"):
        TruthVision(game.truth).analyze(Image.new("RGB", (540, 960)))


@pytest.mark.ocr  # its second demo reads with the OCR
def test_the_demo_reads_with_the_ocr_unless_told(tmp_path: Path) -> None:
    run_demo(2, tmp_path / "truth", seed=5, quiet=True, truth_vision=True)
    assert [t.vision.backend for t in read_turns(tmp_path / "truth") if t.vision] == ["truth", "truth"]
    run_demo(1, tmp_path / "ocr", seed=5, quiet=True)
    assert [t.vision.backend for t in read_turns(tmp_path / "ocr") if t.vision] == ["ocr"]
