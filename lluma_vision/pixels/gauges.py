"""Gauges: a horizontal bar whose track holds a coloured (filled) run and a grey (empty) run, found by
shape in working-image pixels and named by the caption printed beside it.

The shape rule, not any one game's colours: a strip is a thin, wide, nearly solid run of one class of
pixel (saturated = filled, unsaturated mid-grey = empty); a coloured strip that ends where a grey strip of
the same height begins is a gauge, fill = coloured length / both. A lone strip (a full or an empty bar)
counts only when a caption sits just left of it on its row: without one, a coloured plate is as likely.
Where no grey strip follows a coloured run (a rescale blurred the track's light rim, joining the empty run to
the grey around the bar), a row scan from the coloured run's end finds the empty run; a lone strip along a
found gauge's edge is its rim, not a bar of its own.

The training screen's energy bar previews the selected training's effect on energy (FACTS): the end of the coloured
run drawn in another shade (darker on the real captures, paler in the same hue as FACTS words it, or paler over a
gradient's end, the gradient going on under it), a cost. Such a
bar is read twice: its whole coloured run (the energy now) and, as a gauge of its own captioned "<caption> after",
the run up to the preview segment (the energy after the training). A paler end is no "filled" pixel: the coloured
run then meets the grey one across it. A preview whitened past its hue (a near-white gap of at most a cost's share
between the coloured run and the grey one) is read so too, on a captioned bar only: before, such a bar read as a
full one (drawn over a gradient: Energy 1.0 for 0.7).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.ocr import Line

# evidence: SOLID, MIN_ELONGATION, LONE_ELONGATION: b352537 (the facts a rest-or-train decision needs, on screens and
#   screens2 (bench/vision.py)); SCANNED_MIN_H, RUN_TOLERANCE: bee3a04 (gauges on rescaled frames: screens energy 12
#   -> 18/19 at 0.75x); STRIP_MIN_ELONGATION, EMPTY_SOLID, MAX_BAR_H, MIN_BAR_W, LONE_MIN_W, CAPTION_OVER,
#   BADGE_MAX_LETTERS, BADGE_REACH: 6bf8542 (the sim's training screen with its energy preview)
# pixel classes (OpenCV HSV, 0..255): filled = clearly coloured and lit; empty = grey, neither white nor black
FILLED_MIN_S, FILLED_MIN_V = 100, 90
EMPTY_MAX_S, EMPTY_MIN_V, EMPTY_MAX_V = 30, 60, 200
SOLID = 0.75  # share of a strip's box its pixels must cover
MIN_ELONGATION = 4.0  # width / height of a whole gauge
LONE_ELONGATION = 6.0  # ...and of a full or empty bar (one strip)
SCANNED_MIN_H = 0.018  # a bar whose empty run is found by a row scan is at least this share of the frame's width tall
RUN_TOLERANCE = 24  # summed RGB distance from an empty run's first pixel that is still that run
STRIP_MIN_ELONGATION = 0.3  # a strip's own width / height: a nearly empty or full bar's run is short and rounded
EMPTY_SOLID = 0.6  # share of an empty strip's box its pixels cover (a rescale thins a track's grey at its rim)
MAX_BAR_H = 0.05  # a bar at most this share of the frame's width tall
MIN_BAR_W = 0.05  # a whole gauge at least this share of the frame's width wide
LONE_MIN_W = 0.1  # ...and a lone strip (a full or an empty bar) at least this
BAND_OVERLAP, BAND_RATIO = 0.6, 1.6  # two runs of one bar: rows overlapping 60% of the thinner, heights within 1.6x
# where a bar's caption sits: its row centre within CAPTION_ROW of the taller's height; it ends at most CAPTION_GAP
# heights (or CAPTION_GAP_W of the frame's width) left of the bar, overlapping it by at most CAPTION_OVERLAP heights
CAPTION_ROW, CAPTION_GAP, CAPTION_GAP_W, CAPTION_OVERLAP = 0.6, 3, 0.06, 0.3
CAPTION_OVER = 1.5  # ...or over the bar, at most this many of its own heights above it
BADGE_MAX_LETTERS = 10  # a mood badge's word: 3 to this many letters...
BADGE_REACH = 0.35  # ...starting at most this share of the frame's width right of the bar
# The preview segment: the coloured run (middle row, from its start to the grey) split where two flat parts fit its
# saturation and value best. Measured on every gauge found in screens and screens2 at 0.4x, 0.75x, 1x and 1.5x and on
# eight simulator training screens: the previews (two real sources, 8 readings; the simulator's paler end, 7) leave at
# most 0.05 of the run's variance, their parts 80-105 apart; the other 127 bars (gradients, friendship, hype) leave at
# least 0.122 (0.189 outside screens), and those whose parts are 60+ apart leave at least 0.69.
PREVIEW_FIT = 0.09  # the split leaves at most this share of the variance (chosen with either real source held out:
# the midpoint of the other's 0.041-0.05 and 0.122-0.189 is 0.086-0.12)
PREVIEW_STEP = 60  # ...and the parts' mean saturation or value at least this far apart (negatives under 0.2: <= 37)
PREVIEW_MIN = 0.05  # the segment at least this share of the track: previews 0.19-0.25, a run's blurred end <= 0.03
PREVIEW_MAX = 0.4  # a paler end is at most this share of the track (a training's cost)
PREVIEW_HUE = 12  # a paler end's hue within this (OpenCV, 0..179) of the coloured run's end: the same hue
PALE_MIN = 0.5  # a paler end at least this many bar heights long (a run's blended end into the grey: 1-5 pixels on
# 11-28 pixel bars)
HUE_TURN = 180  # OpenCV's hue circle
# HUE_DRIFT, measured on screens2's race list energy bar (a gradient blue to yellow): its hue moves 0.2-0.5 a pixel at
# 1x; a paler preview over its end keeps the gradient (a drawn case from that bar, tests/vision/test_energy_preview.py)
HUE_DRIFT = 3  # a gradient's hue from one pixel to the next, at most (OpenCV, 0..179)
BLEND = 0.15  # a coloured run's last columns blend into the grey over about this share of the bar's height (4 of a
# 28-pixel bar on a 0.4x capture read at 2.5x: their saturation falls 217-36 and would spoil the fit)


@dataclass
class GaugePx:
    x0: int
    y0: int
    x1: int
    y1: int
    fill: float
    label: str = ""
    after: float | None = None  # the fill up to a preview segment (the training screen's energy after), or None


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
    x, y, w, h, area = (stats[1:, k].astype(np.int64) for k in range(cv2.CC_STAT_MAX))
    keep = ((x > 0) & (y > 0) & (x + w < fw) & (y + h < fh) & (w * xs >= min_w) & (h >= 3) & (h <= max_h)
            & (area >= solid * w * h) & (w * xs >= min_elong * h))
    return [_Strip(int(a) * xs, int(b), int(a + c) * xs, int(b + d))
            for a, b, c, d in zip(x[keep], y[keep], w[keep], h[keep], strict=True)]


def _same_band(a: _Strip, b: _Strip) -> bool:
    overlap = Rect.of(a).rows_overlap(b)
    return overlap >= BAND_OVERLAP * min(a.h, b.h) and 1 / BAND_RATIO <= a.h / b.h <= BAND_RATIO


def _caption(box: Rect, lines: list[Line], width: int) -> Line | None:
    """A worded line just left of the bar on its row, else just over its left part."""
    x0, y0, x1, y1 = box
    cy, h = (y0 + y1) / 2, y1 - y0
    best: tuple[float, Line] | None = None
    for ln in lines:
        if not any(c.isalpha() for c in ln.text):
            continue
        lcy = (ln.y0 + ln.y1) / 2
        # OCR boxes are loose: a caption may overlap the track's end by a few pixels
        left = abs(lcy - cy) <= max(h, ln.h) * CAPTION_ROW and -max(4, CAPTION_OVERLAP * h) <= x0 - ln.x1 <= max(
            CAPTION_GAP * h, CAPTION_GAP_W * width)
        above = 0 <= y0 - ln.y1 <= CAPTION_OVER * ln.h and ln.x0 < x1 and ln.x1 > x0 and ln.x0 <= x0 + 0.5 * (x1 - x0)
        if left or above:
            dist = (x0 - ln.x1) if left else (y0 - ln.y1) + 0.5 * width  # beside beats above
            if best is None or dist < best[0]:
                best = (dist, ln)
    return best[1] if best else None


def _inside_text(box: Rect, lines: list[Line]) -> bool:
    """A text line's centre inside the bar: a coloured plate with a label, not a gauge."""
    return any(box[0] <= (ln.x0 + ln.x1) / 2 <= box[2] and box[1] <= (ln.y0 + ln.y1) / 2 <= box[3] for ln in lines)


