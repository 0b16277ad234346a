"""OCR lines -> labels (buttons) and texts, in working-image pixels.

Game buttons are short labels drawn on a filled shape with a border (pills, bars, tabs);
dialogue and stats are text drawn on large panels or on the scene. So a block of text is a
button when a border encloses it closely on all sides: straight edges above and below at a
consistent distance, padding roughly symmetric, and something closing it left and right.
Multi-line labels ("Career / Profile") are merged first, so they become one button.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import cv2
import numpy as np

from lluma_vision.ocr import Line
from lluma_vision.values import ICON_INITIAL

Rect4 = tuple[float, float, float, float]  # a frame (x0, y0, x1, y1) or its pads (top, bottom, left, right)
EDGE_T = 24  # max per-channel step between neighbouring pixels that counts as an edge


class ButtonScore:
    """The one scale of "is this block tappable", 0..1: a block is a button at BUTTON or above (`is_button`).
    Every rule that judges a block moves its score to one of these steps, never sets button-ness on its own."""

    PROSE = 0.1  # numbers, annotations, prose: never a button
    DOUBT = 0.3  # text in a shape that reads as a sentence, a banner or a stat: text
    SHORT_LABEL = 0.35  # a short label with no shape around it: text, unless it titles a card
    BUTTON = 0.5  # the line between text and button
    LOOSE_PLATE = 0.55  # text in a plate that is not centred on it
    TOGGLE = 0.55  # the bare half of a toggle pair
    ROW_CELL = 0.6  # a short label in a row of equal cells (tiles, icon rows): weaker than a plate
    SHAPE = 0.6  # a short label alone in a closed shape of its own that is not a straight-edged plate (a disc)
    LIST_ROW = 0.6  # a sentence or title on one of a stack of alike plates (choice rows, list rows)
    CARD = 0.6  # the title of a list row drawn as a card, or a caption under an icon
    PLATE = 0.9  # text centred in its own plate, or a tab of the tab bar


_BADGE = re.compile(r"^(new!?|free!?|\d+\s*%\s*off!?|hint\s*lv?l?\s*\d*|limited\s*time|event\s*underway!?)$", re.I)
_NUMERIC = re.compile(r"^[\s\d.,:/%+\-xX×()]+\s*(pts?|m|px|k)?$", re.I)
_STAT = re.compile(r"[+\-]\s*\d|\d\s*/\s*\d|\w:\s*\w|\d\s*%")  # "Energy -20", "Turn 1/24", "Mood: Normal", "Fail 0%"


@dataclass
class Block:
    """One or more OCR lines read together; becomes a Button or a TextLine."""

    lines: list[Line]
    x0: float = 0.0
    y0: float = 0.0
    x1: float = 0.0
    y1: float = 0.0
    score: float = 0.0  # 0..1 how sure we are it is tappable (ButtonScore)
    frame: tuple[float, float, float, float] | None = None  # enclosing shape, if one was found
    meta: list[str] = field(default_factory=list)
    tab: bool = False

    def __post_init__(self) -> None:
        self.x0 = min(ln.x0 for ln in self.lines)
        self.y0 = min(ln.y0 for ln in self.lines)
        self.x1 = max(ln.x1 for ln in self.lines)
        self.y1 = max(ln.y1 for ln in self.lines)

    @property
    def is_button(self) -> bool:
        return self.score >= ButtonScore.BUTTON

    @property
    def text(self) -> str:
        return " ".join(ln.text for ln in self.lines)

    @property
    def conf(self) -> float:
        return min(ln.conf for ln in self.lines)

    @property
    def line_h(self) -> float:
        hs = sorted(ln.h for ln in self.lines)
        return hs[len(hs) // 2]

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def channel_step(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Largest per-channel absolute difference (uint8), via OpenCV: ~10x faster than numpy int16 on a frame."""
    d = cv2.absdiff(np.ascontiguousarray(a), np.ascontiguousarray(b))
    return cv2.max(cv2.max(d[..., 0], d[..., 1]), d[..., 2])


