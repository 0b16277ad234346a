"""Icon-only buttons named by the shape of their glyph: Menu, Plus, Minus, Close, Info, Back, Previous, Next.

Candidates are small closed shapes of icon size (relative to the frame's short side, so a 420- and a
1440-wide capture read the same) found as contours of the edge map. A candidate is either a plate (a
disc or rounded square of one colour) carrying a glyph, or a bare glyph (arrows drawn over scenery).
The glyph's mask, centred in a square with its aspect kept, is compared with masks of the
conventional glyphs drawn at the same size (intersection over union); the best match names the icon
when it is clear of the others. Text found by OCR is never an icon (its own shapes are letters).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw

from lluma_vision.geometry import HasBox, Rect

# evidence: ee1902b (shape and layout rules at 0.4x-1.5x on screens and screens2 (bench/vision.py))
N = 24  # glyph masks are compared at N x N

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# the conventional glyphs, in shares of the template's side (drawn at 4x and reduced)
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1x (1.25x -1); kept 0.2
STROKE = 0.2  # a plus's, minus's, cross's and back arrow's stroke
# tried 0.5x and 1.5x on 64 screens (1 read it): readings identical at 0.5x and 1.5x; kept 0.3
INFO_DOT = 0.3  # an "i": its dot's diameter and stem's width...
# tried 0.5x and 1.5x on 64 screens (1 read it): readings identical at 0.5x and 1.5x; kept 0.36
INFO_STEM = 0.36  # ...the stem starting this far down
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.16
MENU_BAR = 0.16  # a hamburger's bar thickness; its stack runs from MENU_ROWS[0] to [1] down (0.7 as tall as wide)
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept (0.15, 0.85)
MENU_ROWS = (0.15, 0.85)
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept (0.25, 0.75)
CHEVRON = (0.25, 0.75)  # a chevron from x 0.25 at the top and bottom to 0.75 at mid-height...
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.22
CHEVRON_STROKE = 0.22  # ...this thick
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.1
ARROW_TIP = 0.1  # a back arrow's tip; its head's arms end at 0.5 across, 0.1 and 0.9 down
# swept 0.5x-1.5x on 64 screens (1 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x-1.5x (0.75x -1); kept 0.9
ARROW_ARM = 0.9
# tried 0.5x and 1.5x on 64 screens (1 read it): readings identical at 0.5x and 1.5x; kept 127
MASK_CUT = 127  # grey level from which a reduced template pixel is ink
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 0.75x-+1 (0.5x -11, 1.25x -3), held out screens flat
#   -1-1.25x (0.75x +2, 1.5x +3); 1.5x best on screens2, held out +3; kept 100
NORMALISED_CUT = 100  # the same for a candidate's mask resized to N x N (area resampling softens thin strokes)

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# three_bars: a hamburger in any proportions
# swept 0.5x-1.5x on 64 screens (47 read it): screens2 flat 0.75x-1x (0.5x -3, 1.25x -3), held out screens flat
#   0.75x-1.25x (0.5x -1, 1.5x +3); kept 0.6
BAR_ROW = 0.6  # a bar's rows are filled across at least this share of the glyph's width
# swept 0.5x-1.5x on 64 screens (47 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.5
RIM_ROW = 0.5  # rows thinner than this share of the thickest bar are a plate's rim, not a bar

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# a glyph on a plate of one colour
# swept 0.5x-1.5x on 64 screens (52 read it): screens2 flat 1x-1.25x (0.75x -3, 1.5x +2), held out screens flat 0.5x-1x
#   (1.25x +1); 0.5x best on screens2, held out +0; kept 0.08
RIM = 0.08  # the plate's rim (this share of its short side) is left out
# tried 0.5x and 1.5x on 64 screens (52 read it): readings identical at 0.5x and 1.5x; kept 16
MIN_INNER = 16  # an inside of fewer pixels holds no glyph to read
# swept 0.5x-1.5x on 64 screens (52 read it): screens2 flat 1x only (-1 -3, +1 +1), held out screens flat -1-1.25x
#   (0.75x -4, 1.5x +3); 1.5x best on screens2, held out +3; kept 60
INK_FAR = 60  # glyph pixels are this far (a channel) from the plate's colour...
# swept 0.5x-1.5x on 64 screens (52 read it): screens2 flat -1-1x (0.75x +3, +1 -1), held out screens flat 0.5x-1.5x;
#   0.5x best on screens2, held out +0; kept 30
MIXED = 30  # ...while pixels between MIXED and INK_FAR away on over MIXED_SHARE of the plate make it a picture
# swept 0.5x-1.5x on 64 screens (52 read it): screens2 flat 1x only (0.75x +4, 1.25x -1), held out screens flat
#   0.5x-1.5x; 0.5x best on screens2, held out +0; kept 0.35
MIXED_SHARE = 0.35
# tried 0.5x and 1.5x on 64 screens (52 read it): screens2 flat 0.5x-1x (1.5x -1), held out screens flat 0.5x-1.5x; kept
#   0.01
SPECK = 0.01  # glyph parts under this share of the inside are specks
# swept 0.5x-1.5x on 64 screens (52 read it): screens2 flat 1x-1.25x (0.75x +2, 1.5x -2), held out screens flat 0.75x-1x
#   (0.5x +1, 1.25x -2); 0.75x best on screens2, held out +0; kept 0.25
ON_RIM = 0.25  # a part with over this share of its pixels on the inner rim is an outline or a bevel
# tried 0.5x and 1.5x on 64 screens (52 read it): screens2 flat 1x only (0.5x -1, 1.5x +5), held out screens flat 1x
#   only (0.5x +2, 1.5x +2); 1.5x best on screens2, held out +2; kept (0.04, 0.6)
GLYPH_SHARE = (0.04, 0.6)  # a glyph covers this share of the plate's inside

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# candidates: contours of the Canny edge map (thresholds 60/160) sized against the frame's short side
# swept 0.5x-1.5x on 64 screens (54 read it): screens2 flat 0.75x-1x (0.5x -10, 1.25x +3), held out screens flat 1x only
#   (0.75x +1, 1.25x -3); 1.25x best on screens2, held out -3; kept (60, 160)
CANNY = (60, 160)
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -49, 1.5x +12), held out screens flat 1x
#   only (0.5x +14, 1.5x +11); 1.5x best on screens2, held out +11; kept (0.03, 0.13)
ICON_SIZE = (0.03, 0.13)  # an icon's side: 13-94 px on a 720-wide frame
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept (0.25, 0.75)
INNER_GLYPH = (0.25, 0.75)  # a glyph inside an icon's outline: its side in shares of the smallest and largest icon
# tried 0.5x and 1.5x on 64 screens (54 read it): readings identical at 0.5x and 1.5x; kept 0.4
MIN_THICK = 0.4  # an icon's short side is at least this share of the smallest icon side
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x-1.5x (0.5x +4), held out screens flat 0.5x-1.5x; 0.5x
#   best on screens2, held out +0; kept (0.4, 2.5)
ICON_ASPECT = (0.4, 2.5)  # width / height of an icon candidate
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -24.5, 1.5x +11), held out screens flat 1x
#   only (0.5x +26, 1.5x +3); 1.5x best on screens2, held out +3; kept (0.6, 1.6)
PLATE_ASPECT = (0.6, 1.6)  # of a plate (a disc, a rounded square), and of an outline that may hold a glyph
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.3
ON_TEXT = 0.3  # a candidate overlapping an OCR line by more than this share is part of the text
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -11, 1.5x -10.5), held out screens flat 1x
#   only (0.5x -1, 1.5x +29); kept 0.65
PLATE_FILL = 0.65  # a plate's contour fills this share of its box
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -4, 1.5x +4), held out screens flat 1x
#   only (0.5x -1, 1.5x +1); 1.5x best on screens2, held out +1; kept 1.3
BARE_SIZE = 1.3  # a bare glyph is at least this many smallest-icon sides big (small marks are decoration)
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -7, 1.5x +5), held out screens flat 1x
#   only (0.5x -7, 1.5x +1); 1.5x best on screens2, held out +1; kept 0.1
BARE_NEED = 0.1  # a bare glyph needs this much more IoU than one on a plate
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.12
NESTED_CENTRE = 0.12  # a nested glyph is centred in its outline within this share of the outline's side...
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 1x only (0.5x -1, 1.5x -4), held out screens flat
#   0.5x-1x (1.5x -2); kept (0.3, 0.75)
NESTED_SIZE = (0.3, 0.75)  # ...and is this share of the outline's side
# tried 0.5x and 1.5x on 64 screens (54 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 0.5
SAME_ICON = 0.5  # two candidates overlapping this much (over the smaller) are one icon
# tried 0.5x and 1.5x on 64 screens (52 read it): screens2 flat 1x only (0.5x -2), held out screens flat 0.5x-1x; fails
#   at 1.5x; kept 8
DIAGONALS = 8  # a glyph's parts join across diagonals (8-connected components)


@dataclass(frozen=True)
class Icon:
    name: str
    x0: float
    y0: float
    x1: float
    y1: float
    score: float  # IoU of the glyph with its template, 0..1


def _draw(kind: str) -> np.ndarray:
    """The conventional glyph as a boolean N x N mask, drawn at 4x and reduced (antialiased edges)."""
    s = 4 * N
    img = Image.new("L", (s, s), 0)
    d = ImageDraw.Draw(img)
    t = int(STROKE * s)
    m = s // 2
    if kind == "Plus":
        d.rectangle([0, m - t // 2, s, m + t // 2], fill=255)
        d.rectangle([m - t // 2, 0, m + t // 2, s], fill=255)
    elif kind == "Minus":
        d.rectangle([0, m - t // 2, s, m + t // 2], fill=255)
    elif kind == "Close":
        d.line([(0, 0), (s, s)], fill=255, width=t)
        d.line([(0, s), (s, 0)], fill=255, width=t)
    elif kind == "Info":
        w = int(INFO_DOT * s)
        d.ellipse([m - w // 2, 0, m + w // 2, w], fill=255)
        d.rectangle([m - w // 2, int(INFO_STEM * s), m + w // 2, s], fill=255)
    elif kind == "Menu":  # three bars, the stack about 0.7 as tall as wide
        b = int(MENU_BAR * s)
        for y in (int(MENU_ROWS[0] * s), m - b // 2, int(MENU_ROWS[1] * s) - b):
            d.rectangle([0, y, s, y + b], fill=255)
    elif kind in ("Next", "Previous"):
        back, tip = int(CHEVRON[0] * s), int(CHEVRON[1] * s)
        d.line([(back, 0), (tip, m), (back, s)], fill=255, width=int(CHEVRON_STROKE * s), joint="curve")
        if kind == "Previous":
            img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    elif kind == "Back":
        tip = int(ARROW_TIP * s)
        d.line([(tip, m), (s, m)], fill=255, width=t)
        d.line([(m, tip), (tip, m), (m, int(ARROW_ARM * s))], fill=255, width=t, joint="curve")
    return normalise(np.asarray(img) > MASK_CUT)


GLYPHS = ("Plus", "Minus", "Close", "Info", "Menu", "Next", "Previous", "Back")
CROSSED = ("Plus", "Close")


@lru_cache(maxsize=1)
def templates() -> np.ndarray:
    """All glyph masks stacked, in GLYPHS order (len(GLYPHS) x N x N)."""
    return np.stack([_draw(k) for k in GLYPHS])


def normalise(mask: np.ndarray) -> np.ndarray:
    """Crop a mask to its ink and centre it in a square (aspect kept), N x N boolean."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return np.zeros((N, N), bool)
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.uint8) * 255
    h, w = crop.shape
    side = max(h, w)
    sq = np.zeros((side, side), np.uint8)
    sq[(side - h) // 2 : (side - h) // 2 + h, (side - w) // 2 : (side - w) // 2 + w] = crop
    return cv2.resize(sq, (N, N), interpolation=cv2.INTER_AREA) > NORMALISED_CUT


def classify_glyph(mask: np.ndarray) -> tuple[str, float, float]:
    """(best glyph name, its IoU, the runner-up's IoU) for a boolean glyph mask."""
    g = normalise(mask)
    if not g.any():
        return "", 0.0, 0.0
    t = templates()
    iou = (t & g).sum(axis=(1, 2)) / np.maximum(1, (t | g).sum(axis=(1, 2)))
    order = np.argsort(iou)[::-1]
    return GLYPHS[int(order[0])], float(iou[order[0]]), float(iou[order[1]])


def three_bars(mask: np.ndarray) -> bool:
    """Three horizontal bars of one thickness, evenly stacked, each most of the glyph's width: a hamburger,
    whatever its proportions."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return False
    m = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    full = m.mean(axis=1) >= BAR_ROW  # rows the bars fill across
    runs, start = [], None
    for i, f in enumerate([*full, False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            runs.append((start, i))
            start = None
    if runs:  # rows of the plate's rim left at the glyph's edge are much thinner than its bars
        top = max(b - a for a, b in runs)
        runs = [(a, b) for a, b in runs if b - a >= RIM_ROW * top]
    if len(runs) != 3 or m.shape[1] < m.shape[0]:  # bars are wider than their stack is tall
        return False
    gaps = [runs[1][0] - runs[0][1], runs[2][0] - runs[1][1]]
    return min(gaps) >= 1 and max(gaps) <= 2 * min(gaps) + 2  # evenly stacked, give or take a resampled pixel


def _glyph_in_plate(patch: np.ndarray, plate: np.ndarray) -> np.ndarray | None:
    """The glyph drawn on a one-colour plate: the plate's inner pixels far from its main colour, in
    components that do not run along the inner rim (outlines, bevels). None when there is no such glyph."""
    k = max(1, round(RIM * min(patch.shape[:2])))
    inner = cv2.erode(plate.astype(np.uint8), np.ones((2 * k + 1, 2 * k + 1), np.uint8)) > 0
    if inner.sum() < MIN_INNER:
        return None
    px = patch.astype(np.int16)
    colour = np.median(px[inner], axis=0)
    dist = np.abs(px - colour).max(axis=2)
    far = (dist > INK_FAR) & inner
    if ((dist > MIXED) & inner & ~far).sum() > MIXED_SHARE * inner.sum():
        return None  # the plate is not one colour: a picture, not a plate
    n, comp, stats, _ = cv2.connectedComponentsWithStats(far.astype(np.uint8), connectivity=DIAGONALS)
    rim = inner & ~cv2.erode(inner.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    area = stats[:, cv2.CC_STAT_AREA]
    on_rim = np.bincount(comp[rim], minlength=n)
    keep = (area >= SPECK * inner.sum()) & (on_rim <= ON_RIM * area)
    keep[0] = False  # the background label
    glyph = keep[comp]
    if not GLYPH_SHARE[0] <= glyph.sum() / inner.sum() <= GLYPH_SHARE[1]:
        return None
    return np.asarray(glyph) if glyph is not None else None


def find_icons(rgb: np.ndarray, text_boxes: Sequence[HasBox],
               min_iou: float = 0.5, margin: float = 0.08) -> list[Icon]:
    """Icon buttons in a working-space frame. `text_boxes` are OCR lines (never icons themselves)."""
    h, w = rgb.shape[:2]
    ref = min(h, w)
    lo, hi = ICON_SIZE[0] * ref, ICON_SIZE[1] * ref  # an icon's size relative to the short side
    grey = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY)
    edges = cv2.Canny(grey, *CANNY)
    contours: list[np.ndarray] = []
    for k in (2, 3):  # thin outlines need a small dilation; soft (rescaled) ones a bigger one to close
        found_k, _ = cv2.findContours(cv2.dilate(edges, np.ones((k, k), np.uint8)), cv2.RETR_LIST,
                                      cv2.CHAIN_APPROX_SIMPLE)
        contours += found_k
    tb = np.array([Rect.of(b) for b in text_boxes], dtype=np.float64).reshape(-1, 4)
    found: list[Icon] = []
    seen: set[tuple[int, int, int, int]] = set()
    tried: set[tuple[int, int, int, int]] = set()  # keys whose outline was read once already
    small: list[tuple[np.ndarray, Rect]] = []  # contours (and their rects) that may be the glyph on an icon's plate
    outers: list[Rect] = []  # squarish icon-sized outlines, which may hold such a glyph
    for c in contours:
        x, y, cw, ch = cv2.boundingRect(c)
        rect = Rect.xywh(x, y, cw, ch)  # whole pixels: cv2.boundingRect's
        if INNER_GLYPH[0] * lo <= max(cw, ch) <= INNER_GLYPH[1] * hi:
            small.append((c, rect))
        if not (lo <= max(cw, ch) <= hi and min(cw, ch) >= MIN_THICK * lo) or \
                not ICON_ASPECT[0] <= cw / ch <= ICON_ASPECT[1]:
            continue
        key = (x // 2, y // 2, cw // 2, ch // 2)  # the same outline from both dilations: one icon is enough, but
        if key in seen:  # the wider dilation reads it again when the thinner's outline held no glyph (the hard
            continue  # skill list's "+": its plate's bevel)
        again = key in tried
        tried.add(key)
        if len(tb) and _overlaps(tb, Rect.xywh(x, y, cw, ch)).max() > ON_TEXT:
            continue
        squarish = PLATE_ASPECT[0] <= cw / ch <= PLATE_ASPECT[1]
        if squarish:
            outers.append(rect)
        filled = _filled(c, rect)
        patch = rgb[y : y + ch, x : x + cw]
        plate_like = filled.mean() >= PLATE_FILL and squarish and min(cw, ch) >= lo  # discs, rounded squares
        glyph = _glyph_in_plate(patch, filled) if plate_like else None
        if again and glyph is None:
            continue  # read again only for a glyph on its plate: a bare outline again is scenery's (a hair clip's)
        if glyph is None and max(cw, ch) < BARE_SIZE * lo:
            continue  # a bare glyph is drawn big enough to tap; small marks are decoration
        mask, need = (glyph, min_iou) if glyph is not None else (filled, min_iou + BARE_NEED)
        name, best, second = classify_glyph(mask)
        if glyph is not None and (best < need or best - second < margin) and three_bars(glyph):
            name, best, second = "Menu", need, 0.0  # a hamburger drawn in other proportions than the template
        if not name or best < need or best - second < margin:
            continue
        if name == "Menu" and glyph is not None and cv2.connectedComponents(glyph.astype(np.uint8))[0] < 3:
            continue  # one blob (an eye's highlight) is no stack of bars, however its outline scores
        if glyph is None and name not in ("Next", "Previous", "Back", "Close"):
            continue  # a bare plus or bar over scenery is too often a drawing
        seen.add(key)
        found.append(Icon(name, float(x), float(y), float(x + cw), float(y + ch), round(best, 3)))
    return _dedupe(found + _nested_glyphs(small, outers, min_iou + BARE_NEED, margin))


def _filled(c: np.ndarray, rect: Rect) -> np.ndarray:
    """A contour's inside as a boolean mask over its bounding rect."""
    x0, y0, x1, y1 = rect.ints()
    shape = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(shape, [c], -1, 1, thickness=cv2.FILLED, offset=(-x0, -y0))
    return shape > 0


def _nested_glyphs(small: list[tuple[np.ndarray, Rect]], outers: list[Rect], need: float,
                   margin: float) -> list[Icon]:
    """Glyphs drawn small and centred inside an icon-sized outline (a "+" in a ring, a stepper's plate with a
    bevel): the glyph's own outline names the icon, the outer one bounds it. Plates whose inside is not one
    colour (gradients, bevels, rings open on one side) hide the glyph from `_glyph_in_plate`."""
    out: list[Icon] = []
    if not outers or not small:
        return out
    ob = np.array(outers, dtype=np.float64)  # one row per outline: x0, y0, x1, y1
    ow, oh = ob[:, 2] - ob[:, 0], ob[:, 3] - ob[:, 1]
    ocx, ocy, oside = (ob[:, 0] + ob[:, 2]) / 2, (ob[:, 1] + ob[:, 3]) / 2, np.maximum(ow, oh)
    for c, rect in small:
        x, y, cw, ch = rect.x0, rect.y0, rect.width, rect.height
        gx, gy, side = x + cw / 2, y + ch / 2, max(cw, ch)
        ok = ((np.abs(ocx - gx) <= NESTED_CENTRE * ow) & (np.abs(ocy - gy) <= NESTED_CENTRE * oh)
              & (side >= NESTED_SIZE[0] * oside) & (side <= NESTED_SIZE[1] * oside))
        if not ok.any():
            continue
        host = [outers[i] for i in np.flatnonzero(ok)]
        name, best, second = classify_glyph(_filled(c, rect))
        # only crossed strokes: a lone bar, dot or chevron inside an outline is as often a drawing's detail
        if name not in CROSSED or best < need or best - second < margin:
            continue
        o = max(host, key=lambda o: o.area)  # the plate, not an inner ring of it
        out.append(Icon(name, float(o.x0), float(o.y0), float(o.x1), float(o.y1), round(best, 3)))
    return out


def _overlaps(boxes: np.ndarray, a: Rect) -> np.ndarray:
    """Intersection of `a` with each row of `boxes` (N x 4: x0, y0, x1, y1) over the smaller of the two."""
    ix = np.clip(np.minimum(boxes[:, 2], a[2]) - np.maximum(boxes[:, 0], a[0]), 0, None)
    iy = np.clip(np.minimum(boxes[:, 3], a[3]) - np.maximum(boxes[:, 1], a[1]), 0, None)
    small = np.minimum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), (a[2] - a[0]) * (a[3] - a[1]))
    return np.asarray(ix * iy / np.maximum(1.0, small))


def _dedupe(icons: list[Icon]) -> list[Icon]:
    """Nested contours of one icon (plate, glyph, outline) -> the best-scoring one."""
    keep: list[Icon] = []
    for ic in sorted(icons, key=lambda i: -i.score):
        kept = np.array([Rect.of(k) for k in keep], dtype=np.float64).reshape(-1, 4)
        if not len(kept) or _overlaps(kept, Rect.of(ic)).max() < SAME_ICON:
            keep.append(ic)
    return keep
