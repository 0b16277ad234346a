"""The tab bar: which tabs exist, which one is selected, and whether it can be used right now.

Found from OCR blocks: a row of >= 4 short distinct labels across the bottom of the game
(Enhance / Story / Home / Race / Scout), or a column of them beside the game (the PC client's
side menu) or filling a cropped strip. A bar drawn over content (a shop's list) shares its band with the
content's labels: up to two of them, or labels of another text size, are left out of the row.
The selected tab is drawn on a saturated background.

A dialog blurs (simulator) or dims (real game) the bar behind it. A blurred bar cannot be read,
so `TabMemory` keeps the last readable bar: when the same label spots are now blurred and the
selected colour is still where it was, the bar is reported with usable=False.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.models import Box
from lluma_vision.pixels.layout import Block, Edges
from lluma_vision.pixels.ocr import Line, Work

# evidence: MAX_BAND, EVEN: 65e01f7 (faint scrollbar tracks about 10 grey levels off a white list); the others: each on
#   its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
MAX_BAND = 10  # labels in one band beyond which it is a grid of content, not a bar with intruders
EVEN = 1.6  # widest / narrowest gap of an evenly spaced bar (a wider Home tab: 1.4)
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 18
TAB_CHARS = 18  # a tab's label: at most this many characters, two words, no digit ("Enhance", "Race Results")
CONTRAST_LO, CONTRAST_HI = 2, 98  # a label's contrast: the grey levels between these percentiles...
# tried 0.5x and 1.5x on 64 screens (17 read it): readings identical at 0.5x and 1.5x; kept 6
FLAT = 6  # ...under this many levels is a flat patch, no text to be crisp or blurred
# tried 0.5x and 1.5x on 64 screens (17 read it): readings identical at 0.5x and 1.5x; kept 45
SELECTED_SAT = 45  # the selected tab's background is this saturated (max - min channel; green/blue/pink tabs)...
# tried 0.5x and 1.5x on 64 screens (17 read it): readings identical at 0.5x and 1.5x; kept 30
SELECTED_LEAD = 30  # ...and this much more than any other tab's (white and grey tabs: under 15)
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.8
ROW_TOL = 0.8  # labels of one bottom row: centres within this many line heights
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.35
COLUMN_TOL = 0.35  # labels of one side column: centres within this share of the label's width (or 2 line heights)
# tried 0.5x and 1.5x on 64 screens (17 read it): readings identical at 0.5x and 1.5x; kept 3.2
SPACING_MAX = 3.2  # no gap over this many times the smallest (a missing, unread tab makes one gap twice as wide)
# tried 0.5x and 1.5x on 64 screens (17 read it): readings identical at 0.5x and 1.5x; kept 0.3
SPACING_WHOLE = 0.3  # a side column's gaps are whole multiples of the smallest, within this
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept (0.75, 1.33)
SIZE_SPREAD = (0.75, 1.33)  # a bar over content: its captions' line heights within this ratio of the median
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 1x-1.5x (0.5x -12), held out screens flat 0.5x-1.5x;
#   kept 0.8
BOTTOM = 0.8  # the bottom bar's labels lie in the bottom fifth of the viewport
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.34
STRIP = 0.34  # a capture narrower than this (width / height) is a cropped strip of the side menu
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.3
CRISP = 0.3  # a sharp label's crispness (drawn text ~0.8, blurred ~0.1): below this the bar is blurred
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.8
DIMMED = 0.8  # a bar at under this share of the remembered brightness is dimmed behind a dialog
# tried 0.5x and 1.5x on 64 screens (47 read it): readings identical at 0.5x and 1.5x; kept 0.01
STRIP_SHARP = 0.01  # a strip with fewer edge pixels than this share is blurred...
# tried 0.5x and 1.5x on 64 screens (47 read it): readings identical at 0.5x and 1.5x; kept 8
STRIP_TEXTURE = 8  # ...when its pixels still vary (std over this): not blank


@dataclass
class TabBarPx:
    usable: bool
    tabs: list[Block]
    selected: int | None  # index into tabs


@dataclass
class TabMemory:
    """The last readable tab bar, in device pixels, so a blurred one can still be recognised."""

    size: tuple[int, int] = (0, 0)
    names: list[str] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    selected: int | None = None
    brightness: float = 0.0

    def remember(self, work: Work, bar: TabBarPx) -> None:
        self.size = (work.device_width, work.device_height)
        self.names = [b.text for b in bar.tabs]
        self.boxes = [work.to_device(b) for b in bar.tabs]
        self.selected = bar.selected
        self.brightness = _brightness(work.rgb, bar.tabs)


def _is_tab_label(b: Block) -> bool:
    t = b.text.strip()
    return 2 <= len(t) <= TAB_CHARS and len(t.split()) <= 2 and t[0].isalpha() and not any(ch.isdigit() for ch in t)


def _patch(rgb: np.ndarray, b: Block) -> np.ndarray:
    y0, x0 = max(0, int(b.y0)), max(0, int(b.x0))
    return rgb[y0 : max(int(b.y1), y0 + 1), x0 : max(int(b.x1), x0 + 1)]


def _brightness(rgb: np.ndarray, tabs: list[Block]) -> float:
    return float(np.mean([np.median(_patch(rgb, b)) for b in tabs]))


def crispness(rgb: np.ndarray, b: Block) -> float:
    """Sharpest one-pixel step over the contrast of a label: ~0.8 for drawn text, ~0.1 when blurred."""
    g = _patch(rgb, b).astype(np.int16).mean(axis=2)
    if g.shape[0] < 3 or g.shape[1] < 3:
        return 0.0
    rng = float(np.percentile(g, CONTRAST_HI) - np.percentile(g, CONTRAST_LO))
    step = max(float(np.abs(np.diff(g, axis=0)).max()), float(np.abs(np.diff(g, axis=1)).max()))
    return step / rng if rng >= FLAT else 0.0


def _selected(rgb: np.ndarray, tabs: list[Block]) -> int | None:
    """The tab drawn on a saturated background (green, blue, pink) while the others are white/grey."""
    sats = []
    for b in tabs:
        bg = np.median(_patch(rgb, b).reshape(-1, 3), axis=0)
        sats.append(float(bg.max() - bg.min()))
    order = np.argsort(sats)[::-1]
    top, second = sats[order[0]], sats[order[1]] if len(sats) > 1 else 0.0
    if top >= SELECTED_SAT and top - second >= SELECTED_LEAD:
        return int(order[0])
    return None


def _groups(cands: list[Block], horizontal: bool) -> list[list[Block]]:
    groups: list[list[Block]] = []
    key: Callable[[Block], float] = (lambda b: b.cy) if horizontal else (lambda b: b.cx)
    for b in sorted(cands, key=key):
        for g in groups:
            ref = float(np.median([key(o) for o in g]))
            tol = ROW_TOL * b.line_h if horizontal else COLUMN_TOL * max(b.x1 - b.x0, 2 * b.line_h)
            if abs(key(b) - ref) <= tol:
                g.append(b)
                break
        else:
            groups.append([b])
    return groups


def _regular(centres: list[float], strict: bool = True) -> bool:
    """Spaced like tabs, allowing a missing (unread) label. Strict: every gap is about a whole multiple of
    the smallest (side columns); loose: no gap over 3.2x the smallest (bottom bars have a wider Home tab)."""
    gaps = np.diff(sorted(centres))
    if not gaps.size or gaps.min() <= 0:
        return False
    k = gaps / gaps.min()
    return bool(k.max() <= SPACING_MAX and (not strict or np.all(np.abs(k - np.round(k)) <= SPACING_WHOLE)))


def _bar_row(g: list[Block], vw: float) -> bool:
    """Four or more distinct labels spread over half the width, spaced like tabs."""
    return (len(g) >= 4 and g[-1].cx - g[0].cx >= 0.5 * vw and _regular([b.cx for b in g], strict=False)
            and len({b.text.casefold() for b in g}) == len(g))


def _spread(g: list[Block]) -> float:
    """Widest over narrowest gap between neighbouring labels: about 1 for tabs (1.4 with a wider Home tab)."""
    gaps = np.diff([b.cx for b in g])
    return float(gaps.max() / max(gaps.min(), np.finfo(float).eps))


def _over_content(g: list[Block], vw: float) -> list[Block] | None:
    """A bar drawn over a list or a shop shares its band with the content's own short labels, which the loose
    spacing test lets in: the bar is the most evenly spaced row of four or more captions of one text size
    left when up to two labels are dropped, else the whole band as before."""
    size = float(np.median([b.line_h for b in g]))
    lo, hi = SIZE_SPREAD
    same = [b for b in g if lo <= b.line_h / size <= hi]
    rows = [[b for i, b in enumerate(same) if i not in out]
            for drop in range(min(2, len(same) - 4) + 1) for out in combinations(range(len(same)), drop)]
    even = [r for r in rows if _bar_row(r, vw) and _spread(r) <= EVEN]
    if even:
        return max(even, key=lambda r: (len(r), -_spread(r)))
    return g if _bar_row(g, vw) else None


def _find(rgb: np.ndarray, blocks: list[Block], view: Rect) -> list[Block] | None:
    vx0, vy0, vx1, vy1 = view
    vw, vh = vx1 - vx0, vy1 - vy0
    labels = [b for b in blocks if _is_tab_label(b)]
    best: list[Block] | None = None
    bottom = [b for b in labels if b.cy >= vy0 + BOTTOM * vh and vx0 <= b.cx <= vx1]
    for g in _groups(bottom, horizontal=True):
        g.sort(key=lambda b: b.cx)
        row = _over_content(g, vw) if len(g) <= MAX_BAND else g if _bar_row(g, vw) else None
        if row is not None and (best is None or row[0].cy > best[0].cy):
            best = row
    if best is None:
        h, w = rgb.shape[:2]
        strip = w / h < STRIP
        side = [b for b in labels if strip or b.cx < vx0 or b.cx > vx1]
        for g in _groups(side, horizontal=False):
            g.sort(key=lambda b: b.cy)
            if len(g) >= 4 and g[-1].cy - g[0].cy >= 0.5 * h and _regular([b.cy for b in g]):
                best = g
                break
    if best is None or len({b.text.casefold() for b in best}) < len(best):  # tabs have distinct names
        return None
    return best


def tab_bar(
    work: Work, blocks: list[Block], view: Rect, edges: Edges, memory: TabMemory | None = None
) -> TabBarPx | None:
    rgb = work.rgb
    found = _find(rgb, blocks, view)
    if found is not None:  # the tabs' evidence is rules/menu.py's (a tab is a button unless the bar is not usable)
        usable = float(np.median([crispness(rgb, b) for b in found])) >= CRISP
        if usable and memory is not None and memory.names and memory.size == (work.device_width, work.device_height):
            usable = _brightness(rgb, found) >= DIMMED * memory.brightness  # dimmed behind a dialog
        return TabBarPx(usable=usable, tabs=found, selected=_selected(rgb, found))
    if memory is not None and memory.names and memory.size == (work.device_width, work.device_height):
        return _blurred_remembered(work, memory)
    return _blurred_strip(rgb, edges)


def _blurred_remembered(work: Work, mem: TabMemory) -> TabBarPx | None:
    """The remembered bar, now unreadable: every label spot blurred and the selected colour still in place."""
    spots = [(n, work.from_device(b)) for n, b in zip(mem.names, mem.boxes, strict=True)]
    tabs = [Block(lines=[Line(text=n, conf=0.0, box=Rect(r.x0, r.y0, r.x1, r.y1))]) for n, r in spots]
    if mem.selected is None or max(crispness(work.rgb, t) for t in tabs) >= CRISP:
        return None
    if _selected(work.rgb, tabs) != mem.selected:
        return None
    return TabBarPx(usable=False, tabs=tabs, selected=mem.selected)


def _blurred_strip(rgb: np.ndarray, edges: Edges) -> TabBarPx | None:
    """A capture that is only a tab strip (very tall or very wide) with no readable, sharp content:
    the tab bar is there but blurred behind something, so it cannot be used."""
    h, w = rgb.shape[:2]
    if max(h, w) / min(h, w) < 3:
        return None
    sharp = float(edges.h.mean() + edges.v.mean())
    if sharp < STRIP_SHARP and float(rgb.std()) > STRIP_TEXTURE:  # not blank, just blurred
        return TabBarPx(usable=False, tabs=[], selected=None)
    return None