class Edges:
    """Edge maps of one frame: `v[y, x]` = step between rows y and y+1; `h[y, x]` = step between columns x, x+1.

    `owner[y, x]` is 1 + the index of the text block covering that pixel (0 = no text), so a scan that
    runs into another block's text knows it left its own shape.
    """

    def __init__(self, rgb: np.ndarray, span: int = 1) -> None:
        # span 2 compares pixels two apart: an upscaled capture spreads each border over 2-3 pixels
        self.v = channel_step(rgb[span:], rgb[:-span]) > EDGE_T
        self.h = channel_step(rgb[:, span:], rgb[:, :-span]) > EDGE_T
        self.height, self.width = rgb.shape[:2]
        self.owner = np.zeros((self.height, self.width), dtype=np.int32)

    def mark(self, blocks: list[Block]) -> None:
        self.owner[:] = 0
        for i, b in enumerate(blocks):
            for ln in b.lines:  # shrunk a little: detector boxes overlap the shapes' borders
                y0, y1 = int(ln.y0 + 0.15 * ln.h), int(ln.y1 - 0.15 * ln.h)
                self.owner[max(0, y0) : max(y0 + 1, y1), max(0, int(ln.x0) + 1) : max(0, int(ln.x1) - 1)] = i + 1


def _scan(edge_lines: np.ndarray, owners: np.ndarray, me: int, start: int, step: int, limit: int,
          through: bool = False) -> int | None:
    """Distance from `start` to the first edge going `step` (+1/-1), or None within `limit`.
    Another block's text either stops the scan (None: the shape holds more than this label) or,
    with `through`, is stepped over (looking for the card around several labels)."""
    n = len(edge_lines)
    for d in range(limit):
        i = start + step * d
        if i < 0 or i >= n:
            return None
        o = owners[i]
        if o and o != me:
            if through:
                continue
            return None
        if edge_lines[i]:
            return d
    return None


def _side(dists: list[int | None], tol: float) -> float | None:
    """Median distance when most samples found the same straight edge; None otherwise."""
    found = sorted(d for d in dists if d is not None)
    if len(found) < max(3, int(0.7 * len(dists))):
        return None
    k = len(found) // 4  # ignore the extreme quarter on each side (icons, rounded corners)
    core = found[k : len(found) - k] if len(found) > 4 else found
    if core[-1] - core[0] > tol:
        return None
    return float(np.median(core))


def find_frame(edges: Edges, x0: float, y0: float, x1: float, y1: float, line_h: float, me: int = 0,
               reach: float = 1.8, through: bool = False) -> tuple[Rect4, Rect4] | None:
    """The shape enclosing a text box, as (fx0, fy0, fx1, fy1) plus pads, or None when nothing encloses it.
    `me` is the block's owner id in `edges.owner` (0 when unmarked); `reach` how far up/down to look, in
    line heights; `through` steps over other text (cards holding several labels)."""
    ix0, iy0, ix1, iy1 = int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))
    w = ix1 - ix0
    maxv = int(reach * line_h) + 3
    maxh = int(min((0.9 if through else 0.8) * edges.width, (40 if through else 25) * line_h))
    tol_v = max(2.0, 0.12 * line_h)
    cols = [int(ix0 + w * f) for f in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)]
    cols = [min(max(c, 0), edges.width - 1) for c in cols]
    own = edges.owner
    top = _side([_scan(edges.v[:, c], own[:, c], me, iy0 - 1, -1, maxv, through) for c in cols], tol_v)
    bottom = _side([_scan(edges.v[:, c], own[:, c], me, iy1 - 1, 1, maxv, through) for c in cols], tol_v)
    if top is None or bottom is None:
        return None
    rows = [int(y0 + (y1 - y0) * f) for f in (0.35, 0.45, 0.55, 0.65)]
    rows = [min(max(r, 0), edges.height - 1) for r in rows]
    left_d = [_scan(edges.h[r], own[r], me, ix0 - 1, -1, maxh, through) for r in rows]
    right_d = [_scan(edges.h[r], own[r], me, ix1 - 1, 1, maxh, through) for r in rows]
    tol_h = max(4.0, 0.5 * line_h)
    left, right = _side(left_d, tol_h), _side(right_d, tol_h)
    if left is None and right is None:
        return None
    # an icon inside the shape (menu buttons, choice bars) makes one side ragged: accept it when hit at all
    left = left if left is not None else _side(left_d, float(maxh))
    right = right if right is not None else _side(right_d, float(maxh))
    if left is None or right is None:
        return None
    fy0, fy1 = iy0 - 1 - top, iy1 + bottom
    return (ix0 - 1 - left, fy0, ix1 + right, fy1), (top, bottom, left, right)


