"""The `plate` family: the shape drawn around a block's words.

A label centred in a plate of its own (straight borders above and below at one distance, something closing it
left and right: `layout.find_frame`) is a button; off-centre it is a looser one. A plate does not make a message
or a banner a button: a sentence centred in a box is a dialog's body, a wide bar near the top or with its text
centred on it is a title. A short label with no such plate is still a button when it titles a card (a list row
drawn as a card), sits alone in a closed shape of its own (a disc, a pill: `plates.closed_shape`), or sits on one
of a stack of alike plates (event choices, list rows).
"""

from __future__ import annotations

import numpy as np

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.geometry import Rect
from lluma_vision.pixels.layout import STAT, Block, Edges, Said, find_frame, sentence
from lluma_vision.pixels.plates import closed_shape

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# a block's own plate (find_frame's pads: top, bottom, left, right)
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.25x (1.5x +1), held out screens flat 0.5x-1.25x (1.5x
#   -2); 1.5x best on screens2, held out -2; kept 0.45
PAD_SKEW = 0.45  # top and bottom pads differ by at most this share of the block's height (+2 px): centred
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 1x only (0.75x +5, 1.25x -1), held out screens flat 1x-1.5x
#   (0.75x -1); 0.5x best on screens2, held out -47; kept 1.5
PAD_MAX = 1.5  # neither pad over this many line heights (+2 px): the plate is the text's own, not a panel
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.6
CHOICE_LEFT = 0.6  # a sentence starts its bar (left pad under this share of the right one): a choice, not a message
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 1x only (0.75x +8, 1.25x -5), held out screens flat 1x-1.5x
#   (0.75x +15); 0.5x best on screens2, held out +24; kept 0.6
BANNER_WIDE = 0.6  # a bar this share of the viewport wide...
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 1x-1.25x (0.75x -5, 1.5x +1), held out screens flat
#   0.5x-1.5x; 1.5x best on screens2, held out +0; kept 0.25
BANNER_TOP = 0.25  # ...in the top quarter of it is a screen's header banner
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 1x-1.25x (0.75x +1, 1.5x -5), held out screens flat 1x-1.5x
#   (0.75x -13); 0.5x best on screens2, held out -13; kept 0.75
TITLE_BAR_WIDE = 0.75  # a bar this share of the frame wide with its text centred on it...
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept 0.1
TITLE_BAR_CENTRE = 0.1  # ...(within this share of the bar's width) is a dialog's title or message

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# a card (a list row drawn as one: race rows) around a short label and a detail or two
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 5.0
CARD_REACH = 5.0  # looked for up to this many line heights above and below, through the card's other labels
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.5x (0.5x -2), held out screens flat 0.5x-1.5x; kept
#   0.4
CARD_WIDE = 0.4  # at least this share of the frame wide...
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.3
CARD_TALL = 0.3  # ...and at most this share of it tall
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 3
CARD_TEXTS = 3  # it holds at most this many blocks
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 2
TITLE_TOP = 2  # the title is its top line (nothing starts more than this many px above it)...
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x-1.5x (0.75x +1), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 1.05
TITLE_SIZE = 1.05  # ...and its biggest text (no other over this ratio of its line height)

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1x (0.5x -1, 1.25x +1), held out screens flat
#   0.5x-1.5x; 1.25x best on screens2, held out +0; kept 0.6
SHAPE_MIN_SIZE = 0.6  # a closed shape's label is at least this share of the body text's size (not small print)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.25x (1.5x -1), held out screens flat 0.5x-1.5x; kept
#   3
SHAPE_MIN_LETTERS = 3  # and has this many letters (two-letter stat initials on a badge are tags)
# the roulette's "SKIP" on its disc with "x10 TO SPIN" on a ribbon under it, 0.71 of its line height (the line was
#   read as text at 1x: the disc held another label); swept 0.5x-1.5x on 109 screens (101 read it): screens2 flat
#   0.5x-1.5x, held out screens flat 1x-1.5x (0.75x +1: SKIP, not in labels.json, counted as a button too many); kept
#   0.8
SMALL_PRINT = 0.8  # text at most this share of a label's line height, under it, may share its closed shape

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# a stack of alike plates (event choices, shop and lesson rows)
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.4
STACK_WIDE = 0.4  # plates at least this share of the frame wide
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.03
STACK_EDGE = 0.03  # whose right sides line up within this share of the frame's width...
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 0.1
STACK_LEFT = 0.1  # ...and left sides within that or this share of the plate's width
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 2
STACK_APART = 2  # the next row's plate starts at most this many px into this one (not a line on the same plate)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.75x-1.5x (0.5x -1), held out screens flat 0.5x-1.5x; kept
#   (0.85, 1.18)
STACK_HEIGHT = (0.85, 1.18)  # and is this alike in height (measured: choice rows within 8%)


def _title_bar(frame: Rect, b: Block, width: float) -> bool:
    """Text centred on a bar spanning most of the frame: a dialog's title or message, not a row."""
    return frame.width >= TITLE_BAR_WIDE * width and abs(b.cx - frame.cx) <= TITLE_BAR_CENTRE * frame.width


def _banner(frame: Rect, b: Block, view: Rect) -> bool:
    """A wide bar that titles something rather than a button: a dialog's title bar (wide, text centred)
    or a screen's header banner (wide, near the top)."""
    vx0, vy0, vx1, vy1 = view
    wide = frame.width / max(1, vx1 - vx0)
    return _title_bar(frame, b, vx1 - vx0) or (wide >= BANNER_WIDE and b.cy < vy0 + BANNER_TOP * (vy1 - vy0))


def own_plate(b: Block, me: int, edges: Edges, view: Rect) -> list[Evidence]:
    """The plate a block sits in, if it is the block's own (close on every side): centred or loose, then whether
    it is a message or a banner rather than a button. `me` is the block's owner id in `edges` (marked)."""
    found = find_frame(edges, b.x0, b.y0, b.x1, b.y1, b.line_h, me=me)
    if found is None and edges.sharp is not None:  # an upscaled capture: a crisp border the soft map smeared
        found = find_frame(edges.sharp, b.x0, b.y0, b.x1, b.y1, b.line_h, me=me)
    if found is None:
        return []
    frame, (top, bottom, left, right) = found
    h = b.line_h
    if max(top, bottom) > PAD_MAX * h + 2:
        return []
    pads = f"{top:.0f} px above, {bottom:.0f} below"
    out = [Evidence("plate.centred", "set", ButtonScore.PLATE, f"centred in a plate of its own ({pads})", frame=frame)
           if abs(top - bottom) <= PAD_SKEW * (b.y1 - b.y0) + 2 else
           Evidence("plate.loose", "set", ButtonScore.LOOSE_PLATE, f"in a plate of its own, off centre ({pads})",
                    frame=frame)]
    text = b.text.strip()
    # a sentence is a choice only when it starts the bar (choice bars are left-aligned); centred sentences in a box
    # are messages and dialog bodies
    if sentence(text, len(text.split())) and not left < CHOICE_LEFT * right:
        out.append(Evidence("plate.message", "cap", ButtonScore.DOUBT, "a sentence centred in a box: a message"))
    if _banner(frame, b, view):
        out.append(Evidence("plate.banner", "cap", ButtonScore.DOUBT, "a wide bar: a title or header banner"))
    return out


def card_titles(blocks: list[Block], edges: Edges) -> Said:
    """A list row drawn as a card (race rows): the card is tappable when it holds no button of its own and no
    prose, only a short label as its top line plus a detail or two. The label names the card. Reads the scores
    so far: which blocks are short labels, which are buttons (the row's own button is what gets tapped)."""
    buttons = [b for b in blocks if b.is_button]
    for i, b in enumerate(blocks):
        if b.score != ButtonScore.SHORT_LABEL:
            continue
        found = find_frame(edges, b.x0, b.y0, b.x1, b.y1, b.line_h, me=i + 1, reach=CARD_REACH, through=True)
        if found is None:
            continue
        (fx0, fy0, fx1, fy1), _pads = found
        if fx1 - fx0 < CARD_WIDE * edges.width or fy1 - fy0 > CARD_TALL * edges.height:
            continue
        inside = [o for o in blocks if fx0 <= o.cx <= fx1 and fy0 <= o.cy <= fy1]
        if len(inside) > CARD_TEXTS or any(o is not b and sentence(o.text, len(o.text.split())) for o in inside):
            continue
        if any(fy0 <= o.cy <= fy1 for o in buttons):
            continue  # the row has its own button (Learn, Attempt): that is what gets tapped
        if min(o.y0 for o in inside) < b.y0 - TITLE_TOP or any(
                o.line_h > TITLE_SIZE * b.line_h for o in inside if o is not b):
            continue  # not the title
        yield b, Evidence("plate.card", "set", ButtonScore.CARD, f"titles a card of {len(inside)} texts")


def list_items(blocks: list[Block], cards: list[Rect]) -> Said:
    """A list's item (issue 54): each card of a list of cards (pixels/cards.py found them by their borders) that
    holds no button of its own is tapped by its name, its biggest short label (the top one of that size): a
    recreation partner's card, a list row the card rule's frame search misses for the texts it holds. Reads the
    scores so far: short labels, and the buttons (a row with its own button is tapped there)."""
    for card in cards:
        inside = [b for b in blocks if card.contains(b.cx, b.cy)]
        if len(inside) < 2 or any(b.is_button for b in inside):
            continue
        names = [b for b in inside if b.score == ButtonScore.SHORT_LABEL and len(b.lines) == 1]
        if not names:
            continue
        size = max(b.line_h for b in names)
        name = min((b for b in names if b.line_h >= size / TITLE_SIZE), key=lambda b: b.y0)
        yield name, Evidence("plate.list_item", "set", ButtonScore.CARD,
                             f"names one of a list's cards ({len(inside)} texts, no button of its own)")


def closed_shapes(blocks: list[Block], edges: Edges) -> Said:
    """Short labels with no straight-edged plate that sit alone in a closed shape of their own are buttons,
    framed by that shape. Small print and two-letter tags on a badge (stat initials) are not. Reads the scores
    so far (short labels only) and `edges.owner` as marked for these blocks."""
    if not blocks:
        return
    body = float(np.median([b.line_h for b in blocks]))
    for i, b in enumerate(blocks):
        if b.score != ButtonScore.SHORT_LABEL or b.frame is not None or b.line_h < SHAPE_MIN_SIZE * body:
            continue
        if sum(c.isalpha() for c in b.text) < SHAPE_MIN_LETTERS:
            continue
        shape = closed_shape(edges, b, i + 1, small_print(blocks, b))
        if shape is not None:
            yield b, Evidence("plate.shape", "set", ButtonScore.SHAPE, "alone in a closed shape (a disc, a pill)",
                              frame=shape)


def small_print(blocks: list[Block], b: Block) -> frozenset[int]:
    """Owner ids of the blocks that may share `b`'s shape as its small print: smaller words (at most SMALL_PRINT of
    its line height, SHAPE_MIN_LETTERS letters or more: a stray mark is no print) starting under the label's middle
    (a cost line, "x10 TO SPIN" under "SKIP")."""
    return frozenset(j + 1 for j, o in enumerate(blocks)
                     if o is not b and o.line_h <= SMALL_PRINT * b.line_h and o.y0 >= b.cy
                     and sum(c.isalpha() for c in o.text) >= SHAPE_MIN_LETTERS)


def stacks(blocks: list[Block], width: int) -> Said:
    """A list: two or more plates of one width and height stacked in a column (event choice rows, shop and
    lesson rows). A line alone on such a plate is tappable even when it reads as a sentence (a choice is a
    quoted line) or sits high like a header banner: the repeated plate makes it a row, not a message.
    Numbers, stats, paragraphs and text centred on a full-width bar (a dialog's title or message over another
    bar) stay text. Reads the scores so far: only text that a plate rule doubted (not prose) is lifted."""
    tol = STACK_EDGE * width
    lo, hi = STACK_HEIGHT
    plates = [(b, b.frame) for b in blocks if b.frame is not None and b.frame.width >= STACK_WIDE * width]
    for b, frame in plates:
        x0, y0, x1, y1 = frame
        if b.is_button or b.score < ButtonScore.DOUBT or len(b.lines) >= 3 or STAT.search(b.text):
            continue
        if _title_bar(frame, b, width):
            continue
        for o, (ox0, oy0, ox1, oy1) in plates:
            apart = oy0 >= y1 - STACK_APART or oy1 <= y0 + STACK_APART  # the next row, not a line on the same plate
            if (o is not b and apart and abs(ox1 - x1) <= tol and abs(ox0 - x0) <= max(tol, STACK_LEFT * (x1 - x0))
                    and lo <= (oy1 - oy0) / max(1.0, y1 - y0) <= hi):
                yield b, Evidence("plate.stack", "set", ButtonScore.LIST_ROW, "one of a stack of alike plates")
                break
