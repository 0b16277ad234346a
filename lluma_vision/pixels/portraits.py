"""The round portraits of the support cards in the training screen's right-hand column (FACTS: "the support cards on
it as portraits in a right-hand column, each with a bond bar under it"). A card the bond bars miss is found here: one
drawn without a bar (dhrpf__training_guts' fifth card, mrhorseshoe__35_training_select's third), or one whose bar the
pixels did not read. Which circles are a training's cards is the facts' business (lluma_vision.facts.supports).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.bonds import COLUMN, fill_level, hint_badge

# A portrait's radius, a share of the working width. Measured (Hough below, working frames): screens2's portraits
# 0.054-0.082 (dhrpf__training_guts, mrhorseshoe__35_training_select: the rainbow ring makes the circle read wider
# or narrower by a few px), the simulator's 0.040-0.058 (plain and hard, 420x936 to 1080x2400). The tile row's
# buttons under the column are 0.067-0.084 and lie below the gains, where no card is looked for.
RADIUS = (0.035, 0.09)
# Hough's edge threshold (Canny's upper) and accumulator votes. Measured on the same frames: at 100 the
# simulator's cream discs on a pale ground (edge contrast ~40) are missed on 3 of 5 frames; at 60 all 20 cards on
# 5 frames and all 8 on screens2 are found. At 25 votes scenery inside the column (hair, a jacket's stripes) makes
# circles on dhrpf__training_guts (4 between the header and the gains); at 30 none there, none on the simulator.
EDGE = 60
VOTES = 30
SPACING = 0.1  # two portraits' centres at least this share of the width apart (pitch: 0.15 real, 0.12 simulator)
BADGE = 0.03  # a hint badge may stand out past the ring's right by this share of the width (simulator: 0.02)
# The real bond bar at a portrait's foot (screens2, 720x1280): a dark outline row (V under DARK_V), 8-10 rows
# of fill, track and 1 px dividers, the outline again. Read at 0.575x-2x of that frame (rescaled, then read at
# working scale), the rows between stay 0.05-0.17 dark (the dividers), the outline's rows blend with the track or
# the ground into grey rows; a portrait drawn without a bar has no grey row at its foot. The simulator's bars have
# no outline: pixels/bonds.py reads them.
FOOT = (0.4, 1.6)  # the rows looked at, in radii below the portrait's centre (the bar's band: 0.7-1.3 on screens2)
REACH = 0.7  # the columns looked at, in radii either side of the centre (inside the bar's rounded ends: 0.8)
DARK_V = 110  # an outline or divider pixel's value (HSV V, 0-255): 70-75 at 1x, up to ~100 blended at 1.5x
OUTLINE = 0.8  # an edge row: at least this share of its pixels dark or track grey (0.81-1.0 measured on the bars'
# edges at every scale; a bar-less foot's rows 0.4 at most)
BAND = 0.8  # a row between the edges: at least this share fill, track or divider (0.8-1.0 measured)
DIVIDERS = (0.02, 0.5)  # ...and this share dark: the 1 px dividers between the five segments (0.05-0.17 measured;
# a row over half dark is the outline's)
BAND_ROWS = (0.004, 0.012)  # the rows between the outlines, a share of the height (0.006-0.008 measured)
FILLED = 0.05  # a bar with at least this share of its band's pixels coloured is filled (a grey bar's 0; blue 0.1-0.6)
NEUTRAL_SPREAD = 40  # a grey pixel's max-min channel spread (the outline 5-9, the track 9, blends up to ~30)
TRACK_V = 160  # the track's value (6d6c75: 117; blended with the fill's edge up to ~150)
FILL_S, FILL_V = 110, 140  # a fill pixel: saturated and bright (blue 29c0ff, orange ffad1e: S 200+, V 255)
BLUR = 5  # the median filter's aperture before Hough (working pixels): quiets JPEG noise and hair strands


@dataclass(frozen=True)
class PortraitPx:
    """One round portrait in working pixels (its bounding square) and whether a hint badge sits at its top right."""

    x0: int
    y0: int
    x1: int
    y1: int
    hint: bool = False
    bar: str | None = None  # the level of an outlined bond bar at its foot (outlined_bar), None when there is none

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def r(self) -> float:
        return (self.x1 - self.x0) / 2


def find_portraits(rgb: np.ndarray) -> list[PortraitPx]:
    """The circles whose centres lie in the right column, top to bottom (the whole frame's height)."""
    h, w = rgb.shape[:2]
    off = round(COLUMN * w * 0.96)  # a little left of the column, so a portrait's left edge is inside the strip
    grey = cv2.medianBlur(cv2.cvtColor(np.ascontiguousarray(rgb[:, off:]), cv2.COLOR_RGB2GRAY), BLUR)
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=SPACING * w, param1=EDGE, param2=VOTES,
                             minRadius=round(RADIUS[0] * w), maxRadius=round(RADIUS[1] * w))
    if found is None:
        return []
    out: list[PortraitPx] = []
    for cx, cy, r in found[0]:
        cx += off
        if cx < COLUMN * w:
            continue
        box = Rect(round(cx - r), round(cy - r), round(cx + r), round(cy + r))
        # the badge at the portrait's top right (FACTS) may stand out past its ring, and above it by half a radius;
        # the top left may hold another pink badge (dhrpf__training_guts' Unity Cup flame)
        hint = hint_badge(rgb, Rect(round(cx), max(0, box.y0 - round(r / 2)), min(w, box.x1 + round(BADGE * w)),
                                    round(cy)), w)
        out.append(PortraitPx(*box.clip(w, h).ints(), hint,
                              outlined_bar(rgb, float(cx), float(cy), float(r))))
    return sorted(out, key=lambda p: p.y0)


