"""The input tools: each turns a call into one device action, using the current VisionOutput's boxes.

Planning is pure (testable without a device); `execute` is the only place that touches the phone.
`pressButton` resolves a name against the buttons, then the read text lines (every read text is
tappable); an unknown or ambiguous name is an error listing the candidates, and nothing is tapped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process

from lluma_agent.device.protocol import InputUnknown, Phone
from lluma_agent.tools.toolkit import Args, Tool
from lluma_vision.facts.story import story_lines
from lluma_vision.models import Box, VisionOutput

CONFIRM_NAMES = ("ok", "confirm", "yes", "next", "close", "done", "finish", "start", "race", "continue")
BACK_NAMES = ("back", "return")
FUZZY_MIN = 86.0  # rapidfuzz WRatio needed for a fuzzy match
FUZZY_MARGIN = 6.0  # ...and this far ahead of the runner-up, else it is ambiguous


class ActionError(ValueError):
    """The call cannot become an action; the message (with candidates) goes back to the model."""


class PlannedAction(BaseModel):
    tool: str
    kind: Literal["tap", "swipe", "key"]
    target: str = ""  # button name, or what was tapped
    target_kind: Literal["button", "text", ""] = ""  # what `target` names, for pressButton
    box: Box | None = None  # tap: where inside; swipe: the scrollable region
    direction: Literal["up", "down"] | None = None
    key: str | None = None
    note: str = ""
    named: bool = False  # a button the model named itself in a plan's list argument (SpendGate.why's `named`)

    @property
    def label(self) -> str:
        """`pressButton(Rest)`, `scrollDown(down)`, `back(KEYCODE_BACK)`: what a person is asked about."""
        return f"{self.tool}({self.target or self.direction or self.key or ''})"


def element_of(planned: PlannedAction) -> str:
    """What a tap meant, for the simulator's on-target check: a named element or a way back ("" for a key or the
    dialogue box)."""
    return planned.target if planned.kind == "tap" and (planned.target_kind or planned.tool == "back") else ""


class ActionDone(BaseModel):
    planned: PlannedAction
    point: tuple[int, int] | None = None
    swipe: tuple[int, int, int, int] | None = None
    unknown: str = ""  # the input was sent but never answered: it may have happened (the next frame tells)


# ---- resolving a name -------------------------------------------------------------------------------
class Target(BaseModel):
    """Something `pressButton` can tap: a button, or a read text line (duplicates named `#2`, `#3`)."""

    name: str
    box: Box
    kind: Literal["button", "text"]


def _norm(s: str) -> str:
    return re.sub(r"[^0-9a-z#]+", "", s.casefold())


def _candidates(targets: list[Target], limit: int = 12) -> str:
    # a text line can be a whole dialogue sentence: its start is enough to name it
    names = [t.name if t.kind == "button" or len(t.name) <= 40 else t.name[:39] + "…" for t in targets[:limit]]
    more = f" (+{len(targets) - limit} more)" if len(targets) > limit else ""
    return ", ".join(repr(n) for n in names) + more


def targets(vision: VisionOutput) -> tuple[list[Target], list[Target]]:
    """The screen's buttons, and its text lines named uniquely like buttons ("Speed", "Speed#2"...)."""
    buttons = [Target(name=b.name, box=b.bounds, kind="button") for b in vision.buttons]
    texts: list[Target] = []
    seen: dict[str, int] = {}
    for t in sorted(vision.texts, key=lambda t: (t.bounds.y0, t.bounds.x0)):
        text = t.text.strip()
        if text:
            seen[text] = seen.get(text, 0) + 1
            name = text if seen[text] == 1 else f"{text}#{seen[text]}"
            texts.append(Target(name=name, box=t.bounds, kind="text"))
    return buttons, texts


# A read text line's box carries the recogniser's padding around its letters (on the simulator's 287 texts read
# in a tour, 0 boxes lay inside the drawn text's; their central 80% x 50% did in 258). A text has no plate to catch
# a tap near its edge, so a press aims at that core.
TEXT_CORE_X, TEXT_CORE_Y = 0.8, 0.5


def _glyph_core(box: Box) -> Box:
    """The central part of a read text's box, where its letters are."""
    dx, dy = round(box.width * (1 - TEXT_CORE_X) / 2), round(box.height * (1 - TEXT_CORE_Y) / 2)
    return Box(x0=box.x0 + dx, y0=box.y0 + dy, x1=max(box.x0 + dx + 1, box.x1 - dx),
               y1=max(box.y0 + dy + 1, box.y1 - dy))


