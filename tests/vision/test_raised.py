"""The raised training (`selected`) and its row of options (and the header's date and goal), read on the
simulator's training screen in both styles and at every frame size the demo uses, on the real training screenshots,
and on drawn near misses."""

from __future__ import annotations

from pathlib import Path

import pytest
from rapidfuzz import fuzz
from real_reads import cold_read

from lluma_sim.game import SimGame
from lluma_sim.game.content import STATS
from lluma_sim.game.game import HARD_VARIANTS
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact
from lluma_vision.facts.raised import raised
from lluma_vision.models import Box, Button, CaptionedValue, VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = pytest.mark.cost(seconds=32)  # worker seconds in a full suite (conftest: slowest modules first)

CAREER_START = ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!", "Training")
SCREENS2 = Path(__file__).resolve().parents[3] / "shared" / "data" / "screens2"


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr", cache_size=0))


def _tap(g: SimGame, name: str) -> None:
    g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text" and e.enabled).box.center)
    while g.truth().cinematic in ("loading", "cutscene"):
        g.capture()


@pytest.mark.ocr
@pytest.mark.parametrize(("style", "variant", "raise_"), [
    ("plain", None, None), ("plain", None, "Guts"),
    ("hard", 0, "Stamina"), ("hard", 1, "Wit"), ("hard", 2, None), ("hard", 3, "Power"),
])
def test_the_simulators_raised_training_and_its_row_are_read(
        vision: Vision, style: str, variant: int | None, raise_: str | None) -> None:
    size = HARD_VARIANTS[variant] if variant is not None else {}
    g = SimGame(seed=variant or 0, style=style, max_turns=78, **size)  # type: ignore[arg-type]
    for name in CAREER_START:
        _tap(g, name)
    if raise_:
        _tap(g, raise_)
    want = g.truth().selected
    assert want == (raise_ or STATS[0])
    out = vision.analyze(g.capture())
    got = raised(out)
    assert got is not None and got.selected == want, (got, want)
    assert set(got.options) == set(STATS), got.options
    seen, truth = compact(out), g.truth()
    assert seen.selected == want
    # the header's date and goal with its status, one fact each (career.py), as the game prints them
    assert seen.date == truth.date and seen.goal is not None, (seen.date, truth.date)
    assert fuzz.ratio(seen.goal.text, truth.goal or "") >= 80, (seen.goal, truth.goal)  # OCR: "Runin Junior ..."
    # a status read is the game's; at 420x936 letterboxed (hard, 2) the OCR reads no line under the goal at all
    want_status = truth.goal_status or None
    assert seen.goal.status == want_status or (variant == 2 and seen.goal.status is None), (seen.goal, want_status)


@pytest.mark.ocr
@pytest.mark.skipif(not SCREENS2.is_dir(), reason="the shared screenshots are not here")
@pytest.mark.parametrize(("name", "want"), [("dhrpf__training_guts.png", "Guts"),
                                            ("mrhorseshoe__35_training_select.png", "Speed")])
def test_a_real_training_screens_raised_tile_is_read(name: str, want: str) -> None:
    got = raised(cold_read(SCREENS2, name))
    assert got is not None and got.selected == want
    assert set(got.options) == set(STATS), got.options  # the card-type badges above the row are not options


def _out(buttons: list[tuple[str, tuple[int, int, int, int]]], pill: tuple[int, int, int, int] | None,
         caption: str = "Failure") -> VisionOutput:
    return VisionOutput(
        width=720, height=1280,
        buttons=[Button(name=n, bounds=Box.model_validate(b), confidence=1.0, region="middle") for n, b in buttons],
        values=[CaptionedValue(caption=caption, value="12%", bounds=Box.model_validate(pill))] if pill else [])


ROW = [("Speed", (60, 1027, 151, 1085)), ("Stamina", (176, 1081, 289, 1144)), ("Power", (317, 1083, 404, 1147)),
       ("Guts", (453, 1084, 524, 1120)), ("Wit", (587, 1084, 644, 1119))]


def test_a_drawn_row_under_the_pill_fires() -> None:
    got = raised(_out(ROW, (68, 913, 141, 967)))
    assert got is not None and got.selected == "Speed" and got.options == [n for n, _ in ROW]


@pytest.mark.parametrize(("pill", "caption", "why"), [
    (None, "Failure", "no pill: nothing is raised"),
    ((68, 913, 141, 967), "Energy", "another caption's value is no failure pill"),
    ((68, 1160, 141, 1200), "Failure", "a pill under the row points at nothing"),
    ((68, 700, 141, 750), "Failure", "a pill far above the row (over 0.15 of the height) is not its tile's"),
    ((660, 913, 710, 967), "Failure", "a pill over no button"),
])
def test_near_misses_read_nothing_raised(pill: tuple[int, int, int, int] | None, caption: str, why: str) -> None:
    assert raised(_out(ROW, pill, caption)) is None, why
