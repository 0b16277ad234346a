"""Draw a reading on its screenshot: buttons, texts, gauges, the scrollbar and the tab bar, with their names.

The output has the screenshot's size, so a box drawn here is where a tap would land on the device. Each name
sits on a tag outside the box it names (above it, else below, else beside), clamped to the picture and placed
where it covers the fewest other elements, so no tag hides the words it names. A legend of the colours (and
the tab bar's state) sits where it covers the least of the reading, near a corner when it can.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

from lluma_vision.geometry import Rect
from lluma_vision.models import Box, VisionOutput

# evidence: BUTTON, TEXT, SCROLL: fe2b3c0 (the annotated picture (a display choice, not measured)); GAUGE, GAP: 62ffb40
#   (the annotated picture's tags (a display choice, not measured)); the others: each on its own line (a bench/knobs.py
#   sweep, or docs/knob_debt.md)
BUTTON = (230, 40, 90)  # what the model can press
TEXT = (30, 120, 230)  # what it reads
GAUGE = (235, 130, 0)  # a bar named by its caption, with its fill
SCROLL = (20, 170, 80)  # scrollbar track and thumb
KINDS = (("button", BUTTON), ("text", TEXT), ("gauge", GAUGE), ("scrollbar", SCROLL))
GAP = 2  # pixels between a box's outline and its tag
# Drawing sizes, from the picture's size so a 720 and a 1440 frame look alike: the font a 70th of its height (at
# least 12 px, readable on a phone-sized capture), outlines a 300th of its width; a tag pads its name by
# TAG_PAD_X/TAG_PAD_Y px; the legend is placed on a grid of a 45th of the picture's short side (at least 8 px),
# MARGIN px in from its edges, with SWATCH_GAP px between a colour swatch and its word
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
MIN_FONT = 12
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
FONT_PER_HEIGHT = 70
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
LINE_PER_WIDTH = 300
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
TAG_PAD_X = 6
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
TAG_PAD_Y = 4
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
LEGEND_STEP = 45
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
LEGEND_MIN_STEP = 8
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
MARGIN = 4
# not measured: a display choice of the annotated picture (--annotate), which the reading never uses (docs/knob_debt.md)
SWATCH_GAP = 6

Font = ImageFont.ImageFont | ImageFont.FreeTypeFont
Colour = tuple[int, int, int]
Tag = tuple[str, Box, Box, Colour]  # name, the element's box, the tag's box, colour
Measure = Callable[[str], tuple[int, int]]  # a name's tag size (width, height) in pixels


def _font(height: int) -> Font:
    return ImageFont.load_default(size=max(MIN_FONT, height // FONT_PER_HEIGHT))


def _overlap(a: Box, b: Box) -> float:
    """Area two boxes share (x1/y1 exclusive)."""
    return Rect.of(a).overlap(b)


def _clamped(x: int, y: int, w: int, h: int, size: tuple[int, int]) -> Box:
    x = min(max(0, x), max(0, size[0] - w))
    y = min(max(0, y), max(0, size[1] - h))
    return Box(x0=x, y0=y, x1=x + min(w, size[0]), y1=y + min(h, size[1]))


def place_label(box: Box, w: int, h: int, size: tuple[int, int], avoid: Sequence[Box]) -> Box:
    """Where a w x h tag naming `box` goes in a picture of `size`: outside the box (above, below, right, left),
    inside the picture, the side that covers the least of `avoid` (other elements and tags already placed).
    Only a box with no room on any side (one that fills the picture) gets its tag inside it."""
    above = _clamped(box.x0, box.y0 - GAP - h, w, h, size)
    below = _clamped(box.x0, box.y1 + GAP, w, h, size)
    right = _clamped(box.x1 + GAP, box.y0, w, h, size)
    left = _clamped(box.x0 - GAP - w, box.y0, w, h, size)
    outside = [c for c in (above, below, right, left) if not _overlap(c, box)]
    if not outside:
        return _clamped(box.x0, box.y0, w, h, size)
    # the first side wins a tie, so a tag sits above its box unless that covers more than another side
    return min(outside, key=lambda c: sum(_overlap(c, other) for other in avoid))


def labels(out: VisionOutput, size: tuple[int, int], text_size: Measure) -> list[Tag]:
    """Each named element as (name, element box, tag box, colour): buttons, gauges, the scrollbar."""
    named: list[tuple[str, Box, Colour]] = [
        (b.name + (f" ({b.meta})" if b.meta else ""), b.bounds, BUTTON) for b in out.buttons]
    named += [(f"{g.label} {round(100 * g.fill)}%", g.bounds, GAUGE) for g in out.gauges]
    if out.scrollbar is not None:
        s = out.scrollbar
        arrows = ("up " if s.up else "") + ("down" if s.down else "")
        named.append((f"scroll {arrows.strip() or '-'}", s.track, SCROLL))
    elements = [box for _, box, _ in named] + [t.bounds for t in out.texts]
    placed: list[Tag] = []
    for name, box, colour in named:
        w, h = text_size(name)
        others = [e for e in elements if e is not box] + [tag for _, _, tag, _ in placed]
        placed.append((name, box, place_label(box, w, h, size, others), colour))
    return placed


def _spot(w: int, h: int, size: tuple[int, int], avoid: Iterable[Box]) -> Box:
    """Where a w x h legend covers the least of `avoid`: a scan over the picture; among equals, the spot nearest
    a corner (top right first)."""
    W, H = size
    boxes = list(avoid)
    step = max(LEGEND_MIN_STEP, min(W, H) // LEGEND_STEP)
    m = MARGIN
    xs = sorted({*range(m, max(m + 1, W - w - m + 1), step), max(m, W - w - m)}, reverse=True)
    ys = sorted({*range(m, max(m + 1, H - h - m + 1), step), max(m, H - h - m)})

    def key(c: Box) -> tuple[float, int]:
        corner = min(min(c.x0, W - c.x1), W) + min(c.y0, H - c.y1)
        return sum(_overlap(c, b) for b in boxes), corner

    return min((_clamped(x, y, w, h, size) for y in ys for x in xs), key=key)


def annotate(image: Image.Image, out: VisionOutput) -> Image.Image:
    """A copy of `image` with the reading drawn on it (bounds are in the image's pixels)."""
    canvas = image.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    font = _font(canvas.height)
    width = max(2, canvas.width // LINE_PER_WIDTH)

    def text_size(text: str) -> tuple[int, int]:
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        return round(x1 - x0) + TAG_PAD_X, round(y1 - y0) + TAG_PAD_Y

    for t in out.texts:
        draw.rectangle(t.bounds.as_list(), outline=TEXT, width=max(1, width - 1))
    for g in out.gauges:
        draw.rectangle(g.bounds.as_list(), outline=GAUGE, width=width)
    for b in out.buttons:
        draw.rectangle(b.bounds.as_list(), outline=BUTTON, width=width)
    if out.scrollbar is not None:
        draw.rectangle(out.scrollbar.track.as_list(), outline=SCROLL, width=width)
        draw.rectangle(out.scrollbar.thumb.as_list(), fill=SCROLL)
    tags = labels(out, canvas.size, text_size)
    for name, _, tag, colour in tags:  # names after all boxes, so no box hides a name
        draw.rectangle((tag.x0, tag.y0, tag.x1 - 1, tag.y1 - 1), fill=colour)
        x0, y0, _, _ = draw.textbbox((0, 0), name, font=font)
        draw.text((tag.x0 + 3 - x0, tag.y0 + 2 - y0), name, fill=(255, 255, 255), font=font)
    _legend(draw, out, canvas.size, font, text_size, [t.bounds for t in out.texts] + [tag for _, _, tag, _ in tags]
            + [b.bounds for b in out.buttons] + [g.bounds for g in out.gauges])
    return canvas


def _legend(draw: ImageDraw.ImageDraw, out: VisionOutput, size: tuple[int, int], font: Font,
            text_size: Measure, avoid: list[Box]) -> None:
    """A white panel: a swatch and a word per kind, then the tab bar's state."""
    lines = [(kind, colour) for kind, colour in KINDS]
    menu = (f"menu {'usable' if out.menu.usable else 'blocked'}, selected {out.menu.selected or '-'}"
            if out.menu is not None else "no menu")
    row = max(text_size(kind)[1] for kind, _ in KINDS)
    swatch = row - 4
    w = max([swatch + SWATCH_GAP + text_size(kind)[0] for kind, _ in KINDS] + [text_size(menu)[0]]) + 2 * MARGIN
    h = row * (len(lines) + 1) + 2 * MARGIN
    panel = _spot(w, h, size, avoid)
    draw.rectangle((panel.x0, panel.y0, panel.x1 - 1, panel.y1 - 1), fill=(255, 255, 255), outline=(0, 0, 0))
    y = panel.y0 + MARGIN
    x = panel.x0 + MARGIN
    for kind, colour in lines:
        draw.rectangle((x, y + 2, x + swatch, y + 2 + swatch), fill=colour)
        bx0, by0, _, _ = draw.textbbox((0, 0), kind, font=font)
        draw.text((x + swatch + SWATCH_GAP - bx0, y + 2 - by0), kind, fill=(0, 0, 0), font=font)
        y += row
    bx0, by0, _, _ = draw.textbbox((0, 0), menu, font=font)
    draw.text((x - bx0, y + 2 - by0), menu, fill=(0, 0, 0), font=font)