def _ambiguous(name: str, found: list[Target]) -> ActionError:
    what = "button" if found[0].kind == "button" else "text"
    return ActionError(f"{what} name {name!r} is ambiguous: {_candidates(found)}; use the exact name")


def _exact(name: str, group: list[Target]) -> Target | None:
    return next((t for t in group if t.name == name), None)


def _normalised(name: str, group: list[Target]) -> Target | None:
    same = [t for t in group if _norm(t.name) == _norm(name)]
    if len(same) > 1:
        raise _ambiguous(name, same)
    return same[0] if same else None


def _fuzzy(name: str, group: list[Target]) -> Target | None:
    if not _norm(name):
        return None
    scored = process.extract(name, {i: t.name for i, t in enumerate(group)}, scorer=fuzz.WRatio, limit=2)
    if not scored or scored[0][1] < FUZZY_MIN:
        return None
    if len(scored) == 1 or scored[0][1] - scored[1][1] >= FUZZY_MARGIN:
        return group[scored[0][2]]
    raise _ambiguous(name, [group[scored[0][2]], group[scored[1][2]]])


RULES: tuple[Callable[[str, list[Target]], Target | None], ...] = (_exact, _normalised, _fuzzy)


def resolve(name: str, vision: VisionOutput) -> Target:
    """Exact name, then the same name ignoring case/spacing/punctuation, then a clear fuzzy winner;
    at each step a button first, then a read text line."""
    buttons, texts = targets(vision)
    for rule in RULES:
        for group in (buttons, texts):
            found = rule(name, group)
            if found is not None:
                return found
    listed = f"buttons: {_candidates(buttons)}" if buttons else "(no buttons on this screen)"
    if texts:
        listed += f"; texts: {_candidates(texts, limit=8)}"
    raise ActionError(f"no button or text named {name!r} on this screen; {listed}")


# ---- where to tap or swipe --------------------------------------------------------------------------
def _dialogue_box(vision: VisionOutput) -> Box:
    """Where to tap to advance dialogue: the story's lines in the lower part, away from any button."""
    w, h = vision.width, vision.height
    box = None
    for t in story_lines(vision):
        box = t.bounds if box is None else box.union(t.bounds)
    if box is None:
        box = Box(x0=int(w * 0.2), y0=int(h * 0.68), x1=int(w * 0.8), y1=int(h * 0.78))
    cx, cy = box.center
    if any(b.bounds.contains(cx, cy) for b in vision.buttons):
        # The text box centre is a button: fall back to a thin strip just above the text.
        box = Box(x0=box.x0, y0=max(0, box.y0 - 40), x1=box.x1, y1=max(box.y0, 1))
    return box


def _scroll_region(vision: VisionOutput) -> Box:
    w, h = vision.width, vision.height
    if vision.scrollbar is not None:
        t = vision.scrollbar.track
        return Box(x0=int(w * 0.15), y0=t.y0, x1=max(int(w * 0.15) + 1, t.x0 - 10), y1=t.y1)
    return Box(x0=int(w * 0.15), y0=int(h * 0.3), x1=int(w * 0.85), y1=int(h * 0.7))


def execute(action: PlannedAction, device: Phone) -> ActionDone:
    """Send the action. An input whose answer never came is done with `unknown` set, not an error: adb
    cannot take a sent command back, so it may still happen and must be logged as sent."""
    try:
        if action.kind == "tap":
            assert action.box is not None
            return ActionDone(planned=action, point=device.tap(action.box))
        if action.kind == "swipe":
            assert action.box is not None and action.direction is not None
            return ActionDone(planned=action, swipe=tuple(device.scroll(action.box, action.direction)))
        device.back()
        return ActionDone(planned=action)
    except InputUnknown as exc:
        return ActionDone(planned=action, point=exc.point, swipe=exc.swipe, unknown=str(exc))


# ---- the tools ----------------------------------------------------------------------------------------
class InputTool(Tool):
    """Plans one device action; its result (what was done, whether the screen changed) comes next turn."""

    acts = True

    def plan(self, args: Any, vision: VisionOutput) -> PlannedAction:
        raise NotImplementedError

    def describe(self, done: ActionDone) -> str:
        """The full result, before the effect: "tapped 'Rest' at (180,1350)"."""
        p = done.planned
        if p.kind == "tap" and done.point:
            what = "text " if p.target_kind == "text" else ""
            text = f"tapped {what}'{p.target}' at ({done.point[0]},{done.point[1]})"
        elif p.kind == "swipe" and done.swipe:
            x0, y0, x1, y1 = done.swipe
            text = f"swiped ({x0},{y0})->({x1},{y1}) to scroll {p.direction}"
        else:
            text = f"sent {p.key}"
        return text + (f" ({p.note})" if p.note else "")

    def brief(self, done: ActionDone) -> str:
        """What was done, in a few words, for history."""
        return self.name


