"""What the simulator's hard style hides, as the offline vision reads it: energy is a bar only (no digits to read),
the mood a badge word; the gauge read from the bar is the game's true energy."""

from __future__ import annotations

import re

import pytest

from lluma_sim.game import SimGame
from lluma_sim.game.game import HARD_VARIANTS
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact
from lluma_vision.pipeline import Vision

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=27)]  # reads frames with the OCR (pyproject: markers)


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr"))


CAREER_START = ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!")  # home to the hub


def _press(g: SimGame, name: str) -> None:
    g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
    while g.truth().cinematic in ("loading", "cutscene"):
        g.capture()


@pytest.mark.parametrize("seed", [0, 2])  # 420x936, and 420x936 letterboxed (the smallest text)
def test_hard_hub_shows_energy_as_a_bar_only_and_the_gauge_reads_the_true_energy(vision: Vision, seed: int) -> None:
    g = SimGame(seed=seed, style="hard", max_turns=12, **HARD_VARIANTS[seed])
    for name in CAREER_START:
        _press(g, name)
    seen: list[tuple[int, float]] = []
    while len(seen) < 3:  # full, then lower after each training
        t = g.truth()
        assert t.screen == "hub" and t.energy is not None and t.mood is not None
        out = vision.analyze(g.capture())
        read = compact(out)
        printed = [x.text for x in out.texts] + [f"{v.caption} {v.value}" for v in out.values]
        assert not any(re.search(r"/\s*100\b", s) for s in printed) and "Energy" not in read.values, printed
        assert abs(read.gauges["Energy"] - t.energy / 100) <= 0.1, (t.energy, read.gauges)
        assert read.mood == t.mood.upper(), (t.mood, read.mood, printed)
        # the badge and the bar's caption are readouts: never offered as buttons to press
        assert not {"energy", t.mood.casefold()} & {b.name.casefold() for b in out.buttons}, out.buttons
        seen.append((t.energy, read.gauges["Energy"]))
        _press(g, "Training")
        while g.truth().screen == "training":  # a tap raises a tile, a tap on the raised one trains
            _press(g, "Speed")
        while g.truth().screen != "hub":  # events and results between turns: the first choice, then on
            names = [e.name for e in g.truth().elements if e.kind in ("button", "choice") and e.enabled]
            _press(g, next(n for n in ("OK", "Next", "Close") if n in names) if {"OK", "Next", "Close"} & set(
                names) else names[0])
    assert seen[0][0] > seen[-1][0]  # the energy did drop: bars of different fills were read


def test_hard_disabled_button_is_its_own_look_greyed_out() -> None:
    """Infirmary (no condition) is drawn as its tile darkened and drained of colour, as the real game greys a
    button; the plain style's disabled plate is a flat grey."""
    g = SimGame(seed=0, style="hard", **HARD_VARIANTS[0])
    for name in CAREER_START:
        _press(g, name)
    img = g.capture().convert("HSV")
    tiles = {e.name: e for e in g.truth().elements if e.kind == "button"}
    assert not tiles["Infirmary"].enabled and tiles["Recreation"].enabled

    def art(name: str) -> tuple[float, float]:  # (saturation, value) at the middle of the tile's picture
        b = tiles[name].box
        cx, cy = b.center[0], b.y0 + b.height // 3
        px = [img.getpixel((cx + dx, cy + dy)) for dx in (-3, 0, 3) for dy in (-3, 0, 3)]
        return sum(p[1] for p in px) / len(px), sum(p[2] for p in px) / len(px)

    (s_off, v_off), (s_on, v_on) = art("Infirmary"), art("Recreation")
    assert s_off < 0.6 * s_on and v_off < 0.85 * v_on


@pytest.mark.parametrize(
    ("seed", "taps"),
    [
        (2, CAREER_START),  # 420x936 letterboxed: a tile caption OCR boxes tighter than its row's
        (2, ("Menu",)),  # ...and a toggle's "On" the recogniser doubts, in its own plate
        (3, CAREER_START),  # 1080x1920: the trainee's eye highlight is no Menu icon
        (0, (*CAREER_START, "Training")),  # 420x936: a support card's portrait, tapped as "Support card" (issue 54)
        (2, (*CAREER_START, "Training")),  # ...letterboxed: two cards
    ],
)
def test_hard_screens_every_tappable_is_a_button_on_target(vision: Vision, seed: int, taps: tuple[str, ...]) -> None:
    """pressButton(name) takes the first button of that name (then "#2"...): each must be on its element."""
    g = SimGame(seed=seed, style="hard", max_turns=6, **HARD_VARIANTS[seed])
    for name in taps:
        _press(g, name)
    out = vision.analyze(g.capture())
    want = [e for e in g.truth().elements if e.kind in ("button", "tab", "choice", "icon") and e.enabled]
    for e in want:
        twins = sorted((x for x in want if x.name == e.name), key=lambda x: (x.box.y0, x.box.x0))
        same = sorted((b for b in out.buttons if b.name.split("#")[0] == e.name),
                      key=lambda b: (b.bounds.y0, b.bounds.x0))
        k = twins.index(e)
        assert k < len(same) and e.box.contains(*same[k].bounds.center), (e, [b.name for b in out.buttons])
