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

from lluma_vision.facts.story import STORY_BAND  # subtitles and dialogue live under it
from lluma_vision.geometry import Rect
from lluma_vision.pixels.heuristics import gray
from lluma_vision.pixels.layout import PROSE_WORDS, Block  # a block of this many words is prose, not a label

_LOADING = re.compile(r"now\s*loading|^loading|connecting|downloading", re.I)
_STORY_CTL = re.compile(r"^(auto|log)$", re.I)
_CONTROL = re.compile(r"^(auto|log|next|skip|quick|fast forward)\W*$", re.I)  # advance/skip a scene, not choices

# Where things sit, as fractions of the viewport's height from its top (the game's portrait layout: set on the
# simulator's story and event pages in the first classifier, held since by the labelled real cinematics in
# tests/vision/test_vision_real.py):
DIALOGUE_TOP = 0.55  # a full-screen story page has nothing over this (name plate, one line, Auto/Log)
HEADER = 0.25  # title bars and turn counters live over this: not actions
PROSE_TOP = 0.45  # an event page's story text sits under this
STORY_BLOCKS = 6  # a story page shows at most this many blocks (name, line(s), Auto, Log, menu)
LOADING_EXTRAS = 3  # a loading caption comes with at most a tip's few lines
# Pixel statistics of the viewport's grey (0-255): a blank transition frame is flat (std under 12), the pale
# loading backdrop is bright and nearly flat (mean over 215, std under 30), a scene has texture (std 20 or more)
BLANK_STD = 12
PALE_MEAN = 215
PALE_STD = 30
SCENE_STD = 20
# The round white button in the viewport's bottom-right corner (menu or skip): looked for in the right quarter and
# the bottom 22%, 2.5-16% of the viewport wide, squarish (aspect 0.7-1.4) and at least 30% filled
CORNER_W = 0.25
CORNER_H = 0.22
WHITE_MIN = 200  # every channel at least this
WHITE_SPREAD = 35  # and within this of each other (white, not a pale colour)
ICON_MIN_W = 0.025
ICON_MAX_W = 0.16
ICON_ASPECT = (0.7, 1.4)
ICON_FILL = 0.3
EIGHT_WAY = 8  # pixels touching at a corner are one shape (OpenCV's connectivity)
# Its brown glyph: inside an ellipse of 0.42 of the icon (the corners are the disc's edge), red over blue by 40,
# red over green, red under 210 (not white); at least 4% of the icon, in bars at half the brightest row (menu: 3)
# or columns at a fifth of the brightest column (skip's arrows: at most 3 runs)
GLYPH_ELLIPSE = 0.42
BROWN_RB = 40
BROWN_MAX_R = 210
GLYPH_MIN = 0.04
BAR_ROW = 0.5
ARROW_COLUMN = 0.2
MENU_BARS = 3
ARROW_RUNS = 3
# A speaker's name plate: 1-3 words, over a spoken line within 4 of its line heights, the line starting no more
# than 2 heights left of it
NAME_WORDS = 3
NAME_GAP = 4
NAME_INDENT = 2


