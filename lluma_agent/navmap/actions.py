"""The canonical key of an action, and how to take it again.

One key per way a player would name the action, whatever tool sent it: a button pressed by name or by `confirm`
is `pressButton:<name>`; a read text tapped by its words is `tap:<text>`; `back`, `advanceDialogue`, `scrollUp`,
`scrollDown` are their tool's name; the coordinator's wait is `wait`. The coordinator's recovery rungs (a safe
tap, a restart) are no way out of a screen: they have no key and are never recorded.
"""

from __future__ import annotations

from typing import NamedTuple

from lluma_agent.runlog.turnlog import ActionLog
from lluma_vision.models import VisionOutput

PLAIN = ("back", "advanceDialogue", "scrollUp", "scrollDown", "wait")  # the key is the tool's name
PRESS = ("pressButton", "confirm")  # a tap on a named element


class ActionKey(NamedTuple):
    key: str  # "pressButton:Next"
    tool: str  # the tool that takes it again ("pressButton")
    args: dict[str, str]  # its input ({"name": "Next"})


def key_of(action: ActionLog, vision: VisionOutput) -> ActionKey | None:
    """The key of an action sent on the screen `vision` read, or None (not a way out of a screen)."""
    if action.tool in PLAIN:
        return ActionKey(action.tool, action.tool, {})
    if action.tool in PRESS and action.target:
        button = any(b.name == action.target for b in vision.buttons)
        prefix = "pressButton" if button else "tap"
        return ActionKey(f"{prefix}:{action.target}", "pressButton", {"name": action.target})
    return None


def readable(key: str) -> str:
    """How the "where you are" line names an action: `Next`, `'Tap to Start'`, `back`."""
    kind, _, name = key.partition(":")
    if kind == "pressButton":
        return name
    if kind == "tap":
        return repr(name)
    return key
