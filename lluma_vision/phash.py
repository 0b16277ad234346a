"""Screen identity: one definition of "the screen changed", used by settle, the effect of an
action, stuck detection, the freshness check before a tap and the vision cache.

A frame's hash is a grid of per-region DCT hashes (pHash per cell, 6x10 cells on a portrait
frame), as hex. A whole-frame 64-bit pHash barely moves when one number or one dialogue page
changes; a per-region hash does, because the change is a large part of its cell. The distance
between two frames is the largest Hamming distance of any region (0 = identical screens).
"""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.fft
from PIL import Image

from lluma_vision.models import Box

# evidence: BITS: feaeb93 (per-region hashes: a dialogue page or one stat counts as a change); the others: each on its
#   own line (a bench/knobs.py sweep, or docs/knob_debt.md)
BITS = 64  # per region; also the distance of frames that cannot be compared (other size or grid)
# not measured: a definition tied to BITS (BITS = SIDE**2): not free to sweep alone (docs/knob_debt.md)
SIDE = 8  # a region's hash: the lowest SIDE x SIDE DCT coefficients over their median (BITS = SIDE**2)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 0.5x-1.5x; kept 24
MIN_CELL = 24  # px per cell kept after reducing a big frame (a cell must still show a button's shape)
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 32
TINY = 32  # an image whose cells would be under SIDE px is hashed whole at TINY x TINY
# not measured: a format (a hash's short name in logs) (docs/knob_debt.md)
ID_CHARS = 12  # a hash's short name in logs: 12 hex characters (48 bits)


def region_hash(image: Image.Image, short_cells: int = 6, long_cells: int = 10) -> np.ndarray:
    """Per-region 64-bit DCT hashes, shape (cells, 8) uint8. ~2 ms for a 1080x1920 frame."""
    g = image.convert("L")
    w, h = g.size
    cols, rows = (short_cells, long_cells) if w <= h else (long_cells, short_cells)
    f = max(1, min(w // (cols * MIN_CELL), h // (rows * MIN_CELL)))
    if f > 1:
        g = g.reduce(f)
    a = np.asarray(g, dtype=np.float32)
    ch, cw = max(1, a.shape[0] // rows), max(1, a.shape[1] // cols)
    if ch < SIDE or cw < SIDE:  # tiny image: one region
        a = np.asarray(g.resize((TINY, TINY)), dtype=np.float32)
        rows = cols = 1
        ch = cw = TINY
    cells = a[: ch * rows, : cw * cols].reshape(rows, ch, cols, cw).transpose(0, 2, 1, 3)
    d = scipy.fft.dctn(cells, axes=(2, 3))[:, :, :SIDE, :SIDE].reshape(rows * cols, BITS)
    bits = d > np.median(d, axis=1, keepdims=True)
    return np.packbits(bits, axis=1)


def max_region_distance(a: np.ndarray, b: np.ndarray) -> int:
    if a.shape != b.shape:
        return BITS
    return int(np.unpackbits(a ^ b, axis=1).sum(axis=1).max())


def phash(image: Image.Image, box: Box | None = None) -> str:
    """The frame's (or the box's) region hash as hex."""
    if box is not None:
        image = image.crop((box.x0, box.y0, box.x1, box.y1))
    return region_hash(image).tobytes().hex()


def from_hex(h: str) -> np.ndarray:
    return np.frombuffer(bytes.fromhex(h), dtype=np.uint8).reshape(-1, BITS // SIDE)


def distance(a: str, b: str) -> int:
    """Largest per-region Hamming distance between two frame hashes (0 = the same screen)."""
    if len(a) != len(b):
        return BITS
    return max_region_distance(from_hex(a), from_hex(b))


def short_id(h: str) -> str:
    """A 12-character name for a frame hash, for logs and people."""
    return hashlib.sha1(h.encode("ascii")).hexdigest()[:ID_CHARS]
