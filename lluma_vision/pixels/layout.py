"""OCR lines -> blocks of text, the shapes around them, badges and names, in working-image pixels.

Game buttons are short labels drawn on a filled shape with a border (pills, bars, tabs);
dialogue and stats are text drawn on large panels or on the scene. Here lines are chained into blocks
(multi-line labels such as "Career / Profile" become one), and `find_frame` finds the border that encloses a
block closely. Whether a block is a button is not decided here: the rules (`rules/`) give evidence and
`resolve.py` decides; a block only carries the trace (`Block.trace`) its score, frame and tab flag are read from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from lluma_vision.evidence import ButtonScore as ButtonScore  # re-exported: the scale's home before evidence.py
from lluma_vision.evidence import Evidence, Frame, Step
from lluma_vision.geometry import Boxed, Rect
from lluma_vision.pixels.ocr import ICON_INITIAL, Line

# evidence: EDGE_T: 79c57df (the first OCR reading); the others: each on its own line (a bench/knobs.py sweep, or
#   docs/knob_debt.md)
Pads = tuple[float, float, float, float]  # the space between a text and its frame: (top, bottom, left, right)
EDGE_T = 24  # max per-channel step between neighbouring pixels that counts as an edge
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 1x only (0.5x +2, 1.5x -7), held out screens flat
#   1x-1.5x (0.5x +13); 0.5x best on screens2, held out +13; kept 0.15
BOX_SHRINK = 0.15  # a detector's line box overlaps the shape's border by about this share of its height each side

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# find_frame: how far to look for a shape's sides, and how straight they must be
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x-1.5x (0.5x +1), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 0.8
SIDE_REACH = 0.8  # a plate's left/right side lies within this share of the frame's width...
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x-1.5x (0.5x +2), held out screens flat 1x-1.5x (0.5x
#   -5); 0.5x best on screens2, held out -5; kept 25
SIDE_REACH_LINES = 25  # ...and this many line heights (the widest choice bars: about 20)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x-1.5x (0.5x +2), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 0.9
CARD_SIDE_REACH = 0.9  # the same for a card holding several labels (a race row spans the frame)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x-1.5x (0.5x +1), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept 40
CARD_SIDE_REACH_LINES = 40
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x only (0.5x +1, 1.5x -7), held out screens flat
#   0.5x-1x (1.5x -1); 0.5x best on screens2, held out +0; kept 0.12
EDGE_TOL_V = 0.12  # top/bottom samples agree within this share of a line height (a straight border)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 0.5x-1x (1.5x +6), held out screens flat 1x only (0.5x
#   -1, 1.5x +15); 1.5x best on screens2, held out +15; kept 0.7
SIDE_AGREE = 0.7  # at least this share of the samples must meet the side
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x only (0.5x -4, 1.5x +10), held out screens flat 1x
#   only (0.5x +18, 1.5x +8); 1.5x best on screens2, held out +8; kept (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
COLUMNS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)  # where across the text the top and bottom are looked for
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x only (0.5x +3, 1.5x +19), held out screens flat 1x
#   only (0.5x +3, 1.5x +18); 1.5x best on screens2, held out +18; kept (0.35, 0.45, 0.55, 0.65)
ROWS = (0.35, 0.45, 0.55, 0.65)  # where down the text the left and right are looked for (clear of ascenders)

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# _can_merge: the next line of one label or paragraph, in heights of the smaller line
# swept 0.5x-1.5x on 64 screens (60 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.75x-1.5x (0.5x -3); kept
#   0.45
MERGE_GAP = 0.45  # at most this gap under the line above...
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 1x-1.5x (0.5x -1), held out screens flat 0.5x-1.5x; kept
#   0.6
MERGE_OVERLAP = 0.6  # ...or this much overlap (detector boxes of tight lines overlap)
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x-1.5x (0.5x -1); kept
#   0.3
TITLE_GAP = 0.3  # a wider gap than this with the centres apart...
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.1
TITLE_SHIFT = 0.1  # ...by this share of the wider line is a title over its paragraph
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 1x-1.5x (0.5x -13), held out screens flat 1x-1.5x (0.5x
#   -6); kept 1.7
MERGE_SIZE = 1.7  # lines of sizes further apart than this never join
# tried 0.5x and 1.5x on 64 screens (60 read it): readings identical at 0.5x and 1.5x; kept 0.3
MERGE_COLUMNS = 0.3  # they share at least this share of the narrower line's width
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 1x-1.5x (0.5x -1), held out screens flat 1x only (0.5x
#   +1, 1.5x -3); kept 0.6
ALIGNED_LEFT = 0.6  # left edges within this many heights: paragraph lines
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 1x-1.5x (0.5x -12), held out screens flat 1x only (0.5x
#   -3, 1.5x -1); kept 1.4
PARAGRAPH_SIZE = 1.4  # paragraph lines share a size within this...
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 1x only (0.5x -1, 1.5x +1), held out screens flat 1x
#   only (0.5x -1, 1.5x +1); 1.5x best on screens2, held out +1; kept 0.2
PARAGRAPH_GAP = 0.2  # ...and sit this close; a title over its subtitle stays apart
# tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x only (0.5x -1, 1.5x
#   -1); kept 0.2
CENTRED_SHIFT = 0.2  # a centred multi-line label: centres within this share of the wider line (+ half a height)
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x-1.5x (0.5x -2); kept
#   36
INK_APART = 36  # glyph colours further apart than this (a channel, 0..255) are two texts (title / grey subtitle)
# tried 0.5x and 1.5x on 64 screens (53 read it): readings identical at 0.5x and 1.5x; kept 10
INK_MIN_PX = 10  # a line patch too small to tell its ink from its background
# tried 0.5x and 1.5x on 64 screens (53 read it): screens2 flat 1x only (0.5x -2), held out screens flat 1x only (0.5x
#   -16); fails at 1.5x; kept 90
INK_PERCENTILE = 90  # the glyphs are the pixels farthest from the background: this percentile and over
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.15
WORD_SHIFT = 0.15  # a word broken over two lines: centres within this share of the wider word...
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -2, 1.5x -1), held out screens flat
#   0.5x-1x (1.5x +1); kept 1.35
WORD_SIZE = 1.35  # ...and sizes within this ratio
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 4
WORD_LETTERS = 4  # each part a word of at least this many letters

# A text of this many words or more is prose, not a label: for the plate rules (a sentence centred in a box is a
# message), the cinematic classifier (story prose) and association (speech). One value (issue 38: cinematic.py had 4):
# at 4, twelve plated 4-word labels on screens and screens2 ("Junior Year Late Dec", "Front Runner Corners O") would
# fall to text; at 5, cinematic.py changes no frame (no dialogue or cutscene frame there holds a 4-word text; the
# before-snapshot of 5f90229).
PROSE_WORDS = 5
BADGE_REACH = 1.2  # a badge touches its button within this many of its own line heights


_BADGE = re.compile(r"^(new!?|free!?|\d+\s*%\s*off!?|hint\s*lv?l?\s*\d*|limited\s*time|event\s*underway!?)$", re.I)
NUMERIC = re.compile(r"^[\s\d.,:/%+\-xX×()]+\s*(pts?|m|px|k)?$", re.I)
STAT = re.compile(r"[+\-]\s*\d|\d\s*/\s*\d|\w:\s*\w|\d\s*%")  # "Energy -20", "Turn 1/24", "Mood: Normal", "Fail 0%"


@dataclass
class Block(Boxed):
    """One or more OCR lines read together; becomes a Button or a TextLine.

    `trace` is the evidence the resolver applied, in order; the score, the frame and the tab flag are read
    from it (nothing else sets them: see resolve.py)."""

    lines: list[Line]
    trace: list[Step] = field(default_factory=list)
    meta: list[str] = field(default_factory=list)
    box: Rect = field(init=False)  # around its lines, working pixels

    def __post_init__(self) -> None:
        self.box = Rect(min(ln.x0 for ln in self.lines), min(ln.y0 for ln in self.lines),
                        max(ln.x1 for ln in self.lines), max(ln.y1 for ln in self.lines))

    @property
    def score(self) -> float:
        """0..1 how sure we are it is tappable (ButtonScore): the level the last evidence left it at."""
        return self.trace[-1].after if self.trace else 0.0

    @property
    def frame(self) -> Frame | None:
        """The enclosing shape, if a rule found one (the last one found)."""
        return next((s.evidence.frame for s in reversed(self.trace) if s.evidence.frame is not None), None)

    @property
    def tab(self) -> bool:
        return any(s.evidence.tab for s in self.trace)

    @property
    def marks(self) -> list[str]:
        """The words rules marked it with ("disabled"), for its button's meta."""
        return [s.evidence.meta for s in self.trace if s.evidence.meta]

    @property
    def rules(self) -> list[str]:
        """The names of the rules that judged it, in the order they were applied."""
        return [s.rule for s in self.trace]

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



