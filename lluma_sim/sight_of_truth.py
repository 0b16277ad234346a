"""The simulated game's truth of a frame as what a perfect reader sees on it (lluma_sim.api.sight): the wiring between
the game and the API stand-in, which never imports the game. The demo hands `seer(game.truth)` to the stand-in's
VLM; the truth vision (truth_vision.py) places its buttons with the same `region_of`."""

from __future__ import annotations

from collections.abc import Callable

from lluma_sim.api.sight import Seen, SeenKind, Seer, Sight, band
from lluma_sim.game.truth import Element, GroundTruth
from lluma_vision.models import Region

ScreenTruth = Callable[[], GroundTruth]  # the game's truth of the frame being read now (SimGame.truth)
SEEN: dict[str, SeenKind] = {"button": "button", "tab": "tab", "choice": "choice", "icon": "icon"}  # text stays text
DIALOG_SCREENS = ("confirm", "menu", "settings")  # screens drawn as a dialog over the one beneath


def region_of(fy: float, element: Element | None, screen: str) -> Region:
    """Where a reader places an element: a tab on the menu bar, anything on a dialog in the dialog, else its band."""
    if element is not None and element.kind == "tab":
        return "menu"
    if screen in DIALOG_SCREENS:
        return "dialog"
    return band(fy)


def sight_of(t: GroundTruth) -> Sight | None:
    """The frame's tappable things and icons as drawn; None before the game has drawn a frame (no size)."""
    if not (t.width and t.height):
        return None
    seen = [Seen(name=e.name, kind=SEEN[e.kind], box=e.box, region=region_of(e.box.center[1] / t.height, e, t.screen),
                 meta="disabled" if not e.enabled else "selected" if e.kind == "tab" and e.name == t.selected_tab
                 else "")
            for e in t.elements if e.kind in SEEN]
    return Sight(width=t.width, height=t.height, seen=seen)


def seer(truth: ScreenTruth) -> Seer:
    """The stand-in VLM's eyes on the game: the sight of the frame being read, from the game's truth at that moment."""
    return lambda: sight_of(truth())
