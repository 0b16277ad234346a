"""The `menu` family: the tabs of the tab bar (`menu.py` finds the bar) are buttons, as sure as a plate;
a bar blurred or dimmed behind a dialog is not tappable, so its tabs are text."""

from __future__ import annotations

from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.pixels.layout import Block, Said
from lluma_vision.pixels.menu import TabBarPx


def tabs(bar: TabBarPx | None, blocks: list[Block]) -> Said:
    """Evidence for the bar's tabs that are blocks of this reading (a remembered bar's tabs are not)."""
    if bar is None:
        return
    ours = {id(b) for b in blocks}
    for b in bar.tabs:
        if id(b) not in ours:
            continue
        yield b, Evidence("menu.tab", "raise", ButtonScore.PLATE, f"a tab of the tab bar ({len(bar.tabs)} tabs)",
                          tab=True)
        if not bar.usable:
            yield b, Evidence("menu.blurred", "cap", ButtonScore.DOUBT, "the tab bar is blurred or dimmed behind a "
                              "dialog: not tappable")
