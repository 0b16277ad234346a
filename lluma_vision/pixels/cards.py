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
# A card is at most this many times the height of the list's usual card: measured, the cards of one list 0.6-1.0 of
# their median (a card cut by the viewport shorter); the band of other content under screens' missions_scrollbar_offset
# list (a partial card, its expiry line, Back, Collect All) 2.5
TALL = 1.8
CARD_LINES = 2  # a card holds its name and a detail: a list has two cards of at least this many lines...
# ...and at least this share of the height tall: measured (lluma vision --json on every labelled screen), the real
# lists' cards 0.073 (Learn's first, cut by the viewport) to 0.129 (screens' missions, held out) and the simulator's
# 0.09; the training header's goal panel and energy row read as two bordered bands of 0.047 and 0.037 (screens2's
# dhrpf__training_guts), mrhorseshoe__72_shop_set13's strips inside its song cards 0.028-0.068
CARD_MIN = 0.07
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
    edges compare pixels this far apart (2 on an upscaled frame, whose borders blur over two pixels).

    The list starts at its first border. Cards part at a band with no text between two borders (the space between
    two cards) and at a border reaching both sides (a card's top or bottom whose neighbour's was not seen: a white
    card on a white list); a border reaching one side only (a ribbon over a card's top, a rule inside a card) parts
    nothing by itself. The last card goes on as far as its sides are drawn (cut by the list's viewport)."""
    h, w = rgb.shape[:2]
    tol = END_TOL * w
    rules = _rules(rgb, span)
    sides = _sides(rules, w, tol)
    if sides is None:
        return []
    x0, x1 = sides
    mine = [(y, a, b) for y, a, b in rules if a >= x0 - tol and b <= x1 + tol and
            (abs(a - x0) <= tol or abs(b - x1) <= tol)]
    borders = _borders([y for y, _, _ in mine], BORDER_ROWS * h)
    full = [any(t <= y <= u and abs(a - x0) <= tol and abs(b - x1) <= tol for y, a, b in mine) for t, u in borders]
    mids = [ln.cy for ln in lines if x0 <= ln.cx <= x1]
    sides_px = _side_rows(rgb, x0, x1, span)
    ends = [*borders, (_follow(sides_px, borders[-1][1], 1),) * 2]
    cards: list[Rect] = []
    top: int | None = None
    for k, ((_, a), (b, _)) in enumerate(zip(ends, ends[1:], strict=False)):
        if not any(a <= y <= b for y in mids):
            if top is not None:  # the space between two cards (or under the last)
                cards.append(Rect(x0, top, x1, a))
                top = None
            continue
        if top is not None and full[k]:
            cards.append(Rect(x0, top, x1, a))
            top = None
        top = a if top is None else top
        if k == len(ends) - 2:
            cards.append(Rect(x0, top, x1, b))
    if not cards:
        return []
    usual = float(np.median([c.height for c in cards]))
    cards = [c for c in cards if c.height <= TALL * usual]  # a band of other content under the list is no card
    held = [sum(c.y0 <= y <= c.y1 for y in mids) for c in cards]
    if sum(n >= CARD_LINES and c.height >= CARD_MIN * h for c, n in zip(cards, held, strict=True)) < 2:
        return []
    return [c for c, n in zip(cards, held, strict=True) if n]
