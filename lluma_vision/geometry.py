"""The one rectangle of the reading's arithmetic: `Rect(x0, y0, x1, y1)`, x1/y1 exclusive.

Inside the pipeline every rectangle is in *working* pixels (the frame as `ocr.prepare` scaled it); the output
speaks *device* pixels (`models.Box`). The one crossing is `ocr.Work`: `work.to_device(rect)` out,
`work.from_device(box)` in (the re-reads that start from an output value), nothing else multiplies by the scale.

`Rect` is a NamedTuple so a rule can still unpack it (`x0, y0, x1, y1 = r`) or hand it to numpy/OpenCV code; a
rectangle is made as a `Rect` where it is found (OpenCV's (x, y, w, h) through `Rect.xywh`), never passed around
as a bare 4-tuple. Every operation returns a new `Rect`; none clips unless asked (`clip`).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np


class HasBox(Protocol):
    """Anything with a box's four sides: an OCR `Line`, a layout `Block`, a `Box`, a `Rect`."""

    @property
    def x0(self) -> float: ...
    @property
    def y0(self) -> float: ...
    @property
    def x1(self) -> float: ...
    @property
    def y1(self) -> float: ...


class Rect(NamedTuple):
    x0: float
    y0: float
    x1: float
    y1: float

    @classmethod
    def of(cls, b: HasBox) -> Rect:
        """The rectangle of a box-like object (its four sides)."""
        return cls(b.x0, b.y0, b.x1, b.y1)

    @classmethod
    def xywh(cls, x: float, y: float, w: float, h: float) -> Rect:
        """From OpenCV's (x, y, width, height)."""
        return cls(x, y, x + w, y + h)

    # -- measures --------------------------------------------------------------------------------------------------
    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def center(self) -> tuple[float, float]:
        return (self.cx, self.cy)

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    def contains(self, x: float, y: float) -> bool:
        """The point lies inside, edges included (a centre on a shape's border is in it)."""
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    # -- relations -------------------------------------------------------------------------------------------------
    def rows_overlap(self, o: HasBox) -> float:
        """How many rows the two share (negative: the gap between them)."""
        return min(self.y1, o.y1) - max(self.y0, o.y0)

    def columns_overlap(self, o: HasBox) -> float:
        """How many columns the two share (negative: the gap between them)."""
        return min(self.x1, o.x1) - max(self.x0, o.x0)

    def intersects(self, o: HasBox, margin: float = 0.0) -> bool:
        """They share more than `margin` pixels both ways (strictly: touching is not overlapping)."""
        return self.rows_overlap(o) > margin and self.columns_overlap(o) > margin

    def overlap(self, o: HasBox) -> float:
        """The shared area."""
        return max(0.0, self.rows_overlap(o)) * max(0.0, self.columns_overlap(o))

    def overlap_fraction(self, o: HasBox) -> float:
        """The share of this rectangle's area that `o` covers."""
        return self.overlap(o) / self.area if self.area > 0 else 0.0

    def iou(self, o: HasBox) -> float:
        """Intersection over union."""
        inter = self.overlap(o)
        union = self.area + Rect.of(o).area - inter
        return inter / union if union > 0 else 0.0

    # -- new rectangles --------------------------------------------------------------------------------------------
    def union(self, o: HasBox) -> Rect:
        return Rect(min(self.x0, o.x0), min(self.y0, o.y0), max(self.x1, o.x1), max(self.y1, o.y1))

    def expand(self, left: float, top: float | None = None, right: float | None = None,
               bottom: float | None = None) -> Rect:
        """Grown by the given margins (negative shrinks); one value grows every side, two grow (x, y)."""
        if top is None:
            top = left
        if right is None:
            right = left
        if bottom is None:
            bottom = top
        return Rect(self.x0 - left, self.y0 - top, self.x1 + right, self.y1 + bottom)

    def clip(self, width: float, height: float) -> Rect:
        """Inside an image of `width` x `height` (its sides clamped to 0..width, 0..height)."""
        return Rect(max(0.0, self.x0), max(0.0, self.y0), min(float(width), self.x1), min(float(height), self.y1))

    def scale(self, s: float) -> Rect:
        """Every coordinate times `s` (into another pixel space)."""
        return Rect(self.x0 * s, self.y0 * s, self.x1 * s, self.y1 * s)

    def shift(self, dx: float, dy: float) -> Rect:
        return Rect(self.x0 + dx, self.y0 + dy, self.x1 + dx, self.y1 + dy)

    # -- bands: strips relative to this rectangle, sized in units `u` (usually its height) ---------------------------
    def band_above(self, reach: float, gap: float = 0.0, pad: float = 0.0) -> Rect:
        """The strip over it: from `reach` over its top to `gap` over it, `pad` wider each side."""
        return Rect(self.x0 - pad, self.y0 - reach, self.x1 + pad, self.y0 - gap)

    def band_below(self, reach: float, gap: float = 0.0, pad: float = 0.0) -> Rect:
        return Rect(self.x0 - pad, self.y1 + gap, self.x1 + pad, self.y1 + reach)

    def band_left(self, reach: float, gap: float = 0.0, pad: float = 0.0) -> Rect:
        """The strip left of it on its row: from `reach` left of it to `gap` left of it, `pad` taller each way."""
        return Rect(self.x0 - reach, self.y0 - pad, self.x0 - gap, self.y1 + pad)

    def band_right(self, reach: float, gap: float = 0.0, pad: float = 0.0) -> Rect:
        return Rect(self.x1 + gap, self.y0 - pad, self.x1 + reach, self.y1 + pad)

    # -- pixels ----------------------------------------------------------------------------------------------------
    def ints(self) -> tuple[int, int, int, int]:
        """The pixel rows/columns it spans, truncated as slicing does."""
        return int(self.x0), int(self.y0), int(self.x1), int(self.y1)

    def crop(self, rgb: np.ndarray) -> np.ndarray:
        """The image's pixels under it (truncated to whole pixels; empty when it lies outside)."""
        x0, y0, x1, y1 = self.ints()
        return np.ascontiguousarray(rgb[max(0, y0):max(0, y1), max(0, x0):max(0, x1)])


class Boxed:
    """The sides and centre of something that holds one `box: Rect` (an OCR line, a block of lines): read from the
    box, never stored apart from it."""

    box: Rect

    @property
    def x0(self) -> float:
        return self.box.x0

    @property
    def y0(self) -> float:
        return self.box.y0

    @property
    def x1(self) -> float:
        return self.box.x1

    @property
    def y1(self) -> float:
        return self.box.y1

    @property
    def cx(self) -> float:
        return self.box.cx

    @property
    def cy(self) -> float:
        return self.box.cy
