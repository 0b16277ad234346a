"""The `text` family: what the words of a block say, whatever is drawn around them.

Numbers, level tags and words of fewer than two letters are never buttons; a block with no shape around it
is a short label (text, unless another rule finds its shape, card or row) or prose; paragraphs, long texts
with no frame and stats ("Energy -20", "Turn 1/24") are at most text whatever their shape.
"""

from __future__ import annotations

import re

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.pixels.layout import ANNOTATION, NUMERIC, STAT, Block, sentence

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 0.5x-1x (1.5x +17), held out screens flat 0.5x-1.5x;
#   1.5x best on screens2, held out +0; kept 2
MIN_LETTERS = 2  # a block with fewer letters is a mark or a number, not a label
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 3
SHORT_WORDS = 3  # a short label: at most this many words...
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 24
SHORT_CHARS = 24  # ...and characters, on at most two lines ("Career Profile", "Start Career!")
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 1x only (0.5x +9, 1.25x -1), held out screens flat 1x only
#   (0.5x +1, 1.25x -1); 0.5x best on screens2, held out +1; kept 3
PARAGRAPH_LINES = 3  # a block of this many lines is a paragraph
# swept 0.5x-1.5x on 64 screens (61 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 9
LONG_WORDS = 9  # a text this long with no frame is prose (the longest labelled bare button has 6 words)


def _words(n: int) -> str:
    return f"{n} word" if n == 1 else f"{n} words"


def _letters(text: str) -> int:
    return len(re.sub(r"[^A-Za-z]", "", text))


def not_a_label(b: Block) -> Evidence | None:
    """A number, an annotation ("Lv 3", "12/24") or a text of fewer than two letters: never a button."""
    text = b.text.strip()
    if NUMERIC.match(text):
        return Evidence("text.number", "set", ButtonScore.PROSE, f"{text!r} reads as a number")
    if ANNOTATION.match(text):
        return Evidence("text.annotation", "set", ButtonScore.PROSE, f"{text!r} reads as a level or a counter")
    if _letters(text) < MIN_LETTERS:
        return Evidence("text.no_letters", "set", ButtonScore.PROSE, f"{text!r} has fewer than {MIN_LETTERS} letters")
    return None


def bare(b: Block) -> Evidence:
    """A block no shape encloses: a short label (text for now: a card, a closed shape or a row may make it a
    button) or prose."""
    text = b.text.strip()
    words = len(text.split())
    if words <= SHORT_WORDS and len(b.lines) <= 2 and len(text) <= SHORT_CHARS and not sentence(text, words):
        return Evidence("text.short_label", "set", ButtonScore.SHORT_LABEL, f"short label ({_words(words)}), no plate")
    return Evidence("text.prose", "set", ButtonScore.PROSE, f"{_words(words)} with no plate around them")


def not_a_button(b: Block) -> Evidence | None:
    """Paragraphs, long unframed texts and stats are at most text, whatever their shape."""
    text = b.text.strip()
    words = len(text.split())
    if len(b.lines) >= PARAGRAPH_LINES:
        return Evidence("text.paragraph", "cap", ButtonScore.DOUBT, f"{len(b.lines)} lines: a paragraph")
    if words >= LONG_WORDS and b.frame is None:
        return Evidence("text.long", "cap", ButtonScore.DOUBT, f"{_words(words)} with no frame")
    if STAT.search(text):
        return Evidence("text.stat", "cap", ButtonScore.DOUBT, f"{text!r} reads as a stat")
    return None
