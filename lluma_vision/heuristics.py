"""Pixel heuristics in working-image pixels: the game viewport and the scrollbar (tab bar: menu.py).

All functions take the working RGB array (see `ocr.prepare`) and return working-space
coordinates; the pipeline converts to device pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.layout import channel_step
from lluma_vision.models import Rect


def gray(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY).astype(np.int16)


# --- viewport ---------------------------------------------------------------------------------


def viewport(rgb: np.ndarray) -> Rect:
    """The game's own area. PC captures put a portrait game between a margin and a menu panel;
    their borders are straight vertical edges spanning the whole height. Phone frames: the whole image."""
    h, w = rgb.shape[:2]
    if w / h <= 0.8:  # already portrait: the frame is the game
        return (0, 0, w, h)
    frac = (channel_step(rgb[:, 1:], rgb[:, :-1]) > 14).mean(axis=0)
    borders = [int(x) + 1 for x in np.where(frac >= 0.8)[0]]
    cands = sorted({0, w, *borders})
    best: tuple[int, int, Rect] | None = None
    for i, x0 in enumerate(cands):
        for x1 in cands[i + 1 :]:
            if not 0.5 <= (x1 - x0) / h <= 0.8:
                continue
            # prefer two drawn borders over the image edge (a modal inside the game also has borders)
            real = sum(1 for x in (x0, x1) if any(abs(x - b) <= 2 for b in borders))
            key = (real, x1 - x0, (x0, 0, x1, h))
            if best is None or key[:2] > best[:2]:
                best = key
    return best[2] if best else (0, 0, w, h)


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


FAINT = 5  # least grey-level step (both sides) that still continues a bar's faint track


def scrollbar(rgb: np.ndarray) -> ScrollbarPx | None:
    """A thin vertical track with a thumb of a different shade, e.g. on the right of a list."""
    g = gray(rgb)
    h, w = g.shape
    d = max(3, round(w / 150))  # a bit more than half a bar's width
    if w <= 4 * d or h < 60:
        return None
    c = g[:, d:-d]
    left, right = g[:, : -2 * d], g[:, 2 * d :]
    dark = np.minimum(left, right) - c  # line darker than both sides
    light = c - np.maximum(left, right)  # ...or lighter than both
    resp = np.maximum(dark, light)
    strong = resp >= 14
    faint = resp >= FAINT
    # list scrollbars span a good part of the screen; shorter runs are scenery, except at the right edge,
    # where a short list (a panel under a header) keeps its bar
    min_len, edge_len = int(0.25 * h), int(0.18 * h)
    best: tuple[float, ScrollbarPx] | None = None
    # a bar whose track is drawn only a few grey levels off its list (a light line on white) is followed at a
    # faint contrast, but only when its clearly contrasting part is exactly its thumb: scenery lines that fade
    # in and out have their contrast elsewhere
    for mask, is_faint in ((strong, False), (faint, True)):
        cols = np.flatnonzero((mask.sum(axis=0) >= edge_len) & (strong.sum(axis=0) >= 0.04 * h))
        for ci in cols:
            x = int(ci) + d
            at_edge = x >= 0.9 * w
            need = edge_len if at_edge else min_len
            for y0, y1 in _runs(mask[:, ci], max_gap=2):
                if y1 - y0 < need:
                    continue
                sb = _bar(g, x, y0, y1, resp[y0:y1, ci], at_edge)
                if sb is None:
                    continue
                key, bar = sb
                if is_faint and not _contrast_is_thumb(strong[y0:y1, ci], bar.thumb[1] - y0, bar.thumb[3] - y0):
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
    if bar_w > max(8, 0.02 * w):
        return None
    if found is None and at_edge and bar_w >= 4 and np.ptp(np.percentile(g[y0:y1, x], [5, 95])) < 6:
        # one flat shade all along, at a list's right edge: the thumb fills the track (all is shown);
        # ranked under any bar with a thumb of its own (thin borders are under 4 px wide)
        found = (0, y1 - y0), 10.0
    if found is None:
        return None
    (ty0, ty1), score = found
    return score * (y1 - y0), ScrollbarPx(
        track=(x - bar_w // 2, y0, x + bar_w - bar_w // 2, y1),
        thumb=(x - bar_w // 2, y0 + ty0, x + bar_w - bar_w // 2, y0 + ty1),
        up=ty0 > max(2, 0.02 * (y1 - y0)),
        down=(y1 - y0) - ty1 > max(2, 0.02 * (y1 - y0)),
    )


def _contrast_is_thumb(strong: np.ndarray, t0: int, t1: int) -> bool:
    """The strongly contrasting pixels of a faint bar are its thumb: most of the thumb, little of the track."""
    n, tn = len(strong), t1 - t0
    if tn >= 0.95 * n:
        return False  # no track at all: a faint line, not a bar
    inside = int(strong[t0:t1].sum())
    return inside >= 0.8 * tn and int(strong.sum()) - inside <= 0.1 * (n - tn)


def _track_and_thumb(profile: np.ndarray, resp: np.ndarray) -> tuple[tuple[int, int], float] | None:
    """Split a bar's intensity profile into one thumb segment and the track around it.

    Both parts must be flat (a drawn bar, not scenery) and clearly different in shade.
    """
    p = profile.astype(np.float32)
    lo, hi = float(np.percentile(p, 5)), float(np.percentile(p, 95))
    if hi - lo < 25:
        return None
    mid = (lo + hi) / 2
    # the thumb is the minority shade; try both polarities and keep the one that forms one segment
    for thumb_mask in (p < mid, p >= mid):
        runs = [r for r in _runs(thumb_mask, max_gap=2) if r[1] - r[0] >= 4]
        if len(runs) != 1:
            continue
        t0, t1 = runs[0]
        n = len(p)
        if not (0.05 * n <= t1 - t0 <= 0.95 * n):
            continue
        inner = p[t0 + 2 : t1 - 2] if t1 - t0 > 6 else p[t0:t1]
        track = np.concatenate([p[: max(0, t0 - 2)], p[t1 + 2 :]])
        if track.size < 3 or inner.size < 3:
            continue
        if inner.std() > 10 or track.std() > 10 or abs(inner.mean() - track.mean()) < 25:
            continue
        return (t0, t1), float(abs(inner.mean() - track.mean()))
    return None


def _bar_width(g: np.ndarray, x: int, y: int) -> int:
    """Width of the bar through (x, y): neighbours of similar shade that differ from the surroundings."""
    row = g[y].astype(np.int16)
    v = row[x]
    x0 = x
    while x0 > 0 and abs(row[x0 - 1] - v) <= 20:
        x0 -= 1
    x1 = x
    while x1 < len(row) - 1 and abs(row[x1 + 1] - v) <= 20:
        x1 += 1
    width = x1 - x0 + 1
    return width
