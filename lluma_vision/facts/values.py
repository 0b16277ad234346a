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

from lluma_vision.geometry import HasBox
from lluma_vision.models import Box, CaptionedValue, TextLine
from lluma_vision.pixels.ocr import ICON_INITIAL

# evidence: b352537 (the facts a rest-or-train decision needs, on screens and screens2 (bench/vision.py))
NUMBER = r"[+\-]?\d[\d,.]*\s*(?:/\s*\d[\d,]*|%)?"
FACT = re.compile(rf"^(?P<caption>[^\d+\-]*[A-Za-z][^\d+]*?)\s*(?P<value>{NUMBER})$")
# the number first, its words after on the line ("11,219 Fans", "12 turn(s) left"; "3turn(s)" run together, not "1st")
FACT_AFTER = re.compile(rf"^(?P<value>{NUMBER})(?:\s+|(?=[a-z]{{2}})(?!(?:st|nd|rd|th)\b))(?P<caption>[A-Za-z][^\d]*)$")
GAIN = re.compile(r"^[+\-]\s?\d[\d,]*%?$")
BRACKETED = re.compile(r"^\(?\s*([+\-]?\s?\d[\d,]*%?)\s*\)?$")  # "(+ 5)", or "+5)" with a bracket lost
# a one-letter icon before a number, read with it as one line (a stat's grade badge: "F*193", "E238")
ICON_LETTER_NUMBER = re.compile(r"^[A-Za-z][^\w\s]?\s*(?P<b>\d[\d,]*(?:\s*/\s*\d[\d,]*)?)$")
# a value and the signed change printed right after it, read as one line ("0+17", "+0 ▶ +5")
MERGED = re.compile(r"^(?P<a>[+\-]?\d[\d,]*%?)\s*\W?\s*(?P<b>[+\-]\d[\d,]*%?)$")
CAPTION_MAX_CHARS = 40
# Layout tolerances, in the heights of the lines compared (OCR's boxes pad their text unevenly, so two lines one
# under the other may overlap by up to OVERLAP of a height): set with the rules that use them (76f2dec, 04334e0,
# b352537, add3622) on screens/screens2 and held by the values figures of bench/vision.py at 0.4-1.5x
OVERLAP = 0.3
UNDER_GAP = 0.6  # a line printed under another starts within 0.6 of a height under it (a value under its caption)
SAME_COLUMN = 0.6  # centres within 0.6 of the wider one's width: one column
GAIN_CAPTION_GAP = 1.5  # a gain is printed over its caption at most 1.5 of its heights over it
STACK_LEAST = 0.7  # a label's next line is at least 0.7 as tall as its first
SPECK = 0.6  # a "number" under 0.6 of its caption's line height is a speck beside it
VALUE_UNDER = 1.15  # a value printed under its caption: at most 1.15 heights under it (a calendar's big day count)
ROW_REACH = 0.6  # a caption's value on its row: at most 0.6 of the frame's width away ("Skill Pts ... 920")
CAP_OVERLAP = 0.2  # a cap ("/1200") after its number may overlap it by a fifth of a height
CAPTION_AFTER_MAX_WORDS = 3
SHORT_WORD = 3  # a word this short before a number is the value's unit or prefix ("Lvl 1"), not a caption
T = TypeVar("T")

_SPLITS = (
    re.compile(r"(?<=[a-z])(?=[A-Z])"),  # CupBegins
    re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])"),  # HTMLParser, IThink
    re.compile(r"(?<=[A-Za-z])(?=\d)"),  # Lvl2
    re.compile(r"(?<=\))(?=[A-Za-z])"),  # turn(s)left
)


# an icon read as a capital run into a word (ocr.ICON_INITIAL)...
# ...or read apart from it, as a rescaled frame's recogniser does ("M Guts"): a lone capital then a capitalised word
# is no caption's first word, so a caption drops it (a loose text keeps it: "C Rank" is a grade and its word)
CAPTION_ICON = re.compile(r"^[B-HJ-Z]\s+(?=[A-Z][a-z]{2})")


def caption_text(text: str) -> str:
    """A caption line's words, without an icon read as a capital before them."""
    return CAPTION_ICON.sub("", text.strip(), count=1)


# a lone lower-case "o" ending a line after a word is no English word but a zero the recogniser read as a letter
# ("Lvl o": a level 0); a capital "O" may be a word or a name ("Type O") and stays
LONE_O = re.compile(r"(?<=[A-Za-z] )o$")