def outlined_bar(rgb: np.ndarray, cx: float, cy: float, r: float) -> str | None:
    """The level of the outlined bond bar at the foot of the portrait centred at (cx, cy), or None (no such bar).

    The bar's band: rows of fill, track and dividers (some dividers on every row, the fill left of the track), between
    two grey edge rows (its outline, blended with the track or the ground on a rescaled frame)."""
    h, w = rgb.shape[:2]
    x0, x1 = max(0, round(cx - REACH * r)), min(w, round(cx + REACH * r))
    y0, y1 = max(0, round(cy + FOOT[0] * r)), min(h, round(cy + FOOT[1] * r))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    part = np.ascontiguousarray(rgb[y0:y1, x0:x1])
    px = part.astype(np.int16)
    hsv = cv2.cvtColor(part, cv2.COLOR_RGB2HSV).astype(np.int16)
    neutral = px.max(axis=2) - px.min(axis=2) <= NEUTRAL_SPREAD
    # any hue: a JPEG bleeds the fill's colour into the outline (barred cards read on the two screens at 5 scales,
    # JPEG quality 90 and 75: 23 of 40 so, 13 of 40 with grey outlines only; the PNGs 20 of 20 either way)
    dark = hsv[..., 2] < DARK_V
    track = neutral & (hsv[..., 2] >= DARK_V) & (hsv[..., 2] <= TRACK_V)
    fill = (hsv[..., 1] >= FILL_S) & (hsv[..., 2] >= FILL_V)
    edges = np.nonzero((dark | track).mean(axis=1) >= OUTLINE)[0]
    cols = np.arange(x1 - x0)
    for top in edges:
        for bottom in edges[edges >= top + 3]:
            if not BAND_ROWS[0] * h <= bottom - top - 1 <= BAND_ROWS[1] * h:
                continue
            inner = slice(top + 2, bottom - 1)  # the rows next to an edge may be half outline on a rescaled frame
            split = dark[inner].mean(axis=1)
            if ((dark | track | fill)[inner].mean(axis=1) < BAND).any() or (split < DIVIDERS[0]).any() or \
                    (split > DIVIDERS[1]).any():
                continue
            f, t = fill[inner], track[inner]
            if f.mean() < FILLED:
                return "grey"
            at = np.broadcast_to(cols, f.shape)
            if t.mean() >= FILLED and at[f].mean() > at[t].mean():
                continue  # a bar fills from its left end
            return fill_level(part[inner][f])
    return None