def _classes(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(filled, empty) pixel masks of an RGB array."""
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2HSV)
    s, v = hsv[..., 1], hsv[..., 2]
    return (s >= FILLED_MIN_S) & (v >= FILLED_MIN_V), (s <= EMPTY_MAX_S) & (v >= EMPTY_MIN_V) & (v <= EMPTY_MAX_V)


def _row_fill(rgb: np.ndarray, f: _Strip, e: _Strip, end: int) -> float:
    """The fill counted on every column of the bar's middle row (the strips were found on every second column,
    which leaves a percent or two of play at a small frame's bar); a paler end of the coloured run (up to `end`)
    counts as filled."""
    y = (max(f.y0, e.y0) + min(f.y1, e.y1)) // 2
    filled, empty = _classes(rgb[y : y + 1, max(0, f.x0 - 2) : e.x1 + 2])
    n_f, n_e = int(filled.sum()), int(empty.sum())
    if end > f.x1:
        pale_f, pale_e = _classes(rgb[y : y + 1, f.x1 : end])
        n_f += int((~pale_f & ~pale_e).sum())
    return round(n_f / (n_f + n_e), 3) if n_f + n_e else round((f.x1 - f.x0) / (e.x1 - f.x0), 3)


def hue_gap(a: np.ndarray, b: int | np.ndarray) -> np.ndarray:
    """Distance between OpenCV hues (0..179, a circle), element-wise."""
    d = np.abs(a.astype(np.int32) - b)
    gap: np.ndarray = np.minimum(d, HUE_TURN - d)
    return gap


def _same_hue_run(hsv: np.ndarray, hue: int) -> int:
    """How many pixels from the start of `hsv` (a row) are coloured, lit and of `hue`, or of a hue that drifts from
    it as a gradient's does (each within HUE_DRIFT of the one before: a preview drawn over a gradient's end goes on
    with the gradient, paler)."""
    h = hsv[:, 0].astype(np.int32)
    lit = (hsv[:, 1] > EMPTY_MAX_S) & (hsv[:, 2] >= FILLED_MIN_V)
    same = lit & ((hue_gap(h, hue) <= PREVIEW_HUE) | (hue_gap(h, np.concatenate([[hue], h[:-1]])) <= HUE_DRIFT))
    stop = np.nonzero(~same)[0]
    return int(stop[0]) if stop.size else int(same.size)


def _row_hsv(rgb: np.ndarray, y: int, x0: int, x1: int) -> np.ndarray:
    row: np.ndarray = cv2.cvtColor(np.ascontiguousarray(rgb[y : y + 1, max(0, x0) : x1]), cv2.COLOR_RGB2HSV)[0]
    return row


def _pale_end(rgb: np.ndarray, f: _Strip, width: int) -> int:
    """Where a paler run of the coloured run's own hue right after it ends (the training screen's preview of a cost,
    as FACTS words it), on its middle row; `f.x1` when there is none at least PALE_MIN bar heights long. A pale pixel
    is neither filled nor empty: coloured, lit, too pale for the filled class."""
    y = (f.y0 + f.y1) // 2
    hsv = _row_hsv(rgb, y, f.x1 - 2, min(rgb.shape[1], f.x1 + round(PREVIEW_MAX * width)))
    if f.x1 - f.x0 < 2 or hsv.shape[0] <= 2:
        return f.x1
    run = _same_hue_run(hsv[2:], int(hsv[0, 0]))  # the hue of the coloured run's end
    return f.x1 + run if run >= PALE_MIN * f.h else f.x1


def _white_gap(rgb: np.ndarray, f: _Strip, end: int, e: _Strip) -> bool:
    """Between the coloured run's end (`end`, past its paler end) and the grey run `e`, on the middle row: a gap
    of at most PREVIEW_MAX of the bar, every pixel lighter than the track and too pale to be filled (a preview
    whitened past its hue, FACTS' "paler segment" at its palest)."""
    gap = e.x0 - end
    if gap < max(3, PALE_MIN * f.h) or gap > PREVIEW_MAX * (e.x1 - f.x0):
        return False
    y = (max(f.y0, e.y0) + min(f.y1, e.y1)) // 2
    hsv = _row_hsv(rgb, y, end + 1, e.x0 - 1)
    return hsv.shape[0] > 0 and bool(((hsv[:, 2] > EMPTY_MAX_V) & (hsv[:, 1] < FILLED_MIN_S)).all())


def _pale_start(rgb: np.ndarray, e: _Strip, width: int) -> int:
    """Where a run of one hue, mostly too pale for the filled class, that ends where an empty strip starts begins
    (a bar whose coloured run is all, or all but a sliver, the training screen's pale preview of a cost larger than
    the energy); `e.x0` when there is none at least PALE_MIN bar heights long."""
    y = (e.y0 + e.y1) // 2
    x0 = max(0, e.x0 - round(PREVIEW_MAX * width))
    hsv = _row_hsv(rgb, y, x0, e.x0)[::-1]  # leftwards from the grey
    lit = np.nonzero((hsv[:, 1] > EMPTY_MAX_S) & (hsv[:, 2] >= FILLED_MIN_V))[0]
    if not lit.size or lit[0] > PALE_MIN * e.h:  # the grey's blended edge first, then the run
        return e.x0
    start = int(lit[0])
    run = _same_hue_run(hsv[start:], int(hsv[start, 0]))
    pale = hsv[start : start + run, 1] < FILLED_MIN_S
    return e.x0 - start - run if run >= PALE_MIN * e.h and pale.mean() >= 0.5 else e.x0


def _run_end(hsv: np.ndarray, seg: int) -> int:
    """Where a bar's coloured run ends on its row (HSV): the first grey stretch at least `seg` long, else after the
    last coloured pixel."""
    grey = np.concatenate([[0], (hsv[:, 1] <= EMPTY_MAX_S).astype(np.int64)])
    runs = np.cumsum(grey)
    long = np.nonzero(runs[seg:] - runs[:-seg] == seg)[0]
    coloured = np.nonzero(hsv[:, 1] > EMPTY_MAX_S)[0]
    return int(long[0]) if long.size else int(coloured[-1]) + 1 if coloured.size else 0


def two_parts(sv: np.ndarray, seg: int) -> tuple[int, float, float]:
    """The split of a run of (saturation, value) columns into two flat parts, the second at least `seg` long, that
    fits best (cumulative sums: every split point at once): (columns before the split, the share of the run's
    variance the parts leave, how far apart their means are in saturation or value)."""
    end = sv.shape[0]
    c1, c2 = np.cumsum(sv, axis=0), np.cumsum(sv * sv, axis=0)
    k = np.arange(1, end)[:, None]  # split after k columns: [0, k) | [k, end)
    right_sum, right_sq = c1[-1] - c1[:-1], c2[-1] - c2[:-1]
    sse = (c2[:-1] - c1[:-1] ** 2 / k + right_sq - right_sum**2 / (end - k)).sum(axis=1)
    sse[end - seg :] = np.inf
    total = float((c2[-1] - c1[-1] ** 2 / end).sum())
    best = int(np.argmin(sse))
    p = best + 1
    step = float(np.abs(c1[best] / p - right_sum[best] / (end - p)).max())
    return p, float(sse[best]) / total if total > 0 else 1.0, step


def _preview(rgb: np.ndarray, g: GaugePx) -> float | None:
    """The fill up to the preview segment at the end of the bar's coloured run (the energy after the selected
    training), or None: the run, on the middle row, split in the two flat parts that fit it best."""
    y = (g.y0 + g.y1) // 2
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb[y : y + 1, g.x0 : g.x1]), cv2.COLOR_RGB2HSV)[0].astype(np.float64)
    n = int(hsv.shape[0])
    seg = round(PREVIEW_MIN * n)
    if seg < 1:
        return None
    end = _run_end(hsv, seg) - round(BLEND * (g.y1 - g.y0))  # the columns blending into the grey: neither part
    if end < 2 * seg:
        return None
    p, fit, step = two_parts(hsv[:end, 1:], seg)
    return round(p / n, 3) if fit <= PREVIEW_FIT and step >= PREVIEW_STEP else None


