"""The bottom tab bar from read labels: a bar drawn over a shop's content is still the bar, with only its
tabs, not the content's captions showing between them; a tab stays a button beside a bar-like edge."""

from __future__ import annotations

import numpy as np
import pytest

from lluma_vision.buttons.resolve import apply
from lluma_vision.buttons.rules.gauge import readouts
from lluma_vision.buttons.rules.menu import tabs as tab_evidence
from lluma_vision.geometry import Rect
from lluma_vision.models import Box, Button
from lluma_vision.pixels.layout import Block, Edges
from lluma_vision.pixels.menu import TabBarPx, tab_bar
from lluma_vision.pixels.ocr import Line, Work

TABS = ("Enhance", "Story", "Home", "Race", "Scout")


def frame() -> Work:
    rgb = np.full((1280, 720, 3), 200, np.uint8)
    return Work(rgb=rgb, scale=1.0, device_width=720, device_height=1280)


def label(text: str, cx: float, cy: float, h: float = 28) -> Block:
    w = 0.55 * h * len(text)
    return Block(lines=[Line(text=text, conf=0.9, box=Rect(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2))])


def tabs(cy: float = 1250) -> list[Block]:
    return [label(t, 72 + 144 * i, cy) for i, t in enumerate(TABS)]


def read(blocks: list[Block]) -> list[str] | None:
    work = frame()
    bar = tab_bar(work, blocks, (0, 0, 720, 1280), Edges(work.rgb))
    return [b.text for b in bar.tabs] if bar is not None and bar.tabs else None


def test_a_tab_bar_alone_is_read() -> None:
    assert read(tabs()) == list(TABS)


@pytest.mark.parametrize("intruders", (
    [("Sale", 150, 1244)],  # a shop item's caption showing between two tabs
    [("Carrot", 150, 1256), ("Bag", 560, 1244)],
    [("Limited Time", 216, 1250, 18)],  # a small ribbon over a tab: another text size
))
def test_a_tab_bar_drawn_over_a_shop_keeps_its_tabs(intruders: list[tuple]) -> None:
    assert read(tabs() + [label(*i) for i in intruders]) == list(TABS)


@pytest.mark.parametrize("tab", (True, False))
def test_a_tab_is_no_gauge_readout(tab: bool) -> None:
    """The selected tab's coloured edge can read as a gauge captioned by the tab (a real bar at 0.4x, issue 54): a tab
    of the bar stays a button; the same label off the bar beside that gauge is its readout, as before."""
    bar = tabs()
    story = bar[1]
    if tab:
        apply(tab_evidence(TabBarPx(usable=True, tabs=bar, selected=1), bar))
    look = Button(name="Story", bounds=Box(x0=round(story.x0), y0=round(story.y0), x1=round(story.x1),
                                           y1=round(story.y1)))
    gauge = Box(x0=round(story.x1) + 4, y0=round(story.y0) + 6, x1=round(story.x1) + 90, y1=round(story.y1) - 6)
    said = list(readouts([story], [look], {"story"}, [gauge]))
    assert (said == []) == tab
