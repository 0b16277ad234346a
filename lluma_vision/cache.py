"""Vision cache: an unchanged screen costs no OCR and no VLM call.

The key is a grid of per-region perceptual hashes (a DCT hash of each cell, like pHash, on a
6x10 grid). A whole-frame 64-bit pHash barely moves when one number or one label changes;
a per-region hash does, because the change is a large part of its cell. Two frames match when
every region is within `max_distance` bits (0 = identical hashes). Entries expire after
`max_age_s`; the least recently used entry is dropped beyond `max_size`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import scipy.fft
from PIL import Image

from lluma_vision.models import VisionOutput


def region_hash(image: Image.Image, short_cells: int = 6, long_cells: int = 10) -> np.ndarray:
    """Per-region 64-bit DCT hashes, shape (cells, 8) uint8. ~2 ms for a 1080x1920 frame."""
    g = image.convert("L")
    w, h = g.size
    cols, rows = (short_cells, long_cells) if w <= h else (long_cells, short_cells)
    f = max(1, min(w // (cols * 24), h // (rows * 24)))  # keep >= 24 px per cell after reducing
    if f > 1:
        g = g.reduce(f)
    a = np.asarray(g, dtype=np.float32)
    ch, cw = max(1, a.shape[0] // rows), max(1, a.shape[1] // cols)
    if ch < 8 or cw < 8:  # tiny image: one region
        a = np.asarray(g.resize((32, 32)), dtype=np.float32)
        rows = cols = 1
        ch = cw = 32
    cells = a[: ch * rows, : cw * cols].reshape(rows, ch, cols, cw).transpose(0, 2, 1, 3)
    d = scipy.fft.dctn(cells, axes=(2, 3))[:, :, :8, :8].reshape(rows * cols, 64)
    bits = d > np.median(d, axis=1, keepdims=True)
    return np.packbits(bits, axis=1)


def max_region_distance(a: np.ndarray, b: np.ndarray) -> int:
    if a.shape != b.shape:
        return 64
    return int(np.unpackbits(a ^ b, axis=1).sum(axis=1).max())


@dataclass
class _Entry:
    key: np.ndarray
    size: tuple[int, int]
    output: VisionOutput
    stored_at: float


class VisionCache:
    """LRU of recent readings keyed by region hashes."""

    def __init__(self, max_size: int = 64, max_age_s: float = 120.0, max_distance: int = 0) -> None:
        self.max_size, self.max_age_s, self.max_distance = max_size, max_age_s, max_distance
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        self._next = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: np.ndarray, size: tuple[int, int], now: float | None = None) -> VisionOutput | None:
        now = time.monotonic() if now is None else now
        for eid, e in list(self._entries.items()):
            if now - e.stored_at > self.max_age_s:
                del self._entries[eid]
                continue
            if e.size == size and max_region_distance(e.key, key) <= self.max_distance:
                self._entries.move_to_end(eid)
                self.hits += 1
                return e.output
        self.misses += 1
        return None

    def put(self, key: np.ndarray, size: tuple[int, int], output: VisionOutput, now: float | None = None) -> None:
        if self.max_size <= 0:
            return
        now = time.monotonic() if now is None else now
        self._entries[self._next] = _Entry(key=key, size=size, output=output, stored_at=now)
        self._next += 1
        while len(self._entries) > self.max_size:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()
