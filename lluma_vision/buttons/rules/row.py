"""The `row` family: a block judged by its neighbours.

Three or more short labels of one size spread evenly across the frame are a row of cells (the hub's tiles, icon
captions): tappable, with less confidence than a plate gives. A shorter row, or a run of such labels in a row a far
label breaks, is one too when each caption touches its picture (an icon row in a corner: the home screen's Club /
Concert Theater / Shop), a caption's two lines read apart counting as one cell. A row whose labels each head a
number below them is a stat grid: text, plate or not. A short bare label beside a plated one of its size is the other
half of a toggle pair (On / Off).
"""

from __future__ import annotations

import re

import numpy as np

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.pixels.layout import NUMERIC, Block, Said, split_annotation

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x-1.5x (0.5x +3), held out screens flat 1x-1.5x (0.5x
#   +1); 0.5x best on screens2, held out +1; kept 2
CELL_WORDS = 2  # a cell's label: at most this many words...
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.75x-1.5x (0.5x +4), held out screens flat 0.75x-1.5x (0.5x
#   +11); 0.5x best on screens2, held out +11; kept 18
CELL_CHARS = 18  # ...and characters, no digit ("Infirmary", "Skill Points" but not "Turn 12")
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x-1.5x (0.75x -3), held out screens flat 0.5x-1.5x; kept
#   1.6
ROW_DRIFT = 1.6  # a row's first lines lie within this many line heights (the selected cell is often raised)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1x (0.5x -14, 1.25x +1), held out screens flat
#   0.5x-1.5x; 1.25x best on screens2, held out +0; kept (0.65, 1.55)
ROW_SIZE = (0.65, 1.55)  # line heights against the first label's; and against the row's median: 0.65..ROW_BADGE
# (a greyed-out label reads low-contrast with a tighter box: the hub's Infirmary at 0.68)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x-1.5x (0.75x -11), held out screens flat 0.5x-1.5x; kept
#   1.33
ROW_BADGE = 1.33  # a taller label in the row is a badge, not a cell (one size of text boxes within a third)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.25x (0.5x -3, 1.5x +4), held out screens flat
#   0.5x-1.5x; 1.5x best on screens2, held out +0; kept 0.4
ROW_SPREAD = 0.4  # the row spans at least this share of the frame's width
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 2.5
ROW_EVEN = 2.5  # and its gaps are even: the widest at most this many times the narrowest
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.5x (0.5x -2), held out screens flat 0.5x-1.5x; kept
#   1.1
ROW_BODY = 1.1  # cells are bigger than the frame's usual text (body-sized labels in a row are column headings)...
# swept 0.5x-1.5x on 64 screens (8 read it): screens2 flat 1x-1.5x (0.75x +3), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 2.5
ART_REACH = 2.5  # ...unless each captions a picture: the area up to this many line heights over it...
# tried 0.5x and 1.5x on 64 screens (8 read it): readings identical at 0.5x and 1.5x; kept 0.2
ART_GAP = 0.2  # ...(from this far over it)...
# swept 0.5x-1.5x on 64 screens (8 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 40
ART_FAR = 40  # ...has pixels this far (a channel, 0..255) from its main colour...
# swept 0.5x-1.5x on 64 screens (8 read it): screens2 flat 0.5x-1.25x (1.5x +3), held out screens flat 0.5x-1.5x; 1.5x
#   best on screens2, held out +0; kept 0.25
ART_SHARE = 0.25  # ...over at least this share of it
# tried 0.5x and 1.5x on 64 screens (8 read it): readings identical at 0.5x and 1.5x; kept 4
ART_MIN_PX = 4  # an area narrower or shorter than this cannot be told
# the home screen's two-line caption "Concert" / "Theater" read as two blocks: centres 2 px apart (0.1 line heights)
#   at 1x; tried 0.5x and 1.5x on 109 screens (102 read it): readings identical at 0.5x and 1.5x; kept 1.0
STACKED = 1.0  # labels centred within this many line heights of each other, one over the other, are one cell
# a short row of captions touching their pictures (the home screen's Club / Concert Theater / Shop, 0.25 of the frame
#   wide): the band over each caption's first line, 0.6 line heights tall, far from its main colour over 0.60-0.96 of
#   it at 0.4x-1.5x; near misses that would make a short row there: a stat header's "Da/Pa/Vo/Vi" 0.45-0.82, the
#   career end's aptitude table ("Track/Turf/Dirt") 0.12-0.20, a header's "Concert in / turn(s) left / Goal" 0.14-0.43
# tried 0.5x and 1.5x on 109 screens (18 read it): readings identical at 0.5x and 1.5x; kept 0.6
TOUCH_BAND = 0.6  # the band over a caption, in its line heights, its picture must fill...
# swept 0.5x-1.5x on 109 screens (18 read it): screens2 flat 1x only (0.75x -1, 1.25x +1), held out screens flat
#   0.5x-1.5x; 1.25x best on screens2, held out +0; kept 0.55 (Club reads 0.60 at 0.4x)
TOUCH_SHARE = 0.55  # ...with pixels far from the band's main colour over this share of it
# tried 0.5x and 1.5x on 64 screens (12 read it): readings identical at 0.5x and 1.5x; kept 1.5
VALUE_GAP = 1.5  # a value heads under a label within this many line heights...
# tried 0.5x and 1.5x on 64 screens (12 read it): readings identical at 0.5x and 1.5x; kept 0.6
VALUE_CENTRE = 0.6  # ...centred on it within this share of the wider of the two

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.5x (0.5x +3), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 0.4
PAIR_ROW = 0.4  # a toggle's halves: centres within this many line heights vertically,
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x-1.25x (0.75x +4, 1.5x +3), held out screens flat 1x only
#   (0.75x +5, 1.25x +7); 0.5x best on screens2, held out +11; kept (0.8, 1.25)
PAIR_SIZE = (0.8, 1.25)  # text sizes this alike,
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x only (0.75x +1, 1.25x -1), held out screens flat
#   0.5x-1.5x; 0.5x best on screens2, held out +0; kept 2.5
PAIR_GAP = 2.5  # at most this many line heights apart,
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.5x (0.5x +1), held out screens flat 1x-1.5x (0.75x
#   +11); 0.5x best on screens2, held out +11; kept (0.4, 2.5)
PAIR_WIDTH = (0.4, 2.5)  # and widths this alike


def cell_label(b: Block) -> bool:
    t = split_annotation(b)[0].strip()
    return (len(b.lines) <= 2 and 1 <= len(t.split()) <= CELL_WORDS and len(t) <= CELL_CHARS
            and not any(c.isdigit() for c in t) and len(re.sub(r"[^A-Za-z]", "", t)) >= 2)


def _art_above(rgb: np.ndarray, b: Block) -> bool:
    """A picture right above a label (an icon or illustration it captions): much of the area over it, as wide
    as the caption or two line heights, is far from that area's own main colour."""
    h = b.line_h
    half = max(b.x1 - b.x0, 2 * h) / 2
    y0, y1 = int(max(0, b.y0 - ART_REACH * h)), int(max(0, b.y0 - ART_GAP * h))
    x0, x1 = int(max(0, b.cx - half)), int(min(rgb.shape[1], b.cx + half))
    if y1 - y0 < ART_MIN_PX or x1 - x0 < ART_MIN_PX:
        return False
    px = rgb[y0:y1, x0:x1].reshape(-1, 3).astype(np.int16)
    far = np.abs(px - np.median(px, axis=0)).max(axis=1) > ART_FAR
    return bool(far.mean() >= ART_SHARE)


def _touches_art(rgb: np.ndarray, b: Block) -> bool:
    """The label's picture comes down to it (an icon's caption drawn on or right under it): the band just over the
    label, as wide as it and TOUCH_BAND line heights tall, is mostly far from that band's own main colour (a table's
    headings and a header's words have their panel's padding there)."""
    y0, y1 = int(max(0, b.y0 - TOUCH_BAND * b.line_h)), int(max(0, b.y0))
    x0, x1 = int(max(0, b.x0)), int(min(rgb.shape[1], b.x1))
    if y1 - y0 < ART_MIN_PX or x1 - x0 < ART_MIN_PX:
        return False
    px = rgb[y0:y1, x0:x1].reshape(-1, 3).astype(np.int16)
    return bool((np.abs(px - np.median(px, axis=0)).max(axis=1) > ART_FAR).mean() >= TOUCH_SHARE)


def _columns(row: list[Block]) -> list[list[Block]]:
    """A row's labels (in order across) grouped by cell: the lines of one caption the reading kept apart
    ("Concert" over "Theater") are centred one over the other, within STACKED of the first one's line height."""
    cols: list[list[Block]] = []
    for o in row:
        if cols and all(abs(o.cx - c.cx) <= STACKED * c.line_h and abs(o.cy - c.cy) >= c.line_h / 2
                        for c in cols[-1]):
            cols[-1].append(o)
        else:
            cols.append([o])
    return cols


def _centres(cols: list[list[Block]]) -> list[float]:
    return [float(np.mean([o.cx for o in c])) for c in cols]


def _top(col: list[Block]) -> Block:
    """A cell's first line: the one a picture stands over."""
    return min(col, key=lambda o: o.y0)


def _even(cols: list[list[Block]]) -> bool:
    """Three or more cells, evenly spaced: the widest gap at most ROW_EVEN times the narrowest."""
    gaps = np.diff(_centres(cols))
    return len(cols) >= 3 and bool(gaps.min() > 0 and gaps.max() <= ROW_EVEN * gaps.min())


def _runs(cols: list[list[Block]]) -> list[list[list[Block]]]:
    """The longest runs of three or more evenly spaced cells in a row (an icon row beside a far banner)."""
    runs: list[list[list[Block]]] = []
    i = 0
    while i < len(cols) - 2:
        j = i + 3
        if not _even(cols[i:j]):
            i += 1
            continue
        while j < len(cols) and _even(cols[i : j + 1]):
            j += 1
        runs.append(cols[i:j])
        i = j
    return runs


def _value_under(label: Block, v: Block) -> bool:
    """`v` sits right under `label`, centred on it: the label heads that value."""
    return (0 <= v.y0 - label.y1 <= VALUE_GAP * label.line_h
            and abs(v.cx - label.cx) <= VALUE_CENTRE * max(label.x1 - label.x0, v.x1 - v.x0))


def cells(blocks: list[Block], width: int, rgb: np.ndarray | None = None) -> Said:
    """Rows of equal cells: three or more short labels of one text size side by side across the frame (the
    hub's tiles, a row of stat icons with captions, each under its illustration). A label with no plate of
    its own is tappable there, with less confidence than a plate gives. Text bigger than the frame's usual
    text only: small labels in a row are column headings. A row whose labels each head a number below
    them is a stat grid, not buttons, even on plates. Reads the scores so far: a plated cell keeps its own."""
    found = [b for b in blocks if cell_label(b) and not b.tab]
    if not found:
        return
    values = [b for b in blocks if NUMERIC.match(b.text.strip())]
    body = float(np.median([b.line_h for b in blocks]))
    lo, hi = ROW_SIZE
    used: set[int] = set()
    short: list[list[list[Block]]] = []  # runs of short or broken rows, judged once the rows across the frame are
    for b in sorted(found, key=lambda b: b.x0):
        if id(b) in used:
            continue
        # by the caption's first line, not the block (a level line under one caption), and with slack: the
        # selected cell of a row is often raised
        row = [o for o in found
               if abs(o.lines[0].cy - b.lines[0].cy) <= ROW_DRIFT * b.line_h and lo <= o.line_h / b.line_h <= hi]
        size = float(np.median([o.line_h for o in row]))
        row = sorted((o for o in row if lo <= o.line_h / size <= ROW_BADGE), key=lambda o: o.cx)
        cols = [[o] for o in row]
        if _even(cols) and row[-1].cx - row[0].cx >= ROW_SPREAD * width:
            pictured = rgb is not None and all(_art_above(rgb, o) for o in row)
            yield from _cells(cols, values, size < ROW_BODY * body and not pictured, used)
        else:
            short += _runs(_columns(row))
    for run in short:  # a short or broken row: its runs of evenly spaced captions each touching its picture
        if rgb is not None and all(_touches_art(rgb, _top(c)) for c in run):
            yield from _cells(run, values, False, used, icon_row=True)


def _cells(cols: list[list[Block]], values: list[Block], headings: bool, used: set[int],
           icon_row: bool = False) -> Said:
    """One row of cells (`cols`, each the lines of one caption); `headings`: body-sized labels that caption no
    pictures, column headings (not buttons); `icon_row`: a short row of captioned pictures, whose labels are only
    raised (a stat grid is a row across the frame). Marks its labels `used`."""
    row = [o for c in cols for o in c]
    graded = sum(any(_value_under(o, v) for v in values) for o in row)
    if icon_row and (graded or any(id(o) in used for o in row)):
        return  # a label over a number is a stat's caption, not an icon's; a label of a row across the frame is its
    used.update(id(o) for o in row)
    if 2 * graded >= len(row):  # a stat grid: each label heads its value ("Speed" over "92"), plate or not
        for o in row:
            yield o, Evidence("row.stat_grid", "cap", ButtonScore.DOUBT,
                              f"one of {len(row)} labels that head a number each: a stat grid")
        return
    if headings:
        return
    why = (f"one of {len(cols)} evenly spaced captions, each touching its picture" if icon_row else
           f"one of {len(cols)} evenly spaced labels across the frame")
    for o in row:
        if not o.is_button:  # a plated cell keeps its own (higher or looser) score
            yield o, Evidence("row.cell", "raise", ButtonScore.ROW_CELL, why)


def pairs(blocks: list[Block]) -> Said:
    """Toggle pairs and segmented choices (On / Off): a short bare label right beside a plated button of the same
    text size and about the same width is the other half of the pair (the unselected one is often drawn without
    a plate). Reads the scores so far: which blocks are plated buttons."""
    plated = [b for b in blocks if b.is_button and b.frame is not None and cell_label(b)]
    slo, shi = PAIR_SIZE
    wlo, whi = PAIR_WIDTH
    for b in blocks:
        if b.is_button or not cell_label(b):
            continue
        for o in plated:
            gap = max(o.x0 - b.x1, b.x0 - o.x1)
            if (abs(o.cy - b.cy) <= PAIR_ROW * b.line_h and slo <= o.line_h / b.line_h <= shi
                    and gap <= PAIR_GAP * b.line_h and wlo <= (b.x1 - b.x0) / max(1.0, o.x1 - o.x0) <= whi):
                yield b, Evidence("row.toggle", "raise", ButtonScore.TOGGLE, f"the bare half of a pair with {o.text!r}")
                break
