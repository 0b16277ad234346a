"""`lluma vision --annotate`'s picture: each name sits outside the box it names, inside the picture, and a
legend says what the colours mean."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from lluma_vision.models import Box, Button, Gauge, MenuState, Scrollbar, TextLine, VisionOutput
from lluma_vision.pipeline.annotate import BUTTON, GAUGE, KINDS, TEXT, _font, annotate, labels, place_label

SIZE = (720, 1280)


def _apart(a: Box, b: Box) -> bool:
    return a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0


def _inside(a: Box, size: tuple[int, int]) -> bool:
    return 0 <= a.x0 and 0 <= a.y0 and a.x1 <= size[0] and a.y1 <= size[1]


def _measure(image: Image.Image):  # type: ignore[no-untyped-def]
    """The tag sizes annotate() uses for this picture."""
    draw, font = ImageDraw.Draw(image), _font(image.height)

    def size(text: str) -> tuple[int, int]:
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        return round(x1 - x0) + 6, round(y1 - y0) + 4

    return size


def _reading() -> VisionOutput:
    # a button at the very top (no room above), one at the right edge (its tag would run off), one at the
    # bottom, a gauge, a full-height scrollbar at the right edge, and a text right above the middle button
    return VisionOutput(
        width=SIZE[0], height=SIZE[1],
        buttons=[Button(name="Details", bounds=Box(x0=10, y0=0, x1=200, y1=60)),
                 Button(name="A rather long button name", meta="disabled", bounds=Box(x0=600, y0=400, x1=700, y1=470)),
                 Button(name="Training", bounds=Box(x0=250, y0=600, x1=470, y1=680)),
                 Button(name="Back", bounds=Box(x0=20, y0=1220, x1=140, y1=1280))],
        texts=[TextLine(text="Speed 434", bounds=Box(x0=250, y0=560, x1=420, y1=596))],
        gauges=[Gauge(label="Energy", fill=0.62, bounds=Box(x0=100, y0=200, x1=500, y1=230))],
        scrollbar=Scrollbar(track=Box(x0=705, y0=0, x1=715, y1=1280), thumb=Box(x0=705, y0=0, x1=715, y1=300),
                            up=False, down=True),
        menu=MenuState(usable=True, selected="Home", tabs=["Home"]),
    )


def test_no_tag_covers_the_element_it_names_and_every_tag_stays_in_the_picture() -> None:
    tags = labels(_reading(), SIZE, lambda text: (9 * len(text) + 6, 22))
    assert len(tags) == 6  # four buttons, the gauge, the scrollbar
    for name, element, tag, _ in tags:
        assert _apart(tag, element), f"{name}'s tag {tag.as_list()} covers its box {element.as_list()}"
        assert _inside(tag, SIZE), name
    by_name = {name: tag for name, _, tag, _ in tags}
    assert by_name["Details"].y0 >= 60  # no room above the top: below it
    assert by_name["Back"].y1 <= 1220  # at the bottom: above it
    assert by_name["A rather long button name (disabled)"].x1 <= SIZE[0]  # clamped, not cut off
    # the text just above Training would be covered by a tag there: the tag goes below the button instead
    assert _apart(by_name["Training"], Box(x0=250, y0=560, x1=420, y1=596)) and by_name["Training"].y0 >= 680
    assert by_name["Energy 62%"] is not None


def test_a_box_that_fills_the_picture_still_gets_its_tag() -> None:
    tag = place_label(Box(x0=0, y0=0, x1=720, y1=1280), 100, 20, SIZE, [])
    assert _inside(tag, SIZE)


def test_the_picture_has_a_legend_of_the_colours_and_leaves_the_rest_as_it_was() -> None:
    base = Image.new("RGB", SIZE, (250, 250, 250))
    out = _reading()
    drawn = annotate(base, out)
    assert drawn.size == base.size
    colours = {c for _, c in drawn.getcolors(maxcolors=1 << 20) or []}
    assert {BUTTON, TEXT, GAUGE} <= colours and [k for k, _ in KINDS] == ["button", "text", "gauge", "scrollbar"]
    # the legend is a white panel with a black rim and black words (the only black in this picture: tags write
    # white on their colour) that covers no element and no tag
    black = np.argwhere((np.asarray(drawn) == 0).all(axis=2))
    (y0, x0), (y1, x1) = black.min(axis=0), black.max(axis=0) + 1
    legend = Box(x0=int(x0), y0=int(y0), x1=int(x1), y1=int(y1))
    assert legend.width >= 60 and legend.height >= 60
    taken = [b.bounds for b in out.buttons] + [t.bounds for t in out.texts] + [g.bounds for g in out.gauges]
    taken += [tag for _, _, tag, _ in labels(out, SIZE, _measure(drawn))]
    assert all(_apart(legend, b) for b in taken)
    assert drawn.getpixel((360, 1000)) == (250, 250, 250)  # far from every box and tag: untouched
