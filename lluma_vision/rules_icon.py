"""The `icon` family: a short label just under or over an icon (icons.py finds icons, output.py pairs them)
names it, so the label is a button spanning both, as sure as a card's title."""

from __future__ import annotations

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.icons import Icon
from lluma_vision.layout import Block, Said


def caption(cap: Block, icon: Icon) -> Said:
    """`cap` captions `icon`."""
    frame = (min(cap.x0, icon.x0), min(cap.y0, icon.y0), max(cap.x1, icon.x1), max(cap.y1, icon.y1))
    yield cap, Evidence("icon.caption", "raise", ButtonScore.CARD, f"captions the {icon.name} icon", frame=frame)
