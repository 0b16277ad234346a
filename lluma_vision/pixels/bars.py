"""Flat bars around the game: a letterboxed or pillarboxed frame (a 16:9 game on a 20:9 phone's screen, a portrait
game in an emulator's landscape frame) shows the game between two dark bars of one colour. The game alone reads as the
same game filling its frame: the bars' edges made plates of its headers, and its text read smaller."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from PIL import Image
from pydantic import BaseModel

from lluma_vision.geometry import Rect
from lluma_vision.models import Box

# evidence: BAR_MIN, BAR_FLAT, BAR_SKEW: 166892d (a game between flat bars: boxed screens back to their unboxed
#   figures (energy 19/19, values 25/26, 106/113)); BAR_DARK: 9bed130 (bars are dark: a flat light page around the CLI
#   tests' Confirm dialog is no pillarbox); GAME_MIN: ff1b421 (a picture between bars spans a quarter of the frame (a
#   spinner on a black loading frame))
BAR_MIN = 0.02  # a bar is at least this share of the frame's side across it...
BAR_FLAT = 12  # ...every pixel of it within this (summed RGB) of the bar's colour
BAR_SKEW = 0.02  # and the two bars alike in size, within this share of that side
BAR_DARK = 48  # and dark, its colour's every channel at most this: letterboxing is black (a flat light page around
# a dialog is the game's own background, not bars)
GAME_MIN = 0.25  # the picture between the bars spans at least this share of the frame across them: a portrait game
# pillarboxed in a 16:9 frame spans 0.32; a spinner or a caption alone on a black loading frame is no game

M = TypeVar("M")


# evidence: 166892d (a game between flat bars: boxed screens back to their unboxed figures (energy 19/19, values
#   25/26, 106/113))
SAMPLE = 8  # bars are looked for on every 8th line across them, then checked on every line


def _flat_run(a: np.ndarray) -> int:
    """How many columns from the left of `a` (int16, lines x columns x 3) are each of the first column's colour."""
    flat = (np.abs(a - a[:, :1, :]).sum(axis=2) <= BAR_FLAT).all(axis=0)
    return a.shape[1] if flat.all() else int(np.argmin(flat))


def _bars(rgb: np.ndarray) -> tuple[int, int] | None:
    """Where the picture starts and ends along the frame's columns, between two like flat bars of one colour."""
    w = rgb.shape[1]
    first, last = rgb[:, 0].astype(np.int16), rgb[:, -1].astype(np.int16)
    if np.abs(first - first[:1]).sum(axis=1).max() > BAR_FLAT or np.abs(first - last).sum(axis=1).max() > BAR_FLAT \
            or first[0].max() > BAR_DARK:
        return None  # outer columns not one dark colour, the same on both sides: no bars (most frames stop here)
    lines = rgb[::SAMPLE].astype(np.int16)
    start, end = _flat_run(lines), w - _flat_run(lines[:, ::-1])
    if end - start < GAME_MIN * w or min(start, w - end) < BAR_MIN * w or abs(start - (w - end)) > BAR_SKEW * w:
        return None
    bars = np.concatenate([rgb[:, :start], rgb[:, end:]], axis=1).astype(np.int16)
    if np.abs(bars - first[:1]).sum(axis=2).max() > BAR_FLAT:  # a line between the sampled ones crosses a bar
        return None
    return start, end


def _dark_corners(image: Image.Image) -> bool:
    """All four corners dark: the one look of a frame with bars, told before the frame is converted whole."""
    w, h = image.size
    corners = [image.getpixel((x, y)) for x in (0, w - 1) for y in (0, h - 1)]
    return all(isinstance(c, tuple) and max(c[:3]) <= BAR_DARK + BAR_FLAT for c in corners)


def content_box(image: Image.Image) -> Rect | None:
    """The game's box (x0, y0, x1, y1) inside a letterboxed or pillarboxed frame (`image` in RGB), or None when
    there are no bars."""
    if not _dark_corners(image):
        return None  # most frames stop here, at four pixels
    rgb = np.asarray(image)
    cols, rows = _bars(rgb), _bars(rgb.transpose(1, 0, 2))
    if cols is None and rows is None:
        return None
    x0, x1 = cols or (0, rgb.shape[1])
    y0, y1 = rows or (0, rgb.shape[0])
    return Rect(x0, y0, x1, y1)


def shifted(m: M, dx: int, dy: int) -> M:
    """`m` with every Box in it (at any depth of models and lists) moved by (dx, dy)."""
    if isinstance(m, Box):
        return Box(x0=m.x0 + dx, y0=m.y0 + dy, x1=m.x1 + dx, y1=m.y1 + dy)  # type: ignore[return-value]
    if isinstance(m, BaseModel):
        return m.model_copy(update={k: shifted(getattr(m, k), dx, dy) for k in type(m).model_fields})
    if isinstance(m, list):
        return [shifted(v, dx, dy) for v in m]  # type: ignore[return-value]
    return m