def _grey_run(rgb: np.ndarray, f: _Strip, end: int) -> _Strip | None:
    """The empty run found by scanning the coloured run's middle row rightwards from `end` (past a paler end):
    pixels of the grey that starts there, on a band about the coloured run's height. A rescale can blur the track's
    light rim into the grey around the bar, joining the empty run to scenery as one component that is no strip."""
    h, w = rgb.shape[:2]
    y = (f.y0 + f.y1) // 2
    pixels = rgb[y, end : min(w, end + w // 2)]
    if not pixels.size:
        return None
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
    x0, x1 = end + start, end + start + int(differs[0])
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


def _gauge_shaped(box: Rect, width: int, lines: list[Line]) -> bool:
    """A whole gauge (both runs) is elongated and at least a twentieth of the frame wide, with no text inside it."""
    w, h = box[2] - box[0], box[3] - box[1]
    return w >= MIN_ELONGATION * h and w >= MIN_BAR_W * width and not _inside_text(box, lines)


def _rim_of(box: Rect, found: list[GaugePx]) -> bool:
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
    max_h = max(4, round(MAX_BAR_H * w))
    # a nearly empty or nearly full bar has a short, rounded run: the whole gauge is what must be elongated
    full = _strips(filled, 3, max_h, SOLID, STRIP_MIN_ELONGATION, xs)
    rest = _strips(empty, 3, max_h, EMPTY_SOLID, STRIP_MIN_ELONGATION, xs)
    found: list[GaugePx] = []
    used_f: set[int] = set()
    used_e: set[int] = set()
    ends = [_pale_end(rgb, f, w) for f in full]
    for i, f in enumerate(full):
        for j, e in enumerate(rest):
            # the grey run starts where the coloured one ends (or its paler end); or, where the track's grey rim
            # blurred into the empty run (a rescaled frame), the grey run holds the coloured one inside it
            meets = min(abs(e.x0 - f.x1), abs(e.x0 - ends[i])) <= max(2 * xs, f.h // 3)
            holds = e.x0 <= f.x0 + max(2 * xs, f.h // 3) and e.x1 > f.x1 and e.y0 <= f.y0 and e.y1 >= f.y1
            if j in used_e or not _same_band(f, e) or not (meets or holds):
                continue
            box = Rect(f.x0, min(f.y0, e.y0), e.x1, max(f.y1, e.y1))
            if not _gauge_shaped(box, w, lines):
                continue
            found.append(GaugePx(*box.ints(), fill=_row_fill(rgb, f, e, ends[i])))
            used_f.add(i)
            used_e.add(j)
            break
    for i, f in enumerate(full):
        # only for a bar of a main gauge's height: thinner coloured strips beside grey are common scenery
        run = None if i in used_f or f.h < SCANNED_MIN_H * w else _grey_run(rgb, f, ends[i])
        if run is None:
            continue
        box = Rect(f.x0, f.y0, run.x1, f.y1)  # the scanned run spans the coloured one's rows
        if _gauge_shaped(box, w, lines):
            found.append(GaugePx(*box.ints(), fill=_row_fill(rgb, f, run, ends[i])))
            used_f.add(i)
    for i, f in enumerate(full):
        # a preview too pale to keep its hue (near white) between the coloured run and the grey one
        if i in used_f:
            continue
        pair = next(((j, e) for j, e in enumerate(rest) if j not in used_e and _same_band(f, e)
                     and _white_gap(rgb, f, ends[i], e)), None)
        if pair is None:
            continue
        j, e = pair
        box = Rect(f.x0, min(f.y0, e.y0), e.x1, max(f.y1, e.y1))
        if _gauge_shaped(box, w, lines) and _caption(box, lines, w) is not None:
            span = e.x1 - f.x0
            found.append(GaugePx(*box.ints(), fill=(e.x0 - f.x0) / span, after=(ends[i] - f.x0) / span))
            used_f.add(i)
            used_e.add(j)
    for strips, used, fill in ((full, used_f, 1.0), (rest, used_e, 0.0)):
        for i, st in enumerate(strips):
            if i in used or st.x1 - st.x0 < max(LONE_ELONGATION * st.h, LONE_MIN_W * w):
                continue
            # a full bar's paler end is its own; an empty one may start after a run all (but a sliver) pale
            box = Rect(st.x0, st.y0, ends[i], st.y1) if fill else Rect(_pale_start(rgb, st, w), st.y0, st.x1, st.y1)
            if _inside_text(box, lines) or _caption(box, lines, w) is None or _rim_of(box, found):
                continue
            # the caption must sit beside it: a lone strip under a heading is a plate
            cap = _caption(box, lines, w)
            if cap is not None and cap.y1 <= st.y0:
                continue
            # the pale run (and its sliver) filled, the strip empty
            x0 = int(box.x0)
            share = fill if x0 == st.x0 else _row_fill(rgb, _Strip(x0, st.y0, x0 + 1, st.y1), st, st.x0)
            found.append(GaugePx(*box.ints(), fill=share))
    for g in found:
        cap = _caption(Rect.of(g), lines, w)
        g.label = cap.text.strip() if cap is not None else "gauge"
        if g.after is None:
            g.after = _preview(rgb, g) if g.fill > 0 else None
    found.sort(key=lambda g: (g.y0, g.x0))
    return _with_after(found)


def _with_after(gauges: list[GaugePx]) -> list[GaugePx]:
    """The gauges, each with a preview followed by its fill up to the preview as a gauge of its own, captioned
    "<caption> after" (the training screen's energy after the selected training)."""
    out: list[GaugePx] = []
    for g in gauges:
        out.append(g)
        if g.after is not None:
            out.append(GaugePx(g.x0, g.y0, g.x1, g.y1, g.after, f"{g.label} after"))
    return out


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
        if not (3 <= len(word) <= BADGE_MAX_LETTERS and word.isupper() and len(ln.text.split()) == 1):
            continue
        cy = (ln.y0 + ln.y1) / 2
        gap = ln.x0 - g.x1
        if g.y0 - h <= cy <= g.y1 + h and -0.5 * h <= gap <= BADGE_REACH * width and (best is None or gap < best[0]):
            best = (gap, word, ln)
    return (best[1], best[2]) if best else None