def split_words(text: str) -> str:
    """Spaces back between words OCR ran together, where a dictionary-free rule can tell; an icon read as a
    capital run into the first word goes."""
    text = ICON_INITIAL.sub("", text.lstrip(), count=1)
    for rule in _SPLITS:
        text = rule.sub(" ", text)
    return LONE_O.sub("0", text)


def _value(raw: str) -> str:
    return re.sub(r"\s+", "", raw)


def fact_of(text: str) -> tuple[str, str] | None:
    """(caption, value) when the line is words then a number, or a number then a few words; None otherwise."""
    m = FACT.match(text.strip()) or FACT_AFTER.match(text.strip())
    if m is None:
        return None
    caption = caption_text(m.group("caption").strip(" :.·-"))
    if not caption or len(caption) > CAPTION_MAX_CHARS or not any(c.isalpha() for c in caption):
        return None
    if m.re is FACT_AFTER and len(caption.split()) > CAPTION_AFTER_MAX_WORDS:  # "2 options to ..." is a sentence
        return None
    return caption, _value(m.group("value"))


def _gap_over(box: Box, texts: list[TextLine]) -> float | None:
    """How far under a caption line of its column the box sits (up to 0.6 of its height), or None."""
    gaps = [box.y0 - t.bounds.y1 for t in texts if _is_caption(t.text) and _same_column(t.bounds, box)
            and -OVERLAP * box.height <= box.y0 - t.bounds.y1 <= UNDER_GAP * box.height]
    return min(gaps) if gaps else None


def _caption_under(gain: TextLine, texts: list[TextLine]) -> TextLine | None:
    """The caption a signed number is printed over (its gain), unless a caption is printed closer just over the
    number (then the number is that caption's value: "+ 5%" under "Effectiveness", over the next section's heading)."""
    g = gain.bounds
    over = _gap_over(g, texts)
    best: tuple[float, TextLine] | None = None
    for t in texts:
        if t is gain or not _is_caption(caption_word(t)):  # a sentence under a number is not its caption
            continue
        b = t.bounds
        gap = b.y0 - g.y1
        same_column = abs(b.center[0] - g.center[0]) < SAME_COLUMN * max(b.width, g.width)
        if same_column and -0.5 * g.height <= gap <= GAIN_CAPTION_GAP * g.height and b.center[1] > g.center[1]:
            if best is None or gap < best[0]:
                best = (gap, t)
    return best[1] if best and (over is None or best[0] <= over) else None


def caption_word(t: TextLine) -> str:
    """The caption a line gives its column: its words, without a value printed under them."""
    fact = fact_of(t.text)
    return fact[0] if fact else caption_text(t.text)


# evidence: CAPTION_MAX_WORDS, BELOW_COST, RIGHT_COST: 76f2dec (captioned values from single lines, held by
#   bench/vision.py's facts figures on screens and screens2); ABOVE_COST: 04334e0 (captioned values round 1: chosen on
#   screens2 66 -> 79/113 values, held out on screens 22 -> 24/26)
NUMBER_LINE = re.compile(rf"^{NUMBER}$")
CAP_TAIL = re.compile(r"^/\s*\d[\d,]*$")  # "/1200" printed under or after its number
CAPTION_MAX_WORDS = 5
# costs added by where the caption sits, in the value's heights: beside it on its row first ("Da" centred on a
# stacked "10" "/200" beats the column's heading over it), then over it, under it (a calendar's "turn(s) left"
# under its big number), and right of it ("12 turn(s) left")
ABOVE_COST = 0.15
BELOW_COST = 0.25
RIGHT_COST = 0.3


def _is_caption(text: str) -> bool:
    s = text.strip()
    return (sum(c.isalpha() for c in s) >= 2 and not any(c.isdigit() for c in s)
            and len(s) <= CAPTION_MAX_CHARS and len(s.split()) <= CAPTION_MAX_WORDS)


def _same_row(a: Box, b: Box) -> bool:
    return abs(a.center[1] - b.center[1]) < 0.5 * max(a.height, b.height)


def _same_column(a: Box, b: Box) -> bool:
    return abs(a.center[0] - b.center[0]) < SAME_COLUMN * max(a.width, b.width)


