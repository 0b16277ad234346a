"""The `icon` family: a short label just under or over an icon, or just after it on its row (a list row led by an
icon, as Android's dialogs draw them), names it (icons.py finds icons, output.py pairs them), so the label is a
button spanning both, as sure as a card's title."""

from __future__ import annotations

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.geometry import Rect
from lluma_vision.pixels.icons import Icon
from lluma_vision.pixels.layout import Block, Said


def caption(cap: Block, icon: Icon) -> Said:
    """`cap` captions `icon`."""
    frame = Rect.of(cap).union(icon)
    yield cap, Evidence("icon.caption", "raise", ButtonScore.CARD, f"captions the {icon.name} icon", frame=frame)


def label(lab: Block, icon: Icon) -> Said:
    """`icon` leads `lab` on its row: the row is one button, named by its words."""
    frame = Rect.of(lab).union(icon)
    yield lab, Evidence("icon.label", "raise", ButtonScore.CARD, f"led by the {icon.name} icon on its row", frame=frame)
