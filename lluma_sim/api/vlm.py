"""The stand-in's answer to a VLM reading request, the way a model reading the screen would answer.

The request (lluma_vision/pipeline/vlm.py) holds the screenshot and `<ocr>` lines (id TAB text TAB box in the sent
image's pixels) and asks for `{"buttons": [...], "icons": [...]}`. Handed what a perfect VLM would see on the image
(`Sight`, api/sight.py: the demo's wiring fills it from the simulated frame), real buttons, tabs and choices are named
as buttons over the OCR lines inside them, text stays text, and icon-only buttons (and labels OCR missed) come as
icons with image-fraction boxes. Without it, visual cues decide: a line is a button when a plate's edge
runs straight around it (above, below and on its sides), as a player's eye would see a pill or a tile.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
from collections import Counter
from typing import Any

from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel

from lluma_sim.api.sight import Seer, Sight, band

_OCR_LINE = re.compile(r"^\s*(\d+)\t(.*?)\t\[\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*$")
EDGE_DIFF = 40  # colour distance (sum over RGB) that marks a plate's edge


class OcrLine(BaseModel):
    id: int
    text: str
    box: tuple[int, int, int, int]  # sent-image pixels

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2


def ocr_lines(texts: list[str]) -> list[OcrLine]:
    out = []
    for t in texts:
        if "<ocr>" in t:
            for raw in t.split("<ocr>", 1)[1].split("</ocr>", 1)[0].splitlines():
                if m := _OCR_LINE.match(raw):
                    box = (int(m.group(3)), int(m.group(4)), int(m.group(5)), int(m.group(6)))
                    out.append(OcrLine(id=int(m.group(1)), text=m.group(2).strip(), box=box))
    return out


def sent_image(request: dict[str, Any]) -> Image.Image | None:
    """The last screenshot in the request, decoded (None when absent or unreadable)."""
    for m in reversed(request.get("messages") or []):
        content = m.get("content")
        for b in reversed(content if isinstance(content, list) else []):
            source = b.get("source") or {} if isinstance(b, dict) and b.get("type") == "image" else {}
            if source.get("type") == "base64" and isinstance(source.get("data"), str):
                try:
                    return Image.open(io.BytesIO(base64.b64decode(source["data"]))).convert("RGB")
                except (binascii.Error, UnidentifiedImageError, OSError, ValueError):
                    return None
    return None


def read_screen(request: dict[str, Any], texts: list[str], screen: Seer | None = None) -> tuple[str, str]:
    """(JSON text of the answer, one line for the request log)."""
    lines = ocr_lines(texts)
    image = sent_image(request)
    size = (
        image.size
        if image
        else (max((ln.box[2] for ln in lines), default=1), max((ln.box[3] for ln in lines), default=1))
    )
    sight = screen() if screen else None
    if sight is not None and sight.width and sight.height:
        answer = _from_sight(lines, size, sight)
        how = "what a perfect reader sees"
    else:
        answer = _from_cues(lines, image, size)
        how = "visual cues" if image else "text only"
    text = json.dumps(answer, ensure_ascii=False)
    return text, f"vlm ({how}): {len(answer['buttons'])} buttons, {len(answer['icons'])} icons"


def _from_sight(lines: list[OcrLine], size: tuple[int, int], sight: Sight) -> dict[str, list[Any]]:
    sx, sy = sight.width / size[0], sight.height / size[1]
    buttons, icons = [], []
    for e in sight.seen:
        inside = [ln.id for ln in lines if e.box.contains(ln.center[0] * sx, ln.center[1] * sy)]
        if inside and e.kind != "icon":
            buttons.append({"ocr_ids": inside, "name": e.name, "meta": e.meta, "region": e.region})
        else:  # no text to ground it: an icon, boxed as fractions of the image
            box = [e.box.x0 / sight.width, e.box.y0 / sight.height, e.box.x1 / sight.width, e.box.y1 / sight.height]
            icons.append({"name": e.name, "box": [round(v, 4) for v in box], "meta": e.meta, "region": e.region})
    return {"buttons": buttons, "icons": icons, "gauges": []}


def _from_cues(lines: list[OcrLine], image: Image.Image | None, size: tuple[int, int]) -> dict[str, list[Any]]:
    buttons = []
    for ln in lines:
        if not re.search(r"[A-Za-z]", ln.text) or re.search(r"\d\s*/\s*\d|\d\s*%", ln.text):
            continue  # numbers, counters ("Turn 3/24") and rates are read, not tapped
        if image is None:
            if len(ln.text) > 24 or re.match(r"^\W*\d", ln.text):
                continue  # no picture: short labels only, never numbers or prose
        else:
            plate = plate_around(image, ln.box)
            if plate is None or any(o is not ln and _inside(o.center, plate) for o in lines):
                continue  # no plate, or a card holding other text: not one button
        region = band(ln.center[1] / size[1])
        buttons.append({"ocr_ids": [ln.id], "name": ln.text, "meta": "", "region": region})
    return {"buttons": buttons, "icons": [], "gauges": []}


def _inside(p: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def plate_around(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[float, float, float, float] | None:
    """The plate around this text, if a continuous edge runs above and below it within about two line
    heights and on at least one side within a few (a tile, a pill, a row); None for text on open ground.
    An open side extends the plate to the image's edge (a row: other text on it makes it a card).
    Glyphs of neighbouring text leave gaps along a row, a plate's border does not."""
    x0, y0, x1, y1 = box
    h = max(4, y1 - y0)
    px = image.load()
    w_img, h_img = image.size
    pad = max(2, round(0.12 * h))  # just outside the glyphs
    cy, cx = (y0 + y1) // 2, (x0 + x1) // 2
    probes = [(x1 + pad, cy), (x0 - pad, cy), (cx, y0 - pad), (cx, y1 + pad), (x1 + 3 * pad, cy), (x0 - 3 * pad, cy)]
    seen = [px[x, y] for x, y in probes if 0 <= x < w_img and 0 <= y < h_img]  # type: ignore[index]
    if not seen:
        return None
    fill = Counter(seen).most_common(1)[0][0]  # the plate's fill, or the open ground's

    def differs(x: float, y: float) -> bool | None:
        xi, yi = round(x), round(y)
        if not (0 <= xi < w_img and 0 <= yi < h_img):
            return None
        c = px[xi, yi]  # type: ignore[index]
        return sum(abs(a - b) for a, b in zip(c, fill, strict=True)) > EDGE_DIFF  # type: ignore[arg-type]

    def edge(x: float, y: float, dx: int, dy: int, limit: float) -> int | None:
        """Steps to the first pixel unlike the fill, after leaving any glyph residue near the text."""
        on_fill = False
        for step in range(0, round(limit)):
            d = differs(x + dx * step, y + dy * step)
            if d is None:
                return None
            if not d:
                on_fill = True
            elif on_fill:
                return step
            elif step > h // 2:
                return None  # never reached the fill: no plate around the text
        return None

    def side(starts: list[tuple[float, float]], dx: int, dy: int, limit: float) -> float | None:
        """Distance to a straight, continuous edge in direction (dx, dy), or None."""
        found = [edge(x, y, dx, dy, limit) for x, y in starts]
        hits = [f for f in found if f is not None]
        if len(hits) < len(found) or max(hits) - min(hits) > max(2, h // 5):
            return None
        (ax, ay), (bx, by) = starts[0], starts[-1]
        n = max(1, round(abs(bx - ax) + abs(by - ay)))
        # just past the edge's first pixels, else on them: a greyed plate's thin border, softened by the JPEG, is
        # fainter than its edge with the ground (the hub's Races before the debut read as a plate with no left side)
        for d in (max(hits) + 1, max(hits)):
            along = [differs(ax + (bx - ax) * k / n + dx * d, ay + (by - ay) * k / n + dy * d) for k in range(n + 1)]
            if sum(bool(v) for v in along) >= 0.9 * len(along):
                return float(d + pad)
        return None

    xs = [x0 + (x1 - x0) * f for f in (0.1, 0.5, 0.9)]
    ys = [y0 + h * f for f in (0.25, 0.5, 0.75)]
    up = side([(x, y0 - pad) for x in xs], 0, -1, 2 * h)
    down = side([(x, y1 + pad) for x in xs], 0, 1, 2 * h)
    left = side([(x0 - pad, y) for y in ys], -1, 0, 6 * h)
    right = side([(x1 + pad, y) for y in ys], 1, 0, 6 * h)
    if up is None or down is None or (left is None and right is None):
        return None
    return (x0 - left if left else 0.0, y0 - up, x1 + right if right else float(w_img), y1 + down)  # open: to the edge