def _stacked(upper: Box, lower: Box, most: float = 1.4) -> bool:
    """`lower` is the next line of a label `upper` begins: aligned left or centred, touching, of about one height (the
    lower line up to `most` times as tall)."""
    h = upper.height
    aligned = abs(lower.x0 - upper.x0) <= 0.5 * h or abs(lower.center[0] - upper.center[0]) <= 0.5 * h
    return aligned and -OVERLAP * h <= lower.y0 - upper.y1 <= OVERLAP * h and STACK_LEAST <= lower.height / h <= most


# evidence: add3622 (badge words: screens2 values 81 -> 96/113 at 1x, screens unchanged)
SENTENCE_END = re.compile(r"(?:[a-z]{3,}\.|\?)\s*$")  # "rotations?", "the end." - not "Lvl." or "No."
NUMBER_FIRST_MOST = 1.6  # a label's second line led by its number printed bigger ("Concert in" over "19 turn(s)")


def _stack_captions(texts: list[TextLine], caps: list[int]) -> dict[int, tuple[str, Box, list[int]]]:
    """Caption lines stacked as one label ("turn(s)" over "left"): close, of one height, aligned left or centred."""
    out: dict[int, tuple[str, Box, list[int]]] = {i: (caption_text(texts[i].text), texts[i].bounds, [i]) for i in caps}
    for i in sorted(caps, key=lambda k: texts[k].bounds.y0):
        if i not in out:
            continue
        text, box, members = out[i]
        if SENTENCE_END.search(texts[members[-1]].text):
            continue  # the last line of a sentence ("... by three rotations?") ends there; no label runs on under it
        last = texts[members[-1]].bounds
        for j in caps:
            b = texts[j].bounds
            if j in members or j not in out or len(out[j][2]) > 1:
                continue
            if _stacked(last, b):
                out[i] = (f"{text} {texts[j].text.strip()}", box.union(b), [*members, j])
                del out[j]
                break
    return out


def caption_stacks(texts: list[TextLine]) -> list[tuple[str, Box, list[int]]]:
    """Every caption among read lines (stacked lines as one): its words, box and line indices."""
    return list(_stack_captions(texts, [i for i, t in enumerate(texts) if _is_caption(t.text)]).values())


def _cost(cap: Box, val: Box, between: list[Box], width: int, line_h: float) -> float | None:
    """How far (in the value's heights) a value sits from a caption, by layout: under it, right of it on its row with
    nothing between, over it, or left of it; None when they do not read as one fact. `line_h` is the height of the
    caption's lines (a stacked caption is taller than any number under it)."""
    h = val.height
    if h < SPECK * line_h:  # a speck beside a caption, not the number it captions
        return None
    gap_down, gap_up = val.y0 - cap.y1, cap.y0 - val.y1
    if _same_column(cap, val) and -0.5 * min(h, cap.height) <= gap_down <= VALUE_UNDER * max(h, cap.height):
        return max(0.0, gap_down) / h + ABOVE_COST
    if _same_row(cap, val):
        lo, hi = (cap, val) if cap.x1 <= val.x0 + OVERLAP * h else (val, cap)
        gap = hi.x0 - lo.x1
        if -OVERLAP * h <= gap <= ROW_REACH * width and not any(
                lo.x1 <= o.center[0] <= hi.x0 and o.y0 < lo.center[1] < o.y1 for o in between):
            return max(0.0, gap) / h / 4 + (0.0 if lo is cap else RIGHT_COST)
    if _same_column(cap, val) and -0.5 * min(h, cap.height) <= gap_up <= 1.0 * max(h, cap.height):
        return max(0.0, gap_up) / h + BELOW_COST
    return None


def is_bare_number(text: str) -> bool:
    """A number alone on its line, not a signed change and not a cap ("/1200")."""
    s = text.strip()
    return bool(NUMBER_LINE.match(s)) and not GAIN.match(s) and not CAP_TAIL.match(s)


def capped(num: HasBox, cap: HasBox) -> bool:
    """`cap` ("/1200") is the cap of the number `num`: printed just under it, or right after it on its row."""
    h, ch = num.y1 - num.y0, cap.y1 - cap.y0
    under = abs(cap.y0 - num.y1) <= 0.5 * h and min(num.x1, cap.x1) > max(num.x0, cap.x0)
    row = abs((num.y0 + num.y1) / 2 - (cap.y0 + cap.y1) / 2) < 0.5 * max(h, ch)
    return under or (row and -CAP_OVERLAP * h <= cap.x0 - num.x1 <= 0.5 * h)


