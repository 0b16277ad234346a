"""A pydantic model kept in one JSON file beside the memory folder: read, written atomically, set aside if damaged.

The screen map and the event book are kept alike (a `Kind` each): a missing file is an empty model; a file that
cannot be read as the model (no regular file, too big, not UTF-8, not JSON, too deep, a number JSON has not, the
model's types or rules broken: lluma_agent/safeload.py) raises `BookError` naming the file and what is wrong;
`open_book` sets a damaged file aside under a new name (kept for a person to look at) and starts afresh; writes
are atomic (a crash leaves the old file or the new).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from lluma_agent.atomic import atomic_write_text, what_is
from lluma_agent.safeload import Refused, fault, read_json

M = TypeVar("M", bound=BaseModel)


class BookError(ValueError):
    """A file that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class Kind(Generic[M]):
    """A kind of file: its model, what it is called ("a screen map"), the version this LLuMa reads, its name's end
    beside the memory folder (".map.json"), and what a new one is called ("map")."""

    cls: type[M]
    what: str
    version: int
    suffix: str
    noun: str


def load_book(path: Path | str, kind: Kind[M]) -> M:
    """The model in `path`; an empty one when there is no file; BookError when the file is damaged."""
    p = Path(path)
    try:
        raw = read_json(p, kind.what)
    except FileNotFoundError:
        return kind.cls()
    except Refused as exc:  # "not a screen map (not JSON: ...)"; its kind, size or encoding as they are said
        problem = f"not {kind.what} ({exc.problem})" if exc.problem.startswith("not JSON") else exc.problem
        raise BookError(f"{p}: {problem}") from None
    if not isinstance(raw, dict):
        raise BookError(f"{p}: not {kind.what} (a JSON {type(raw).__name__}, not an object)")
    if raw.get("version", kind.version) != kind.version:
        raise BookError(f"{p}: {kind.what} of version {raw.get('version')!r}; this LLuMa reads version {kind.version}")
    try:
        return kind.cls.model_validate(raw)
    except ValidationError as exc:
        where, what = fault(exc)
        raise BookError(f"{p}: not {kind.what} ({where or '(root)'}: {what})") from None


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


def open_book(path: Path | str, kind: Kind[M]) -> tuple[M, str]:
    """The model to go on with, and what a person should be told ("" when nothing): a damaged file is set aside
    and a new one started."""
    try:
        return load_book(path, kind), ""
    except BookError as exc:
        try:
            kept = set_aside(path, kind.suffix)
        except OSError as err:
            raise BookError(f"{exc}; and it could not be set aside ({err.strerror or err})") from None
        return kind.cls(), f"{exc}: set aside as {kept.name}; a new {kind.noun} is started"


def read_only(path: Path, kind: Kind[M]) -> M:
    """The model at `path` for a command that shows it (the file is left where it is, damaged or not); BookError
    naming the file when there is none, when it is no regular file (a FIFO, a link to /dev/zero: refused at once,
    never read) or when it is damaged."""
    later = f"the next run sets it aside and starts a new {kind.noun}"
    if path.exists() and not path.is_file():
        raise BookError(f"{path} is {what_is(path)}, not {kind.what} file; {later}")
    if not path.is_file():
        raise BookError(f"no {kind.what.split(' ', 1)[-1]} at {path}: a run with map.enabled (the default) writes it "
                        "there as it plays")
    try:
        return load_book(path, kind)
    except BookError as exc:
        raise BookError(f"{exc}; {later}") from None
