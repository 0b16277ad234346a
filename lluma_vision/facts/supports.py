"""The support cards on the raised training (FACTS: "its support cards in the right column", each with a bond bar
and a "!" hint badge), from the bond bars and round portraits the pixels found (lluma_vision.pixels.bonds,
portraits) and the reading's own facts.

A card is a portrait with its bond bar under it: a flat bar (bonds.py, the simulator's and the real at 1x), an
outlined one (portraits.py, the real at every scale), or none (bond "none": a friend or group card drawn without a
bar, as the screens2 trainings' fifth and third), the last kept only in the column the barred cards make: a circle
alone there could be scenery, so a training whose every card lacks a bar is not read. Nothing else in the column is
a card: a bar under no portrait, or a circle with no face in it (pixels/faces.py: a gym's weight plate over a flat
bar of its rack read a "grey" card) or with words in it (the round "Full Stats" button).

The cards are only a training's where a tile is raised (raised.py: the "Failure N%" pill over it), and only
between the header's gauges (Energy) and the raised training's gains over the stats: the bars found elsewhere on
the screen (the stats panel, the tile row, the Menu button's stripes) are not cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from lluma_vision.facts.raised import raised
from lluma_vision.models import Support, VisionOutput
from lluma_vision.pixels.faces import FACE_R
from lluma_vision.pixels.layout import letters

# A portrait with no bar is in the barred cards' column when its centre is within this share of the width of a
# barred card's. Measured: screens2 portraits 640-648 px of 720 at 0.575x-2x (0.011 apart at most); the simulator's
# 632-634 over bars centred at 633 (0.002).
ALIGN = 0.03
# A bar under a portrait: its centre between the portrait's centre and this many radii below it. Measured: screens2
# 0.8-1.0 (the bar overlaps the ring's foot; a "MAX" plate 0.8-0.9), the simulator 1.1-1.3.
UNDER = 1.8


def _centre(s: Support) -> tuple[float, float]:
    return (s.bounds.x0 + s.bounds.x1) / 2, (s.bounds.y0 + s.bounds.y1) / 2


def _cards(bars: list[Support], portraits: Sequence[Support], width: int) -> list[Support]:
    """Each portrait as a card, its bounds the portrait's: with the bar under it (bonds.py's, else its own outlined
    bar's level, else "none", kept only in the column the barred cards make). Bars under no portrait are scenery."""
    barred: list[Support] = []
    bare: list[Support] = []
    for p in portraits:
        cx, cy = _centre(p)
        r = (p.bounds.x1 - p.bounds.x0) / 2
        under = [b for b in bars if abs(_centre(b)[0] - cx) <= r and cy <= _centre(b)[1] <= cy + UNDER * r]
        if under:
            barred.append(p.model_copy(update={"bond": under[0].bond, "hint": under[0].hint or p.hint}))
        elif p.bond != "none":
            barred.append(p)
        else:
            bare.append(p)
    column = [_centre(c)[0] for c in barred]
    return barred + [p for p in bare if any(abs(_centre(p)[0] - x) <= ALIGN * width for x in column)]


def _worded(p: Support, out: VisionOutput) -> bool:
    """A read word (two letters or more) centred inside the circle: a round button ("Full Stats"), not a portrait."""
    r = (p.bounds.x1 - p.bounds.x0) / 2
    cx, cy = _centre(p)
    boxes = [t.bounds for t in out.texts if len(letters(t.text)) >= 2] + [
        b.bounds for b in out.buttons if b.source != "heuristic" and len(letters(b.name)) >= 2]
    return any(math.dist(b.center, (cx, cy)) <= FACE_R * r for b in boxes)


def supports(out: VisionOutput, bars: list[Support], portraits: Sequence[Support] = ()) -> list[Support]:
    """The support cards on the raised training of `out` (device pixels, top to bottom), or [] (none raised): from
    `bars` (bonds.py) and `portraits` (portraits.py, those with a face: bond "none", or the level of an outlined bar
    at its foot). Each card's bounds are its portrait's."""
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
    cards = [b for b in bars if b.bounds.y0 >= ceiling and b.bounds.y1 <= floor]
    inside = [p for p in portraits if ceiling <= _centre(p)[1] <= floor and not _worded(p, out)]
    return sorted(_cards(cards, inside, out.width), key=lambda c: c.bounds.y0)
