"""Plates that are not straight-edged pills, on synthetic screens at several capture sizes: a label on a round
disc, sentences on a stack of alike choice rows, a thin list scrollbar with a faint track. Each beside its
near miss: the same label with no shape, the same sentence on a plate of its own, a list with no bar."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lluma_vision.buttons.rules.plate import own_plate
from lluma_vision.config import VisionConfig
from lluma_vision.geometry import Rect
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.heuristics import scrollbar
from lluma_vision.pixels.layout import Block, Edges
from lluma_vision.pixels.ocr import Line, prepare
from tests.vision.test_vision_shapes import OUTLINE, canvas, label

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

ROW_TEXT = ("We should go to the beach today", "Maybe rest a little longer first")
LONE_TEXT = "It was a long and quiet afternoon"


def read(img: Image.Image) -> VisionOutput:
    return Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(img)


def disc_screen(width: int) -> Image.Image:
    """A white disc with a two-line caption inside it over a busy scene, and the same kind of caption
    drawn straight on the scene."""
    img, d, u = canvas(width)
    for x in range(0, 720, 60):  # scenery: dark diagonal beams
        d.line([(round(x * u), round(300 * u)), (round((x + 200) * u), round(900 * u))], fill=(70, 80, 110),
               width=max(2, round(18 * u)))
    r = 56
    d.ellipse([round((600 - r) * u), round((500 - r) * u), round((600 + r) * u), round((500 + r) * u)],
              fill=(250, 250, 250), outline=OUTLINE, width=max(1, round(3 * u)))
    label(d, u, 600, 468, "Full", 32, fill=(140, 80, 30))
    label(d, u, 600, 500, "Stats", 32, fill=(140, 80, 30))
    label(d, u, 160, 1066, "Open", 30, fill=(140, 80, 30))
    label(d, u, 160, 1102, "Notes", 30, fill=(140, 80, 30))
    return img


@pytest.mark.parametrize("width", (420, 1080))
def test_a_label_on_a_round_disc_is_a_button_and_the_same_label_on_the_scene_is_not(width: int) -> None:
    out = read(disc_screen(width))
    names = {b.name for b in out.buttons}
    assert "Full Stats" in names, out.buttons
    assert "Open Notes" not in names and any(t.text == "Open Notes" for t in out.texts), (out.buttons, out.texts)
    disc = out.button("Full Stats")
    u = width / 720
    assert disc is not None and disc.bounds.x0 < 565 * u and disc.bounds.x1 > 635 * u  # framed by the disc


def rows_screen(width: int) -> Image.Image:
    """Two alike choice rows whose sentences fill them (centred, as a portrait beside them leaves them), and
    a narrower plate alone further down holding a sentence the same way: a message."""
    img, d, u = canvas(width)

    def row(x0: float, x1: float, y: float, text: str) -> None:
        d.rounded_rectangle([round(x0 * u), round(y * u), round(x1 * u), round((y + 80) * u)], radius=round(14 * u),
                            fill=(252, 250, 246), outline=(230, 170, 60), width=max(1, round(3 * u)))
        label(d, u, (x0 + x1) / 2, y + 24, text, 30, fill=(110, 60, 30))

    row(90, 590, 300, ROW_TEXT[0])
    row(90, 590, 420, ROW_TEXT[1])
    row(130, 550, 800, LONE_TEXT)
    return img


@pytest.mark.parametrize("width", (420, 1080))
def test_sentences_on_a_stack_of_alike_rows_are_buttons_and_on_a_lone_plate_are_not(width: int) -> None:
    out = read(rows_screen(width))
    names = {b.name for b in out.buttons}
    assert set(ROW_TEXT) <= names, out.buttons
    assert LONE_TEXT not in names and any(t.text == LONE_TEXT for t in out.texts), (out.buttons, out.texts)


def list_frame(width: int, track: int | None, bar: float = 3) -> np.ndarray:
    """A white list of grey rows under a green header; with `track`, a thin bar (`bar` px at 720 wide) at its
    right edge: a light track of that shade (barely off the white) and a darker thumb at its top."""
    h = round(width * 16 / 9)
    u = width / 720
    rgb = np.full((h, width, 3), 245, np.uint8)
    rgb[: round(200 * u)] = (90, 160, 60)
    for y in range(320, 1080, 120):
        rgb[round(y * u) : round((y + 100) * u), round(30 * u) : round(660 * u)] = (228, 228, 238)
    if track is not None:
        x, bw = round(690 * u), max(1, round(bar * u))
        rgb[round(300 * u) : round(1100 * u), x : x + bw] = track
        rgb[round(300 * u) : round(500 * u), x : x + bw] = 150
    return rgb


@pytest.mark.parametrize("width", (420, 720, 1440))
def test_a_thin_scrollbar_with_a_faint_track_is_found_and_a_plain_list_has_none(width: int) -> None:
    sb = scrollbar(list_frame(width, track=225))
    assert sb is not None and (sb.up, sb.down) == (False, True), sb
    assert sb.track[2] - sb.track[0] <= max(8, 0.02 * width)  # the bar itself, not the white beside it
    assert scrollbar(list_frame(width, track=None)) is None


@pytest.mark.parametrize("width", (720, 1080))
@pytest.mark.parametrize(("track", "bar"), ((235, 3), (225, 1), (235, 1)))
def test_a_bar_ten_grey_levels_off_its_list_or_one_pixel_wide_is_found(width: int, track: int, bar: float) -> None:
    work = prepare(Image.fromarray(list_frame(width, track=track, bar=bar)), 720, 1280)
    sb = scrollbar(work.rgb)
    assert sb is not None and (sb.up, sb.down) == (False, True), sb
    assert sb.track[3] - sb.track[1] >= 0.4 * work.rgb.shape[0]  # the whole track, not only the thumb


def test_a_faint_line_whose_contrast_is_not_one_thumb_is_no_scrollbar() -> None:
    """Scenery: a faint grey line down the list, darker and edged with white where it crosses a shaded area
    (a pillar's edge). Its dark stretch stands out clearly only where it leaves that area, so it is not a
    thumb drawn on a track. At the reference width: the white edges are a few pixels wide."""
    rgb = list_frame(720, track=None)
    u = 1.0
    x, bw = round(690 * u), round(3 * u)
    rgb[round(300 * u) : round(440 * u), round(640 * u) :] = 180  # the shaded area the line crosses
    rgb[round(300 * u) : round(500 * u), x - 2 : x + bw + 2] = 245  # the line's light edges
    rgb[round(300 * u) : round(1100 * u), x : x + bw] = 235
    rgb[round(300 * u) : round(500 * u), x : x + bw] = 170
    assert scrollbar(rgb) is None


@pytest.mark.parametrize("sharp", (True, False))
def test_an_upscaled_capture_keeps_a_crisp_plate_the_soft_edges_lose(sharp: bool) -> None:
    """On an upscaled capture the edges compare pixels two apart, which catches the glyphs' own soft fringe right
    beside a tight text box (the events' "Quick" pill at 0.75x: two of seven columns met an edge at 0 px above the
    text, the rest the plate's at 5): the one-pixel map beside it still finds the plate (issue 54)."""
    rgb = np.full((1280, 720, 3), (45, 20, 29), np.uint8)
    rgb[1080:1114, 290:430] = (110, 150, 20)  # a plate with crisp borders, text box 6 px in from top and bottom
    b = Block(lines=[Line(text="Quick", conf=0.9, box=Rect(330, 1086, 390, 1108))])
    edges = Edges.soft(rgb)
    edges.mark([b])
    edges.v[1084, [342, 360]] = True  # the fringe of two glyphs, just over the box, as the soft map sees it
    if not sharp:
        edges.sharp = None
    said = own_plate(b, 1, edges, Rect(0, 0, 720, 1280))
    assert [e.rule for e in said] == (["plate.centred"] if sharp else [])
