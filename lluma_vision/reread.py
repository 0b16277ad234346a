"""A number the detector missed, re-read digit-only from its ink (as the bots re-read a failure rate).

A caption left without a value may still have one printed big over it, or just left of it on its row, in a
colour the detector does not see against its plate (a calendar's day count over or before "turn(s) left"). When
such a band holds no read text but does hold a row of glyph-sized ink, that ink alone (black on white, at the
recogniser's scale) is read with only digits allowed, and kept when the recogniser is sure of it.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable
from dataclasses import replace

import cv2
import numpy as np

from lluma_vision.models import CaptionedValue
from lluma_vision.ocr import DIGITS_RATIO, NUMBER_CHARS, Line, Work, read_digits, recognise
from lluma_vision.values import CAP_TAIL, NUMBER_LINE, capped, is_bare_number

BAND = 2.5  # how far over the caption to look, in caption heights
INK_DISTANCE = 90  # summed RGB distance from the band's commonest colour that counts as ink
MIN_GLYPH = 1.0  # a glyph at least this many caption heights tall: a number printed big
SIDE = 1.5  # how far left of the caption to look, in caption heights
SIDE_PAD = 0.25  # ...and how far over and under its row
SIDE_GLYPH = 0.9  # a glyph beside the caption at least this many caption heights tall
# an abbreviation ("Da" on a badge) with its number printed bigger at the other end of its cell, right of it
SHORT_CAPTION = 3  # characters
RIGHT = 4.5  # how far right of it to look, in caption heights
RIGHT_PAD = 0.7  # ...and how far over and under its row
RIGHT_GLYPH = 1.2  # a glyph there at least this many caption heights tall: a number printed bigger
MAX_GLYPHS = 4
EDGE_ROW = 0.6  # a crop's row at least this much ink, meeting both its sides, is a plate's edge, not glyphs
SURE = 0.9
DIGITS = re.compile(r"^\d{1,4}$")


def ink_mask(rgb: np.ndarray) -> np.ndarray:
    """1 where a pixel is far from the crop's commonest colour (its plate), else 0."""
    a = rgb.astype(np.int32)
    q = (a // 32).reshape(-1, 3)
    code = q[:, 0] * 64 + q[:, 1] * 8 + q[:, 2]
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
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = [i for i in range(1, n)
            if stats[i, 0] > 0 and stats[i, 1] > 0 and stats[i, 0] + stats[i, 2] < ww and stats[i, 3] >= min_h]
    if not 1 <= len(keep) <= MAX_GLYPHS:
        return None
    tops = [int(stats[i, 1]) for i in keep]
    heights = [int(stats[i, 3]) for i in keep]
    if max(tops) - min(tops) > 0.25 * max(heights) or any(stats[i, 2] > 1.5 * stats[i, 3] for i in keep):
        return None
    glyphs = np.isin(lab, keep)
    ys, xs = np.nonzero(glyphs)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    pad = max(2, int(y1 - y0) // 4)
    page = np.where(glyphs[y0:y1, x0:x1], 0, 255).astype(np.uint8)
    page = np.pad(page, pad, constant_values=255)
    return np.ascontiguousarray(np.stack([page] * 3, axis=-1))


Rect = tuple[float, float, float, float]


def _free(band: Rect, lines: list[Line], h: float) -> bool:
    """The band holds no read text (nothing was missed there) and is wide enough for a glyph."""
    return band[2] - band[0] >= 0.5 * h and not any(
        ln.x0 < band[2] - 0.1 * h and ln.x1 > band[0] + 0.1 * h and ln.y0 < band[3] and ln.y1 > band[1]
        for ln in lines)


def _bands(box: Rect, lines: list[Line], beside: bool, right: bool = False) -> list[tuple[Rect, float]]:
    """Where a missed number may sit, each band with the least glyph height (in caption heights): over the caption
    (up to the nearest read line at least a glyph above it); with `beside`, just left of it on its row (a calendar's
    big day count before "turn(s) left"); with `right`, right of it on its row (an abbreviation's number at the
    other end of its cell). Bands holding read text are dropped: nothing was missed there."""
    x0, y0, x1, y1 = box
    h = y1 - y0
    over = [ln for ln in lines if ln.x0 < x1 and ln.x1 > x0 and ln.y1 <= y0 + 0.2 * h and ln.y0 < y0 - 0.2 * h]
    top = max([y0 - BAND * h, *(ln.y1 for ln in over if ln.y1 <= y0 - MIN_GLYPH * h)])
    out: list[tuple[Rect, float]] = []
    if top >= 0 and not any(ln.y1 > top + 0.1 * h for ln in over):
        out.append(((x0, top, x1, y0), MIN_GLYPH))
    if beside:
        pad = SIDE_PAD * h
        left = (max(0.0, x0 - SIDE * h), max(0.0, y0 - pad), x0, y1 + pad)
        if _free(left, lines, h):
            out.append((left, SIDE_GLYPH))
    if right:
        pad = RIGHT_PAD * h
        after = (x1 + 0.2 * h, max(0.0, y0 - pad), x1 + RIGHT * h, y1 + pad)
        if _free(after, lines, h):
            out.append((after, RIGHT_GLYPH))
    return out


def numbers_over(work: Work, captions: list[Rect], lines: list[Line], beside: bool = True,
                 right: list[bool] | None = None) -> list[tuple[str, Rect] | None]:
    """For each caption box (working pixels), the number printed big over it (or, with `beside`, just left of it;
    with its `right` flag, right of it) that OCR did not read and the band it was read in, or None."""
    crops: list[np.ndarray] = []
    which: list[tuple[int, Rect]] = []
    for k, box in enumerate(captions):
        h = box[3] - box[1]
        for band, glyph in _bands(box, lines, beside, bool(right and right[k])):
            rgb = work.rgb[int(band[1]):min(work.h, int(band[3])), int(band[0]):min(work.w, int(band[2]))]
            crop = ink_crop(rgb, glyph * h) if rgb.size else None
            if crop is not None:
                crops.append(crop)
                which.append((k, band))
                break
    out: list[tuple[str, Rect] | None] = [None] * len(captions)
    for (k, band), (text, conf) in zip(which, read_digits(crops) if crops else [], strict=True):
        if conf >= SURE and DIGITS.match(text):
            out[k] = (text, band)
    return out


# A cap read alone ("/200" with no number over it): its number is printed right over it, bigger, and the detector
# missed it (a lone "7" beside a badge). The band over the cap, of its width and up to CAP_BAND of its heights,
# holding no read text but a row of glyphs at least CAP_GLYPH of its height, is read digits-only and kept when sure.
CAP_BAND = 1.3
CAP_PAD = 0.3  # ...and this much past its sides (the number is centred or right-aligned over it)
CAP_GLYPH = 0.8


def numbers_over_caps(work: Work, lines: list[Line]) -> list[Line]:
    """A number line for each cap read without one just over it, where the detector missed it (working pixels)."""
    caps = [ln for ln in lines if CAP_TAIL.match(ln.text.strip())]
    numbers = [ln for ln in lines if is_bare_number(ln.text)]
    crops: list[np.ndarray] = []
    bands: list[Rect] = []
    for cap in caps:
        if any(capped(n, cap) for n in numbers):
            continue  # read with its number (over it, or before it on its row)
        h = cap.h
        band = (max(0.0, cap.x0 - CAP_PAD * h), max(0.0, cap.y0 - CAP_BAND * h),
                min(float(work.w), cap.x1 + CAP_PAD * h), cap.y0 + 0.1 * h)
        if not _free(band, [ln for ln in lines if ln is not cap], h):
            continue  # something else was read there
        rgb = work.rgb[int(band[1]):int(band[3]), int(band[0]):int(band[2])]
        crop = ink_crop(rgb, CAP_GLYPH * h) if rgb.size else None
        if crop is not None:
            crops.append(crop)
            bands.append(band)
    return [Line(text=text, conf=conf, x0=band[0], y0=band[1], x1=band[2], y1=band[3])
            for band, (text, conf) in zip(bands, read_digits(crops) if crops else [], strict=True)
            if conf >= SURE and DIGITS.match(text)]


ICON_LETTER = 0.5  # a badge's icon read as a letter is recognised far less surely than the word's own letters
WORD_LETTER = 0.8


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


def without_icon_letter(work: Work, word: str, line: Line) -> str:
    """The badge word without a letter at either end that the recogniser read off the badge's icon (an arrow read
    as "Z" before "GOOD"): that letter scored under ICON_LETTER while every other scored at least WORD_LETTER, in
    the OCR pass or when its line is recognised again alone."""
    crop = work.rgb[int(line.y0):int(line.y1), int(line.x0):int(line.x1)]
    if crop.size == 0 or len(word) < 4:
        return word
    if len(line.scores) == len(line.text) and (cut := _icon_end(word, _letters(zip(line.text, line.scores,
                                                                                    strict=True)))):
        return cut
    read = _letters(recognise([np.ascontiguousarray(crop)])[0])
    again = "".join(c for c, _ in read)
    if again in (word[1:], word[:-1]):  # read again, the end letter was no letter at all (the icon's glyph)
        return again
    return _icon_end(word, read) or word


# A bare number with a badge just left of it (a coloured hexagon holding "Pa"): the badge's word is its caption. OCR's
# detector does not see a word that small on a plate of its own colour, so the badge is found as the blob of ink
# nearest the number and recognised alone, letters only.
BADGE_BAND = 2.2  # how far left of the number to look, in its heights
BADGE_PAD = 0.3  # ...and how far over and under its row
BADGE_MIN = 0.6  # the badge at least this many heights tall and wide
BADGE_MAX_W = 2.5
BADGE_LETTER = 0.4  # every letter recognised at least this surely (screens2: a badge's "Vi" reads its "i" at 0.43-0.49)


def _badge(rgb: np.ndarray, h: float) -> tuple[int, int, int, int] | None:
    """The box of the ink blob of a badge's size nearest the band's right end (the number), or None."""
    mask = ink_mask(rgb)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    fits = [i for i in range(1, n)
            if stats[i, 3] >= BADGE_MIN * h and BADGE_MIN * h <= stats[i, 2] <= BADGE_MAX_W * h]
    if not fits:
        return None
    i = max(fits, key=lambda k: stats[k, 0] + stats[k, 2])
    x, y, w, hh = (int(v) for v in stats[i, :4])
    return x, y, x + w, y + hh


def badge_words(work: Work, numbers: list[Line], lines: list[Line]) -> list[Line]:
    """For each bare number with a badge just left of it and no read text there, the badge's word (2 to
    SHORT_CAPTION letters, each recognised surely) as a line of its own, in working pixels."""
    crops: list[np.ndarray] = []
    boxes: list[Rect] = []
    for ln in numbers:
        h = ln.h
        band = (max(0.0, ln.x0 - BADGE_BAND * h), max(0.0, ln.y0 - BADGE_PAD * h), ln.x0 - 0.05 * h,
                min(float(work.h), ln.y1 + BADGE_PAD * h))
        if not _free(band, lines, h):
            continue
        rgb = work.rgb[int(band[1]):int(band[3]), int(band[0]):int(band[2])]
        blob = _badge(rgb, h) if rgb.size else None
        if blob is None:
            continue
        crops.append(np.ascontiguousarray(rgb[blob[1]:blob[3], blob[0]:blob[2]]))
        boxes.append((band[0] + blob[0], band[1] + blob[1], band[0] + blob[2], band[1] + blob[3]))

    def word(read: list[tuple[str, float]]) -> bool:
        return 2 <= len(read) <= SHORT_CAPTION and all(p >= BADGE_LETTER for _, p in read)

    # white letters on a coloured badge: its darkest channel puts them dark on light, however pale the badge
    # (a yellow "Vi" the recogniser cannot read in colour); the crop as it is when that fails (dark letters)
    reads = recognise([_white_on_colour(c) for c in crops], string.ascii_letters, 1.0) if crops else []
    again = [k for k, read in enumerate(reads) if not word(read)]
    for k, read in zip(again, recognise([crops[k] for k in again], string.ascii_letters, 1.0) if again else [],
                       strict=True):
        reads[k] = read
    out: list[Line] = []
    for box, read in zip(boxes, reads, strict=True):
        if word(read):
            out.append(Line(text="".join(c for c, _ in read), conf=min(p for _, p in read), x0=box[0], y0=box[1],
                            x1=box[2], y1=box[3]))
    return out


def _white_on_colour(rgb: np.ndarray) -> np.ndarray:
    page = 255 - rgb.min(axis=2)
    return np.ascontiguousarray(np.stack([page] * 3, axis=-1).astype(np.uint8))


# A row of captioned values where some have a gain printed at one place relative to their value (over the caption,
# under the number): each other value of the row has its gain, if any, at that same place. OCR misses a small "+6"
# on a busy picture; re-read there digits-only, its ink first (kept when SURE), else the band as it is (a "+0" on
# a photo, whose ink is no clean row of glyphs), kept when it reads as a whole signed number at least this surely:
GAIN_BAND_SURE = 0.75
SIGNED = re.compile(r"^[+\-]\d{1,4}%?$")


def _same_row(a: CaptionedValue, b: CaptionedValue) -> bool:
    return abs(a.bounds.y0 - b.bounds.y0) < 0.5 * min(a.bounds.height, b.bounds.height)


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
        dy = sorted(g.bounds.y0 - o.bounds.y0 for g, o in pairs)[len(pairs) // 2]
        dx = sorted(g.bounds.center[0] - o.bounds.center[0] for g, o in pairs)[len(pairs) // 2]
        gh = max(g.bounds.height for g, _ in pairs)
        gw = max(g.bounds.width for g, _ in pairs)
        cx, top = v.bounds.center[0] + dx, v.bounds.y0 + dy
        s = work.scale
        band = (max(0.0, (cx - 0.7 * gw) * s), max(0.0, (top - 0.15 * gh) * s), min(float(work.w), (cx + 0.7 * gw) * s),
                min(float(work.h), (top + 1.15 * gh) * s))
        inner = (band[0], band[1] + 0.4 * gh * s, band[2], band[3] - 0.4 * gh * s)  # a gain may overlap its caption
        if band[2] - band[0] < 4 or band[3] - band[1] < 4 or not _free(inner, lines, gh * s):
            continue
        rgb = np.ascontiguousarray(work.rgb[int(band[1]):int(band[3]), int(band[0]):int(band[2])])
        ink = ink_crop(rgb, 0.5 * gh * s)
        read = read_digits([ink])[0] if ink is not None else ("", 0.0)
        if not (SIGNED.match(read[0]) and read[1] >= SURE):
            read = read_digits([rgb])[0]
            if not (SIGNED.match(read[0]) and read[1] >= GAIN_BAND_SURE):
                continue
        found.append(CaptionedValue(caption=v.caption, value=read[0], kind="gain",
                                    bounds=work.to_device(*band)))
    return found


# A second signed number printed right over a gain, in its column (a scenario's bonus on a coloured badge over
# the training's "+26"), is another gain for the same caption. The detector does not see white digits on a badge
# of their own colour; the band over each gain is read digits-only, kept when it reads as a whole signed number
# at least GAIN_BAND_SURE. The band is the gain's own width: wider, it takes in the badge's edges and the recogniser
# grows unsure (0.49-0.66 against 0.92-1.0 on the Unity Cup flames).
STACK_BAND = 1.3  # how far over the gain to look, in its heights
STACK_GAP = 0.1  # the band stops this far over the gain's box


def stacked_gains(work: Work, gains: list[CaptionedValue], lines: list[Line]) -> list[CaptionedValue]:
    """The gains printed right over `gains` that OCR did not read (device pixels in and out)."""
    s = work.scale
    crops: list[np.ndarray] = []
    which: list[tuple[CaptionedValue, Rect]] = []
    for g in gains:
        b, gh = g.bounds, g.bounds.height * s
        band = (b.x0 * s, max(0.0, b.y0 * s - STACK_BAND * gh), min(float(work.w), b.x1 * s),
                b.y0 * s - STACK_GAP * gh)
        if band[3] - band[1] < 0.5 * gh or not _free(band, lines, gh):
            continue
        crops.append(np.ascontiguousarray(work.rgb[int(band[1]):int(band[3]), int(band[0]):int(band[2])]))
        which.append((g, band))
    found: list[CaptionedValue] = []
    for (g, band), (text, conf) in zip(which, read_digits(crops) if crops else [], strict=True):
        if SIGNED.match(text) and conf >= GAIN_BAND_SURE:
            found.append(CaptionedValue(caption=g.caption, value=text, kind="gain", bounds=work.to_device(*band)))
    return found


# A stat's grade badge beside its number can be read as a digit set apart by a space ("5 117": an "F" badge). The
# recogniser doubts a glyph read off a picture: an end letter or digit scored under ICON_LETTER, set apart by a space,
# on a line whose other non-space characters all score at least WORD_LETTER and that is a number without it, is that
# icon and goes.


def numbers_without_icons(lines: list[Line]) -> list[Line]:
    """`lines` with an icon read as an end glyph of a number cut off (text and box)."""
    out: list[Line] = []
    for ln in lines:
        t, p = ln.text, ln.scores
        if len(t) < 3 or len(p) != len(t):
            out.append(ln)
            continue
        for keep, gone in ((slice(2, None), 0), (slice(None, -2), -1)):
            sep = 1 if gone == 0 else -2
            sure = all(q >= WORD_LETTER for c, q in zip(t[keep], p[keep], strict=True) if c != " ")
            # a sign or a percent is the number's own, however doubted
            if t[sep] == " " and t[gone].isalnum() and p[gone] < ICON_LETTER and NUMBER_LINE.match(t[keep]) and sure:
                cut = 2 / len(t) * ln.w  # the glyph and its space, by their share of the characters
                ln = replace(ln, text=t[keep], scores=p[keep], x0=ln.x0 + cut if gone == 0 else ln.x0,
                             x1=ln.x1 - cut if gone else ln.x1)
                break
        out.append(ln)
    return out


# A number's detected box can stop short of its last glyph (a "9" cut off "+19" by a badge that crowds it): a number
# with a glyph-tall blob of ink just past its box's right end is read again digits-only from the box widened over it,
# and the new reading replaces it where it only adds characters on the right, every one read surely.
WIDEN = 0.6  # how far right of the box to look and read, in the line's heights
NUMBER_SURE = 0.95


def _glyph_past(rgb: np.ndarray, ln: Line, lines: list[Line]) -> bool:
    """A blob of ink at least half the line's height that starts within a third of a height past its right end,
    where no other read line sits on its row (`_free`: that ink was read, a "7" printed after "12")."""
    h = ln.h
    x1 = min(rgb.shape[1], ln.x1 + WIDEN * h)
    if not _free((ln.x1, ln.y0 + 0.25 * h, x1, ln.y1 - 0.25 * h), lines, h):
        return False
    strip = rgb[int(ln.y0):int(ln.y1), int(ln.x1):int(x1)]
    if strip.size == 0:
        return False
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink_mask(strip), connectivity=8)
    return any(st[3] >= 0.5 * h and st[0] <= h / 3 for st in stats[1:])


def widened_numbers(work: Work, lines: list[Line]) -> list[Line]:
    """`lines` with each number whose box cut off a glyph read again over that glyph."""
    which = [k for k, ln in enumerate(lines) if NUMBER_LINE.match(ln.text) and _glyph_past(work.rgb, ln, lines)]
    crops = [np.ascontiguousarray(work.rgb[int(ln.y0):int(ln.y1), int(ln.x0):int(min(work.w, ln.x1 + WIDEN * ln.h))])
             for ln in (lines[k] for k in which)]
    out = list(lines)
    for k, read in zip(which, recognise(crops, NUMBER_CHARS + "-", DIGITS_RATIO) if crops else [], strict=True):
        text = "".join(c for c, _ in read)
        if len(text) > len(lines[k].text) and text.startswith(lines[k].text) and NUMBER_LINE.match(text) and \
                min(p for _, p in read) >= NUMBER_SURE:
            out[k] = replace(lines[k], text=text, x1=min(work.w, lines[k].x1 + WIDEN * lines[k].h),
                             scores=tuple(p for _, p in read))
    return out
