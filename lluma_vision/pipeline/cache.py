"""Vision cache: an unchanged screen costs no OCR and no VLM call.

The key is the frame's region hash (lluma_vision.phash: a DCT hash per cell of a 6x10 grid). Two
frames match when every region is within `max_distance` bits (0 = identical hashes). Entries expire after
`max_age_s`; the least recently used entry is dropped beyond `max_size`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from lluma_vision.models import VisionOutput
from lluma_vision.phash import max_region_distance


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
