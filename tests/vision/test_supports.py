"""The support cards on the raised training (`supports`: each card's bond level and hint), read on the simulator's
training screen in both styles and at the frame sizes the demo uses, on the real training screenshots (floors), and
on drawn near misses."""

from __future__ import annotations

import numpy as np
import pytest
from real_reads import cold_read
from test_raised import CAREER_START, SCREENS2, _tap

from lluma_sim.game import SimGame
from lluma_sim.game.game import HARD_VARIANTS
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact
from lluma_vision.facts.supports import supports
from lluma_vision.models import Box, Button, CaptionedValue, Gauge, Support, VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.bonds import find_bonds


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr", cache_size=0))


# (card, bond points, hint): the simulator's levels are grey < 20 <= blue < 40 <= green < 60 <= orange < 80 <= MAX
CARDS = {
    "four levels": [("Kitasan Black", 30, False), ("Fine Motion", 50, True), ("Super Creek", 70, False),
                    ("Twin Turbo", 10, True)],
    "one card": [("Super Creek", 25, False)],
    "none": [],
}


# Not yet read (issue 37 item 8, left open): the simulator's MAX bar (its small white "MAX" is not read by OCR, and
# its letters part the bar's rows), a bond-0 bar on the 1080x2400 frame, and the levels on the 420x936 frame.
@pytest.mark.parametrize(("style", "variant", "cards"), [
    ("plain", None, "four levels"), ("hard", 1, "four levels"), ("hard", 2, "one card"), ("hard", 3, "four levels"),
    ("hard", 3, "none"),
])
def test_the_simulators_support_cards_are_read(vision: Vision, style: str, variant: int | None, cards: str) -> None:
    size = HARD_VARIANTS[variant] if variant is not None else {}
    g = SimGame(seed=variant or 0, style=style, max_turns=78, **size)  # type: ignore[arg-type]
    for name in CAREER_START:
        _tap(g, name)
    c = g.career
    assert c is not None
    on = {n for n, _, _ in CARDS[cards]}
    c.placed = {n: ("Speed" if n in on else "") for n in c.placed}
    c.bonds = {**c.bonds, **{n: b for n, b, _ in CARDS[cards]}}
    c.hints = frozenset(n for n, _, h in CARDS[cards] if h)
    want = [(s.bond, s.hint) for s in g.truth().supports]
    assert len(want) == len(CARDS[cards])
    out = vision.analyze(g.capture())
    assert [(s.bond, s.hint) for s in out.supports] == want
    assert [(s.bond, s.hint) for s in compact(out).supports] == want


@pytest.mark.skipif(not SCREENS2.is_dir(), reason="the shared screenshots are not here")
@pytest.mark.parametrize(("name", "floor"), [
    # five cards: two at MAX, two orange, and a fifth (a group card) with no bond bar
    ("dhrpf__training_guts.png", ["MAX", "orange", "orange", "MAX"]),
    # three cards: two blue, and a third (a friend card) with no bond bar
    ("mrhorseshoe__35_training_select.png", ["blue", "blue"]),
])
def test_a_real_training_screens_cards_are_read(name: str, floor: list[str]) -> None:
    out = cold_read(SCREENS2, name)
    assert [s.bond for s in out.supports] == floor
    assert not any(s.hint for s in out.supports)  # neither shows a hint badge
    assert [s.bond for s in compact(out).supports] == floor


def _frame(bars: list[tuple[int, int, tuple[int, int, int], float]], w: int = 720, h: int = 1280,
           ground: tuple[int, int, int] = (92, 192, 252)) -> np.ndarray:
    """A sky-blue frame with bond bars (x0, y0, fill colour, fill share) 76 x 10 in the right column."""
    rgb = np.zeros((h, w, 3), np.uint8)
    rgb[:] = ground
    for x0, y0, colour, share in bars:
        rgb[y0:y0 + 10, x0:x0 + 76] = (109, 108, 117)
        rgb[y0:y0 + 10, x0:x0 + round(76 * share)] = colour
    return rgb


def test_drawn_bars_are_read_with_their_levels() -> None:
    got = find_bonds(_frame([(604, 280, (42, 192, 255), 0.4), (604, 400, (100, 200, 90), 0.6),
                             (604, 520, (255, 173, 30), 1.0), (604, 640, (109, 108, 117), 0.0)]), [])
    assert [b.level for b in got] == ["blue", "green", "orange", "grey"]


@pytest.mark.parametrize(("bars", "why"), [
    ([(300, 400, (42, 192, 255), 0.4)], "a bar left of the column is no card's"),
    ([(644, 400, (42, 192, 255), 0.4)], "a band running off the frame's edge is no bar"),
])
def test_drawn_near_misses_are_no_bars(bars: list[tuple[int, int, tuple[int, int, int], float]], why: str) -> None:
    assert find_bonds(_frame(bars), []) == [], why


def test_a_band_too_thick_or_thin_is_no_bar() -> None:
    rgb = _frame([])
    rgb[400:440, 604:680] = (109, 108, 117)  # a grey plate 40 rows tall
    rgb[600:603, 604:680] = (109, 108, 117)  # a rule 3 rows tall
    assert find_bonds(rgb, []) == []


def _out(pill: bool, gain_y: int = 795) -> VisionOutput:
    values = [CaptionedValue(caption="Speed", value="+18", kind="gain", bounds=Box(x0=40, y0=gain_y, x1=125, y1=837)),
              CaptionedValue(caption="Speed", value="243/1616", bounds=Box(x0=63, y0=831, x1=137, y1=907))]
    if pill:
        values.append(CaptionedValue(caption="Failure", value="0%", bounds=Box(x0=68, y0=913, x1=141, y1=967)))
    return VisionOutput(width=720, height=1280, values=values,
                        buttons=[Button(name="Speed", bounds=Box(x0=60, y0=1027, x1=151, y1=1085))],
                        gauges=[Gauge(label="Energy", fill=0.5, bounds=Box(x0=230, y0=147, x1=506, y1=176))])


BARS = [Support(bond="MAX", bounds=Box(x0=601, y0=100, x1=685, y1=120)),  # over the Energy gauge: the header's
        Support(bond="blue", bounds=Box(x0=604, y0=279, x1=680, y1=288)),
        Support(bond="orange", bounds=Box(x0=590, y0=854, x1=695, y1=867))]  # in the stats panel, under the gains


def test_only_the_bars_between_the_header_and_the_gains_are_cards() -> None:
    assert [s.bond for s in supports(_out(pill=True), BARS)] == ["blue"]


def test_no_raised_tile_no_cards() -> None:
    assert supports(_out(pill=False), BARS) == []
