"""The guard below the model: what is never done while unattended, whatever the model (or the ladder) plans.

- `guard.never_press`: a tap that would hit a listed button is refused, nothing is sent, and the model is told
  why (an error result). A tap hits what it names (pressButton's target) and every button or read text whose box
  holds the tap's box centre; names match ignoring case, spaces and punctuation, and a longer label that holds the
  listed words ("Purchase Carats >") matches too; a short name (4 letters or fewer) only as whole words ("OK" is not
  in "Book"). A listed name read as a line of text (a dialog's title, such as
  "Age Confirmation") makes that screen's agreeing buttons (OK, Yes, Confirm, Next, Purchase, Buy, ...) refused
  too; Cancel, Close and Back stay allowed, so the way out is always open. The defaults are the money and
  account buttons the bots people run refuse to press (FACTS): "Purchase Carats", "Age Confirmation",
  "Account Link".
- Screens the coordinator handles itself: "Session Error" (the account logged in elsewhere: the run ends, a person
  must look) and "Recover TP" (a career start with too little TP: cancelled and waited out unless
  `guard.tp_recovery` is `items`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lluma_agent.config import GuardConfig
from lluma_agent.tools.actions import PlannedAction
from lluma_vision.models import Box, VisionOutput

SESSION_ERROR = "Session Error"
RECOVER_TP = "Recover TP"
CANCEL_NAMES = ("cancel", "close", "no", "back")  # what leaves the Recover TP dialog without spending anything
WHOLE_WORDS_UP_TO = 4  # letters: "OK", "Yes", "Buy", "Link" hide inside longer words; "Carats" and longer do not
AGREE_NAMES = ("ok", "yes", "confirm", "next", "done", "continue", "agree", "purchase", "buy", "link", "accept")


def norm(s: str) -> str:
    return re.sub(r"[\W_]+", "", s.casefold())


def listed(name: str) -> Callable[[str], bool]:
    """Whether a label holds `name`. Ignoring case, spaces and punctuation, as a part of the label ("Purchase Carats >",
    "PurchaseCarats": OCR runs words together; a guard errs on the side of refusing); a short name, which hides
    inside other words ("OK" in "Book", "Buy" in "Buyer"), only as whole words."""
    want = norm(name)
    if len(want) > WHOLE_WORDS_UP_TO:
        return lambda label: want in norm(label)
    words = re.findall(r"[^\W_]+", name.casefold())
    whole = re.compile(r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![^\W_])")
    return lambda label: whole.search(label.casefold()) is not None


def _labels(vision: VisionOutput) -> list[tuple[str, Box]]:
    return [(b.name, b.bounds) for b in vision.buttons] + [(t.text, t.bounds) for t in vision.texts]


def shows(vision: VisionOutput, words: str) -> bool:
    """A button or read text line on the screen is `words` (a title such as "Session Error")."""
    want = norm(words)
    return any(norm(label) == want for label, _ in _labels(vision))


class Guard:
    def __init__(self, cfg: GuardConfig) -> None:
        self.cfg = cfg
        self.never = [(name, listed(name)) for name in cfg.never_press if norm(name)]

    def _listed(self, label: str) -> str:
        return next((name for name, holds in self.never if holds(label)), "")

    def refuses(self, planned: PlannedAction, vision: VisionOutput) -> str:
        """The listed name this action would press, or "" (only taps press anything)."""
        if planned.kind != "tap" or planned.box is None:
            return ""
        if hit := self._listed(planned.target):
            return hit
        cx, cy = planned.box.center
        under = [label for label, box in _labels(vision) if box.contains(cx, cy)]
        if hit := next((hit for label in under if (hit := self._listed(label))), ""):
            return hit
        if any(norm(label) in AGREE_NAMES for label in [planned.target, *under]):
            return next((hit for t in vision.texts if (hit := self._listed(t.text))), "")  # a guarded dialog's OK
        return ""

    @staticmethod
    def refusal(planned: PlannedAction, hit: str) -> str:
        return (f"not executed: {planned.label} would press {hit!r}, which LLuMa never presses while unattended "
                f"(guard.never_press: money or the account); choose another way")

    @staticmethod
    def cancel_name(vision: VisionOutput) -> str | None:
        """The button that leaves a dialog without spending (Cancel, Close, No or Back), or None."""
        for wanted in CANCEL_NAMES:
            for b in vision.buttons:
                if norm(b.name) == wanted:
                    return b.name
        return None
