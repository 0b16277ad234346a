"""A fact's caption as the game prints it: a caption read a letter or two wrong ("tun(s) left", "Staminai",
"Sleill Pts", a gauge's "Enegy") is given in the game's own words, so the checks, the survey and the knowledge rules
that look for "Failure", "turn(s) left", "Energy" or a stat's name find it, and the model reads the word the game shows.

The words are FACTS' grammar of the career screens: the energy bar captioned "Energy", the stats' row, "Failure N%",
"N turn(s) left", "Skill Pts" over a number, "Skill Points N" on the Learn list. A caption is mended only when it reads
like one of them; every other caption (an event's, a list's, a scenario's) stays as read.
"""

from __future__ import annotations

from typing import Protocol

from rapidfuzz import fuzz, process

from lluma_vision.models import CaptionedValue

PRINTED = ("Energy", "Speed", "Stamina", "Power", "Guts", "Wit", "Failure", "turn(s) left", "Skill Pts",
           "Skill Points")
AFTER = " after"  # a training screen's energy bar gives a second gauge, "<caption> after" (pixels/gauges.py)
# rapidfuzz ratio over the casefolded caption. Chosen on screens2 with screens held out (the values' and the gauges'
# captions read at 0.4x-2x): screens2's misreads ("Staminai", "Skeill Pts", "Powcr", "tum(s) left", "Erergy") 83 and
# more, its other captions 74 at most ("Staminai Lvl", a tile's level; "Speed Lvl" 71): half-way, 79. Held out on
# screens: 52 captions mended, every one a misread ("tun(s) left" 96, "Enegy" 91, "turn(shleft" 87, "Sleill Pts" 84,
# "Eneigy" 83, "Spued" 80), "turn/shleft" 78 and "EneEy" 73 left as read; its other captions 62 at most ("Skip").
LIKE = 79
# a read this short is too short to tell a misread from another word ("TW" reads 80 like "Wit"): the game's
# shortest caption, "Wit", must be read as printed
MIN_CHARS = 4
# ...and a misread is about as long as the word (the measured ones a character longer or shorter at most): a
# shorter or longer caption that shares its letters is another word ("Skills", the career's end count of skills
# learned, reads 80 like "Skill Pts"; "Staminai Lvl" 74 like "Stamina")
LENGTH_OFF = 2
_WORDS = {w.casefold(): w for w in PRINTED}


def as_printed(caption: str) -> str:
    """`caption` in the game's words when it reads like one of PRINTED, else as read."""
    key = caption.strip().casefold()
    if key in _WORDS or len(key) < MIN_CHARS:
        return caption
    near = [w for w in _WORDS if abs(len(w) - len(key)) <= LENGTH_OFF]
    best = process.extractOne(key, near, scorer=fuzz.ratio, score_cutoff=LIKE)
    return _WORDS[best[0]] if best is not None else caption


def printed(values: list[CaptionedValue]) -> list[CaptionedValue]:
    return [v if (c := as_printed(v.caption)) == v.caption else v.model_copy(update={"caption": c}) for v in values]


def gauge_label(label: str) -> str:
    """A gauge's caption as printed, its "after" twin's too."""
    if label.endswith(AFTER):
        return as_printed(label[:-len(AFTER)]) + AFTER
    return as_printed(label)


class _Values(Protocol):
    """What the captions stage reads and fills of the reading (reading.Reading)."""

    values: list[CaptionedValue]


def captions_stage(r: _Values) -> None:
    """The values' captions as printed (the gauges' are given so in the output: the reading's readout rule matches a
    gauge's caption line by the words it read)."""
    r.values = printed(r.values)
