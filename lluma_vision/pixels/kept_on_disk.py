"""The OCR's reads kept in a folder that processes share (LLUMA_OCR_CACHE), beside each process's own (ocr.Kept).

The OCR is a function of pixels: a frame's detection of its pixels, a line's text of its crop's. So what one process
read, another need not read again. The test suite's workers and the `lluma` processes they start share one folder a
session (tests/conftest.py): most of its careers pass the same home, setup and hub screens. A person may name one
for benches re-read on the same screens. Unset (the default), nothing is kept on disk.

An entry is a small JSON file named by the digest, written atomically (a reader never sees half of one). A missing,
damaged or unreadable entry is a miss and a write that fails (a full disk) is skipped: the folder never ends a read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lluma_facts.files import replace_file

CACHE_ENV = "LLUMA_OCR_CACHE"


def folder(kind: str) -> Path | None:
    """Where `kind`'s entries live, or None when LLUMA_OCR_CACHE is unset (read at each call: a test sets it)."""
    root = os.environ.get(CACHE_ENV, "").strip()
    return Path(root) / kind if root else None


def load(kind: str, key: bytes) -> Any | None:
    where = folder(kind)
    if where is None:
        return None
    try:
        return json.loads((where / key.hex()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(kind: str, key: bytes, value: Any) -> None:
    where = folder(kind)
    if where is None:
        return
    try:  # no fsync: an entry a crash cut short is damaged, read as a miss and read again
        replace_file(where / key.hex(), json.dumps(value).encode("utf-8"), durable=False)
    except (OSError, TypeError, ValueError):
        return
