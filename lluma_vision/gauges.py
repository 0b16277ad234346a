"""Gauges: a horizontal bar whose track holds a coloured (filled) run and a grey (empty) run, found by
shape in working-image pixels and named by the caption printed beside it.

The shape rule, not any one game's colours: a strip is a thin, wide, nearly solid run of one class of
pixel (saturated = filled, unsaturated mid-grey = empty); a coloured strip that ends where a grey strip of
the same height begins is a gauge, fill = coloured length / both. A lone strip (a full or an empty bar)
counts only when a caption sits just left of it on its row: without one, a coloured plate is as likely.
Where no grey strip follows a coloured run (a rescale blurred the track's light rim, joining the empty run to
the grey around the bar), a row scan from the coloured run's end finds the empty run; a lone strip along a
found gauge's edge is its rim, not a bar of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.ocr import Line

# pixel classes (OpenCV HSV, 0..255): filled = clearly coloured and lit; empty = grey, neither white nor black
FILLED_MIN_S, FILLED_MIN_V = 100, 90
EMPTY_MAX_S, EMPTY_MIN_V, EMPTY_MAX_V = 30, 60, 200
SOLID = 0.75  # share of a strip's box its pixels must cover
MIN_ELONGATION = 4.0  # width / height of a whole gauge
LONE_ELONGATION = 6.0  # ...and of a full or empty bar (one strip)
SCANNED_MIN_H = 0.018  # a bar whose empty run is found by a row scan is at least this share of the frame's width tall
RUN_TOLERANCE = 24  # summed RGB distance from an empty run's first pixel that is still that run


@dataclass
class GaugePx:
    x0: int
    y0: int
    x1: int
    y1: int
    fill: float
    label: str = ""


@dataclass
class _Strip:
    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def h(self) -> int:
        return self.y1 - self.y0


def _strips(mask: np.ndarray, min_w: int, max_h: int, solid: float, min_elong: float, xs: int) -> list[_Strip]:
    """Thin, nearly solid components not touching the frame's edge (the edge cuts scenery into strips).
    `mask` keeps every `xs`-th column; the strips come back in full columns."""
    fh, fw = mask.shape
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    x, y, w, h, area = (stats[1:, k].astype(np.int64) for k in range(5))
    keep = ((x > 0) & (y > 0) & (x + w < fw) & (y + h < fh) & (w * xs >= min_w) & (h >= 3) & (h <= max_h)
            & (area >= solid * w * h) & (w * xs >= min_elong * h))
    return [_Strip(int(a) * xs, int(b), int(a + c) * xs, int(b + d))
            for a, b, c, d in zip(x[keep], y[keep], w[keep], h[keep], strict=True)]


def _same_band(a: _Strip, b: _Strip) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.6 * min(a.h, b.h) and 0.6 <= a.h / b.h <= 1.6


def _caption(box: tuple[int, int, int, int], lines: list[Line], width: int) -> Line | None:
    """A worded line just left of the bar on its row, else just over its left part."""
    x0, y0, x1, y1 = box
    cy, h = (y0 + y1) / 2, y1 - y0
    best: tuple[float, Line] | None = None
    for ln in lines:
        if not any(c.isalpha() for c in ln.text):
            continue
        lcy = (ln.y0 + ln.y1) / 2
        # OCR boxes are loose: a caption may overlap the track's end by a few pixels
        left = abs(lcy - cy) <= max(h, ln.h) * 0.6 and -max(4, 0.3 * h) <= x0 - ln.x1 <= max(3 * h, 0.06 * width)
        above = 0 <= y0 - ln.y1 <= 1.5 * ln.h and ln.x0 < x1 and ln.x1 > x0 and ln.x0 <= x0 + 0.5 * (x1 - x0)
        if left or above:
            dist = (x0 - ln.x1) if left else (y0 - ln.y1) + 0.5 * width  # beside beats above
            if best is None or dist < best[0]:
                best = (dist, ln)
    return best[1] if best else None


def _inside_text(box: tuple[int, int, int, int], lines: list[Line]) -> bool:
    """A text line's centre inside the bar: a coloured plate with a label, not a gauge."""
    return any(box[0] <= (ln.x0 + ln.x1) / 2 <= box[2] and box[1] <= (ln.y0 + ln.y1) / 2 <= box[3] for ln in lines)


