"""The `gauge` family: a gauge's caption ("Energy") or its mood badge ("GOOD") drawn on a plate beside the bar is a
readout of the gauge, not something to press (the reading's gauges and mood carry it): text, whatever its plate."""

from __future__ import annotations

from lluma_vision.buttons.rules.disabled import beside_gauge
from lluma_vision.evidence import ButtonScore, Evidence
from lluma_vision.models import Box, Button
from lluma_vision.pixels.layout import Block, Said, letters

READOUT = "gauge.readout"


def readouts(blocks: list[Block], looks: list[Button], names: set[str], bars: list[Box]) -> Said:
    """`looks` are the blocks' buttons as read so far (device pixels, in order); `names` the letters of the gauges'
    captions and the mood; `bars` the gauges' boxes."""
    for b, look in zip(blocks, looks, strict=True):
        if b.tab:  # a tab of the bar read from its row of labels: a bar read beside it is its own edge (issue 54)
            continue
        if letters(look.name) in names and beside_gauge(look.bounds, bars):
            yield b, Evidence(READOUT, "cap", ButtonScore.DOUBT, "a gauge's caption or its mood badge beside the bar: "
                              "a readout, shown as text")
