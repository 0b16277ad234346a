"""One way to replace a file whole: a temp file beside it, then a rename over it (a reader sees the old file or the
new one, never half of one). The agent's files (lluma_agent/atomic.py) and the OCR's shared reads
(lluma_vision/pixels/kept_on_disk.py) both write through it."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def replace_file(path: Path, data: bytes, mode: int | None = None, durable: bool = True) -> None:
    """Write `data` to a temp file beside `path` (`.NAME.XXXX.tmp`; `mode` set on it when given, else mkstemp's
    0600) and rename it over `path`; the temp file is removed when anything fails. `durable`: fsync before the
    rename, so a crash leaves the old file or the new one whole (a cache that can be read again passes False)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
