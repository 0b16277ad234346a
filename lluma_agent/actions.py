"""Turn an input tool call into one device action, using the current VisionOutput's boxes.

Planning is pure (testable without a device); `execute` is the only place that touches the phone.
An unknown or ambiguous button name is an error listing the candidates, and nothing is tapped.
"""

from __future__ import annotations

import re
from typing import Literal, Protocol

from pydantic import BaseModel
from rapidfuzz import fuzz, process

from lluma_vision.models import Box, Button, VisionOutput

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
    box: Box | None = None  # tap: where inside; swipe: the scrollable region
    direction: Literal["up", "down"] | None = None
    key: str | None = None
    note: str = ""


class ActionDone(BaseModel):
    planned: PlannedAction
    point: tuple[int, int] | None = None
    swipe: tuple[int, int, int, int] | None = None

    def describe(self) -> str:
        p = self.planned
        if p.kind == "tap" and self.point:
            return f"tapped '{p.target}' at ({self.point[0]},{self.point[1]})"
        if p.kind == "swipe" and self.swipe:
            x0, y0, x1, y1 = self.swipe
            return f"swiped ({x0},{y0})->({x1},{y1}) to scroll {p.direction}"
        return f"sent {p.key}"

    def brief(self) -> str:
        """What was done, in a few words, for history."""
        p = self.planned
        if p.kind == "swipe":
            return f"scrolled {p.direction}"
        return f"pressed {p.target}" if p.tool == "pressButton" else p.tool


class DeviceLike(Protocol):
    def tap(self, box: Box) -> tuple[int, int]: ...
    def scroll(self, region: Box, direction: Literal["up", "down"]) -> tuple[int, int, int, int]: ...
    def back(self) -> None: ...


def _norm(s: str) -> str:
    return re.sub(r"[^0-9a-z#]+", "", s.casefold())


def _candidates(buttons: list[Button], limit: int = 12) -> str:
    names = [b.name for b in buttons[:limit]]
    more = f" (+{len(buttons) - limit} more)" if len(buttons) > limit else ""
    return ", ".join(repr(n) for n in names) + more if names else "(no buttons on this screen)"


def resolve_button(name: str, buttons: list[Button]) -> Button:
    """Exact name, then the same name ignoring case/spacing/punctuation, then a clear fuzzy winner."""
    for b in buttons:
        if b.name == name:
            return b
    wanted = _norm(name)
    same = [b for b in buttons if _norm(b.name) == wanted]
    if len(same) == 1:
        return same[0]
    if len(same) > 1:
        raise ActionError(f"button name {name!r} is ambiguous: {_candidates(same)}; use the exact name")
    if wanted:
        scored = process.extract(name, {i: b.name for i, b in enumerate(buttons)}, scorer=fuzz.WRatio, limit=2)
        if scored and scored[0][1] >= FUZZY_MIN:
            if len(scored) == 1 or scored[0][1] - scored[1][1] >= FUZZY_MARGIN:
                return buttons[scored[0][2]]
            pair = [buttons[scored[0][2]], buttons[scored[1][2]]]
            raise ActionError(f"button name {name!r} is ambiguous: {_candidates(pair)}; use the exact name")
    raise ActionError(f"no button named {name!r} on this screen; buttons: {_candidates(buttons)}")


def _dialogue_box(vision: VisionOutput) -> Box:
    """Where to tap to advance dialogue: the text lines in the lower part, away from any button."""
    w, h = vision.width, vision.height
    lines = [t.bounds for t in vision.texts if t.bounds.center[1] > h * 0.45]
    box = None
    for b in lines:
        box = b if box is None else box.union(b)
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


def plan(tool: str, args: dict, vision: VisionOutput) -> PlannedAction:
    if tool == "pressButton":
        b = resolve_button(str(args.get("name", "")), vision.buttons)
        return PlannedAction(tool=tool, kind="tap", target=b.name, box=b.bounds)
    if tool == "advanceDialogue":
        return PlannedAction(tool=tool, kind="tap", target="dialogue box", box=_dialogue_box(vision))
    if tool == "back":
        for b in vision.buttons:
            if _norm(b.name) in BACK_NAMES:
                return PlannedAction(tool=tool, kind="tap", target=b.name, box=b.bounds)
        return PlannedAction(tool=tool, kind="key", key="KEYCODE_BACK", target="back key")
    if tool == "confirm":
        for wanted in CONFIRM_NAMES:
            for b in sorted(vision.buttons, key=lambda b: -b.bounds.y0):
                if _norm(b.name) == wanted:
                    return PlannedAction(tool=tool, kind="tap", target=b.name, box=b.bounds)
        raise ActionError(f"no confirming button (OK/Confirm/Yes/Next...) here; buttons: {_candidates(vision.buttons)}")
    if tool in ("scrollUp", "scrollDown"):
        direction: Literal["up", "down"] = "up" if tool == "scrollUp" else "down"
        note = "" if vision.scrollbar else "no scrollbar visible; swiped the middle of the screen"
        return PlannedAction(tool=tool, kind="swipe", box=_scroll_region(vision), direction=direction, note=note)
    raise ActionError(f"{tool} is not an input tool")


def execute(action: PlannedAction, device: DeviceLike) -> ActionDone:
    if action.kind == "tap":
        assert action.box is not None
        return ActionDone(planned=action, point=device.tap(action.box))
    if action.kind == "swipe":
        assert action.box is not None and action.direction is not None
        return ActionDone(planned=action, swipe=tuple(device.scroll(action.box, action.direction)))
    device.back()
    return ActionDone(planned=action)