def _classes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(filled, empty) pixel masks of an RGB array."""
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2HSV)
    s, v = hsv[..., 1], hsv[..., 2]
    return (s >= FILLED_MIN_S) & (v >= FILLED_MIN_V), (s <= EMPTY_MAX_S) & (v >= EMPTY_MIN_V) & (v <= EMPTY_MAX_V)


def _row_fill(rgb: np.ndarray, f: _Strip, e: _Strip) -> float:
    """The fill counted on every column of the bar's middle row (the strips were found on every second column,
    which leaves a percent or two of play at a small frame's bar)."""
    y = (max(f.y0, e.y0) + min(f.y1, e.y1)) // 2
    filled, empty = _classes(rgb[y : y + 1, max(0, f.x0 - 2) : e.x1 + 2])
    n_f, n_e = int(filled.sum()), int(empty.sum())
    return round(n_f / (n_f + n_e), 3) if n_f + n_e else round((f.x1 - f.x0) / (e.x1 - f.x0), 3)


def _grey_run(rgb: np.ndarray, f: _Strip) -> _Strip | None:
    """The empty run found by scanning the coloured run's middle row rightwards: pixels of the grey that starts
    there, on a band about the coloured run's height. A rescale can blur the track's light rim into the grey
    around the bar, joining the empty run to scenery as one component that is no strip."""
    h, w = rgb.shape[:2]
    y = (f.y0 + f.y1) // 2
    pixels = rgb[y, f.x1 : min(w, f.x1 + w // 2)]
    _, grey = _classes(pixels[None])
    row = pixels.astype(np.int32)
    blend = max(3, f.h // 3)
    starts = np.nonzero(grey[0, : blend + 1])[0]
    if not starts.size:
        return None
    start = int(starts[0])
    ref = row[start]
    differs = np.nonzero(np.abs(row[start:] - ref).sum(1) > RUN_TOLERANCE)[0]
    if not differs.size:
        return None  # runs off the scan: scenery, not a track
    x0, x1 = f.x1 + start, f.x1 + start + int(differs[0])
    if x1 - x0 < max(4, f.h / 2):
        return None  # too short to tell from scenery; a bar this nearly full reads as full, within a few percent
    # the same grey spans the coloured run's rows where it starts and midway (its far end may be a rounded cap):
    # one track, not a pole or a plate
    edge = max(2, f.h // 4)
    for x in (x0 + 1, (x0 + x1) // 2):
        other = np.abs(rgb[:, x].astype(np.int32) - ref).sum(1) > RUN_TOLERANCE
        above, below = np.nonzero(other[:y])[0], np.nonzero(other[y:])[0]
        top = int(above[-1]) + 1 if above.size else 0
        bottom = y + int(below[0]) if below.size else h
        if abs(top - f.y0) > edge or abs(bottom - f.y1) > edge:
            return None
    return _Strip(x0, f.y0, x1, f.y1)


def _gauge_shaped(box: tuple[int, int, int, int], width: int, lines: list[Line]) -> bool:
    """A whole gauge (both runs) is elongated and at least a twentieth of the frame wide, with no text inside it."""
    w, h = box[2] - box[0], box[3] - box[1]
    return w >= MIN_ELONGATION * h and w >= 0.05 * width and not _inside_text(box, lines)


def _rim_of(box: tuple[int, int, int, int], found: list[GaugePx]) -> bool:
    """A lone strip along a found gauge's top or bottom edge, as wide and at most half as tall: that gauge's rim (a
    track's grey border, thick enough on an upscaled frame to pass for an empty bar), not a second bar."""
    x0, y0, x1, y1 = box
    for g in found:
        overlap = min(x1, g.x1) - max(x0, g.x0)
        gap = max(g.y0 - y1, y0 - g.y1)
        if overlap >= 0.5 * (x1 - x0) and gap <= 0.5 * (g.y1 - g.y0) and y1 - y0 <= 0.5 * (g.y1 - g.y0):
            return True
    return False


def find_gauges(rgb: np.ndarray, lines: list[Line]) -> list[GaugePx]:
    """Gauges in working pixels. Pixels are classed on every second column (half the labelling time; a bar
    is wide, so it keeps its shape; every row is kept, a bar's thin border rows must not be skipped)."""
    h, w = rgb.shape[:2]
    xs = 2
    is_filled, is_empty = _classes(rgb[:, ::xs])
    filled, empty = is_filled.astype(np.uint8), is_empty.astype(np.uint8)
    bridge = cv2.getStructuringElement(cv2.MORPH_RECT, (2, 1))  # thin segment marks inside a run
    filled = np.asarray(cv2.morphologyEx(filled, cv2.MORPH_CLOSE, bridge), dtype=np.uint8)
    # a track's thin grey rim, blurred into the empty run by a rescale, would wrap it in a sparse ring
    empty = np.asarray(cv2.morphologyEx(empty, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (1, 3))),
                       dtype=np.uint8)
    max_h = max(4, round(0.05 * w))
    # a nearly empty or nearly full bar has a short, rounded run: the whole gauge is what must be elongated
    full, rest = _strips(filled, 3, max_h, SOLID, 0.3, xs), _strips(empty, 3, max_h, 0.6, 0.3, xs)
    found: list[GaugePx] = []
    used_f: set[int] = set()
    used_e: set[int] = set()
    for i, f in enumerate(full):
        for j, e in enumerate(rest):
            # the grey run starts where the coloured one ends; or, where the track's grey rim blurred into the
            # empty run (a rescaled frame), the grey run holds the coloured one inside it
            meets = abs(e.x0 - f.x1) <= max(2 * xs, f.h // 3)
            holds = e.x0 <= f.x0 + max(2 * xs, f.h // 3) and e.x1 > f.x1 and e.y0 <= f.y0 and e.y1 >= f.y1
            if j in used_e or not _same_band(f, e) or not (meets or holds):
                continue
            box = (f.x0, min(f.y0, e.y0), e.x1, max(f.y1, e.y1))
            if not _gauge_shaped(box, w, lines):
                continue
            found.append(GaugePx(*box, fill=_row_fill(rgb, f, e)))
            used_f.add(i)
            used_e.add(j)
            break
    for i, f in enumerate(full):
        # only for a bar of a main gauge's height: thinner coloured strips beside grey are common scenery
        run = None if i in used_f or f.h < SCANNED_MIN_H * w else _grey_run(rgb, f)
        if run is None:
            continue
        box = (f.x0, f.y0, run.x1, f.y1)  # the scanned run spans the coloured one's rows
        if _gauge_shaped(box, w, lines):
            found.append(GaugePx(*box, fill=_row_fill(rgb, f, run)))
            used_f.add(i)
    for strips, used, fill in ((full, used_f, 1.0), (rest, used_e, 0.0)):
        for i, st in enumerate(strips):
            if i in used or st.x1 - st.x0 < max(LONE_ELONGATION * st.h, 0.1 * w):
                continue
            box = (st.x0, st.y0, st.x1, st.y1)
            if _inside_text(box, lines) or _caption(box, lines, w) is None or _rim_of(box, found):
                continue
            # the caption must sit beside it: a lone strip under a heading is a plate
            cap = _caption(box, lines, w)
            if cap is not None and cap.y1 <= st.y0:
                continue
            found.append(GaugePx(*box, fill=fill))
    for g in found:
        cap = _caption((g.x0, g.y0, g.x1, g.y1), lines, w)
        g.label = cap.text.strip() if cap is not None else "gauge"
    found.sort(key=lambda g: (g.y0, g.x0))
    return found


def badge_word(gauges: list[GaugePx], lines: list[Line], width: int) -> str | None:
    """A short upper-case word on the first gauge's row, to its right (the status a bar's owner is in, e.g. a mood
    badge): read from layout, not from a list of words."""
    found = badge(gauges, lines, width)
    return found[0] if found else None


def badge(gauges: list[GaugePx], lines: list[Line], width: int) -> tuple[str, Line] | None:
    """The badge word and the line it was read from."""
    if not gauges:
        return None
    g = gauges[0]
    h = g.y1 - g.y0
    best: tuple[float, str, Line] | None = None
    for ln in lines:
        word = "".join(c for c in ln.text if c.isascii() and c.isalpha())  # a badge's arrow glyph is not the word
        if not (3 <= len(word) <= 10 and word.isupper() and len(ln.text.split()) == 1):
            continue
        cy = (ln.y0 + ln.y1) / 2
        gap = ln.x0 - g.x1
        if g.y0 - h <= cy <= g.y1 + h and -0.5 * h <= gap <= 0.35 * width and (best is None or gap < best[0]):
            best = (gap, word, ln)
    return (best[1], best[2]) if best else None
