"""Draw a reading on its screenshot: buttons, texts, the scrollbar and the tab bar, with their names.

The output has the screenshot's size, so a box drawn here is where a tap would land on the device.
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from lluma_vision.models import Box, VisionOutput

BUTTON = (230, 40, 90)  # what the model can press
TEXT = (30, 120, 230)  # what it reads
SCROLL = (20, 170, 80)  # scrollbar track and thumb


def _font(height: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=max(12, height // 70))


def _label(draw: ImageDraw.ImageDraw, box: Box, text: str, colour: tuple[int, int, int],
           font: ImageFont.ImageFont | ImageFont.FreeTypeFont) -> None:
    """The name on a filled tag just above the box (inside it when the box touches the top)."""
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    w, h = x1 - x0 + 6, y1 - y0 + 4
    top = box.y0 - h if box.y0 >= h else box.y0
    draw.rectangle((box.x0, top, box.x0 + w, top + h), fill=colour)
    draw.text((box.x0 + 3 - x0, top + 2 - y0), text, fill=(255, 255, 255), font=font)


def annotate(image: Image.Image, out: VisionOutput) -> Image.Image:
    """A copy of `image` with the reading drawn on it (bounds are in the image's pixels)."""
    canvas = image.convert("RGB")
    draw = ImageDraw.Draw(canvas)
    font = _font(canvas.height)
    width = max(2, canvas.width // 300)
    for t in out.texts:
        draw.rectangle(t.bounds.as_list(), outline=TEXT, width=max(1, width - 1))
    for b in out.buttons:
        draw.rectangle(b.bounds.as_list(), outline=BUTTON, width=width)
    for b in out.buttons:  # names after all boxes, so no box hides a name
        _label(draw, b.bounds, b.name + (f" ({b.meta})" if b.meta else ""), BUTTON, font)
    if out.scrollbar is not None:
        s = out.scrollbar
        draw.rectangle(s.track.as_list(), outline=SCROLL, width=width)
        draw.rectangle(s.thumb.as_list(), fill=SCROLL)
        arrows = ("up " if s.up else "") + ("down" if s.down else "")
        _label(draw, s.track, f"scroll {arrows.strip() or '-'}", SCROLL, font)
    if out.menu is not None:
        state = f"menu {'usable' if out.menu.usable else 'blocked'}, selected {out.menu.selected or '-'}"
        text_h = draw.textbbox((0, 0), state, font=font)[3]
        draw.text((4, canvas.height - text_h - 6), state, fill=(0, 0, 0), font=font, stroke_width=2,
                  stroke_fill=(255, 255, 255))
    return canvas
