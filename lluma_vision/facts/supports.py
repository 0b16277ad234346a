"""The support cards on the raised training (FACTS: "its support cards in the right column", each with a bond bar
and a "!" hint badge), from the bond bars the pixels found (lluma_vision.pixels.bonds) and the reading's own facts.

The cards are only a training's where a tile is raised (raised.py: the "Failure N%" pill over it), and only
between the header's gauges (Energy) and the raised training's gains over the stats: the bars found elsewhere on
the screen (the stats panel, the tile row, the Menu button's stripes) are not cards.
"""

from __future__ import annotations

from lluma_vision.facts.raised import raised
from lluma_vision.models import Support, VisionOutput


def supports(out: VisionOutput, bars: list[Support]) -> list[Support]:
    """The cards among `bars` (device pixels, top to bottom) on the raised training of `out`, or [] (none raised)."""
    if raised(out) is None:
        return []
    # the gains over the stats: a gain whose caption's value lies under it (a gain beside its value, as the
    # Performance Points' "+17" on mrhorseshoe__35_training_select, is no stat's)
    gains = [g.bounds.y0 for g in out.values if g.kind == "gain" and any(
        v.kind == "value" and v.caption == g.caption and v.bounds.y0 > g.bounds.y0 for v in out.values)]
    if not gains:
        return []
    floor = min(gains)
    ceiling = max((g.bounds.y1 for g in out.gauges if g.bounds.y1 <= floor and g.label.casefold() != "gauge"),
                  default=0)
    return [b for b in bars if b.bounds.y0 >= ceiling and b.bounds.y1 <= floor]