Said = Iterator[tuple[Block, Evidence]]  # what a rule says, block by block (resolve.py applies it as it is said)


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
        self.sharp: Edges | None = None  # a soft map's one-pixel twin (`soft`), sharing its owners

    @classmethod
    def soft(cls, rgb: np.ndarray) -> Edges:
        """Edges of an upscaled capture: pixels two apart, as its borders are soft over two or three pixels; with
        the one-pixel map beside it (`sharp`), as some of its borders stay crisp where the soft map's reach over
        two pixels catches the glyphs' own edges next to the text (issue 54: the events' "Quick" pill at 0.75x)."""
        e = cls(rgb, span=2)
        e.sharp = cls(rgb, span=1)
        e.sharp.owner = e.owner  # one array: marking one marks both
        return e

    def mark(self, blocks: list[Block]) -> None:
        self.owner[:] = 0
        for i, b in enumerate(blocks):
            for ln in b.lines:  # shrunk a little: detector boxes overlap the shapes' borders
                y0, y1 = int(ln.y0 + BOX_SHRINK * ln.h), int(ln.y1 - BOX_SHRINK * ln.h)
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
    if len(found) < max(3, int(SIDE_AGREE * len(dists))):
        return None
    k = len(found) // 4  # ignore the extreme quarter on each side (icons, rounded corners)
    core = found[k : len(found) - k] if len(found) > 4 else found
    if core[-1] - core[0] > tol:
        return None
    return float(np.median(core))


