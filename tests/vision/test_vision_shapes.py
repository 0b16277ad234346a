"""Detectors on synthetic screens drawn with Pillow, each at several capture sizes (420 to 1440 wide):
icon glyphs named by shape, a captioned icon taking its caption, a row of unplated tiles, a level
annotation kept out of a button's name. Sizes are fractions of the width, so every scale draws the
same screen."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_vision.buttons.resolve import apply
from lluma_vision.buttons.rules.row import cells
from lluma_vision.config import VisionConfig
from lluma_vision.geometry import Rect
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.icons import find_icons
from lluma_vision.pixels.layout import Block, clean_name
from lluma_vision.pixels.ocr import Line, prepare

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

WIDTHS = (420, 720, 1440)
OUTLINE = (90, 80, 110)
TILES = ((140, (230, 150, 60), "Rest"), (360, (80, 140, 220), "Work"), (580, (150, 90, 200), "Shop"))


def canvas(width: int) -> tuple[Image.Image, ImageDraw.ImageDraw, float]:
    """A portrait frame with a soft vertical gradient (no flat background to lean on); u = 1/720 of the width."""
    h = round(width * 16 / 9)
    ramp = np.linspace(0, 1, h)[:, None, None]
    px = (np.array([196, 214, 236]) * (1 - ramp) + np.array([236, 206, 222]) * ramp).astype(np.uint8)
    img = Image.fromarray(np.broadcast_to(px, (h, width, 3)).copy())
    return img, ImageDraw.Draw(img), width / 720


def plate(d: ImageDraw.ImageDraw, u: float, cx: float, cy: float, r: float, fill, square: bool = False) -> list[int]:
    box = [round((cx - r) * u), round((cy - r) * u), round((cx + r) * u), round((cy + r) * u)]
    if square:
        d.rounded_rectangle(box, radius=round(0.3 * r * u), fill=fill, outline=OUTLINE, width=max(1, round(2 * u)))
    else:
        d.ellipse(box, fill=fill, outline=OUTLINE, width=max(1, round(2 * u)))
    return box


def bar(d: ImageDraw.ImageDraw, u: float, x0: float, y0: float, x1: float, y1: float, fill) -> None:
    d.rectangle([round(x0 * u), round(y0 * u), round(x1 * u), round(y1 * u)], fill=fill)


def icon_screen(width: int) -> tuple[Image.Image, dict[str, list[int]]]:
    img, d, u = canvas(width)
    white, ink = (250, 250, 250), (120, 70, 40)
    want = {}
    want["Plus"] = plate(d, u, 120, 120, 22, (110, 190, 40))
    bar(d, u, 106, 117, 134, 123, white)
    bar(d, u, 117, 106, 123, 134, white)
    want["Minus"] = plate(d, u, 240, 120, 22, (110, 190, 40))
    bar(d, u, 226, 117, 254, 123, white)
    want["Info"] = plate(d, u, 360, 120, 22, white)
    bar(d, u, 356, 104, 364, 112, ink)
    bar(d, u, 356, 116, 364, 136, ink)
    want["Menu"] = plate(d, u, 600, 1180, 36, white, square=True)
    for y in (1164, 1176, 1188):
        bar(d, u, 578, y, 622, y + 7, ink)
    want["Close"] = plate(d, u, 480, 120, 22, (210, 70, 70))
    s = round(3 * u)
    d.line([(round(468 * u), round(108 * u)), (round(492 * u), round(132 * u))], fill=white, width=s)
    d.line([(round(468 * u), round(132 * u)), (round(492 * u), round(108 * u))], fill=white, width=s)
    # a bare arrow at the right edge (carousel): white with a dark outline, no plate
    pts = [(678, 560), (706, 600), (678, 640)]
    d.line([(round(x * u), round(y * u)) for x, y in pts], fill=(60, 90, 60), width=round(14 * u), joint="curve")
    d.line([(round(x * u), round(y * u)) for x, y in pts], fill=white, width=round(8 * u), joint="curve")
    want["Next"] = [round(668 * u), round(550 * u), round(716 * u), round(650 * u)]
    return img, want


def assert_icons(img: Image.Image, want: dict[str, list[int]]) -> None:
    """Each wanted icon found by its name over its box, and nothing else on the screen taken for an icon."""
    work = prepare(img)
    found = [(ic.name, work.to_device(ic)) for ic in find_icons(work.rgb, [])]
    for name, (x0, y0, x1, y1) in want.items():
        assert any(n == name and x0 <= b.center[0] < x1 and y0 <= b.center[1] < y1 for n, b in found), (name, found)
    assert len(found) == len(want), found


@pytest.mark.parametrize("width", WIDTHS)
def test_icons_are_named_by_their_glyph_at_every_size(width: int) -> None:
    assert_icons(*icon_screen(width))


def test_a_gradient_and_a_photo_like_patch_hold_no_icons() -> None:
    img, d, u = canvas(720)
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 255, (200, 200, 3), dtype=np.uint8)
    img.paste(Image.fromarray(noise).resize((400, 400), Image.NEAREST), (160, 400))
    work = prepare(img)
    assert find_icons(work.rgb, []) == []


def label(d: ImageDraw.ImageDraw, u: float, cx: float, y: float, text: str, size: float, fill=(40, 40, 60)) -> None:
    f = ImageFont.load_default(size=max(8, round(size * u)))
    d.text((round(cx * u), round(y * u)), text, font=f, fill=fill, anchor="mt", stroke_width=max(1, round(2 * u)),
           stroke_fill=(255, 255, 255))


def tiles_screen(width: int) -> Image.Image:
    """Three illustrated tiles with big captions and no plate, a row of small column headings above them,
    an icon with a caption ("Log") and a toggle pair. One tile's caption carries its level."""
    img, d, u = canvas(width)
    for cx, colour, name in TILES:
        d.polygon([(round((cx - 70) * u), round(980 * u)), (round((cx + 60) * u), round(930 * u)),
                   (round((cx + 80) * u), round(1040 * u)), (round((cx - 50) * u), round(1050 * u))], fill=colour)
        label(d, u, cx, 1060, name, 44)
        if name == "Work":
            label(d, u, cx, 1110, "Lvl 3", 30)
    for cx, name in ((100, "Alpha"), (240, "Beta"), (380, "Gamma"), (520, "Delta")):
        label(d, u, cx, 760, name, 22)
        label(d, u, cx, 790, "120", 22)
    plate(d, u, 620, 1180, 30, (250, 250, 250), square=True)
    for y in (1168, 1178, 1188):
        bar(d, u, 602, y, 638, y + 5, (120, 70, 40))
    label(d, u, 620, 1214, "Log", 26)
    # a toggle pair in a settings row: the selected half on a plate, the other bare
    d.rounded_rectangle([round(380 * u), round(380 * u), round(500 * u), round(440 * u)], radius=round(12 * u),
                        fill=(120, 200, 60), outline=(60, 120, 30), width=max(1, round(3 * u)))
    label(d, u, 440, 394, "On", 30)
    label(d, u, 570, 394, "Off", 30)
    label(d, u, 160, 394, "Sound", 30)
    return img