def round_icon(rgb: np.ndarray, view: Rect) -> str | None:
    """Kind of the white round button in the bottom-right corner of the viewport: "menu" (three bars),
    "skip" (arrows) or None when there is no such button."""
    vx0, vy0, vx1, vy1 = view.ints()
    vw, vh = vx1 - vx0, vy1 - vy0
    x0, y0 = int(vx1 - CORNER_W * vw), int(vy1 - CORNER_H * vh)
    region = rgb[y0:vy1, x0:vx1].astype(np.int16)
    if region.size == 0:
        return None
    white = ((region.min(axis=2) > WHITE_MIN) & (region.max(axis=2) - region.min(axis=2) < WHITE_SPREAD)).astype(
        np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(white, connectivity=EIGHT_WAY)
    best = None
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if not (ICON_MIN_W * vw <= w <= ICON_MAX_W * vw) or not ICON_ASPECT[0] <= w / max(h, 1) <= ICON_ASPECT[1] \
                or area < ICON_FILL * w * h:
            continue
        kind = _icon_kind(region[y : y + h, x : x + w])
        if kind and (best is None or x + w > best[0]):
            best = (x + w, kind)  # the right-most one: dialogue screens show Auto before the menu
    return best[1] if best else None


def _icon_kind(patch: np.ndarray) -> str | None:
    h, w = patch.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    inner = ((xx - (w - 1) / 2) / (GLYPH_ELLIPSE * w)) ** 2 + ((yy - (h - 1) / 2) / (GLYPH_ELLIPSE * h)) ** 2 <= 1
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    brown = (r - b > BROWN_RB) & (r > g) & (r < BROWN_MAX_R) & inner
    if brown.sum() < GLYPH_MIN * brown.size:
        return None
    rows = brown.mean(axis=1)
    bars = _count_runs(rows > BAR_ROW * rows.max())
    if bars == MENU_BARS:
        return "menu"
    cols = brown.mean(axis=0)
    return "skip" if bars == 1 and _count_runs(cols > ARROW_COLUMN * cols.max()) <= ARROW_RUNS else None


def _count_runs(mask: np.ndarray) -> int:
    m = mask.astype(np.int8)
    return int(np.sum(np.diff(np.concatenate([[0], m])) == 1))


def classify(rgb: np.ndarray, blocks: list[Block], view: Rect) -> str:
    vx0, vy0, vx1, vy1 = view.ints()
    vh = vy1 - vy0
    inside = [b for b in blocks if vx0 <= b.cx <= vx1 and vy0 <= b.cy <= vy1]
    g = gray(rgb[vy0:vy1, vx0:vx1])
    if not inside and float(g.std()) < BLANK_STD:
        return "loading"  # blank transition frame
    loading = [b for b in inside if _LOADING.search(b.text)]
    others = [b for b in inside if b not in loading]
    if loading and len(others) <= LOADING_EXTRAS and not any(b.is_button for b in others):
        return "loading"  # the caption, maybe a tip; nothing to press
    low = vy0 + STORY_BAND * vh
    story_ctl = [b for b in inside if _STORY_CTL.match(b.text.strip()) and b.cy >= low]
    if story_ctl and len(inside) <= STORY_BLOCKS and all(b.cy >= vy0 + DIALOGUE_TOP * vh for b in inside):
        return "dialogue"  # full-screen story: name plate, a line of text, Auto/Log
    controls = [b for b in inside if _CONTROL.match(b.text.strip())]
    # choices and other actions sit below the header (title bars, turn counters are not actions)
    actions = [b for b in inside if b.is_button and not b.tab and b not in controls and b.cy >= vy0 + HEADER * vh]
    prose = [b for b in inside if not b.is_button and len(b.text.split()) >= PROSE_WORDS and
             b.cy >= vy0 + PROSE_TOP * vh]
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
    if not inside and float(g.mean()) > PALE_MEAN and float(g.std()) < PALE_STD:
        return "loading"  # the pale loading backdrop without its caption
    return "cutscene" if float(g.std()) >= SCENE_STD else "none"


def _name_plate(inside: list[Block], low: float) -> bool:
    """A speaker's name (a short label) just above and left of a spoken line, in the bottom band."""
    bottom = [b for b in inside if b.cy >= low]
    for plate in bottom:
        words = plate.text.split()
        if not 1 <= len(words) <= NAME_WORDS or plate.text.rstrip().endswith((".", "!", "?", ",")):
            continue
        h = plate.line_h
        for line in bottom:
            if len(line.text.split()) >= PROSE_WORDS and 0 <= line.y0 - plate.y1 <= NAME_GAP * h and \
                    plate.x0 <= line.x0 + NAME_INDENT * h:
                return True
    return False
