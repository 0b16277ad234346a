"""The tap marker drawn on screenshots: the report's thumbnails, its timeline, `--confirm`'s marked copy."""

from __future__ import annotations

from PIL import Image, ImageDraw

MARK = (255, 0, 170)  # a colour the game never uses


def mark_action(img: Image.Image, point: list[int] | None, swipe: list[int] | None) -> None:
    """A ring where the tap landed, or an arrow along the swipe (device pixels = screenshot pixels)."""
    draw = ImageDraw.Draw(img)
    r, w = max(10, img.width // 25), max(3, img.width // 150)
    if point:
        x, y = point[0], point[1]
        draw.ellipse((x - r, y - r, x + r, y + r), outline=MARK, width=w)
        d = max(w, r // 3)
        draw.ellipse((x - d, y - d, x + d, y + d), fill=MARK)
    elif swipe and len(swipe) >= 4:
        x0, y0, x1, y1 = swipe[:4]
        draw.line((x0, y0, x1, y1), fill=MARK, width=w)
        draw.ellipse((x1 - 2 * w, y1 - 2 * w, x1 + 2 * w, y1 + 2 * w), fill=MARK)
