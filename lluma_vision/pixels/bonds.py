"""The bond bars of the support cards in the training screen's right-hand column (FACTS: each card is a portrait with
a bond bar under it, grey, blue, green, orange, or a "MAX" plate at the top level, and a "!" badge when it has a hint).

A bond bar is a short flat band in the right column: a coloured run (none for a grey card) then a neutral track,
nothing else on its rows but a divider's few pixels. Its level is the coloured run's hue; a "MAX" line read there is
a card at the top level whatever its colours. A hint is a round pink badge over the bar, within a card's height.
Whether these are a training's cards is the facts' business (lluma_vision.facts.supports: only under a raised tile).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.gauges import hue_gap
from lluma_vision.pixels.ocr import Line

# Where and how big (shares of the working frame's width and height). Measured on screens2 (dhrpf__training_guts:
# bars at x 0.83-0.95, 0.112 wide, 10 rows of 1280 = 0.008; mrhorseshoe__35_training_select: 0.108 wide) and the
# simulator (plain and hard at 420x936 to 1080x2400: x 0.80-0.96, 0.16 wide, 0.01 tall).
COLUMN = 0.78  # a card's bar starts right of this share of the width (0.839 on screens2, 0.8 on the simulator;
# the trainee's hair and jacket make flat bands at 0.75-0.78 on dhrpf__training_guts)
BAR_W = (0.07, 0.2)  # a bar's width: 0.108-0.112 (real), 0.16 (simulator)
BAR_H = (0.006, 0.016)  # a bar's inner band's height: 0.0078 (real), 0.0096-0.0104 (simulator at every size)
FLAT = 30  # summed RGB steps within one run (a run's pixels are one colour: real 0, simulator's JPEG-free 0)
NEUTRAL = 24  # a track's max-min channel spread (real 6d6c75: 9; simulator e2e2e8: 6); a blue fill's is 200+
TRACK_MIN = 0.012  # a track at least this share of the width (real: one segment of five, 0.018-0.019 on screens2)
DIVIDER = 0.01  # a fill's runs may be parted by dividers this wide (screens2: 1 px of 720 between segments, 6 px
# between the fill and the track on mrhorseshoe__35_training_select's second card)
# A band's columns are one colour down its rows but for this share of them (a bar's rounded ends, a plate's letters):
# 0.0-0.04 on the screens2 and simulator bars; scenery flat along its rows (hair, a jacket) 0.3 and more.
STEADY = 0.15
JITTER = 0.006  # the rows of one bar start and end within this share of the width of each other (1-2 px on screens2)
# The hint badge: a round pink patch with a white "!". Its colour as the bots read the real one (Umaplay's hint
# detector: HSB about 339 deg, 71%, 100%, OpenCV hue 170; it keeps hues within 8 of that, 16 for its purity check):
# within HINT_HUE_TOL of HINT_HUE, saturated and lit. The simulator draws that pink, 0.04 of the width across; the
# real screens2 cards show no hint (their pink and red pixels are hair and ribbons: scattered, none round and full).
HINT_HUE, HINT_HUE_TOL = 170, 12  # OpenCV hue (0..179): between the bots' 8 and 16
HINT_S, HINT_V = 150, 150  # the badge's saturation and value at least (the bots' pink: 181, 255)
HINT_W = (0.025, 0.07)  # its width, a share of the frame's width
HINT_FULL = 0.55  # pink covers at least this share of its box (a disc 0.785, less the "!": 0.65-0.7 on the simulator)
HINT_REACH = 0.09  # its top at most this share of the height above the bar (the simulator's card is 0.07 tall)
MAX_WORD = "max"


@dataclass(frozen=True)
class BondPx:
    """One card's bond bar in working pixels, its level and its hint."""

    x0: int
    y0: int
    x1: int
    y1: int
    level: str  # "grey", "blue", "green", "orange" or "MAX"
    hint: bool = False


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) runs of one colour along a row (int16, columns x 3)."""
    steps = np.abs(np.diff(row, axis=0)).sum(axis=1) > FLAT
    cuts = [0, *(np.nonzero(steps)[0] + 1).tolist(), len(row)]
    return list(zip(cuts[:-1], cuts[1:], strict=False))


def _neutral(px: np.ndarray) -> bool:
    return int(px.max()) - int(px.min()) <= NEUTRAL


def _segments(row: np.ndarray, w: int) -> list[tuple[int, int]]:
    """The row's runs of one colour, dividers (runs at most DIVIDER wide) dropped and the runs they parted joined."""
    segs: list[tuple[int, int]] = []
    for a, b in _runs(row):
        if b - a <= DIVIDER * w:
            continue
        # a run's second pixel stands for it: its first may be a soft edge's blend (see _runs)
        if segs and a - segs[-1][1] <= DIVIDER * w and np.abs(row[a + 1] - row[segs[-1][0] + 1]).sum() <= FLAT:
            segs[-1] = (segs[-1][0], b)
        else:
            segs.append((a, b))
    return segs