def _numbers(texts: list[TextLine], used: set[int]) -> dict[int, tuple[str, Box]]:
    """Lines that are a number, each with its cap when printed just under or after it ("434" "/1200")."""
    nums = {i: (_value(t.text), t.bounds) for i, t in enumerate(texts) if is_bare_number(t.text)}
    for j, t in enumerate(texts):
        if not CAP_TAIL.match(t.text.strip()):
            continue
        tb = t.bounds
        for i, (v, b) in sorted(nums.items(), key=lambda kv: abs(kv[1][1].center[0] - tb.center[0])):
            if "/" not in v and capped(b, tb):
                nums[i] = (v + _value(t.text), b.union(tb))
                used.add(j)
                break
    return nums


def _cut(b: Box, at: int, chars: int) -> int:
    """The x where character `at` of a line's `chars` starts, inside its box (the box shared by characters)."""
    return min(b.x1 - 1, max(b.x0 + 1, b.x0 + round(b.width * at / chars)))


def _pieces(texts: list[TextLine]) -> tuple[list[TextLine], list[int]]:
    """The lines with a bracketed number unwrapped ("(+ 5)"), a value merged with its change ("0+17") cut in two
    (the box shared by characters) and a one-letter icon cut off its number ("F*193"); and for each piece the
    index of the line it came from."""
    out: list[TextLine] = []
    origin: list[int] = []
    for i, t in enumerate(texts):
        s = t.text.strip()
        if (m := MERGED.match(s)) is not None:
            b = t.bounds
            cut = _cut(b, m.end("a"), len(s))
            out += [t.model_copy(update={"text": m["a"], "bounds": Box(x0=b.x0, y0=b.y0, x1=cut, y1=b.y1)}),
                    t.model_copy(update={"text": m["b"], "bounds": Box(x0=cut, y0=b.y0, x1=b.x1, y1=b.y1)})]
            origin += [i, i]
            continue
        if (m := ICON_LETTER_NUMBER.match(s)) is not None:
            b = t.bounds
            cut = _cut(b, m.start("b"), len(s))
            out.append(t.model_copy(update={"text": m["b"], "bounds": Box(x0=cut, y0=b.y0, x1=b.x1, y1=b.y1)}))
            origin.append(i)
            continue
        if (m := BRACKETED.match(s)) is not None and m.group(1) != s:
            t = t.model_copy(update={"text": m.group(1)})
        out.append(t)
        origin.append(i)
    return out, origin


def _pairs(nums: dict[int, tuple[str, Box]], caps: dict[int, tuple[str, Box, list[int]]], boxes: list[Box],
           width: int) -> list[tuple[int, int]]:
    """(number, caption) pairs by layout (`_cost`), nearest first, each number and caption used once."""
    ranked = sorted(
        (cost, i, c)
        for i, (_v, vb) in nums.items() for c, (_text, cb, members) in caps.items()
        if (cost := _cost(cb, vb, [b for k, b in enumerate(boxes) if k != i and k not in members], width,
                          min(boxes[k].height for k in members))) is not None
    )
    done_v: set[int] = set()
    done_c: set[int] = set()
    out = []
    for _, i, c in ranked:
        if i not in done_v and c not in done_c:
            out.append((i, c))
            done_v.add(i)
            done_c.add(c)
    return out


def _changed(b: Box, anchors: list[tuple[str, Box]]) -> str | None:
    """The caption whose value a signed number sits just under (in its column) or just after (on its row)."""
    best: tuple[float, str] | None = None
    for caption, vb in anchors:
        h = vb.height
        under = b.y0 - vb.y1
        after = b.x0 - vb.x1
        if _same_column(vb, b) and -OVERLAP * h <= under <= UNDER_GAP * h:
            d = max(0.0, under) / h
        elif _same_row(vb, b) and -OVERLAP * h <= after <= 1.0 * h:
            d = max(0.0, after) / h
        else:
            continue
        if best is None or d < best[0]:
            best = (d, caption)
    return best[1] if best else None


def read_values(texts: list[TextLine], width: int = 0) -> tuple[list[CaptionedValue], set[int]]:
    """The captioned values and gains among read lines, and the indices of the lines they used up."""
    pieces, origin = _pieces(texts)
    values, used = _read(pieces, width or max((t.bounds.x1 for t in texts), default=0))
    return values, {origin[k] for k in used}