@pytest.fixture(scope="module")
def tile_readings():
    return {w: Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(tiles_screen(w)) for w in (420, 1080)}


@pytest.mark.parametrize("width", (420, 1080))
def test_unplated_tiles_in_a_row_are_buttons_and_small_headings_are_not(tile_readings, width: int) -> None:
    out = tile_readings[width]
    names = {b.name for b in out.buttons}
    assert {"Rest", "Work", "Shop"} <= names, out.buttons
    assert not names & {"Alpha", "Beta", "Gamma", "Delta"}, out.buttons
    rest = out.button("Rest")
    assert rest is not None and rest.confidence < 0.9  # weaker evidence than a plate: said, not dropped


@pytest.mark.parametrize("width", (420, 1080))
def test_an_icon_takes_its_caption_and_a_level_is_meta_not_name(tile_readings, width: int) -> None:
    out = tile_readings[width]
    log = out.button("Log")
    assert log is not None, out.buttons
    assert "Menu" not in {b.name for b in out.buttons}  # the icon is the Log button, not a second one
    work = out.button("Work")
    assert work is not None, out.buttons
    assert work.meta.replace(" ", "") == "Lvl3"


@pytest.mark.parametrize("width", (420, 1080))
def test_both_halves_of_a_toggle_pair_are_buttons_and_its_row_label_is_not(tile_readings, width: int) -> None:
    out = tile_readings[width]
    names = {b.name for b in out.buttons}
    assert {"On", "Off"} <= names, out.buttons
    assert "Sound" not in names


