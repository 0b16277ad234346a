"""What a perfect VLM would see on the image it is sent: the shape the VLM stand-in (api/vlm.py) is handed.

The stand-in never imports the game. The demo's wiring fills this from the simulated game's truth of the current
frame (lluma_sim/sight_of_truth.py); without it the stand-in reads the image's visual cues alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from lluma_vision.models import Box, Region

SeenKind = Literal["button", "tab", "choice", "icon"]


class Seen(BaseModel):
    """One thing a player could tap, as drawn: a plate with its label, a tab, an event's choice, or an icon."""

    name: str  # the label as drawn; an icon by what it shows
    kind: SeenKind
    box: Box  # the frame's pixels
    meta: str = ""  # "disabled" (greyed), "selected" (the highlighted tab)
    region: Region


class Sight(BaseModel):
    """The frame as a perfect VLM sees it: its size and every tappable thing and icon on it."""

    width: int
    height: int
    seen: list[Seen] = Field(default_factory=list)


Seer = Callable[[], Sight | None]  # the sight of the frame being read now; None when there is none to be had


def band(fy: float) -> Region:
    """The region of a point by its height (share of the frame's): the top, middle or bottom third."""
    return "top" if fy < 1 / 3 else "bottom" if fy > 2 / 3 else "middle"
