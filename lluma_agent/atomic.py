"""Atomic file writes: write a temp file beside the target, fsync, then rename over it.

A reader (or a crash, or a second Ctrl+C) sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: Path | str, text: str) -> None:
    """Raises ValueError (before touching the disk) when `text` cannot be stored as UTF-8 (lone surrogates)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"text holds a character that is not valid UTF-8 at position {exc.start}") from None
    atomic_write_bytes(path, data)


def remove_stale_temps(folder: Path | str) -> list[Path]:
    """Delete temp files an interrupted atomic write left behind (`.name.XXXX.tmp`); returns what was removed.

    Call it at start-up only: while a run is writing, its temp files are live."""
    removed: list[Path] = []
    folder = Path(folder)
    if not folder.is_dir():
        return removed
    for tmp in folder.glob(".*.tmp"):
        try:
            if tmp.is_file() and not tmp.is_symlink():
                tmp.unlink()
                removed.append(tmp)
        except OSError:
            pass
    return removed
