"""Atomic file writes: write a temp file beside the target, fsync, then rename over it.

A reader (or a crash, or a second Ctrl+C) sees the old file or the new one, never half of one. And the other
side: `read_regular` reads a file the agent keeps, refusing at once what is not a regular file (a FIFO would
block the read for ever).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from lluma_facts.files import replace_file


def atomic_write_bytes(path: Path | str, data: bytes) -> None:
    _replace(Path(path), data)


def _replace(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to a temp file beside `path`, fsync it, and rename it over `path` (lluma_facts.files)."""
    replace_file(path, data, mode)


def what_is(path: Path | str) -> str:
    """What a path that is not a regular file is, in words ("a folder", "a FIFO (named pipe)", ...)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return "missing or unreadable"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


class NotRegular(OSError):
    """A path the agent reads as a file is something else: `kind` says what (what_is)."""

    def __init__(self, path: Path | str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", str(path))
        self.kind = kind


def read_regular(path: Path | str, limit: int = -1) -> bytes:
    """The bytes of `path`, a regular file; NotRegular at once for anything else (opened without blocking, then
    checked on the open file: a FIFO's read would wait for a writer that never comes, a link to /dev/zero would
    never end). At most `limit` bytes when it is given. FileNotFoundError and other OSErrors as `open` raises them."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, what_is(path))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as fh:
            fd = -1  # the file object closes it
            return fh.read(limit)
    finally:
        if fd >= 0:
            os.close(fd)


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_output(path: Path | str, data: bytes) -> Path:
    """A file made for a person to keep or share (a report, an annotated screenshot), written atomically.

    A symlink is written through (its target gets the bytes, the link stays a link); a path that is something
    other than a regular file (a folder, a FIFO, a device such as /dev/full) is refused with an OSError before
    anything is written; a new file gets the user's umask (0644 under the usual 022), an existing one keeps its
    mode. Returns the path written (the link's target)."""
    target = Path(os.path.realpath(path))
    try:
        st = os.stat(target)
    except FileNotFoundError:
        mode = _umask_mode()
    else:
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (refused: only a regular file is replaced)", str(path))
        mode = stat.S_IMODE(st.st_mode)
    _replace(target, data, mode)
    return target


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
