"""Captioned values: a caption and its number as one fact, and signed gains over a caption's column.

Layout rules only, no game's words: a read line that is words followed by a number ("Speed 796 /1200",
put together by `associate.pair_values` or read as one block) is a caption and its value; a signed
number ("+23") with a worded caption just under it, in the same column, is that caption's gain.
Words OCR ran together get their spaces back where the letters tell (a case change, digits after
letters, a word after a closing bracket): "SkillPts" -> "Skill Pts", "turn(s)left" -> "turn(s) left".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TypeVar

from lluma_vision.models import Box, CaptionedValue, TextLine

NUMBER = r"[+\-]?\d[\d,.]*\s*(?:/\s*\d[\d,]*|%)?"
FACT = re.compile(rf"^(?P<caption>[^\d+\-]*[A-Za-z][^\d+]*?)\s*(?P<value>{NUMBER})$")
GAIN = re.compile(r"^[+\-]\s?\d[\d,]*%?$")
CAPTION_MAX_CHARS = 40
T = TypeVar("T")

_SPLITS = (
    re.compile(r"(?<=[a-z])(?=[A-Z])"),  # CupBegins
    re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])"),  # MGuts, HTMLParser
    re.compile(r"(?<=[A-Za-z])(?=\d)"),  # Lvl2
    re.compile(r"(?<=\))(?=[A-Za-z])"),  # turn(s)left
)


def split_words(text: str) -> str:
    """Spaces back between words OCR ran together, where a dictionary-free rule can tell."""
    for rule in _SPLITS:
        text = rule.sub(" ", text)
    return text


def _value(raw: str) -> str:
    return re.sub(r"\s+", "", raw)


def fact_of(text: str) -> tuple[str, str] | None:
    """(caption, value) when the line is words then a number; None otherwise."""
    m = FACT.match(text.strip())
    if m is None:
        return None
    caption = m.group("caption").strip(" :.·-")
    if not caption or len(caption) > CAPTION_MAX_CHARS or not any(c.isalpha() for c in caption):
        return None
    return caption, _value(m.group("value"))


def _caption_under(gain: TextLine, texts: list[TextLine]) -> TextLine | None:
    g = gain.bounds
    best: tuple[float, TextLine] | None = None
    for t in texts:
        if t is gain or not any(c.isalpha() for c in t.text):
            continue
        b = t.bounds
        gap = b.y0 - g.y1
        same_column = abs(b.center[0] - g.center[0]) < 0.6 * max(b.width, g.width)
        if same_column and -0.5 * g.height <= gap <= 1.5 * g.height and b.center[1] > g.center[1]:
            if best is None or gap < best[0]:
                best = (gap, t)
    return best[1] if best else None


def caption_word(t: TextLine) -> str:
    """The caption a line gives its column: its words, without a value printed under them."""
    fact = fact_of(t.text)
    return fact[0] if fact else t.text.strip()


def read_values(texts: list[TextLine]) -> tuple[list[CaptionedValue], set[int]]:
    """The captioned values and gains among read lines, and the indices of the lines they used up."""
    out: list[CaptionedValue] = []
    used: set[int] = set()
    for i, t in enumerate(texts):
        if GAIN.match(t.text.strip()):
            cap = _caption_under(t, texts)
            if cap is not None:
                out.append(CaptionedValue(caption=caption_word(cap), value=_value(t.text), kind="gain",
                                          bounds=t.bounds))
                used.add(i)
            continue
        fact = fact_of(t.text)
        if fact is not None:
            out.append(CaptionedValue(caption=fact[0], value=fact[1], bounds=t.bounds))
            used.add(i)
    return out, used


def unique_keys(pairs: Iterable[tuple[str, T]]) -> dict[str, T]:
    """A dict for the compact JSON; a key seen again gets `#2`, `#3`... as button names do."""
    out: dict[str, T] = {}
    for name, value in pairs:
        key, n = name, 1
        while key in out:
            n += 1
            key = f"{name}#{n}"
        out[key] = value
    return out


def keyed(values: list[CaptionedValue], kind: str) -> dict[str, str]:
    """caption -> value (or gain) in reading order."""
    ordered = sorted((v for v in values if v.kind == kind), key=lambda v: (v.bounds.y0, v.bounds.x0))
    return unique_keys((v.caption, v.value) for v in ordered)


def boxes_of(values: list[CaptionedValue]) -> set[tuple[int, int, int, int]]:
    return {(v.bounds.x0, v.bounds.y0, v.bounds.x1, v.bounds.y1) for v in values}


def box_key(b: Box) -> tuple[int, int, int, int]:
    return (b.x0, b.y0, b.x1, b.y1)
