"""Closed shapes around a label: discs, outlined tiles and pills that `layout.find_frame` misses.

`find_frame` wants straight edges above and below the text at one distance; a round disc ("Full Stats"
on a circle), a pill with art above its caption, or a plate with a badge over one corner has no such
edges. Here the label's plate is the region of edge-free pixels the text sits in: walled by the edge
map, it must close within a few line heights of the text (a panel or the scene does not), be mostly
filled (a shape, not a gap between drawings) and hold no other text but small print under the label.
"""

from __future__ import annotations

import cv2
import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.layout import BOX_SHRINK, Block, Edges

# evidence: REACH: 396ea82 (labels on discs and stacked list rows: labelled buttons the reading had found only as text);
#   the others: each on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
REACH = 3.0  # how far around the text a label's own shape may extend, in line heights
# tried 0.5x and 1.5x on 64 screens (58 read it): screens2 flat 1x-1.5x (0.5x -3), held out screens flat 1x-1.5x (0.5x
#   -1); kept 0.5
FILLED = 0.5  # the region fills at least this share of its bounding box: a shape, not a gap between drawings
# tried 0.5x and 1.5x on 64 screens (56 read it): readings identical at 0.5x and 1.5x; kept 12
PICTURE = 12  # a region over this many times the text's area is a picture with a caption, not the label's plate
ROOM_V, ROOM_H = 1.4, 1.1  # a plate is at least this many line heights tall and this many text widths wide
# (a tag's or a ribbon's backing fits the text tighter)


def closed_shape(edges: Edges, b: Block, me: int, under: frozenset[int] = frozenset()) -> Rect | None:
    """The frame (x0, y0, x1, y1) of a closed shape holding only block `b` (owner id `me`) and the small print
    under it (owner ids `under`: a cost line on the button, "x10 TO SPIN" under "SKIP"), or None."""
    h = b.line_h
    m = int(REACH * h) + 2
    x0, y0 = max(0, int(b.x0) - m), max(0, int(b.y0) - m)
    x1, y1 = min(edges.width, int(np.ceil(b.x1)) + m), min(edges.height, int(np.ceil(b.y1)) + m)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    wall = np.zeros((y1 - y0, x1 - x0), bool)
    v, hz = edges.v[y0:y1, x0:x1], edges.h[y0:y1, x0:x1]  # one row / column short at the frame's far side
    wall[: v.shape[0]] |= v
    wall[:, : hz.shape[1]] |= hz
    own = edges.owner[y0:y1, x0:x1]
    for ln in b.lines:  # the glyphs' own edges are not walls (shrunk: detector boxes overlap borders)
        ly0, ly1 = int(ln.y0 + BOX_SHRINK * ln.h) - y0, int(ln.y1 - BOX_SHRINK * ln.h) - y0
        wall[max(0, ly0) : max(0, ly1), max(0, int(ln.x0) + 1 - x0) : max(0, int(ln.x1) - 1 - x0)] = False
    n, comp = cv2.connectedComponents((~wall).astype(np.uint8), connectivity=4)
    seed = comp[int(b.cy) - y0, int(b.cx) - x0]
    if seed == 0:
        return None
    region = comp == seed
    if region[0].any() or region[-1].any() or region[:, 0].any() or region[:, -1].any():
        return None  # open: a panel, a bar across the frame or the scene, not the label's own shape
    others = np.unique(own[region & (own != 0) & (own != me)])
    if any(int(o) not in under for o in others):
        return None  # another label shares the shape: a card or a panel, judged elsewhere
    ys, xs = np.nonzero(region)
    rx0, ry0, rx1, ry1 = int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
    if region.sum() < FILLED * (rx1 - rx0) * (ry1 - ry0):
        return None  # a gap between drawings, not a filled shape
    tw, th = b.x1 - b.x0, b.y1 - b.y0
    if (rx1 - rx0) * (ry1 - ry0) > PICTURE * tw * th:
        return None  # the text is a small part of a big area: a picture with a caption on it
    if ry1 - ry0 < ROOM_V * h or rx1 - rx0 < ROOM_H * tw:
        return None  # no room around the text: a tag's or a ribbon's backing, not a plate to press
    return Rect(float(x0 + rx0), float(y0 + ry0), float(x0 + rx1), float(y0 + ry1))
