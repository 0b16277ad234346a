"""Button evidence: what a rule says about a block of text, and the trace the resolver keeps of it.

A rule never writes a block. It yields `Evidence` ("at least a row cell: one of 4 alike labels across the
frame"); `resolve.py` applies each piece in its stage order and keeps it on the block as a `Step`: the evidence,
the block's score before and after, so the signed contribution (`Step.score`) is known. A block's score, frame and
tab flag are read from its steps (`layout.Block`), so the decision and its trace cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lluma_vision.geometry import Rect

Frame = Rect  # a shape around a block's text, in working pixels
How = Literal["set", "raise", "cap", "mark"]  # the score becomes the level / at least / at most it / stays as it is


class ButtonScore:
    """The one scale of "is this block tappable", 0..1: a block is a button at BUTTON or above (`is_button`).
    Every rule that judges a block moves its score to one of these steps, never sets button-ness on its own."""

    PROSE = 0.1  # numbers, annotations, prose: never a button
    DOUBT = 0.3  # text in a shape that reads as a sentence, a banner or a stat: text
    SHORT_LABEL = 0.35  # a short label with no shape around it: text, unless it titles a card
    BUTTON = 0.5  # the line between text and button
    LOOSE_PLATE = 0.55  # text in a plate that is not centred on it
    TOGGLE = 0.55  # the bare half of a toggle pair
    ROW_CELL = 0.6  # a short label in a row of equal cells (tiles, icon rows): weaker than a plate
    SHAPE = 0.6  # a short label alone in a closed shape of its own that is not a straight-edged plate (a disc)
    LIST_ROW = 0.6  # a sentence or title on one of a stack of alike plates (choice rows, list rows)
    CARD = 0.6  # the title of a list row drawn as a card, or a caption under an icon
    PLATE = 0.9  # text centred in its own plate, or a tab of the tab bar


@dataclass(frozen=True)
class Evidence:
    """One rule's word on one block: `rule` is "family.name" (rules/<family>.py), `why` says what it saw."""

    rule: str
    how: How
    level: float  # a ButtonScore step
    why: str
    frame: Frame | None = None  # the shape the rule found around the text, when it found one
    tab: bool = False  # the block is a tab of the tab bar
    meta: str = ""  # a word the block's button carries in its meta ("disabled"), when the rule marks one

    def after(self, before: float) -> float:
        """The block's score once this evidence is applied to a score of `before`."""
        if self.how == "raise":
            return max(before, self.level)
        if self.how == "cap":
            return min(before, self.level)
        if self.how == "mark":
            return before
        return self.level


@dataclass(frozen=True)
class Step:
    """Evidence as the resolver applied it: the block's score before and after."""

    evidence: Evidence
    before: float
    after: float

    @property
    def rule(self) -> str:
        return self.evidence.rule

    @property
    def score(self) -> float:
        """The signed contribution this rule made to the block's score."""
        return self.after - self.before

    def line(self) -> str:
        """`plate.centred  +0.90  text centred in a plate ...`: one line of `lluma vision --explain`."""
        return f"{self.rule:<18} {self.score:+.2f} -> {self.after:.2f}  {self.evidence.why}"
