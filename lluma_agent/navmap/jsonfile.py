"""A pydantic model kept in one JSON file beside the memory folder: read, written atomically, set aside if damaged.

The screen map and the event book are kept alike: a missing file is an empty model; a file that cannot be read as
the model (or is no regular file: a FIFO would block the read) raises `BookError` naming the file and what is
wrong; `open_book` sets a damaged file aside under a new name (kept for a person to look at) and starts afresh;
writes are atomic (a crash leaves the old file or the new).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from lluma_agent.atomic import NotRegular, atomic_write_text, read_regular

M = TypeVar("M", bound=BaseModel)


class BookError(ValueError):
    """A file that cannot be used; the message names the file and what is wrong."""


def load_book(path: Path | str, cls: type[M], what: str, version: int) -> M:
    """The model in `path`; an empty one when there is no file; BookError when the file is damaged."""
    p = Path(path)
    try:
        data = read_regular(p)
    except FileNotFoundError:
        return cls()
    except NotRegular as exc:  # a FIFO blocked the run's start: no turn in 90 s (issue 39)
        raise BookError(f"{p}: {exc.kind}, not {what} file") from None
    except OSError as exc:
        raise BookError(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BookError(f"{p}: not {what} (not JSON: {exc})") from None
    if not isinstance(raw, dict):
        raise BookError(f"{p}: not {what} (a JSON {type(raw).__name__}, not an object)")
    if raw.get("version", version) != version:
        raise BookError(f"{p}: {what} of version {raw.get('version')!r}; this LLuMa reads version {version}")
    try:
        return cls.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "(root)"
        raise BookError(f"{p}: not {what} ({where}: {first['msg']})") from None


def save_book(path: Path | str, book: BaseModel) -> None:
    """Write atomically (a reader or a crash sees the old file or the new one)."""
    atomic_write_text(path, book.model_dump_json(indent=1) + "\n")


def set_aside(path: Path | str, suffix: str, now: float | None = None) -> Path:
    """Rename a damaged file out of the way (`memory<suffix>` -> `memory.<kind>.damaged-20261126-140512.json`)."""
    p = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    stem, kind = p.name.removesuffix(suffix), suffix.removesuffix(".json")
    target = p.with_name(f"{stem}{kind}.damaged-{stamp}.json")
    n = 1
    while target.exists():
        n += 1
        target = p.with_name(f"{stem}{kind}.damaged-{stamp}-{n}.json")
    p.rename(target)
    return target


def open_book(path: Path | str, cls: type[M], what: str, version: int, suffix: str, noun: str = "one"
              ) -> tuple[M, str]:
    """The model to go on with, and what a person should be told ("" when nothing): a damaged file is set aside
    and a new `noun` started."""
    try:
        return load_book(path, cls, what, version), ""
    except BookError as exc:
        try:
            kept = set_aside(path, suffix)
        except OSError as err:
            raise BookError(f"{exc}; and it could not be set aside ({err.strerror or err})") from None
        return cls(), f"{exc}: set aside as {kept.name}; a new {noun} is started"