def _can_merge(a: Line, b: Line) -> bool:
    """b directly below a, as the next line of the same label or paragraph."""
    h = min(a.h, b.h)
    gap = b.y0 - a.y1
    if gap > 0.45 * h or gap < -0.6 * h:
        return False
    if gap > 0.3 * h and abs(a.cx - b.cx) > 0.1 * max(a.w, b.w):  # a title above its paragraph
        return False
    if max(a.h, b.h) > 1.7 * h:
        return False
    overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
    if overlap < 0.3 * min(a.w, b.w):
        return False
    if abs(a.x0 - b.x0) <= 0.6 * h:
        # paragraph lines share a size and sit close; a title over its subtitle stays apart
        return max(a.h, b.h) <= 1.4 * h and gap <= 0.2 * h
    return abs(a.cx - b.cx) <= 0.2 * max(a.w, b.w) + 0.5 * h  # a centred multi-line label ("Career / Profile")


def ink(rgb: np.ndarray, ln: Line) -> np.ndarray:
    """Colour of a line's glyphs: the pixels farthest from the line's background (its median colour)."""
    patch = rgb[int(ln.y0) : max(int(ln.y1), int(ln.y0) + 1), int(ln.x0) : max(int(ln.x1), int(ln.x0) + 1)]
    px = patch.reshape(-1, 3).astype(np.int16)
    if len(px) < 10:
        return np.zeros(3)
    dist = np.abs(px - np.median(px, axis=0)).sum(axis=1)
    return np.asarray(np.median(px[dist >= np.percentile(dist, 90)], axis=0))


_DECORATION = re.compile(r"^[<>\[\]«»‹›→←]+|[<>\[\]«»‹›→←]+$")  # arrows and brackets around a word, not its "!"


def _two_line_word_label(a: Line, b: Line) -> bool:
    """Two single words stacked and centred on each other, about one size ("Scenario / Details" on a ribbon):
    one label broken over two lines, whatever their colours read as (outlined text reads as its fill over
    one background and as its outline over another)."""
    # a word's decoration read as marks around it (">Transfer<") is not part of the word
    words = all(len(t.split()) == 1 and t.isalpha() and len(t) >= 4
                for t in (_DECORATION.sub("", a.text), _DECORATION.sub("", b.text)))
    return words and abs(a.cx - b.cx) <= 0.15 * max(a.w, b.w) and max(a.h, b.h) <= 1.35 * min(a.h, b.h)


def group_lines(lines: list[Line], rgb: np.ndarray | None = None) -> list[Block]:
    """Chain lines vertically into blocks (multi-line labels, paragraphs). With `rgb`, lines drawn in clearly
    different colours (a title over a greyer subtitle) are never joined."""
    order = sorted(lines, key=lambda ln: (ln.y0, ln.x0))
    chains: list[list[Line]] = []
    for ln in order:
        best = None
        for ch in chains:
            last = ch[-1]
            if _can_merge(last, ln) and (best is None or last.y1 > best[-1].y1):
                best = ch
        if (best is not None and rgb is not None and not _two_line_word_label(best[-1], ln)
                and np.abs(ink(rgb, best[-1]) - ink(rgb, ln)).max() > 36):
            best = None
        if best is not None:
            best.append(ln)
        else:
            chains.append([ln])
    return [Block(lines=ch) for ch in chains]


def _sentence(text: str, words: int) -> bool:
    """Prose rather than a label. An exclamation mark alone does not make one: game labels shout
    ("Start Career!", "Event!"); a short exclamation of three words or more is a message."""
    end = text.rstrip()
    return words >= 5 or end.endswith((".", "?", ",")) or (end.endswith("!") and words >= 3)


