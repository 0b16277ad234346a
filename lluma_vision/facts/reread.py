"""Re-reads: what OCR's detector missed or cut short, read again from the working image: one procedure, a spec per case.

The bots re-read a failure rate the same way: look in a band where the number must be, take its glyphs alone, read
them with only the characters a number is written with, and keep the read when the recogniser is sure. Here that
procedure is written once (`reread`) and each case is a `Spec` below, run by the function that knows its anchors
(`numbers_over`, `numbers_over_caps`, `badge_words`, `widened_numbers`, `gains_like_siblings`, ...):

- where to look: the spec's `looks`, each a band relative to an anchor (a caption, a cap, a gain, a number), sized
  in the anchor's heights, dropped when it holds read text (nothing was missed there); the first band that holds
  glyphs is the one read;
- which glyphs: each of the spec's `tries` cuts them out of the band its own way (`ink`: a row of glyph-sized ink,
  black on white; `band`: the band as it is; `badge`/`badge_white`: the blob of a badge's size nearest the anchor,
  as it is or its white letters made dark) and is read in turn;
- which characters: `chars`, given to the recogniser as the only ones it may read;
- what to accept: a read matching `accept` whose score (the mean or the least of its characters' scores) is at least
  the try's `sure`: each confidence is named beside the measurement it comes from.

Everything here is in working pixels (the image OCR read): an anchor that comes from the output (a value's device
box) enters through `Work.from_device`, a band found leaves through `Work.to_device`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import cv2
import numpy as np

from lluma_vision.facts.values import CAP_TAIL, NUMBER_LINE, capped, is_bare_number
from lluma_vision.geometry import Rect
from lluma_vision.models import CaptionedValue
from lluma_vision.pixels.ocr import DIGITS_RATIO, NUMBER_CHARS, Line, Work, recognise

# -- the confidences, each with its evidence -------------------------------------------------------------------------
# a digits-only read of a number's ink: kept at a mean score of 0.9 (76f2dec, the first re-read: "kept when sure";
# the values with caption it brought on screens/screens2 are held by bench/vision.py's facts figures)
SURE = 0.9
# a band read as it is (no clean row of ink: a "+0" on a photo): 0.75 (956199d: screens2 98 -> 101/113 values, no
# gain found that is not labelled at any scale); a bonus over a gain read in its own column scores 0.92-1.0 on the
# Unity Cup flames, 0.49-0.66 when the band is wider and takes in the badge's edges
BAND_SURE = 0.75
# a number widened over a glyph its box cut off keeps the new read only when every character scores 0.95 (9d2ad09:
# dhrpf's "+19" read whole at 0.75/1/1.5x, no other value or gain changed on any labelled screen)
NUMBER_SURE = 0.95
# a badge's word: every letter at least 0.4 (screens2: a badge's "Vi" reads its "i" at 0.43-0.49)
BADGE_LETTER = 0.4
# a letter read off a badge's icon scores under 0.5 while the word's own letters score over 0.8 (67dc756: "ZGOOD" ->
# "GOOD", "TGREAT" -> "GREAT"; mood 14/19 -> 19/19 on screens at 1x); a grade badge read as a digit likewise
ICON_LETTER = 0.5
WORD_LETTER = 0.8

# evidence: INK_DISTANCE, MAX_GLYPHS: 76f2dec (captioned values from single lines, held by bench/vision.py's facts
#   figures on screens and screens2); EDGE_ROW: bee3a04 (gauges on rescaled frames: screens energy 12 -> 18/19 at
#   0.75x); BADGE_MIN, BADGE_MAX_W: add3622 (badge words: screens2 values 81 -> 96/113 at 1x, screens unchanged); the
#   others: each on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# -- glyphs ----------------------------------------------------------------------------------------------------------
INK_DISTANCE = 90  # summed RGB distance from the band's commonest colour that counts as ink
# not measured: bound at import (a derived constant or a Look spec holds its value), which bench/knobs.py does not
#   re-make (docs/knob_debt.md)
COLOUR_BITS = 5  # colours are binned by their top 3 bits (>> 5) to find the plate's commonest one
BIN_BITS = 8 - COLOUR_BITS
# swept 0.5x-1.5x on 64 screens (53 read it): screens2 flat 0.5x-1x, held out screens flat 0.5x-1x; fails at 1.5x,
#   0.75x, 1.25x, -1, +1; kept 8
EIGHT_WAY = 8  # pixels touching at a corner are one glyph (OpenCV's connectivity)
MAX_GLYPHS = 4  # a number printed big is at most 4 glyphs ("1200")
EDGE_ROW = 0.6  # a crop's row at least this much ink, meeting both its sides, is a plate's edge, not glyphs
# tried 0.5x and 1.5x on 64 screens (53 read it): readings identical at 0.5x and 1.5x; kept 0.25
GLYPH_TOPS = 0.25  # the glyphs of one row start within a quarter of the tallest's height of each other
# swept 0.5x-1.5x on 64 screens (53 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.75x-1.5x (0.5x -14); kept
#   1.5
GLYPH_ASPECT = 1.5  # a glyph at most 1.5 times as wide as tall (wider: a bar, a plate's edge)
# swept 0.5x-1.5x on 64 screens (53 read it): screens2 flat 0.5x-1.25x (1.5x -2), held out screens flat 0.5x-1.5x; kept
#   4
GLYPH_PAD = 4  # the glyphs are padded by a quarter of their height (at least 2 px) on the white page
BADGE_MIN = 0.6  # a badge at least 0.6 of the number's height tall and wide...
BADGE_MAX_W = 2.5  # ...and at most 2.5 wide

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# -- bands: free of read text ----------------------------------------------------------------------------------------
# swept 0.5x-1.5x on 64 screens (45 read it): screens2 flat 0.5x-1x (1.25x -2), held out screens flat 0.5x-1.5x; kept
#   0.5
FREE_MIN_W = 0.5  # a band narrower than half a glyph height holds no glyph
# tried 0.5x and 1.5x on 64 screens (53 read it): readings identical at 0.5x and 1.5x; kept 0.1
FREE_SIDE = 0.1  # a read line overlapping a band's side by less than a tenth of a height does not fill it
# tried 0.5x and 1.5x on 64 screens (3 read it): readings identical at 0.5x and 1.5x; kept 4
MIN_BAND = 4  # px: a band smaller than this either way holds nothing readable

Glyphs = Literal["ink", "band", "badge", "badge_white"]
Band = Callable[[Rect, float, list[Line], Work], "Rect | None"]


@dataclass(frozen=True)
class Look:
    """Where to look, relative to the anchor: `band(anchor, h, lines, work)` (h: the anchor's height) gives the band,
    or None when it holds read text; `glyph` is the least glyph height there, in anchor heights."""

    name: str
    band: Band
    glyph: float = 0.0


@dataclass(frozen=True)
class Try:
    """One way to cut the band's glyphs, and the least score its read must have."""

    glyphs: Glyphs
    sure: float


@dataclass(frozen=True)
class Spec:
    name: str
    looks: tuple[Look, ...]
    tries: tuple[Try, ...]
    chars: str  # the only characters the recogniser may read
    accept: re.Pattern[str]
    score: Literal["mean", "least"] = "mean"  # of the characters' scores
    ratio: float = DIGITS_RATIO  # the recogniser's least width/height (its time goes with the width)
    extends: bool = False  # the read must be the anchor's own text with characters added on the right
    why: str = ""


@dataclass(frozen=True)
class Found:
    text: str
    score: float  # the spec's score of the read (mean or least)
    band: Rect  # the band read (working pixels)
    glyphs: Rect  # the part of it that was read (the badge's blob; else the band)
    scores: tuple[float, ...] = ()  # each character's


def ink_mask(rgb: np.ndarray) -> np.ndarray:
    """1 where a pixel is far from the crop's commonest colour (its plate), else 0."""
    a = rgb.astype(np.int32)
    q = (a >> COLOUR_BITS).reshape(-1, 3)
    code = (q[:, 0] << 2 * BIN_BITS) + (q[:, 1] << BIN_BITS) + q[:, 2]
    keys, counts = np.unique(code, return_counts=True)
    bg = a.reshape(-1, 3)[code == keys[counts.argmax()]].mean(0)
    mask: np.ndarray = (np.abs(a - bg).sum(2) > INK_DISTANCE).astype(np.uint8)
    return mask


def ink_crop(rgb: np.ndarray, min_h: float) -> np.ndarray | None:
    """Black-on-white glyphs of a crop: pixels far from its commonest colour, in components at least `min_h` tall
    that keep clear of the crop's sides and top (a plate's border, the line over it); None when they do not look
    like one row of a few glyphs."""
    mask = ink_mask(rgb)
    hh, ww = mask.shape
    # a plate's edge along the top (a calendar's ring binding) can touch the glyphs on a resampled frame, joining
    # them into one component that meets the sides: rows in the upper half mostly ink from side to side (a glyph's
    # flat top, a "7" or a "T", keeps clear of the sides), and the row under, go
    top = mask[: hh // 2]
    rows = np.nonzero((top.mean(1) >= EDGE_ROW) & (top[:, 0] > 0) & (top[:, -1] > 0))[0]
    if rows.size:
        mask[: int(rows[-1]) + 2] = 0
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=EIGHT_WAY)
    keep = [i for i in range(1, n)
            if stats[i, 0] > 0 and stats[i, 1] > 0 and stats[i, 0] + stats[i, 2] < ww and stats[i, 3] >= min_h]
    if not 1 <= len(keep) <= MAX_GLYPHS:
        return None
    tops = [int(stats[i, 1]) for i in keep]
    heights = [int(stats[i, 3]) for i in keep]
    if max(tops) - min(tops) > GLYPH_TOPS * max(heights) or any(stats[i, 2] > GLYPH_ASPECT * stats[i, 3] for i in keep):
        return None
    glyphs = np.isin(lab, keep)
    ys, xs = np.nonzero(glyphs)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    pad = max(2, int(y1 - y0) // GLYPH_PAD)
    page = np.where(glyphs[y0:y1, x0:x1], 0, 255).astype(np.uint8)
    page = np.pad(page, pad, constant_values=255)
    return np.ascontiguousarray(np.stack([page] * 3, axis=-1))


def _badge_blob(rgb: np.ndarray, h: float) -> Rect | None:
    """The box of the ink blob of a badge's size nearest the band's right end (the number), or None."""
    mask = ink_mask(rgb)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=EIGHT_WAY)
    fits = [i for i in range(1, n)
            if stats[i, 3] >= BADGE_MIN * h and BADGE_MIN * h <= stats[i, 2] <= BADGE_MAX_W * h]
    if not fits:
        return None
    i = max(fits, key=lambda k: stats[k, 0] + stats[k, 2])
    x, y, w, hh = (int(v) for v in stats[i, :4])
    return Rect(x, y, x + w, y + hh)


def _white_on_colour(rgb: np.ndarray) -> np.ndarray:
    # white letters on a coloured badge: its darkest channel puts them dark on light, however pale the badge
    # (a yellow "Vi" the recogniser cannot read in colour)
    page = 255 - rgb.min(axis=2)
    return np.ascontiguousarray(np.stack([page] * 3, axis=-1).astype(np.uint8))


def free(band: Rect, lines: Iterable[Line], h: float) -> bool:
    """The band holds no read text (nothing was missed there) and is wide enough for a glyph."""
    return band.width >= FREE_MIN_W * h and not any(
        ln.x0 < band.x1 - FREE_SIDE * h and ln.x1 > band.x0 + FREE_SIDE * h and ln.y0 < band.y1 and ln.y1 > band.y0
        for ln in lines)


# evidence: SIDE_PAD: 04334e0 (captioned values round 1: chosen on screens2 66 -> 79/113 values, held out on screens 22
#   -> 24/26); SIDE_GLYPH: 2e4dc23 (side band for two-line captions only: screens 24/26, screens2 79/113, re-read crops
#   69 -> 43); RIGHT_PAD, RIGHT_GLYPH, SHORT_CAPTION: 7d24b09 (abbreviation re-read: chosen on screens2 79 -> 80/113,
#   verified on screens 24/26); the others: each on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# -- where to look ---------------------------------------------------------------------------------------------------
# A caption left without a value may still have one printed big over it, or just left of it on its row, in a colour
# the detector does not see against its plate (a calendar's day count over or before "turn(s) left"); an
# abbreviation ("Da" on a badge) may have its number printed bigger at the other end of its cell, right of it.
# swept 0.5x-1.5x on 64 screens (53 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.75x-1.5x (0.5x -32); kept
#   2.5
OVER_REACH = 2.5  # how far over the caption to look, in caption heights
# not measured: bound at import (a derived constant or a Look spec holds its value), which bench/knobs.py does not
#   re-make (docs/knob_debt.md)
OVER_GLYPH = 1.0  # a glyph at least this many caption heights tall: a number printed big
# tried 0.5x and 1.5x on 64 screens (53 read it): readings identical at 0.5x and 1.5x; kept 0.2
OVER_SLACK = 0.2  # a read line ending within a fifth of a height under the caption's top is over it
# swept 0.5x-1.5x on 64 screens (41 read it): screens2 flat 1x-1.5x (0.75x -6), held out screens flat 0.5x-1.5x; kept
#   1.5
SIDE_REACH = 1.5  # how far left of the caption to look
SIDE_PAD = 0.25  # ...and how far over and under its row
SIDE_GLYPH = 0.9
# tried 0.5x and 1.5x on 64 screens (22 read it): readings identical at 0.5x and 1.5x; kept 0.2
RIGHT_GAP = 0.2  # right of the caption, from this far past it
# swept 0.5x-1.5x on 64 screens (22 read it): screens2 flat 1x-1.25x (0.75x -2, 1.5x -2), held out screens flat
#   0.5x-1.5x; kept 4.5
RIGHT_REACH = 4.5  # ...to this far
RIGHT_PAD = 0.7
RIGHT_GLYPH = 1.2  # a glyph there at least this many caption heights tall: a number printed bigger
SHORT_CAPTION = 3  # characters: an abbreviation


def _over_caption(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    """Over the caption, up to the nearest read line at least a glyph above it; None when a line is in the way."""
    over = [ln for ln in lines if ln.x0 < a.x1 and ln.x1 > a.x0 and ln.y1 <= a.y0 + OVER_SLACK * h
            and ln.y0 < a.y0 - OVER_SLACK * h]
    top = max([a.y0 - OVER_REACH * h, *(ln.y1 for ln in over if ln.y1 <= a.y0 - OVER_GLYPH * h)])
    if top < 0 or any(ln.y1 > top + FREE_SIDE * h for ln in over):
        return None
    return Rect(a.x0, top, a.x1, a.y0)


def _left_of_caption(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    pad = SIDE_PAD * h
    band = Rect(max(0.0, a.x0 - SIDE_REACH * h), max(0.0, a.y0 - pad), a.x0, a.y1 + pad)
    return band if free(band, lines, h) else None


def _right_of_caption(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    pad = RIGHT_PAD * h
    band = Rect(a.x1 + RIGHT_GAP * h, max(0.0, a.y0 - pad), a.x1 + RIGHT_REACH * h, a.y1 + pad)
    return band if free(band, lines, h) else None


OVER = Look("over", _over_caption, OVER_GLYPH)
LEFT = Look("left", _left_of_caption, SIDE_GLYPH)
RIGHT = Look("right", _right_of_caption, RIGHT_GLYPH)

# evidence: CAP_PAD, CAP_GLYPH: c950175 (a cap read alone: screens2 values 105 -> 106/113 at 1x); the others: each on
#   its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A cap read alone ("/200" with no number over it): its number is printed right over it, bigger, and the detector
# missed it (a lone "7" beside a badge): the band over the cap, CAP_PAD past its sides (the number is centred or
# right-aligned over it), up to CAP_REACH of its heights and CAP_DIP into it, with glyphs at least CAP_GLYPH tall.
# swept 0.5x-1.5x on 64 screens (2 read it): screens2 flat 1x only (0.75x -2, 1.25x -2), held out screens flat
#   0.5x-1.5x; kept 1.3
CAP_REACH = 1.3
CAP_PAD = 0.3
# tried 0.5x and 1.5x on 64 screens (2 read it): readings identical at 0.5x and 1.5x; kept 0.1
CAP_DIP = 0.1
CAP_GLYPH = 0.8


def _over_cap(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    band = Rect(max(0.0, a.x0 - CAP_PAD * h), max(0.0, a.y0 - CAP_REACH * h), min(float(work.w), a.x1 + CAP_PAD * h),
                a.y0 + CAP_DIP * h)
    return band if free(band, lines, h) else None


# evidence: BADGE_PAD: add3622 (badge words: screens2 values 81 -> 96/113 at 1x, screens unchanged); the others: each on
#   its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A bare number with a badge just left of it (a coloured hexagon holding "Pa"): the badge's word is its caption. The
# detector does not see a word that small on a plate of its own colour; the band left of the number, BADGE_REACH of
# its heights long and BADGE_PAD over and under its row, stopping BADGE_GAP short of it, holds the badge.
# swept 0.5x-1.5x on 64 screens (27 read it): screens2 flat 1x only (0.75x -6, 1.25x -14), held out screens flat
#   0.5x-1.5x; kept 2.2
BADGE_REACH = 2.2
BADGE_PAD = 0.3
# swept 0.5x-1.5x on 64 screens (27 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.05
BADGE_GAP = 0.05


def _left_of_number(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    band = Rect(max(0.0, a.x0 - BADGE_REACH * h), max(0.0, a.y0 - BADGE_PAD * h), a.x0 - BADGE_GAP * h,
                min(float(work.h), a.y1 + BADGE_PAD * h))
    return band if free(band, lines, h) else None


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A row of values where some have a gain printed at one place relative to their value: each other value has its gain,
# if any, at that same place. The anchor is where the gain should be (the siblings' median offset, their widest and
# tallest gain); the band is SIBLING_W of that width each side of its centre, from SIBLING_OVER over its top to
# SIBLING_UNDER under it. Only its middle (SIBLING_INNER in from top and bottom) must be free: a gain may overlap
# its caption.
# swept 0.5x-1.5x on 64 screens (3 read it): screens2 flat 1x only (0.75x -4, 1.25x -4), held out screens flat
#   0.5x-1.5x; kept 0.7
SIBLING_W = 0.7
# swept 0.5x-1.5x on 64 screens (3 read it): screens2 flat 0.75x-1.5x (0.5x -2), held out screens flat 0.5x-1.5x; kept
#   0.15
SIBLING_OVER = 0.15
# swept 0.5x-1.5x on 64 screens (3 read it): screens2 flat 1x only (0.75x -2, 1.25x -4), held out screens flat
#   0.5x-1.5x; kept 1.15
SIBLING_UNDER = 1.15
# swept 0.5x-1.5x on 64 screens (3 read it): screens2 flat 1x-1.5x (0.75x -2), held out screens flat 0.5x-1.5x; kept 0.4
SIBLING_INNER = 0.4
# not measured: bound at import (a derived constant or a Look spec holds its value), which bench/knobs.py does not
#   re-make (docs/knob_debt.md)
SIBLING_GLYPH = 0.5


def _at_siblings_gain(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    cx, half = a.cx, SIBLING_W * a.width
    band = Rect(max(0.0, cx - half), max(0.0, a.y0 - SIBLING_OVER * h), min(float(work.w), cx + half),
                min(float(work.h), a.y0 + SIBLING_UNDER * h))
    inner = Rect(band.x0, band.y0 + SIBLING_INNER * h, band.x1, band.y1 - SIBLING_INNER * h)
    if band.width < MIN_BAND or band.height < MIN_BAND or not free(inner, lines, h):
        return None
    return band


# evidence: STACK_GAP: 858cf3a (Unity Cup bonus badges: screens2 values 101 -> 104/113 at 1x); the others: each on its
#   own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A second signed number printed right over a gain, in its column (a scenario's bonus on a coloured badge over the
# training's "+26"): the band over the gain, of its own width (wider, it takes in the badge's edges and the recogniser
# grows unsure: BAND_SURE), from STACK_REACH of its heights over it to STACK_GAP over it.
# swept 0.5x-1.5x on 64 screens (3 read it): screens2 flat 0.75x-1.25x (0.5x -2, 1.5x -2), held out screens flat
#   0.5x-1.5x; kept 1.3
STACK_REACH = 1.3
STACK_GAP = 0.1


def _over_gain(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    band = Rect(a.x0, max(0.0, a.y0 - STACK_REACH * h), min(float(work.w), a.x1), a.y0 - STACK_GAP * h)
    return band if band.height >= FREE_MIN_W * h and free(band, lines, h) else None


# evidence: WIDEN: 9d2ad09 (dhrpf's +19 read whole at 0.75/1/1.5x, no other value changed on the labelled screens); the
#   others: each on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A number's detected box can stop short of its last glyph (a "9" cut off "+19" by a badge that crowds it): when a
# blob of ink at least PAST_GLYPH of its height starts within PAST_START of a height past its right end, where no
# read line sits (the strip PAST_INNER in from its top and bottom), the box widened by WIDEN heights is read again.
WIDEN = 0.6
# tried 0.5x and 1.5x on 64 screens (29 read it): readings identical at 0.5x and 1.5x; kept 0.5
PAST_GLYPH = 0.5
# tried 0.5x and 1.5x on 64 screens (29 read it): readings identical at 0.5x and 1.5x; kept 3
PAST_START = 3  # (a third)
# swept 0.5x-1.5x on 64 screens (29 read it): screens2 flat 0.75x-1.5x (0.5x -2), held out screens flat 0.5x-1.5x; kept
#   0.25
PAST_INNER = 0.25


def _widened(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    x1 = min(work.w, a.x1 + WIDEN * h)
    if not free(Rect(a.x1, a.y0 + PAST_INNER * h, x1, a.y1 - PAST_INNER * h), lines, h):
        return None  # that ink was read (a "7" printed after "12")
    strip = Rect(a.x1, a.y0, x1, a.y1).crop(work.rgb)
    if strip.size == 0:
        return None
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink_mask(strip), connectivity=EIGHT_WAY)
    if not any(st[3] >= PAST_GLYPH * h and st[0] <= h / PAST_START for st in stats[1:]):
        return None
    return Rect(a.x0, a.y0, x1, a.y1)


def _itself(a: Rect, h: float, lines: list[Line], work: Work) -> Rect | None:
    return a


# -- the table -------------------------------------------------------------------------------------------------------
DIGITS = re.compile(r"^\d{1,4}$")
SIGNED = re.compile(r"^[+\-]\d{1,4}%?$")
BADGE_WORD = re.compile(rf"^[A-Za-z]{{2,{SHORT_CAPTION}}}$")
ANY = re.compile(r"^.+$")
INK = (Try("ink", SURE),)

CAPTION_NUMBER = Spec("caption_number", (OVER,), INK, NUMBER_CHARS, DIGITS,
                      why="a number printed big over a caption, in a colour the detector misses")
STACKED_CAPTION_NUMBER = Spec("stacked_caption_number", (OVER, LEFT), INK, NUMBER_CHARS, DIGITS,
                              why="a two-line caption's number: over it, or big just left of it (a calendar)")
ABBREVIATION_NUMBER = Spec("abbreviation_number", (OVER, RIGHT), INK, NUMBER_CHARS, DIGITS,
                           why="an abbreviation's number: over it, or bigger at the other end of its cell")
CAP_NUMBER = Spec("cap_number", (Look("over_cap", _over_cap, CAP_GLYPH),), INK, NUMBER_CHARS, DIGITS,
                  why="a cap ('/200') read without its number: the number is over it")
BADGE_CAPTION = Spec("badge_caption", (Look("badge", _left_of_number),),
                     (Try("badge_white", BADGE_LETTER), Try("badge", BADGE_LETTER)), string.ascii_letters, BADGE_WORD,
                     score="least", ratio=1.0, why="a number's caption on a coloured badge just left of it")
SIBLING_GAIN = Spec("sibling_gain", (Look("siblings", _at_siblings_gain, SIBLING_GLYPH),),
                    (Try("ink", SURE), Try("band", BAND_SURE)), NUMBER_CHARS, SIGNED,
                    why="a gain where the row's other values have theirs")
STACKED_GAIN = Spec("stacked_gain", (Look("over_gain", _over_gain),), (Try("band", BAND_SURE),), NUMBER_CHARS,
                    SIGNED, why="a bonus printed on a badge right over a gain")
WIDENED_NUMBER = Spec("widened_number", (Look("widened", _widened),), (Try("band", NUMBER_SURE),),
                      NUMBER_CHARS + "-", NUMBER_LINE, score="least", extends=True,
                      why="a number whose detected box cut off its last glyph")
# (VNUM's checks) a value the game could not show, read again from its own line's box: every character sure
LINE_DIGITS = Spec("line_digits", (Look("line", _itself),), (Try("band", SURE),), NUMBER_CHARS, ANY, score="least",
                   why="a value that broke the game's grammar, read again digits-only")

CAPTION_SPECS = {(False, False): CAPTION_NUMBER, (True, False): STACKED_CAPTION_NUMBER,
                 (False, True): ABBREVIATION_NUMBER, (True, True): replace(CAPTION_NUMBER, looks=(OVER, LEFT, RIGHT))}


# -- the runner ------------------------------------------------------------------------------------------------------
def _cut(how: Glyphs, rgb: np.ndarray, min_h: float, h: float) -> tuple[np.ndarray, Rect] | None:
    """The glyphs of a band's pixels `how` says, and where in the band they are."""
    whole = Rect(0, 0, rgb.shape[1], rgb.shape[0])
    if how == "band":
        return rgb, whole
    if how == "ink":
        ink = ink_crop(rgb, min_h)
        return (ink, whole) if ink is not None else None
    blob = _badge_blob(rgb, h)
    if blob is None:
        return None
    crop = blob.crop(rgb)
    return (_white_on_colour(crop) if how == "badge_white" else crop), blob


def read(spec: Spec, crop: np.ndarray) -> tuple[str, float, tuple[float, ...]]:
    """A crop read with the spec's characters only: the text, its score (mean or least of its characters') and
    each character's."""
    chars = recognise([crop], spec.chars, spec.ratio)[0]
    scores = tuple(p for _, p in chars)
    if not scores:
        return "", 0.0, ()
    return "".join(c for c, _ in chars), float(np.mean(scores)) if spec.score == "mean" else min(scores), scores


def reread(work: Work, spec: Spec, anchor: Rect, lines: list[Line], text: str = "") -> Found | None:
    """What `spec` finds about `anchor` (working pixels): the first of its bands that holds no read text and does
    hold glyphs, read by each of its tries in turn until one is accepted; None when none is. `text`: the anchor's
    own text (for a spec that `extends` it)."""
    h = anchor.height
    for look in spec.looks:
        band = look.band(anchor, h, lines, work)
        if band is None:
            continue
        rgb = band.crop(work.rgb)
        if rgb.size == 0:
            continue
        cuts = [(t, _cut(t.glyphs, rgb, look.glyph * h, h)) for t in spec.tries]
        if all(c is None for _, c in cuts):
            continue  # no glyphs here: the next band
        for t, cut in cuts:
            if cut is None:
                continue
            got, score, scores = read(spec, cut[0])
            if spec.accept.match(got) and score >= t.sure and (
                    not spec.extends or (len(got) > len(text) and got.startswith(text))):
                return Found(got, score, band, cut[1].shift(band.x0, band.y0), scores)
        return None
    return None


# -- the re-reads the reading runs -------------------------------------------------------------------------------------
def numbers_over(work: Work, captions: Sequence[Rect], lines: list[Line],
                 beside: bool = True, right: list[bool] | None = None) -> list[tuple[str, Rect] | None]:
    """For each caption box (working pixels), the number printed big over it (or, with `beside`, just left of it;
    with its `right` flag, right of it) that OCR did not read and the band it was read in, or None."""
    out: list[tuple[str, Rect] | None] = []
    for k, box in enumerate(captions):
        spec = CAPTION_SPECS[beside, bool(right and right[k])]
        found = reread(work, spec, box, lines)
        out.append((found.text, found.band) if found else None)
    return out


def numbers_over_caps(work: Work, lines: list[Line]) -> list[Line]:
    """A number line for each cap read without one just over it, where the detector missed it (working pixels)."""
    numbers = [ln for ln in lines if is_bare_number(ln.text)]
    out: list[Line] = []
    for cap in (ln for ln in lines if CAP_TAIL.match(ln.text.strip())):
        if any(capped(n, cap) for n in numbers):
            continue  # read with its number (over it, or before it on its row)
        found = reread(work, CAP_NUMBER, Rect.of(cap), [ln for ln in lines if ln is not cap])
        if found is not None:
            b = found.band
            out.append(Line(text=found.text, conf=found.score, box=Rect(b.x0, b.y0, b.x1, b.y1)))
    return out


def badge_words(work: Work, numbers: list[Line], lines: list[Line]) -> list[Line]:
    """For each bare number with a badge just left of it and no read text there, the badge's word (2 to
    SHORT_CAPTION letters, each recognised surely) as a line of its own, in working pixels."""
    out: list[Line] = []
    for ln in numbers:
        found = reread(work, BADGE_CAPTION, Rect.of(ln), lines)
        if found is not None:
            g = found.glyphs
            out.append(Line(text=found.text, conf=found.score, box=Rect(g.x0, g.y0, g.x1, g.y1)))
    return out


def widened_numbers(work: Work, lines: list[Line]) -> list[Line]:
    """`lines` with each number whose box cut off a glyph read again over that glyph."""
    out = list(lines)
    for k, ln in enumerate(lines):
        if not NUMBER_LINE.match(ln.text):
            continue
        found = reread(work, WIDENED_NUMBER, Rect.of(ln), lines, ln.text)
        if found is not None:
            out[k] = replace(ln, text=found.text, box=ln.box._replace(x1=found.band.x1), scores=found.scores)
    return out


def _same_row(a: CaptionedValue, b: CaptionedValue) -> bool:
    return abs(a.bounds.y0 - b.bounds.y0) < SAME_ROW * min(a.bounds.height, b.bounds.height)


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# tried 0.5x and 1.5x on 64 screens (3 read it): readings identical at 0.5x and 1.5x; kept 0.5
SAME_ROW = 0.5  # two values' tops within half the lower one's height: one row


def gains_like_siblings(work: Work, values: list[CaptionedValue], lines: list[Line]) -> list[CaptionedValue]:
    """The gains found where a row's other values have theirs (device pixels in and out; `lines` in working)."""
    plain = [v for v in values if v.kind == "value"]
    gains = [v for v in values if v.kind == "gain"]
    with_gain = {g.caption for g in gains}
    found: list[CaptionedValue] = []
    for v in plain:
        pairs = [(g, o) for g in gains for o in plain if o is not v and o.caption == g.caption and _same_row(o, v)]
        if v.caption in with_gain or not pairs:
            continue
        mid = len(pairs) // 2
        dy = sorted(g.bounds.y0 - o.bounds.y0 for g, o in pairs)[mid]
        dx = sorted(g.bounds.center[0] - o.bounds.center[0] for g, o in pairs)[mid]
        gh = max(g.bounds.height for g, _ in pairs)
        gw = max(g.bounds.width for g, _ in pairs)
        cx, top = v.bounds.center[0] + dx, v.bounds.y0 + dy
        got = reread(work, SIBLING_GAIN, work.from_device(Rect(cx - gw / 2, top, cx + gw / 2, top + gh)), lines)
        if got is not None:
            found.append(CaptionedValue(caption=v.caption, value=got.text, kind="gain",
                                        bounds=work.to_device(got.band)))
    return found


def stacked_gains(work: Work, gains: list[CaptionedValue], lines: list[Line]) -> list[CaptionedValue]:
    """The gains printed right over `gains` that OCR did not read (device pixels in and out)."""
    found: list[CaptionedValue] = []
    for g in gains:
        got = reread(work, STACKED_GAIN, work.from_device(g.bounds), lines)
        if got is not None:
            found.append(CaptionedValue(caption=g.caption, value=got.text, kind="gain",
                                        bounds=work.to_device(got.band)))
    return found


def read_line_again(work: Work, line: Line) -> Found | None:
    """(For the checks) a number's own line read again, number characters only, every one at least SURE."""
    return reread(work, LINE_DIGITS, Rect.of(line), [])


# -- a badge's icon read as a letter ---------------------------------------------------------------------------------
def _icon_end(word: str, read: list[tuple[str, float]]) -> str | None:
    """`word` without an end letter scored under ICON_LETTER while every other scored at least WORD_LETTER, or
    None."""
    if "".join(c for c, _ in read) != word:
        return None
    for cut in (slice(1, None), slice(None, -1)):
        end = read[0] if cut.start else read[-1]
        if end[1] < ICON_LETTER and all(p >= WORD_LETTER for _, p in read[cut]):
            return word[cut]
    return None


def _letters(read: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(c, p) for c, p in read if c.isascii() and c.isalpha()]


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# swept 0.5x-1.5x on 64 screens (27 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 4
MIN_ICON_WORD = 4  # a word shorter than this keeps its letters (a letter less would leave no word)


def without_icon_letter(work: Work, word: str, line: Line) -> str:
    """The badge word without a letter at either end that the recogniser read off the badge's icon (an arrow read
    as "Z" before "GOOD"): that letter scored under ICON_LETTER while every other scored at least WORD_LETTER, in
    the OCR pass or when its line is recognised again alone."""
    crop = Rect.of(line).crop(work.rgb)
    if crop.size == 0 or len(word) < MIN_ICON_WORD:
        return word
    if len(line.scores) == len(line.text) and (cut := _icon_end(word, _letters(zip(line.text, line.scores,
                                                                                    strict=True)))):
        return cut
    read = _letters(recognise([crop])[0])
    again = "".join(c for c, _ in read)
    if again in (word[1:], word[:-1]):  # read again, the end letter was no letter at all (the icon's glyph)
        return again
    return _icon_end(word, read) or word


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A stat's grade badge beside its number can be read as a digit set apart by a space ("5 117": an "F" badge): an end
# letter or digit scored under ICON_LETTER, set apart by a space, on a line whose other non-space characters all score
# at least WORD_LETTER and that is a number without it, is that icon and goes.
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 3
MIN_GRADED = 3  # a glyph, a space and a digit


def numbers_without_icons(lines: list[Line]) -> list[Line]:
    """`lines` with an icon read as an end glyph of a number cut off (text and box)."""
    out: list[Line] = []
    for ln in lines:
        t, p = ln.text, ln.scores
        if len(t) < MIN_GRADED or len(p) != len(t):
            out.append(ln)
            continue
        for keep, gone in ((slice(2, None), 0), (slice(None, -2), -1)):
            sep = 1 if gone == 0 else -2
            sure = all(q >= WORD_LETTER for c, q in zip(t[keep], p[keep], strict=True) if c != " ")
            # a sign or a percent is the number's own, however doubted
            if t[sep] == " " and t[gone].isalnum() and p[gone] < ICON_LETTER and NUMBER_LINE.match(t[keep]) and sure:
                cut = 2 / len(t) * ln.w  # the glyph and its space, by their share of the characters
                box = ln.box._replace(x0=ln.x0 + cut) if gone == 0 else ln.box._replace(x1=ln.x1 - cut)
                ln = replace(ln, text=t[keep], scores=p[keep], box=box)
                break
        out.append(ln)
    return out
