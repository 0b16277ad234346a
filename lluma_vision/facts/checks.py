"""Numbers checked before they are facts: a value the game could not show is re-read, and marked doubtful if the
re-read cannot show it either.

The game prints its facts in a fixed grammar (FACTS, "The game's UI"): a stat over its cap ("796 /1200"), a failure
rate and other percentages, "N turn(s) left" in a career of 78 turns. A reading that breaks that grammar ("1234/1200",
"Failure 340%", "turn(s) left 97") is a misread: the digits of the value's own line are read again, only number
characters allowed; a re-read the game could show replaces the value, else the value stays as read and is marked
`doubtful` (the compact JSON shows it with a "?"). A value that breaks no rule is not touched.
"""

from __future__ import annotations

import re
from typing import Protocol

import numpy as np

from lluma_vision.models import CaptionedValue
from lluma_vision.pixels.ocr import DIGITS_RATIO, NUMBER_CHARS, Line, Work, recognise

# evidence: STAT_CAP, CAREER_TURNS, PERCENT: 87152ca (what the game can show (a stat's cap, 1200, 100%, a 75-turn
#   career)); SURE: 76f2dec (captioned values from single lines, held by bench/vision.py's facts figures on screens
#   and screens2)
STATS = ("speed", "stamina", "power", "guts", "wit")  # FACTS: the row of stat captions
STAT_CAP = 1200  # FACTS: a stat is printed over its cap, "796 /1200" (the cap when none is printed beside it)
CAREER_TURNS = 78  # FACTS: a URA Finale career is 78 turns (72 dated, 6 finale): no more turns left than that
PERCENT = 100  # a share (a failure rate, a discount) is at most 100%
NUMBER = re.compile(r"^[+\-]?(\d[\d,]*)(?:/(\d[\d,]*))?(%?)$")
SURE = 0.9  # every character of a re-read at least this sure (reread.py keeps a digits-only read at 0.9 too)


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def broken_rule(v: CaptionedValue) -> str | None:
    """Why the game could not show `v` (a short reason), or None when it could."""
    m = NUMBER.match(v.value.replace(" ", ""))
    if m is None or v.kind != "value":
        return None  # not a number ("Lvl 3"), or a gain: no rule for it
    n, cap, pct = _int(m.group(1)), m.group(2), m.group(3)
    caption = v.caption.casefold()
    if cap is not None and caption in STATS and n > _int(cap):
        return f"{n} over its cap {_int(cap)}"
    if cap is None and caption in STATS and n > STAT_CAP:
        return f"{n} over the stats' cap {STAT_CAP}"
    if (pct or "fail" in caption) and n > PERCENT:
        return f"{n}% over 100%"
    if "turn" in caption and "left" in caption and n > CAREER_TURNS:
        return f"{n} turns left in a career of {CAREER_TURNS}"
    return None


def _digit_lines(work: Work, v: CaptionedValue, lines: list[Line]) -> list[Line]:
    """The OCR lines holding the value's digits: inside its box (working pixels), top to bottom, left to right."""
    x0, y0, x1, y1 = work.from_device(v.bounds)
    inside = [ln for ln in lines if x0 <= (ln.x0 + ln.x1) / 2 <= x1 and y0 <= (ln.y0 + ln.y1) / 2 <= y1
              and any(c.isdigit() for c in ln.text)]
    return sorted(inside, key=lambda ln: (ln.y0, ln.x0))


def reread(work: Work, v: CaptionedValue, lines: list[Line]) -> str | None:
    """The value read again from its own lines, number characters only, or None when a glyph is not read surely."""
    found = _digit_lines(work, v, lines)
    crops = [np.ascontiguousarray(work.rgb[int(ln.y0):int(ln.y1), int(ln.x0):int(ln.x1)]) for ln in found]
    if not crops or any(c.size == 0 for c in crops):
        return None
    reads = recognise(crops, NUMBER_CHARS, DIGITS_RATIO)
    if any(not r or min(p for _, p in r) < SURE for r in reads):
        return None
    return "".join("".join(c for c, _ in r) for r in reads)


def check(work: Work, lines: list[Line], values: list[CaptionedValue]) -> list[CaptionedValue]:
    """`values` with each one the game could not show re-read (kept when the re-read obeys the grammar), else
    marked doubtful."""
    out: list[CaptionedValue] = []
    for v in values:
        if broken_rule(v) is None:
            out.append(v)
            continue
        again = reread(work, v, lines)
        fixed = v.model_copy(update={"value": again}) if again else None
        out.append(fixed if fixed is not None and broken_rule(fixed) is None else v.model_copy(
            update={"doubtful": True}))
    return out


class _Values(Protocol):
    """What the checks stage reads and fills of the reading (reading.Reading)."""

    work: Work
    lines: list[Line]
    values: list[CaptionedValue]


def checks_stage(r: _Values) -> None:
    r.values = check(r.work, r.lines, r.values)