def find_frame(edges: Edges, x0: float, y0: float, x1: float, y1: float, line_h: float, me: int = 0,
               reach: float = 1.8, through: bool = False) -> tuple[Rect, Pads] | None:
    """The shape enclosing a text box, as (fx0, fy0, fx1, fy1) plus pads, or None when nothing encloses it.
    `me` is the block's owner id in `edges.owner` (0 when unmarked); `reach` how far up/down to look, in
    line heights; `through` steps over other text (cards holding several labels)."""
    ix0, iy0, ix1, iy1 = int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))
    w = ix1 - ix0
    maxv = int(reach * line_h) + 3
    maxh = int(min((CARD_SIDE_REACH if through else SIDE_REACH) * edges.width,
                   (CARD_SIDE_REACH_LINES if through else SIDE_REACH_LINES) * line_h))
    tol_v = max(2.0, EDGE_TOL_V * line_h)
    cols = [int(ix0 + w * f) for f in COLUMNS]
    cols = [min(max(c, 0), edges.width - 1) for c in cols]
    own = edges.owner
    top = _side([_scan(edges.v[:, c], own[:, c], me, iy0 - 1, -1, maxv, through) for c in cols], tol_v)
    bottom = _side([_scan(edges.v[:, c], own[:, c], me, iy1 - 1, 1, maxv, through) for c in cols], tol_v)
    if top is None or bottom is None:
        return None
    rows = [int(y0 + (y1 - y0) * f) for f in ROWS]
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
    return Rect(ix0 - 1 - left, fy0, ix1 + right, fy1), (top, bottom, left, right)


def _can_merge(a: Line, b: Line) -> bool:
    """b directly below a, as the next line of the same label or paragraph."""
    h = min(a.h, b.h)
    gap = b.y0 - a.y1
    if gap > MERGE_GAP * h or gap < -MERGE_OVERLAP * h:
        return False
    if gap > TITLE_GAP * h and abs(a.cx - b.cx) > TITLE_SHIFT * max(a.w, b.w):  # a title above its paragraph
        return False
    if max(a.h, b.h) > MERGE_SIZE * h:
        return False
    overlap = a.box.columns_overlap(b)
    if overlap < MERGE_COLUMNS * min(a.w, b.w):
        return False
    if abs(a.x0 - b.x0) <= ALIGNED_LEFT * h:
        # paragraph lines share a size and sit close; a title over its subtitle stays apart
        return max(a.h, b.h) <= PARAGRAPH_SIZE * h and gap <= PARAGRAPH_GAP * h
    # a centred multi-line label ("Career / Profile")
    return abs(a.cx - b.cx) <= CENTRED_SHIFT * max(a.w, b.w) + 0.5 * h


