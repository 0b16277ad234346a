"""A list row led by an icon (Android's dialogs: a cross before "Close app", a clock before "Wait") is one button
named by its words, not by the glyph; beside it the near miss, a stepper's plated Minus with a word tight after
it, stays the icon it is. Drawn at several capture sizes; the simulator's own "isn't responding" dialog too."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_sim.game import SimGame
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from tests.sim.test_sim_game import start_career
from tests.vision.test_vision_shapes import WIDTHS, bar, canvas, plate

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

CARD, INK = (48, 48, 52), (236, 236, 240)


def read(img: Image.Image) -> VisionOutput:
    return Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(img)


def text(d: ImageDraw.ImageDraw, u: float, x: float, cy: float, words: str, size: float, fill=INK) -> None:
    f = ImageFont.load_default(size=max(8, round(size * u)))
    d.text((round(x * u), round(cy * u)), words, font=f, fill=fill, anchor="lm")


def rows_screen(width: int) -> Image.Image:
    """A dark dialog card: a title, then two rows each led by a line icon (a cross, a clock) 32 px before the
    words; lower down, a green disc with a minus and the word "Obtained" 6 px after it."""
    img, d, u = canvas(width)
    d.rounded_rectangle([round(50 * u), round(480 * u), round(670 * u), round(800 * u)], radius=round(28 * u),
                        fill=CARD)
    text(d, u, 90, 540, "Game isn't responding", 34)
    r, s = 15, max(2, round(3 * u))
    for i, words in enumerate(("Close app", "Wait")):
        cy = 630 + 90 * i
        if i == 0:
            d.line([(round((115 - r) * u), round((cy - r) * u)), (round((115 + r) * u), round((cy + r) * u))],
                   fill=INK, width=s)
            d.line([(round((115 - r) * u), round((cy + r) * u)), (round((115 + r) * u), round((cy - r) * u))],
                   fill=INK, width=s)
        else:
            d.ellipse([round((115 - r) * u), round((cy - r) * u), round((115 + r) * u), round((cy + r) * u)],
                      outline=INK, width=s)
            d.line([(round(115 * u), round(cy * u)), (round(115 * u), round((cy - 0.7 * r) * u))], fill=INK, width=s)
        text(d, u, 115 + r + 36, cy, words, 32)
    plate(d, u, 300, 1100, 22, (110, 190, 40))
    bar(d, u, 286, 1097, 314, 1103, (250, 250, 250))
    text(d, u, 328, 1100, "Obtained", 30, fill=(40, 40, 60))
    return img


@pytest.mark.parametrize("width", WIDTHS)
def test_an_icon_leading_a_row_names_the_row_by_its_words_and_a_stepper_keeps_its_glyph(width: int) -> None:
    out = read(rows_screen(width))
    names = {b.name for b in out.buttons}
    assert {"Close app", "Wait"} <= names, out.buttons
    assert not names & {"Info", "Close"}, out.buttons  # the glyphs no longer stand for the rows
    assert "Minus" in names and "Obtained" not in names, out.buttons  # the near miss: words tight after a plate


@pytest.mark.parametrize("style", ["plain", "hard"])
def test_the_simulators_not_responding_dialog_reads_wait_and_close_app(style: str) -> None:
    g = SimGame.hard(seed=0) if style == "hard" else SimGame(seed=1)
    start_career(g)
    assert g.hazard("anr")
    names = {b.name for b in read(g.capture()).buttons}
    assert {"Close app", "Wait"} <= names and "Info" not in names, names
