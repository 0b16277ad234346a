"""The spend gate: the one check every press the coordinator makes alone goes through (issue 51).

The coordinator presses on its own in many places: a routine pass, a goTo or plan step, a survey's raise and its
commit, a standing event choice, the stuck ladder's forced action and its rungs (back, a safe tap), the cancel of
"Recover TP". A spend is never one of them: it stays the model's choice, through the guard (tools/guard.py).

- `SpendGate.why(out)`: whether a screen may spend, from the reading: what it asks to spend (`screen.spends`,
  lluma_vision/facts/spends.py: a verb of giving up with what it gives up, a count going down, a price), a
  `loop.never_autopilot` word in its title ("Learn", "Shop", "Try Again"), or one of a person's own
  `loop.spend_words` anywhere it shows. The coordinator's own choices (a routine pass, a walk, a plan, a survey)
  press nothing on such a screen.
- `SpendGate.refuses(planned, out)`: the input the coordinator sends alone (the actor asks it for every one of
  them, the ladder's included): on a screen that may spend, a tap whose box touches anything read but a way out
  (Cancel, Close, No, Back) is refused: the device lands anywhere in the box, so the whole box counts. A key (the
  back key) and a swipe press no button; a tap on empty ground is none either. A button the model named in a plan's
  list argument (`PlannedAction.named`: the skill list's "+" it chose) is its own choice: the title's word alone
  does not refuse it.
"""

from __future__ import annotations

import re

from lluma_agent.config import LoopConfig
from lluma_agent.tools.actions import PlannedAction
from lluma_vision.facts.screen import identify
from lluma_vision.models import Box, VisionOutput

WAYS_OUT = frozenset({"cancel", "close", "no", "back", "return"})  # leave a dialog, spending nothing


def words(text: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", text.casefold()) if w]


def never_word(label: str, never: list[list[str]], plural: bool = True) -> str:
    """The phrase (as words) of `never` that `label` holds, or "". `plural`: its last word with an "s" too (the
    never_autopilot titles and buttons: "Skills", "Carats"); a person's spend words match as written."""
    said = words(label)
    for phrase in never:
        k = len(phrase)
        for i in range(len(said) - k + 1):
            got = said[i:i + k]
            if got[:-1] == phrase[:-1] and (got[-1] == phrase[-1] or plural and got[-1] == phrase[-1] + "s"):
                return " ".join(phrase)
    return ""


def _touches(a: Box, b: Box) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


class SpendGate:
    def __init__(self, cfg: LoopConfig) -> None:
        self.never = [words(w) for w in cfg.never_autopilot]
        self.extra = [words(w) for w in cfg.spend_words]

    def never_in(self, label: str) -> str:
        """The loop.never_autopilot phrase `label` holds (a plural too), or ""."""
        return never_word(label, self.never)

    def why(self, out: VisionOutput, named: bool = False) -> str:
        """Why the screen may spend something ("" when nothing): what the reading says it asks to spend, a
        never_autopilot word in its title, or a person's spend word in a text or a button it shows (not a tab).
        `named`: the press is of a button the model named itself (a plan's list argument, as the skill list's "+"
        it chose): the title's word alone does not stop it; what the screen asks to spend and a person's words do."""
        screen = out.screen or identify(out)  # the reading's (a fake's reading comes without one)
        if (spends := screen.spends) is not None:
            what = ", ".join(str(v) for v in (spends.amount, spends.item) if v is not None)
            return f"it asks to spend: {spends.words!r}" + (f" ({what})" if what else "")
        if not named and (word := never_word(screen.name, self.never)):
            return f"its title {screen.name!r} holds {word!r}"
        shown = [*(b.name for b in out.buttons if b.region != "menu"), *(t.text for t in out.texts)]
        return next((f"{label!r} holds {word!r}" for label in shown
                     if (word := never_word(label, self.extra, plural=False))), "")

    def refuses(self, planned: PlannedAction, out: VisionOutput) -> str:
        """Why the coordinator may not send `planned` alone on this screen ("" when it may): on a screen that may
        spend, a tap whose box touches a button or a text that is no way out."""
        if planned.kind != "tap" or planned.box is None or not (why := self.why(out, planned.named)):
            return ""
        box = planned.box
        hit = [b.name for b in out.buttons if _touches(box, b.bounds) and "".join(words(b.name.split("#")[0]))
               not in WAYS_OUT] + [t.text for t in out.texts if _touches(box, t.bounds)
                                    and "".join(words(t.text)) not in WAYS_OUT]
        if not hit:
            return ""
        return (f"not sent: {planned.label} could land on {hit[0]!r} and the screen may spend something ({why}); "
                "a spend is the model's choice")
