"""The `disabled` family: a plate markedly greyer or darker than its siblings (buttons on the same row, of a like
height) is drawn disabled. White plates are pale but bright, so paleness alone is not enough: a greyed-out
plate is pale *and* darker than its siblings, or much darker. A gauge's row holds readouts, not buttons: its caption
and its status badge (left and right of the bar) are never marked (their plates still stand for the row's look)."""

from __future__ import annotations

import statistics

import cv2
import numpy as np

from lluma_vision.evidence import Evidence
from lluma_vision.geometry import Rect
from lluma_vision.models import Box, Button
from lluma_vision.pixels.layout import Block, Said
from lluma_vision.pixels.ocr import Work

# evidence: PALE, DARK: b352537 (the facts a rest-or-train decision needs, on screens and screens2 (bench/vision.py));
#   DIMMER: 4eee93a (greyed plates sat 45-101 under their siblings on screens and screens2, pale live ones 13-17)
PALE = 0.5  # saturation below this share of the siblings' ...
DIMMER = 30  # ... and value this much under theirs (0..255): greyed plates sat 45-101 under, pale live ones 13-17
DARK = 0.7  # or value below this share of theirs
RULE = "disabled.greyer"  # the rule's name on a button it marks (lluma vision --explain)


def _siblings(i: int, buttons: list[Button]) -> list[int]:
    a = buttons[i].bounds
    out = []
    for j, b in enumerate(buttons):
        o = b.bounds
        # a tab bar's tabs are only compared with each other (its selected tab is drawn apart)
        if j == i or (b.region == "menu" and buttons[i].region != "menu") or not 0.5 <= o.height / a.height <= 2.0:
            continue
        if Rect.of(a).rows_overlap(o) >= 0.5 * min(a.height, o.height):
            out.append(j)
    return out


# evidence: 0a584cf (gauge readouts never marked: false disabled marks on screens 10 -> 4 at 1x)
READOUT_GAP = 3.0  # a gauge's caption or badge ends or starts within this many bar heights of the bar


def beside_gauge(b: Box, gauges: list[Box]) -> bool:
    """On a gauge's row, just beside the bar (its caption, its badge), not over it."""
    return any(Rect.of(b).rows_overlap(g) >= 0.5 * min(b.height, g.height)
               and (-g.height <= g.x0 - b.x1 <= READOUT_GAP * g.height
                    or -g.height <= b.x0 - g.x1 <= READOUT_GAP * g.height) for g in gauges)


def greyed(work: Work, buttons: list[Button], gauges: list[Box]) -> set[int]:
    """The indices of the buttons drawn disabled (device pixels; their plates' colours read off the working image).
    Every button stands for its row's look; a gauge's readouts (beside its bar) are never marked themselves."""
    readouts = {i for i, b in enumerate(buttons) if beside_gauge(b.bounds, gauges)}
    if len(buttons) < 2:
        return set()
    hsv = cv2.cvtColor(np.ascontiguousarray(work.rgb), cv2.COLOR_RGB2HSV)
    hh, ww = hsv.shape[:2]
    plate: list[tuple[float, float] | None] = []
    for b in buttons:
        r = work.from_device(b.bounds)
        x0, y0, x1, y1 = max(0, int(r.x0)), max(0, int(r.y0)), min(ww, int(r.x1)), min(hh, int(r.y1))
        if x1 - x0 < 2 or y1 - y0 < 2:
            plate.append(None)
            continue
        px = hsv[y0:y1, x0:x1].reshape(-1, 3)
        plate.append((float(np.median(px[:, 1])), float(np.median(px[:, 2]))))
    found = set()
    for i, b in enumerate(buttons):
        sibs = [p for p in (plate[j] for j in _siblings(i, buttons)) if p is not None]
        me = plate[i]
        if me is None or not sibs or "disabled" in b.meta or i in readouts:
            continue
        s = statistics.median(p[0] for p in sibs)
        v = statistics.median(p[1] for p in sibs)
        if (me[0] < PALE * s and me[1] < v - DIMMER) or me[1] < DARK * v:
            found.add(i)
    return found


def greyer(blocks: list[Block], looks: list[Button], found: set[int]) -> Said:
    """Evidence for the blocks among `looks` (the first len(blocks) of them, in order) that `greyed` found: the
    block stays a button, and its button says "disabled" in its meta."""
    for i, b in enumerate(blocks):
        if i in found:
            yield b, Evidence(RULE, "mark", 0.0, "its plate greyer or darker than its row's: drawn disabled",
                              meta="disabled")


def mark(button: Button) -> Button:
    """A button that is no block (an icon) marked disabled as `greyer` marks a block's."""
    return button.model_copy(update={"meta": ", ".join(m for m in (button.meta, "disabled") if m),
                                     "rules": [*button.rules, RULE]})


def mark_disabled(work: Work, buttons: list[Button], gauges: list[Box] | None = None) -> list[Button]:
    """`buttons` with those drawn disabled marked (`greyed`)."""
    found = greyed(work, buttons, gauges or [])
    return [mark(b) if i in found else b for i, b in enumerate(buttons)]
