"""The `icon` family: a short label just under or over an icon (icons.py finds icons, output.py pairs them)
names it, so the label is a button spanning both, as sure as a card's title."""

from __future__ import annotations

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.geometry import Rect
from lluma_vision.icons import Icon
from lluma_vision.layout import Block, Said


def caption(cap: Block, icon: Icon) -> Said:
    """`cap` captions `icon`."""
    frame = Rect.of(cap).union(icon)
    yield cap, Evidence("icon.caption", "raise", ButtonScore.CARD, f"captions the {icon.name} icon", frame=frame)