def _read(texts: list[TextLine], width: int) -> tuple[list[CaptionedValue], set[int]]:
    """A signed number with a caption just under it is that caption's gain; a line that is words and a number is
    a fact by itself; a number line (with its cap) joins the nearest caption by layout (`_cost`), each caption and
    number used once, nearest pairs first; a signed number left over just under or after a value is its caption's
    change (a gain), else it is the value of a caption left over (a bonus "+0" under its name)."""
    out: list[CaptionedValue] = []
    used: set[int] = set()
    for i, t in enumerate(texts):
        if GAIN.match(t.text.strip()):
            cap = _caption_under(t, texts)
            if cap is not None:
                out.append(CaptionedValue(caption=caption_word(cap), value=_value(t.text), kind="gain",
                                          bounds=t.bounds))
                used.add(i)
    nums = _numbers(texts, used)
    caps = dict(enumerate(caption_stacks(texts)))
    boxes = [t.bounds for t in texts]
    anchors: list[tuple[str, Box]] = []  # (caption, the value's own box)

    def join(pairs: list[tuple[int, int]], numbers: dict[int, tuple[str, Box]]) -> None:
        for i, c in pairs:
            text, cb, members = caps.pop(c)
            value, vb = numbers[i]
            out.append(CaptionedValue(caption=text, value=value, bounds=cb.union(vb)))
            anchors.append((text, vb))
            used.update([i, *members])

    join(_pairs(nums, caps, boxes, width), nums)
    for i, t in enumerate(texts):
        if i in used or i in nums or GAIN.match(t.text.strip()):
            continue
        fact = fact_of(t.text)
        if fact is not None:
            caption, box = fact[0], t.bounds
            value = fact[1]
            if FACT_AFTER.match(t.text.strip()):  # the number leads the label's second line: its first line is over it
                over = [c for c, (_text, cb, members) in caps.items()
                        if len(members) == 1 and _stacked(cb, t.bounds, NUMBER_FIRST_MOST)]
                if over:
                    text, cb, members = caps.pop(over[0])
                    caption, box = f"{text} {caption}", cb.union(box)
                    used.update(members)
            elif len(caption) <= SHORT_WORD:  # "Lvl 1" under a caption left without a value: that caption's value
                over = [c for c, (_text, cb, _m) in caps.items() if _same_column(cb, t.bounds)
                        and -OVERLAP * t.bounds.height <= t.bounds.y0 - cb.y1 <= UNDER_GAP * t.bounds.height]
                if over:
                    text, cb, members = caps.pop(over[0])
                    caption, value, box = text, " ".join(t.text.split()), cb.union(box)
                    used.update(members)
            out.append(CaptionedValue(caption=caption, value=value, bounds=box))
            anchors.append((caption, t.bounds))
            used.add(i)
    signed = {i: (_value(t.text), t.bounds) for i, t in enumerate(texts)
              if i not in used and GAIN.match(t.text.strip())}
    for i, (change, b) in sorted(signed.items(), key=lambda kv: (kv[1][1].y0, kv[1][1].x0)):
        owner = _changed(b, anchors)
        if owner is not None:
            out.append(CaptionedValue(caption=owner, value=change, kind="gain", bounds=b))
            used.add(i)
            del signed[i]
    join(_pairs(signed, caps, boxes, width), signed)
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


def _over_its_gain(g: CaptionedValue, gains: list[CaptionedValue]) -> bool:
    """`g` is printed over another gain of its caption, in that gain's column (a bonus over the training's gain)."""
    return any(o is not g and o.caption == g.caption and _same_column(o.bounds, g.bounds)
               and o.bounds.y0 >= g.bounds.y1 - 0.5 * o.bounds.height for o in gains)


def keyed(values: list[CaptionedValue], kind: str) -> dict[str, str]:
    """caption -> value (or gain) in reading order, a caption seen again numbered `#2`, `#3`... top down; but a
    gain printed over another gain of its caption is named after it (the one nearest the caption is its own)."""
    mine = sorted((v for v in values if v.kind == kind), key=lambda v: (v.bounds.y0, v.bounds.x0))
    naming = sorted(mine, key=lambda v: kind == "gain" and _over_its_gain(v, mine))  # stable: reading order else
    names = unique_keys((v.caption, v) for v in naming)
    by_value = {id(v): name for name, v in names.items()}
    return {by_value[id(v)]: v.value for v in mine}


def boxes_of(values: list[CaptionedValue]) -> set[tuple[int, int, int, int]]:
    return {(v.bounds.x0, v.bounds.y0, v.bounds.x1, v.bounds.y1) for v in values}


def box_key(b: Box) -> tuple[int, int, int, int]:
    return (b.x0, b.y0, b.x1, b.y1)
