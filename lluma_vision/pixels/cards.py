"""A list drawn as cards (FACTS: the race list's rows, the Learn screen's skills, the missions): where each card is,
from the cards themselves, whether or not a scrollbar is drawn beside them.

A card's top and bottom are long straight borders (rows of edge pixels across most of the frame) that reach one of
the list's sides: the list's cards share their left and right ends, and a ribbon or an icon drawn over a border
("Recommended!", a rival's portrait) cuts it short on one side only. Between two cards lies a band with no text,
bounded by one card's bottom and the next one's top: the cards are what the text between those bands belongs to.
"""

from __future__ import annotations

import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.layout import channel_step
from lluma_vision.pixels.ocr import Line

# Measured on the working frames (720 wide) of screens2's race list and Learn list and screens' missions list:
# a card's pale border on the list's pale ground steps 13-23 per channel (the race list's card tops; layout.EDGE_T's
# 24 misses them); the cards' borders span 0.69 (missions) to 0.91 (race list, Learn) of the width, a card's inner
# rule (the race row's line under its track) 0.61 and reaches neither side (its ends 0.019 and 0.28 of the width
# inside the card's), a ribbon or a rival's portrait over a card's top cuts one end by 0.03-0.3.
EDGE = 12
WIDE = 0.6  # a border spans at least this share of the width...
JOIN = 3  # ...as one run of edge pixels with breaks of at most this many px (antialiased corners, a glyph's gap)
END_TOL = 0.015  # borders of one list reach its side within this share of the width
BORDER_ROWS = 0.006  # a border's rows (outline, shadow) lie within this share of the height of each other
GAP_MAX = 0.05  # the band between two cards is at most this share of the height (measured 0.014-0.019)
CARD_LINES = 2  # a card holds its name and a detail: a list has two cards of at least this many lines
# A card's side: an edge on a row between its border's end and this share of the width beyond it (a rounded corner
# starts the border's straight run inside the side: the simulator's Learn cards by 0.014 of the width, screens2's
# 0.003), or SIDE_NEAR px inside it (antialiasing).
CORNER = 0.025
SIDE_NEAR = 3
SIDE_BREAK = 4  # a side goes on over breaks of at most this many rows (a badge's outline crossing it)


def _rules(rgb: np.ndarray, span: int) -> list[tuple[int, int, int]]:
    """(y, x0, x1) of the longest run of edge pixels on each row that has one of at least WIDE of the width."""
    h, w = rgb.shape[:2]
    edges = channel_step(rgb[span:], rgb[:-span]) > EDGE
    out: list[tuple[int, int, int]] = []
    for y in np.flatnonzero(edges.sum(axis=1) >= WIDE * w):
        idx = np.flatnonzero(edges[y])
        cut = np.flatnonzero(np.diff(idx) > JOIN)
        starts, ends = np.r_[idx[0], idx[cut + 1]], np.r_[idx[cut], idx[-1]] + 1
        k = int(np.argmax(ends - starts))
        if ends[k] - starts[k] >= WIDE * w:
            out.append((int(y), int(starts[k]), int(ends[k])))
    return out


def _sides(rules: list[tuple[int, int, int]], w: int, tol: float) -> tuple[int, int] | None:
    """The list's left and right: the ends most borders share (each border counted once however many rows it
    has), not the frame's own edges (a full-width divider is no card's)."""
    best: tuple[int, tuple[int, int]] | None = None
    for _, x0, x1 in rules:
        if x0 <= tol and x1 >= w - tol:
            continue
        ys = [y for y, a, b in rules if abs(a - x0) <= tol and abs(b - x1) <= tol]
        n = len(_borders(ys, 1))
        if best is None or n > best[0]:
            best = (n, (x0, x1))
    return best[1] if best is not None and best[0] >= 2 else None


def _borders(ys: list[int], within: float) -> list[tuple[int, int]]:
    """Rows within `within` of each other as one border: (first row, last row), top first."""
    out: list[tuple[int, int]] = []
    for y in sorted(ys):
        if out and y - out[-1][1] <= within:
            out[-1] = (out[-1][0], y)
        else:
            out.append((y, y))
    return out


def _side_rows(rgb: np.ndarray, x0: int, x1: int, span: int) -> np.ndarray:
    """Per row: an edge (a step between neighbouring columns) near the list's left end and one near its right end
    (both: the scenery beside a list has edges on one side or the other, a card's two sides run together)."""
    w = rgb.shape[1]
    near = np.ones(rgb.shape[0], dtype=bool)
    out = round(CORNER * w)
    for a, b in ((max(0, x0 - out - span), min(w, x0 + SIDE_NEAR + span)),
                 (max(0, x1 - SIDE_NEAR - span), min(w, x1 + out + span))):
        if b - a <= span:
            return np.zeros(rgb.shape[0], dtype=bool)
        near &= (channel_step(rgb[:, a + span:b], rgb[:, a:b - span]) > EDGE).any(axis=1)
    return near


def _follow(sides: np.ndarray, y: int, step: int) -> int:
    """From row `y`, the last row going `step` (+1 down, -1 up) the sides still run to, over short breaks."""
    last, gap = y, 0
    k = y + step
    while 0 <= k < len(sides) and gap <= SIDE_BREAK:
        if sides[k]:
            last, gap = k, 0
        else:
            gap += 1
        k += step
    return last


def find_cards(rgb: np.ndarray, lines: list[Line], span: int = 1) -> list[Rect]:
    """The cards of a list in view, top first (working pixels), or [] when no list of cards is drawn. `span`: the
    edges compare pixels this far apart (2 on an upscaled frame, whose borders blur over two pixels)."""
    h, w = rgb.shape[:2]
    tol = END_TOL * w
    rules = _rules(rgb, span)
    sides = _sides(rules, w, tol)
    if sides is None:
        return []
    x0, x1 = sides
    ys = [y for y, a, b in rules if a >= x0 - tol and b <= x1 + tol and (abs(a - x0) <= tol or abs(b - x1) <= tol)]
    borders = _borders(ys, BORDER_ROWS * h)
    mids = [(ln.cy, ln) for ln in lines if x0 <= ln.cx <= x1]
    # a band between two borders with no text, short: the space between two cards
    cuts = [(a[1], b[0]) for a, b in zip(borders, borders[1:], strict=False)
            if b[0] - a[1] <= GAP_MAX * h and not any(a[1] <= y <= b[0] for y, _ in mids)]
    if not cuts:
        return []
    sides_px = _side_rows(rgb, x0, x1, span)
    # the list's first and last cards may be cut by its viewport: each goes on as far as its sides are drawn
    tops = [_follow(sides_px, borders[0][0], -1)] + [c[1] for c in cuts]
    bottoms = [c[0] for c in cuts] + [_follow(sides_px, borders[-1][1], 1)]
    cards = [Rect(x0, top, x1, bottom) for top, bottom in zip(tops, bottoms, strict=True)]
    held = [sum(c.y0 <= y <= c.y1 for y, _ in mids) for c in cards]
    if sum(n >= CARD_LINES for n in held) < 2:
        return []
    return [c for c, n in zip(cards, held, strict=True) if n]