class PressButtonArgs(Args):
    name: str = Field(min_length=1)


class PressButton(InputTool):
    name = "pressButton"
    args = PressButtonArgs
    description = (
        "Tap a button on the current screen by its name exactly as listed in <vision> buttons "
        "(e.g. 'Training', 'OK', 'Learn#2'), or else a line of <vision> texts by its words (the tap lands "
        "on that text). An unknown or ambiguous name taps nothing and returns the "
        "candidates. The result arrives next turn: where it tapped and whether the screen changed."
    )

    def plan(self, args: PressButtonArgs, vision: VisionOutput) -> PlannedAction:
        t = resolve(args.name, vision)
        box = _glyph_core(t.box) if t.kind == "text" else t.box
        return PlannedAction(tool=self.name, kind="tap", target=t.name, target_kind=t.kind, box=box)

    def brief(self, done: ActionDone) -> str:
        p = done.planned
        return f"pressed text '{p.target}'" if p.target_kind == "text" else f"pressed {p.target}"


class AdvanceDialogue(InputTool):
    name = "advanceDialogue"
    description = "Tap the dialogue text box to show the next line of a story/event dialogue."

    def plan(self, args: Any, vision: VisionOutput) -> PlannedAction:
        box = _dialogue_box(vision)
        lines = story_lines(vision)
        if vision.cinematic != "dialogue" and lines:
            # No story text box: the texts down there may be choices or labels whose plates reach past their read
            # text, so "the dialogue box" would tap one of them (the soak tapped an event's choice so, twice).
            cx, cy = box.center
            hit = min(lines, key=lambda t: abs(t.bounds.center[1] - cy) + abs(t.bounds.center[0] - cx)).text
            raise ActionError(f"no dialogue on this screen: the text box tap would land on the text "
                              f"{hit!r}; press it by name (pressButton) if that is what you mean")
        return PlannedAction(tool=self.name, kind="tap", target="dialogue box", box=box)


class Back(InputTool):
    name = "back"
    description = "Go back: taps a visible 'Back' button, otherwise sends the Android back key."

    def plan(self, args: Any, vision: VisionOutput) -> PlannedAction:
        for b in vision.buttons:
            if _norm(b.name) in BACK_NAMES:
                return PlannedAction(tool=self.name, kind="tap", target=b.name, box=b.bounds)
        return PlannedAction(tool=self.name, kind="key", key="KEYCODE_BACK", target="back key")


class Confirm(InputTool):
    name = "confirm"
    description = "Tap the confirming button of a dialog (OK, Confirm, Yes, Next, Close...)."

    def plan(self, args: Any, vision: VisionOutput) -> PlannedAction:
        for wanted in CONFIRM_NAMES:
            for b in sorted(vision.buttons, key=lambda b: -b.bounds.y0):
                if _norm(b.name) == wanted:
                    return PlannedAction(tool=self.name, kind="tap", target=b.name, box=b.bounds)
        buttons, _ = targets(vision)
        listed = _candidates(buttons) if buttons else "(no buttons on this screen)"
        raise ActionError(f"no confirming button (OK/Confirm/Yes/Next...) here; buttons: {listed}")


class Scroll(InputTool):
    direction: ClassVar[Literal["up", "down"]]

    def plan(self, args: Any, vision: VisionOutput) -> PlannedAction:
        note = "" if vision.scrollbar else "no scrollbar visible; swiped the middle of the screen"
        return PlannedAction(tool=self.name, kind="swipe", box=_scroll_region(vision), direction=self.direction,
                             note=note)

    def brief(self, done: ActionDone) -> str:
        return f"scrolled {self.direction}"


class ScrollUp(Scroll):
    name = "scrollUp"
    direction = "up"
    description = "Scroll the visible list up (towards its top). Use when <vision> scroll.up is true."


class ScrollDown(Scroll):
    name = "scrollDown"
    direction = "down"
    description = "Scroll the visible list down (towards its end). Use when <vision> scroll.down is true."


INPUT_TOOLS: list[InputTool] = [PressButton(), AdvanceDialogue(), Back(), Confirm(), ScrollUp(), ScrollDown()]