def _banner(frame: tuple[float, float, float, float], b: Block, view: tuple[int, int, int, int]) -> bool:
    """A wide bar that titles something rather than a button: a dialog's title bar (wide, text centred)
    or a screen's header banner (wide, near the top)."""
    vx0, vy0, vx1, vy1 = view
    wide = (frame[2] - frame[0]) / max(1, vx1 - vx0)
    return _title_bar(frame, b, vx1 - vx0) or (wide >= 0.6 and b.cy < vy0 + 0.25 * (vy1 - vy0))


def _title_bar(frame: Rect4, b: Block, width: float) -> bool:
    """Text centred on a bar spanning most of the frame: a dialog's title or message, not a row."""
    fx0, _fy0, fx1, _fy1 = frame
    return (fx1 - fx0) >= 0.75 * width and abs(b.cx - (fx0 + fx1) / 2) <= 0.1 * (fx1 - fx0)


def classify(blocks: list[Block], edges: Edges, view: tuple[int, int, int, int] | None = None) -> None:
    """Score each block on the ButtonScore scale (button or text) and find its frame; `view` is the game's viewport."""
    view = view or (0, 0, edges.width, edges.height)
    edges.mark(blocks)
    for i, b in enumerate(blocks):
        text = b.text.strip()
        words = len(text.split())
        h = b.line_h
        if _NUMERIC.match(text) or _ANNOTATION.match(text) or len(re.sub(r"[^A-Za-z]", "", text)) < 2:
            b.score = ButtonScore.PROSE
            continue
        found = find_frame(edges, b.x0, b.y0, b.x1, b.y1, h, me=i + 1)
        score = 0.0
        if found is not None:
            frame, (top, bottom, left, right) = found
            block_h = b.y1 - b.y0
            symmetric = abs(top - bottom) <= 0.45 * block_h + 2
            tight = max(top, bottom) <= 1.5 * h + 2
            if tight:
                b.frame = frame
                score = ButtonScore.PLATE if symmetric else ButtonScore.LOOSE_PLATE
            # a sentence is a choice only when it starts the bar (choice bars are left-aligned);
            # centred sentences in a box are messages and dialog bodies
            if score and _sentence(text, words) and not left < 0.6 * right:
                score = ButtonScore.DOUBT
            if score and _banner(frame, b, view):
                score = ButtonScore.DOUBT
        if score == 0.0:
            # No enclosing shape: short labels are still often tappable; prose is not.
            short = words <= 3 and len(b.lines) <= 2 and len(text) <= 24
            score = ButtonScore.SHORT_LABEL if short and not _sentence(text, words) else ButtonScore.PROSE
        if len(b.lines) >= 3 or (words >= 9 and b.frame is None) or _STAT.search(text):
            score = min(score, ButtonScore.DOUBT)
        b.score = score
    buttons = [b for b in blocks if b.is_button]
    for i, b in enumerate(blocks):
        if b.score == ButtonScore.SHORT_LABEL:  # a short label with no shape of its own
            _card_title(blocks, i, edges, buttons)


def _card_title(blocks: list[Block], i: int, edges: Edges, buttons: list[Block]) -> None:
    """A list row drawn as a card (race rows): the card is tappable when it holds no button of its own and
    no prose, only this label as its top line plus a detail or two. The label names the card."""
    b = blocks[i]
    found = find_frame(edges, b.x0, b.y0, b.x1, b.y1, b.line_h, me=i + 1, reach=5.0, through=True)
    if found is None:
        return
    (fx0, fy0, fx1, fy1), _pads = found
    if fx1 - fx0 < 0.4 * edges.width or fy1 - fy0 > 0.3 * edges.height:
        return
    inside = [o for o in blocks if fx0 <= o.cx <= fx1 and fy0 <= o.cy <= fy1]
    if len(inside) > 3 or any(o is not b and _sentence(o.text, len(o.text.split())) for o in inside):
        return
    if any(fy0 <= o.cy <= fy1 for o in buttons):
        return  # the row has its own button (Learn, Attempt): that is what gets tapped
    if min(o.y0 for o in inside) < b.y0 - 2 or any(o.line_h > 1.05 * b.line_h for o in inside if o is not b):
        return  # not the title
    b.score = ButtonScore.CARD




