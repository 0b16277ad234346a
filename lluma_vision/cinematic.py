"""What kind of frame is this: none / loading / cutscene / cutscene_paused / dialogue.

The coordinator waits (or taps to advance) instead of asking the model when the frame is not
`none`. Decided from what the frame offers the player, inside the game's viewport:
- loading: a "Now Loading" / "Connecting" caption and nothing else, or a blank frame;
- dialogue: story text with the Auto/Log controls and no other UI;
- cutscene: a scene with at most subtitles, and a skip control or none;
- cutscene_paused: a scene with only the round menu button (the playback is stopped);
- none: anything with buttons or UI text the player can act on.
"""

from __future__ import annotations

import re

import cv2
import numpy as np

from lluma_vision.heuristics import gray
from lluma_vision.layout import Block
from lluma_vision.models import Rect

_LOADING = re.compile(r"now\s*loading|^loading|connecting|downloading", re.I)
_STORY_CTL = re.compile(r"^(auto|log)$", re.I)
_CONTROL = re.compile(r"^(auto|log|next|skip|quick|fast forward)\W*$", re.I)  # advance/skip a scene, not choices


def round_icon(rgb: np.ndarray, view: Rect) -> str | None:
    """Kind of the white round button in the bottom-right corner of the viewport: "menu" (three bars),
    "skip" (arrows) or None when there is no such button."""
    vx0, vy0, vx1, vy1 = view
    vw, vh = vx1 - vx0, vy1 - vy0
    x0, y0 = int(vx1 - 0.25 * vw), int(vy1 - 0.22 * vh)
    region = rgb[y0:vy1, x0:vx1].astype(np.int16)
    if region.size == 0:
        return None
    white = ((region.min(axis=2) > 200) & (region.max(axis=2) - region.min(axis=2) < 35)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=8)
    best = None
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if not (0.025 * vw <= w <= 0.16 * vw) or not 0.7 <= w / max(h, 1) <= 1.4 or area < 0.3 * w * h:
            continue
        kind = _icon_kind(region[y : y + h, x : x + w])
        if kind and (best is None or x + w > best[0]):
            best = (x + w, kind)  # the right-most one: dialogue screens show Auto before the menu
    return best[1] if best else None


def _icon_kind(patch: np.ndarray) -> str | None:
    h, w = patch.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    inner = ((xx - (w - 1) / 2) / (0.42 * w)) ** 2 + ((yy - (h - 1) / 2) / (0.42 * h)) ** 2 <= 1  # skip the corners
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    brown = (r - b > 40) & (r > g) & (r < 210) & inner
    if brown.sum() < 0.04 * brown.size:
        return None
    rows = brown.mean(axis=1)
    bars = _count_runs(rows > 0.5 * rows.max())
    if bars == 3:
        return "menu"
    cols = brown.mean(axis=0)
    return "skip" if bars == 1 and _count_runs(cols > 0.2 * cols.max()) <= 3 else None


def _count_runs(mask: np.ndarray) -> int:
    m = mask.astype(np.int8)
    return int(np.sum(np.diff(np.concatenate([[0], m])) == 1))


def classify(rgb: np.ndarray, blocks: list[Block], view: Rect) -> str:
    vx0, vy0, vx1, vy1 = view
    vh = vy1 - vy0
    inside = [b for b in blocks if vx0 <= b.cx <= vx1 and vy0 <= b.cy <= vy1]
    g = gray(rgb[vy0:vy1, vx0:vx1])
    if not inside and float(g.std()) < 12:
        return "loading"  # blank transition frame
    loading = [b for b in inside if _LOADING.search(b.text)]
    others = [b for b in inside if b not in loading]
    if loading and len(others) <= 3 and not any(b.is_button for b in others):
        return "loading"  # the caption, maybe a tip; nothing to press
    low = vy0 + 0.7 * vh  # subtitles and dialogue live in the bottom 30%
    story_ctl = [b for b in inside if _STORY_CTL.match(b.text.strip()) and b.cy >= low]
    if story_ctl and len(inside) <= 6 and all(b.cy >= vy0 + 0.55 * vh for b in inside):
        return "dialogue"  # full-screen story: name plate, a line of text, Auto/Log
    controls = [b for b in inside if _CONTROL.match(b.text.strip())]
    # choices and other actions sit below the header (title bars, turn counters are not actions)
    actions = [b for b in inside if b.is_button and not b.tab and b not in controls and b.cy >= vy0 + 0.25 * vh]
    prose = [b for b in inside if not b.is_button and len(b.text.split()) >= 4 and b.cy >= vy0 + 0.45 * vh]
    if controls and prose and not actions:
        return "dialogue"  # an event page that advances by tapping (Next / Skip), nothing to choose yet
    if _name_plate(inside, low) and all(b.cy >= low for b in inside if b not in controls):
        return "dialogue"  # story text under a speaker's name, even when Auto/Log were not read
    ui = [b for b in inside if b not in controls and (b.cy < low or b in actions)]
    if ui:
        return "none"
    icon = round_icon(rgb, view)
    if icon == "skip":
        return "cutscene"
    if icon == "menu":  # the round menu button shows on story dialogue and on a stopped scene
        return "dialogue" if inside else "cutscene_paused"
    if not inside and float(g.mean()) > 215 and float(g.std()) < 30:
        return "loading"  # the pale loading backdrop without its caption
    return "cutscene" if float(g.std()) >= 20 else "none"


def _name_plate(inside: list[Block], low: float) -> bool:
    """A speaker's name (a short label) just above and left of a spoken line, in the bottom band."""
    bottom = [b for b in inside if b.cy >= low]
    for plate in bottom:
        words = plate.text.split()
        if not 1 <= len(words) <= 3 or plate.text.rstrip().endswith((".", "!", "?", ",")):
            continue
        h = plate.line_h
        for line in bottom:
            if len(line.text.split()) >= 4 and 0 <= line.y0 - plate.y1 <= 4 * h and plate.x0 <= line.x0 + 2 * h:
                return True
    return False
