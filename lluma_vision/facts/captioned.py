"""Captioned values read off the single OCR lines, with the numbers OCR missed re-read (`reread`).

Blocks may have stacked a caption, its number and the next row's words into one text, so values are read from the
lines themselves (`values.read_values`, device pixels, as the output shows them); a caption left without a value,
a cap without its number, a row's missing gain, is looked for again in the working image (`reread`).
"""

from __future__ import annotations

from lluma_vision.facts.reread import (
    CAPTION_SPECS,
    SHORT_CAPTION,
    badge_words,
    gains_like_siblings,
    numbers_over_caps,
    reread,
    stacked_gains,
)
from lluma_vision.facts.values import (
    CAP_TAIL,
    box_key,
    boxes_of,
    caption_stacks,
    caption_text,
    is_bare_number,
    read_values,
    split_words,
)
from lluma_vision.geometry import Rect
from lluma_vision.models import CaptionedValue, TextLine
from lluma_vision.pixels.ocr import Line, Work


def line_values(work: Work, lines: list[Line]) -> tuple[list[CaptionedValue], set[int]]:
    """Captioned values from the single OCR lines (blocks may have stacked a caption, its number and the next
    row's words into one text), in device pixels; and the id()s of the lines joined across lines (not read text).
    A bare number's badge word (`badge_words`) joins the lines as a caption of its own."""
    lines = lines + numbers_over_caps(work, lines)
    lines = lines + badge_words(work, [ln for ln in lines if is_bare_number(ln.text)],
                                [ln for ln in lines if not CAP_TAIL.match(ln.text.strip())])  # a cap is the number's
    texts = [TextLine(text=split_words(ln.text), bounds=work.to_device(ln),
                      confidence=round(ln.conf, 3)) for ln in lines]
    values, used = read_values(texts, work.device_width)
    # a caption left without a value may have one OCR missed: over it, or (a two-line caption) just left of it, or
    # (an abbreviation on one line) right of it at the other end of its cell;
    # a stack may have taken the next plate's words too ("turn(s) left" over "Support Card Event"), so its top line
    # is tried alone after the whole
    stacks = [(text, members) for text, _box, members in caption_stacks(texts) if not used & set(members)]
    for beside in (True, False):
        tries = [(t, m) for t, m in stacks if len(m) > 1] if beside else [
            (t, m) for t, m in stacks if len(m) == 1] + [
            (caption_text(texts[m[0]].text), m[:1]) for _t, m in stacks if len(m) > 1 and not used & set(m)]
        for text, members in tries:
            if used & set(members):
                continue  # taken by an earlier try
            box = Rect(min(lines[i].x0 for i in members), min(lines[i].y0 for i in members),
                       max(lines[i].x1 for i in members), max(lines[i].y1 for i in members))
            short = len(members) == 1 and len(text.replace(" ", "")) <= SHORT_CAPTION
            found = reread(work, CAPTION_SPECS[beside, short], box, lines)
            if found is not None:
                values.append(CaptionedValue(caption=text, value=found.text,
                                             bounds=work.to_device(box.union(found.band))))
                used.update(members)
    values += gains_like_siblings(work, values, lines)
    values += stacked_gains(work, [v for v in values if v.kind == "gain"], lines)
    # a line that is a fact or a gain by itself stays read text too (a training's "Fail 12%" is its button's meta)
    whole = boxes_of(values)
    return values, {id(lines[i]) for i in used if box_key(texts[i].bounds) not in whole}