def _cell_label(b: Block) -> bool:
    t = split_annotation(b)[0].strip()
    return (len(b.lines) <= 2 and 1 <= len(t.split()) <= 2 and len(t) <= 18 and not any(c.isdigit() for c in t)
            and len(re.sub(r"[^A-Za-z]", "", t)) >= 2)


def _art_above(rgb: np.ndarray, b: Block) -> bool:
    """A picture right above a label (an icon or illustration it captions): much of the area over it, as wide
    as the caption or two line heights, is far from that area's own main colour."""
    h = b.line_h
    half = max(b.x1 - b.x0, 2 * h) / 2
    y0, y1 = int(max(0, b.y0 - 2.5 * h)), int(max(0, b.y0 - 0.2 * h))
    x0, x1 = int(max(0, b.cx - half)), int(min(rgb.shape[1], b.cx + half))
    if y1 - y0 < 4 or x1 - x0 < 4:
        return False
    px = rgb[y0:y1, x0:x1].reshape(-1, 3).astype(np.int16)
    far = np.abs(px - np.median(px, axis=0)).max(axis=1) > 40
    return bool(far.mean() >= 0.25)


def promote_rows(blocks: list[Block], width: int, rgb: np.ndarray | None = None) -> None:
    """Rows of equal cells: three or more short labels of one text size side by side across the frame (the
    hub's tiles, a row of stat icons with captions, each under its illustration). A label with no plate of
    its own is tappable there, with less confidence than a plate gives. Text bigger than the frame's usual
    text only: small labels in a row are column headings. A row whose labels each head a number below
    them is a stat grid, not buttons, even on plates."""
    cells = [b for b in blocks if _cell_label(b) and not b.tab]
    if not cells:
        return
    values = [b for b in blocks if _NUMERIC.match(b.text.strip())]
    body = float(np.median([b.line_h for b in blocks]))
    used: set[int] = set()
    for b in sorted(cells, key=lambda b: b.x0):
        if id(b) in used:
            continue
        # by the caption's first line, not the block (a level line under one caption), and with slack: the
        # selected cell of a row is often raised
        row = [o for o in cells
               if abs(o.lines[0].cy - b.lines[0].cy) <= 1.6 * b.line_h and 0.65 <= o.line_h / b.line_h <= 1.55]
        size = float(np.median([o.line_h for o in row]))
        # not badges; OCR boxes of one size of text differ by a third (a word without tall letters sits tight, a
        # greyed-out label's low-contrast box tighter still)
        row = sorted((o for o in row if 0.65 <= o.line_h / size <= 1.33), key=lambda o: o.cx)
        if len(row) < 3 or row[-1].cx - row[0].cx < 0.4 * width:
            continue
        gaps = np.diff([o.cx for o in row])
        if gaps.min() <= 0 or gaps.max() > 2.5 * gaps.min():
            continue  # cells of one row are evenly spaced
        used.update(id(o) for o in row)
        graded = sum(any(_value_under(o, v) for v in values) for o in row)
        if 2 * graded >= len(row):  # a stat grid: each label heads its value ("Speed" over "92"), plate or not
            for o in row:
                o.score = min(o.score, ButtonScore.DOUBT)
            continue
        if size < 1.1 * body and (rgb is None or not all(_art_above(rgb, o) for o in row)):
            continue  # body-sized labels in a row are column headings, unless each captions a picture
        for o in row:
            if not o.is_button:  # a plated cell keeps its own (higher or looser) score
                o.score = max(o.score, ButtonScore.ROW_CELL)