def odd_icons_screen(width: int) -> tuple[Image.Image, dict[str, list[int]]]:
    """A hamburger in wider, thinner proportions than the template, and a "+" on a two-tone (bevelled) plate,
    where the plate's inside is not one colour."""
    img, d, u = canvas(width)
    white, ink = (250, 250, 250), (120, 70, 40)
    want = {"Menu": plate(d, u, 200, 600, 36, white, square=True)}
    for y in (586, 597, 608):
        bar(d, u, 170, y, 230, y + 5, ink)
    want["Plus"] = plate(d, u, 520, 600, 30, (60, 150, 40), square=True)
    bar(d, u, 494, 574, 546, 600, (120, 205, 95))  # the bevel: a lighter upper half
    bar(d, u, 508, 597, 532, 603, white)
    bar(d, u, 517, 588, 523, 612, white)
    return img, want


@pytest.mark.parametrize("width", WIDTHS)
def test_a_wide_hamburger_and_a_plus_on_a_bevelled_plate_are_named(width: int) -> None:
    assert_icons(*odd_icons_screen(width))


def test_a_word_label_broken_over_two_lines_joins_whatever_colours_its_lines_read_as() -> None:
    """Outlined ribbon text reads as its white fill on one line and as its dark outline on the next; one
    label ("Scenario / Details") all the same. Lines of prose in two colours (a title over a greyer
    subtitle) stay apart."""
    from lluma_vision.pixels.layout import group_lines
    from lluma_vision.pixels.ocr import Line

    rgb = np.zeros((200, 400, 3), np.uint8)
    rgb[10:40, 100:200] = (90, 170, 150)  # green ribbon, white glyphs
    rgb[18:32, 110:190:4] = (250, 250, 250)
    rgb[36:60, 105:195] = (230, 230, 235)  # pale, dark-green glyphs
    rgb[42:54, 112:188:4] = (10, 150, 100)
    label = [Line("Scenario", 0.99, Rect(100, 10, 200, 40)), Line("Details", 0.99, Rect(105, 36, 195, 60))]
    assert [b.text for b in group_lines(label, rgb)] == ["Scenario Details"]
    # the arrows around a word ("> Transfer <") read as marks are no part of it
    arrows = [Line(">Scenario<", 0.99, Rect(100, 10, 200, 40)), Line("Details", 0.99, Rect(105, 36, 195, 60))]
    assert [b.text for b in group_lines(arrows, rgb)] == [">Scenario< Details"]

    rgb[110:140, 100:300] = (250, 250, 250)
    rgb[118:132, 110:290:4] = (60, 40, 30)  # a dark title...
    rgb[140:164, 100:300] = (250, 250, 250)
    rgb[146:158, 110:290:4] = (170, 170, 170)  # ...over a grey subtitle
    prose = [Line("Race Details", 0.99, Rect(100, 110, 300, 140)), Line("Turf 1600m", 0.99, Rect(100, 140, 300, 164))]
    assert [b.text for b in group_lines(prose, rgb)] == ["Race Details", "Turf 1600m"]


def test_a_greyed_tiles_tighter_text_box_still_counts_in_its_row() -> None:
    """Low-contrast (greyed-out) text gets a tighter box from the detector: the hub's "Infirmary" read 30 px high
    beside 44 px "Recreation" and "Races". The row is still a row of three tiles, all tappable."""
    body = [Block(lines=[Line(f"word {i}", 0.9, Rect(40, 300 + 40 * i, 200, 320 + 40 * i))]) for i in range(6)]
    row = [Block(lines=[Line("Infirmary", 0.9, Rect(104, 1141, 225, 1171))]),
           Block(lines=[Line("Recreation", 0.9, Rect(285, 1136, 432, 1180))]),
           Block(lines=[Line("Races", 0.9, Rect(501, 1136, 603, 1181))])]
    apply(cells(body + row, 720))
    assert [b.is_button for b in row] == [True, True, True]


def test_a_buttons_name_loses_an_icon_read_as_a_capital_run_into_it() -> None:
    """The flag before "Goal" reads as "Q" or "C" run into the word: the button is "Goal"; words stay whole."""
    assert [clean_name(t) for t in ("QGoal", "CGoal", "IThink so", "HTMLParser", "Goal")] == [
        "Goal", "Goal", "IThink so", "HTMLParser", "Goal"]
