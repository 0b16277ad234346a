"""Pixel heuristics in working-image pixels: the game viewport and the scrollbar (tab bar: menu.py).

All functions take the working RGB array (see `ocr.prepare`) and return working-space
coordinates; the pipeline converts to device pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.layout import channel_step

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.8
PORTRAIT = 0.8  # a frame at most this wide for its height is the game itself (phones: 0.45-0.56)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 14
BORDER_STEP = 14  # a viewport border: a per-channel step over this between neighbouring columns...
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1x (1.25x -1); kept
#   0.8
BORDER_SPAN = 0.8  # ...on at least this share of the rows
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x-1.5x (0.75x -1); kept
#   (0.5, 0.8)
GAME_ASPECT = (0.5, 0.8)  # a portrait game inside a PC capture: width / height in this range (9:16 = 0.56)

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# scrollbar: a thin line darker or lighter than both its sides
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.25x (1.5x -4), held out screens flat 0.75x-1.5x (0.5x
#   -2); kept 150
BAR_HALF = 150  # the line is compared with pixels frame width / this away (a bit more than half a bar's width)
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept 60
MIN_HEIGHT = 60  # a frame shorter than this has no list to scroll
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 14
STRONG = 14  # a clear bar: this many grey levels off both sides
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 0.75x-1.5x (0.5x -1), held out screens flat 0.5x-1.25x (1.5x
#   -1); kept 0.25
LIST_SPAN = 0.25  # a list's bar spans at least this share of the frame's height...
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 1x-1.25x (0.75x -1, 1.5x -3), held out screens flat
#   0.75x-1.5x (0.5x -3); kept 0.18
EDGE_SPAN = 0.18  # ...or this share at the right edge (a short list under a header keeps its bar)
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 1x only (0.75x -1, 1.25x -4), held out screens flat 1x-1.5x
#   (0.75x -1); kept 0.9
AT_EDGE = 0.9  # "at the right edge": from this share of the width on
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept 0.04
STRONG_SHARE = 0.04  # a column followed at a faint contrast still has this share of its height clearly contrasting
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 8
BAR_WIDTH = 8  # a bar is at most this many pixels wide...
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 0.02
BAR_WIDTH_SHARE = 0.02  # ...or this share of the frame's width, whichever is more
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 4
THIN_BORDER = 4  # a flat bar at the edge at least this wide is a full thumb (thin borders are narrower)
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 6
FLAT_SPREAD = 6  # one flat shade: its 5th-95th percentile spread under this many grey levels
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 10.0
FULL_RANK = 10.0  # a full-thumb bar's contrast rank: under any bar with a thumb of its own (25 levels and up)
LOW_PCT, HIGH_PCT = 5, 95  # percentiles that ignore a bar's ends and specks
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 0.02
END_MARGIN = 0.02  # a thumb this share of the track (or 2 px) away from an end means content beyond it
# swept 0.5x-1.5x on 64 screens (7 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.95
ALL_TRACK = 0.95  # a faint line whose contrast covers this share of it is a line, not a track with a thumb
# swept 0.5x-1.5x on 64 screens (7 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.8
THUMB_SHARE = 0.8  # a faint bar's contrast covers this share of its thumb...
# swept 0.5x-1.5x on 64 screens (7 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.1
TRACK_SHARE = 0.1  # ...and at most this share of its track
# swept 0.5x-1.5x on 64 screens (20 read it): screens2 flat 0.5x-1.5x, held out screens flat -1-1.5x (0.75x -2); kept 25
THUMB_CONTRAST = 25  # thumb and track differ by at least this many grey levels
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 4
THUMB_MIN = 4  # a thumb is at least this many pixels long
# swept 0.5x-1.5x on 64 screens (20 read it): screens2 flat 0.75x-1.5x (0.5x -1), held out screens flat 0.75x-1.5x (0.5x
#   -4); kept (0.05, 0.95)
THUMB_SIZE = (0.05, 0.95)  # and this share of the track
# tried 0.5x and 1.5x on 64 screens (20 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 2
BEVEL = 2  # pixels at a thumb's ends left out of its shade (antialiased)
# tried 0.5x and 1.5x on 64 screens (20 read it): readings identical at 0.5x and 1.5x; kept 3
MIN_SAMPLES = 3  # a shade measured on fewer pixels is not measured
# swept 0.5x-1.5x on 64 screens (20 read it): screens2 flat 0.5x-+1 (1.25x -2), held out screens flat 0.5x-1.5x; kept 10
FLAT_STD = 10  # a drawn thumb and track are flat: grey levels within this standard deviation
# swept 0.5x-1.5x on 64 screens (20 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 20
SAME_SHADE = 20  # neighbours within this many grey levels are the same bar across


def gray(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY).astype(np.int16)


# --- viewport ---------------------------------------------------------------------------------


def viewport(rgb: np.ndarray) -> Rect:
    """The game's own area. PC captures put a portrait game between a margin and a menu panel;
    their borders are straight vertical edges spanning the whole height. Phone frames: the whole image."""
    h, w = rgb.shape[:2]
    if w / h <= PORTRAIT:  # already portrait: the frame is the game
        return Rect(0, 0, w, h)
    frac = (channel_step(rgb[:, 1:], rgb[:, :-1]) > BORDER_STEP).mean(axis=0)
    borders = [int(x) + 1 for x in np.where(frac >= BORDER_SPAN)[0]]
    cands = sorted({0, w, *borders})
    best: tuple[int, int, Rect] | None = None
    for i, x0 in enumerate(cands):
        for x1 in cands[i + 1 :]:
            if not GAME_ASPECT[0] <= (x1 - x0) / h <= GAME_ASPECT[1]:
                continue
            # prefer two drawn borders over the image edge (a modal inside the game also has borders)
            real = sum(1 for x in (x0, x1) if any(abs(x - b) <= 2 for b in borders))
            key = (real, x1 - x0, Rect(x0, 0, x1, h))
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else Rect(0, 0, w, h)


# --- scrollbar --------------------------------------------------------------------------------


@dataclass
class ScrollbarPx:
    track: Rect
    thumb: Rect
    up: bool
    down: bool


def _runs(mask: np.ndarray, max_gap: int) -> list[tuple[int, int]]:
    """Runs of True in a 1-D mask, bridging gaps up to max_gap."""
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        return []
    runs = []
    start = prev = int(idx[0])
    for i in idx[1:]:
        i = int(i)
        if i - prev > max_gap + 1:
            runs.append((start, prev + 1))
            start = i
        prev = i
    runs.append((start, prev + 1))
    return runs


# evidence: 65e01f7 (faint scrollbar tracks about 10 grey levels off a white list)
FAINT = 5  # least grey-level step (both sides) that still continues a bar's faint track


# A bar beside a list whose cards are found (pixels/cards.py): its column within BESIDE of the width right of the
# cards' right side, and at least BESIDE_SPAN of their height long, whatever share of the frame that is (a short
# list of three race cards spans under LIST_SPAN). Measured on screens2's race list and Learn list and screens'
# missions (working frames): the track 0.011-0.019 of the width right of the cards, 0.95-1.1 times their height.
BESIDE = 0.06
BESIDE_SPAN = 0.6


def scrollbar(rgb: np.ndarray, beside: Rect | None = None) -> ScrollbarPx | None:
    """A thin vertical track with a thumb of a different shade, e.g. on the right of a list; with `beside` (the
    box of a list's cards), only a bar right beside it, as long as most of it."""
    g = gray(rgb)
    h, w = g.shape
    d = max(3, round(w / BAR_HALF))  # a bit more than half a bar's width
    if w <= 4 * d or h < MIN_HEIGHT:
        return None
    c = g[:, d:-d]
    left, right = g[:, : -2 * d], g[:, 2 * d :]
    dark = np.minimum(left, right) - c  # line darker than both sides
    light = c - np.maximum(left, right)  # ...or lighter than both
    resp = np.maximum(dark, light)
    strong = resp >= STRONG
    faint = resp >= FAINT
    # list scrollbars span a good part of the screen; shorter runs are scenery, except at the right edge,
    # where a short list (a panel under a header) keeps its bar
    min_len, edge_len = int(LIST_SPAN * h), int(EDGE_SPAN * h)
    if beside is not None:
        min_len = edge_len = int(BESIDE_SPAN * beside.height)
    best: tuple[float, ScrollbarPx] | None = None
    # a bar whose track is drawn only a few grey levels off its list (a light line on white) is followed at a
    # faint contrast, but only when its clearly contrasting part is exactly its thumb: scenery lines that fade
    # in and out have their contrast elsewhere
    for mask, is_faint in ((strong, False), (faint, True)):
        cols = np.flatnonzero((mask.sum(axis=0) >= edge_len) & (strong.sum(axis=0) >= STRONG_SHARE * h))
        for ci in cols:
            x = int(ci) + d
            if beside is not None and not beside.x1 <= x <= beside.x1 + BESIDE * w:
                continue
            at_edge = x >= AT_EDGE * w
            need = edge_len if at_edge else min_len
            for y0, y1 in _runs(mask[:, ci], max_gap=2):
                if y1 - y0 < need or (beside is not None and not beside.y0 <= (y0 + y1) / 2 <= beside.y1):
                    continue
                sb = _bar(g, x, y0, y1, resp[y0:y1, ci], at_edge)
                if sb is None:
                    continue
                key, bar = sb
                top, bottom = int(bar.thumb.y0) - y0, int(bar.thumb.y1) - y0
                if is_faint and not _contrast_is_thumb(strong[y0:y1, ci], top, bottom):
                    continue
                if best is None or key > best[0]:
                    best = (key, bar)
    return best[1] if best else None


def _bar(g: np.ndarray, x: int, y0: int, y1: int, resp: np.ndarray,
         at_edge: bool) -> tuple[float, ScrollbarPx] | None:
    """The bar along column x from y0 to y1 and its rank (contrast x length), or None when it is not one."""
    w = g.shape[1]
    found = _track_and_thumb(g[y0:y1, x], resp)
    # measured across the thumb, the bar's most contrasting part: a faint track (a light grey line on a
    # white list) is within the width tolerance of its background
    bar_w = _bar_width(g, x, y0 + (found[0][0] + found[0][1]) // 2 if found else (y0 + y1) // 2)
    if bar_w > max(BAR_WIDTH, BAR_WIDTH_SHARE * w):
        return None
    if found is None and at_edge and bar_w >= THIN_BORDER and \
            np.ptp(np.percentile(g[y0:y1, x], [LOW_PCT, HIGH_PCT])) < FLAT_SPREAD:
        # one flat shade all along, at a list's right edge: the thumb fills the track (all is shown);
        # ranked under any bar with a thumb of its own (thin borders are under 4 px wide)
        found = (0, y1 - y0), FULL_RANK
    if found is None:
        return None
    (ty0, ty1), score = found
    return score * (y1 - y0), ScrollbarPx(
        track=Rect(x - bar_w // 2, y0, x + bar_w - bar_w // 2, y1),
        thumb=Rect(x - bar_w // 2, y0 + ty0, x + bar_w - bar_w // 2, y0 + ty1),
        up=ty0 > max(2, END_MARGIN * (y1 - y0)),
        down=(y1 - y0) - ty1 > max(2, END_MARGIN * (y1 - y0)),
    )


def _contrast_is_thumb(strong: np.ndarray, t0: int, t1: int) -> bool:
    """The strongly contrasting pixels of a faint bar are its thumb: most of the thumb, little of the track."""
    n, tn = len(strong), t1 - t0
    if tn >= ALL_TRACK * n:
        return False  # no track at all: a faint line, not a bar
    inside = int(strong[t0:t1].sum())
    return inside >= THUMB_SHARE * tn and int(strong.sum()) - inside <= TRACK_SHARE * (n - tn)


def _track_and_thumb(profile: np.ndarray, resp: np.ndarray) -> tuple[tuple[int, int], float] | None:
    """Split a bar's intensity profile into one thumb segment and the track around it.

    Both parts must be flat (a drawn bar, not scenery) and clearly different in shade.
    """
    p = profile.astype(np.float32)
    lo, hi = float(np.percentile(p, LOW_PCT)), float(np.percentile(p, HIGH_PCT))
    if hi - lo < THUMB_CONTRAST:
        return None
    mid = (lo + hi) / 2
    # the thumb is the minority shade; try both polarities and keep the one that forms one segment
    for thumb_mask in (p < mid, p >= mid):
        runs = [r for r in _runs(thumb_mask, max_gap=2) if r[1] - r[0] >= THUMB_MIN]
        if len(runs) != 1:
            continue
        t0, t1 = runs[0]
        n = len(p)
        if not (THUMB_SIZE[0] * n <= t1 - t0 <= THUMB_SIZE[1] * n):
            continue
        inner = p[t0 + BEVEL : t1 - BEVEL] if t1 - t0 > 3 * BEVEL else p[t0:t1]
        track = np.concatenate([p[: max(0, t0 - BEVEL)], p[t1 + BEVEL :]])
        if track.size < MIN_SAMPLES or inner.size < MIN_SAMPLES:
            continue
        if inner.std() > FLAT_STD or track.std() > FLAT_STD or abs(inner.mean() - track.mean()) < THUMB_CONTRAST:
            continue
        return (t0, t1), float(abs(inner.mean() - track.mean()))
    return None


def _bar_width(g: np.ndarray, x: int, y: int) -> int:
    """Width of the bar through (x, y): neighbours of similar shade that differ from the surroundings."""
    row = g[y].astype(np.int16)
    v = row[x]
    x0 = x
    while x0 > 0 and abs(row[x0 - 1] - v) <= SAME_SHADE:
        x0 -= 1
    x1 = x
    while x1 < len(row) - 1 and abs(row[x1 + 1] - v) <= SAME_SHADE:
        x1 += 1
    width = x1 - x0 + 1
    return width