def promote_stacks(blocks: list[Block], width: int) -> None:
    """A list: two or more plates of one width and height stacked in a column (event choice rows, shop and
    lesson rows). A line alone on such a plate is tappable even when it reads as a sentence (a choice is a
    quoted line) or sits high like a header banner: the repeated plate makes it a row, not a message.
    Numbers, stats, paragraphs of three lines or more and text centred on a full-width bar (a dialog's
    title or message over another bar) stay text."""
    tol = 0.03 * width
    plates = [(b, b.frame) for b in blocks if b.frame is not None and b.frame[2] - b.frame[0] >= 0.4 * width]
    for b, (x0, y0, x1, y1) in plates:
        if b.is_button or b.score < ButtonScore.DOUBT or len(b.lines) >= 3 or _STAT.search(b.text):
            continue
        if _title_bar((x0, y0, x1, y1), b, width):
            continue
        for o, (ox0, oy0, ox1, oy1) in plates:
            apart = oy0 >= y1 - 2 or oy1 <= y0 + 2  # the next row, not a line on the same plate
            if (o is not b and apart and abs(ox1 - x1) <= tol and abs(ox0 - x0) <= max(tol, 0.1 * (x1 - x0))
                    and 0.85 <= (oy1 - oy0) / max(1.0, y1 - y0) <= 1.18):
                b.score = ButtonScore.LIST_ROW
                break


def _value_under(label: Block, v: Block) -> bool:
    """`v` sits right under `label`, centred on it: the label heads that value."""
    return (0 <= v.y0 - label.y1 <= 1.5 * label.line_h
            and abs(v.cx - label.cx) <= 0.6 * max(label.x1 - label.x0, v.x1 - v.x0))




def promote_pairs(blocks: list[Block]) -> None:
    """Toggle pairs and segmented choices (On / Off): a short bare label right beside a plated button of
    the same text size and about the same width is the other half of the pair (the unselected one is
    often drawn without a plate)."""
    plated = [b for b in blocks if b.is_button and b.frame is not None and _cell_label(b)]
    for b in blocks:
        if b.is_button or not _cell_label(b):
            continue
        for o in plated:
            gap = max(o.x0 - b.x1, b.x0 - o.x1)
            if (abs(o.cy - b.cy) <= 0.4 * b.line_h and 0.8 <= o.line_h / b.line_h <= 1.25 and gap <= 2.5 * b.line_h
                    and 0.4 <= (b.x1 - b.x0) / max(1.0, o.x1 - o.x0) <= 2.5):
                b.score = max(b.score, ButtonScore.TOGGLE)
                break


_ANNOTATION = re.compile(r"^(lv\.?|lvl\.?|level|rank|x)\s*[-_.]?\s*\d+$|^\d+\s*/\s*\d+$|^[+\-]\d+$", re.I)


def split_annotation(b: Block) -> tuple[str, list[str]]:
    """A caption's name and its annotation lines ("Speed" + "Lvl 3"): a level or counter under a label is
    state, not part of the name."""
    names = [ln.text for ln in b.lines if not _ANNOTATION.match(ln.text.strip())]
    notes = [ln.text.strip() for ln in b.lines if _ANNOTATION.match(ln.text.strip())]
    return (" ".join(names) if names else b.text), notes


def attach_badges(blocks: list[Block]) -> list[Block]:
    """Badges ("NEW", "10% OFF!") become meta of the nearest button they touch instead of entries of their own."""
    buttons = [b for b in blocks if b.is_button and not _BADGE.match(b.text.strip())]
    keep: list[Block] = []
    for b in blocks:
        if not _BADGE.match(b.text.strip()):
            keep.append(b)
            continue
        best, best_d = None, 1e9
        for t in buttons:
            fx0, fy0, fx1, fy1 = t.frame or (t.x0, t.y0, t.x1, t.y1)
            m = 1.2 * b.line_h
            if b.x1 < fx0 - m or b.x0 > fx1 + m or b.y1 < fy0 - m or b.y0 > fy1 + m:
                continue
            d = abs(b.cx - t.cx) + abs(b.cy - t.cy)
            if d < best_d:
                best, best_d = t, d
        if best is None:
            keep.append(b)
        else:
            best.meta.append(b.text.strip())
    return keep


_TRAILING_JUNK = re.compile(r"[\s>»▶▷►→]+$")


def clean_name(text: str) -> str:
    """A label as the model should see it: single spaces, no trailing arrow glyphs, no icon read as a capital
    before it ("QGoal": the flag before "Goal")."""
    name = _TRAILING_JUNK.sub("", ICON_INITIAL.sub("", " ".join(text.split()), count=1))
    return name or text.strip()