def ink(rgb: np.ndarray, ln: Line) -> np.ndarray:
    """Colour of a line's glyphs: the pixels farthest from the line's background (its median colour)."""
    patch = rgb[int(ln.y0) : max(int(ln.y1), int(ln.y0) + 1), int(ln.x0) : max(int(ln.x1), int(ln.x0) + 1)]
    px = patch.reshape(-1, 3).astype(np.int16)
    if len(px) < INK_MIN_PX:
        return np.zeros(3)
    dist = np.abs(px - np.median(px, axis=0)).sum(axis=1)
    return np.asarray(np.median(px[dist >= np.percentile(dist, INK_PERCENTILE)], axis=0))


_DECORATION = re.compile(r"^[<>\[\]«»‹›→←]+|[<>\[\]«»‹›→←]+$")  # arrows and brackets around a word, not its "!"


def _two_line_word_label(a: Line, b: Line) -> bool:
    """Two single words stacked and centred on each other, about one size ("Scenario / Details" on a ribbon):
    one label broken over two lines, whatever their colours read as (outlined text reads as its fill over
    one background and as its outline over another)."""
    # a word's decoration read as marks around it (">Transfer<") is not part of the word
    words = all(len(t.split()) == 1 and t.isalpha() and len(t) >= WORD_LETTERS
                for t in (_DECORATION.sub("", a.text), _DECORATION.sub("", b.text)))
    return words and abs(a.cx - b.cx) <= WORD_SHIFT * max(a.w, b.w) and max(a.h, b.h) <= WORD_SIZE * min(a.h, b.h)


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
                and np.abs(ink(rgb, best[-1]) - ink(rgb, ln)).max() > INK_APART):
            best = None
        if best is not None:
            best.append(ln)
        else:
            chains.append([ln])
    return [Block(lines=ch) for ch in chains]


def sentence(text: str, words: int) -> bool:
    """Prose rather than a label. An exclamation mark alone does not make one: game labels shout
    ("Start Career!", "Event!"); a short exclamation of three words or more is a message."""
    end = text.rstrip()
    return words >= PROSE_WORDS or end.endswith((".", "?", ",")) or (end.endswith("!") and words >= 3)


ANNOTATION = re.compile(r"^(lv\.?|lvl\.?|level|rank|x)\s*[-_.]?\s*\d+$|^\d+\s*/\s*\d+$|^[+\-]\d+$", re.I)


def split_annotation(b: Block) -> tuple[str, list[str]]:
    """A caption's name and its annotation lines ("Speed" + "Lvl 3"): a level or counter under a label is
    state, not part of the name."""
    names = [ln.text for ln in b.lines if not ANNOTATION.match(ln.text.strip())]
    notes = [ln.text.strip() for ln in b.lines if ANNOTATION.match(ln.text.strip())]
    return (" ".join(names) if names else b.text), notes


def attach_badges(blocks: list[Block]) -> list[Block]:
    """Badges ("NEW", "10% OFF!") become meta of the nearest button they touch instead of entries of their own."""
    buttons = [b for b in blocks if b.is_button and not _BADGE.match(b.text.strip())]
    keep: list[Block] = []
    for b in blocks:
        if not _BADGE.match(b.text.strip()):
            keep.append(b)
            continue
        best, best_d = None, math.inf
        for t in buttons:
            fx0, fy0, fx1, fy1 = t.frame or (t.x0, t.y0, t.x1, t.y1)
            m = BADGE_REACH * b.line_h
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


def letters(text: str) -> str:
    """A text's ASCII letters, casefolded: what two spellings of one caption (or a name and its misreading) share."""
    return "".join(c for c in text.casefold() if c.isascii() and c.isalpha())


_TRAILING_JUNK = re.compile(r"[\s>»▶▷►→]+$")


def clean_name(text: str) -> str:
    """A label as the model should see it: single spaces, no trailing arrow glyphs, no icon read as a capital
    before it ("QGoal": the flag before "Goal")."""
    name = _TRAILING_JUNK.sub("", ICON_INITIAL.sub("", " ".join(text.split()), count=1))
    return name or text.strip()