def _row_bars(row: np.ndarray, off: int, w: int) -> list[tuple[int, int, int]]:
    """(x0, x1, end of the fill) of each bar-like span on one row: a coloured fill's segment (or none), then at most a
    divider's width on, a neutral track; x0 == end of the fill when there is no fill."""
    segs = _segments(row, w)
    found: list[tuple[int, int, int]] = []
    for i, (t0, t1) in enumerate(segs):
        if not _neutral(row[t0]):  # a full bar: all fill, no track (dhrpf__training_guts' second card)
            if BAR_W[0] * w <= t1 - t0 <= BAR_W[1] * w:
                found.append((t0 + off, t1 + off, t1 + off))
            continue
        if t1 - t0 < TRACK_MIN * w:  # most segments stop here
            continue
        starts = [t0]  # the track alone, and with the coloured segment before it (which may be the ground instead)
        if i > 0 and t0 - segs[i - 1][1] <= DIVIDER * w and not _neutral(row[segs[i - 1][0]]):
            starts.append(segs[i - 1][0])
        found += [(a + off, t1 + off, t0 + off) for a in starts if BAR_W[0] * w <= t1 - a <= BAR_W[1] * w]
    return found


def _level(rgb: np.ndarray, y: int, x0: int, fill_end: int) -> str:
    if fill_end - x0 < 2:
        return "grey"
    mid = rgb[y, (x0 + fill_end) // 2]
    return "grey" if _neutral(mid.astype(np.int16)) else fill_level(mid[None])


def fill_level(fill: np.ndarray) -> str:
    """The level a bar's coloured fill pixels (n x 3 RGB) name, by their median hue."""
    hsv = cv2.cvtColor(np.ascontiguousarray(fill.reshape(-1, 1, 3).astype(np.uint8)), cv2.COLOR_RGB2HSV)
    hue = int(np.median(hsv[:, 0, 0]))  # OpenCV hue, 0..179
    # not measured: the colour wheel's names (blue 90-130, green 35-89, orange/yellow under 35)
    return "blue" if 90 <= hue <= 130 else "green" if 35 <= hue < 90 else "orange"


def _hint(rgb: np.ndarray, bar: Rect, w: int, h: int) -> bool:
    """A hint badge over the bar's right half (FACTS: the "!" at the card's top right), within a card's height above
    it: the top left may hold another pink badge (dhrpf__training_guts' Unity Cup flame, read as a hint at 0.575x)."""
    x0, y0, x1, _ = bar.ints()
    return hint_badge(rgb, Rect((x0 + x1) // 2, max(0, y0 - round(HINT_REACH * h)), x1, y0), w)


def hint_badge(rgb: np.ndarray, region: Rect, w: int) -> bool:
    """A round pink badge (HINT_W wide, HINT_FULL of its box pink) inside `region` (working pixels)."""
    x0, top, x1, y0 = region.ints()
    if y0 <= top or x1 <= x0:
        return False
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb[top:y0, x0:x1]), cv2.COLOR_RGB2HSV)
    hue = hue_gap(hsv[..., 0], HINT_HUE) <= HINT_HUE_TOL
    pink = (hue & (hsv[..., 1] >= HINT_S) & (hsv[..., 2] >= HINT_V)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(pink, connectivity=8)
    for k in range(1, n):
        bw, bh, area = stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT], stats[k, cv2.CC_STAT_AREA]
        if HINT_W[0] * w <= bw <= HINT_W[1] * w and 0.75 <= bh / bw <= 1.33 and area >= HINT_FULL * bw * bh:
            return True
    return False


def _painted(rgb: np.ndarray, box: Rect) -> bool:
    """Every row of the band alike (a painted bar), not scenery that is flat along a row only (hair, a jacket)."""
    x0, y0, x1, y1 = box.ints()
    inner = rgb[y0 + 1:y1 - 1, x0 + 1:x1 - 1].astype(np.int16)
    if inner.shape[0] < 2 or inner.shape[1] < 2:
        return False
    spread = (inner.max(axis=0) - inner.min(axis=0)).sum(axis=1)  # per column, summed over the channels
    return float(np.mean(spread > FLAT)) <= STEADY


def _says_max(text: str) -> bool:
    """A "MAX" plate's line: OCR reads its frame's rounded ends as letters ("CMAXD" on dhrpf__training_guts)."""
    word = "".join(c for c in text if c.isalpha()).casefold()
    return MAX_WORD in word and len(word) <= len(MAX_WORD) + 2


def find_bonds(rgb: np.ndarray, lines: list[Line]) -> list[BondPx]:
    """The bond bars in the right column, top to bottom (a "MAX" line there is a bar at the top level)."""
    h, w = rgb.shape[:2]
    off = round(COLUMN * w)
    col = rgb[:, off:].astype(np.int16)
    bands: list[list[tuple[int, int, int, int]]] = []  # rows of one bar: (y, x0, x1, fill end)
    for y in range(h):
        for x0, x1, fe in _row_bars(col[y], off, w):
            band = next((b for b in bands if b[-1][0] == y - 1 and abs(b[-1][1] - x0) <= JITTER * w
                         and abs(b[-1][2] - x1) <= JITTER * w and abs(b[-1][3] - fe) <= JITTER * w), None)
            if band is None:
                bands.append([(y, x0, x1, fe)])
            else:
                band.append((y, x0, x1, fe))
    bars: list[BondPx] = []
    # the widest reading of a bar first: with its fill (not the track alone), with its track (not the fill alone)
    for band in sorted(bands, key=lambda b: (b[0][3] - b[0][1], b[0][2] - b[0][1]), reverse=True):
        if not BAR_H[0] * h <= len(band) <= BAR_H[1] * h:
            continue
        if min(r[1] for r in band) <= off or max(r[2] for r in band) >= w - JITTER * w:
            continue  # cut by the column's edge or running off the frame: a bar is inset on both sides
        y, x0, x1, fe = band[len(band) // 2]
        box = Rect(min(r[1] for r in band), band[0][0], max(r[2] for r in band), band[-1][0] + 1)
        if not _painted(rgb, box):
            continue
        if any(b.y0 <= box.y1 and box.y0 <= b.y1 and b.x0 <= box.x1 and box.x0 <= b.x1 for b in bars):
            continue  # the same bar's rows found twice (a nested span)
        bars.append(BondPx(*box.ints(), level=_level(rgb, y, x0, fe), hint=_hint(rgb, box, w, h)))
    maxed = [ln for ln in lines if _says_max(ln.text) and ln.box.x0 >= COLUMN * w]
    for ln in maxed:
        x0, y0, x1, y1 = (round(v) for v in ln.box)
        near = [b for b in bars if b.y0 <= y1 + (y1 - y0) and y0 - (y1 - y0) <= b.y1]  # the plate over its bar
        bars = [b for b in bars if b not in near]
        base = near[0] if near else BondPx(x0, y0, x1, y1, "MAX")
        bars.append(BondPx(base.x0, min(base.y0, y0), max(base.x1, x1), max(base.y1, y1), "MAX",
                           _hint(rgb, Rect(base.x0, min(base.y0, y0), base.x1, base.y1), w, h)))
    return sorted(bars, key=lambda b: b.y0)
