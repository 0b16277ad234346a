"""A file several runs write: two phones on one memory folder, or a run and its resume started twice.

The screen map and the event book are kept so. Each run keeps its model in memory and writes it after every turn.
Written whole, the last writer's copy would be the file, and what the other run learned since it read the file
lost. So a write takes the file's lock (a sidecar `.lock` file: the file itself is replaced by each atomic write),
and when another run wrote the file since this one last read or wrote it, the file's model is read and what this
run recorded since (the model's journal: `Journaled`) is recorded again onto it, in order: counts and sums come
out as if both runs had recorded into one model. A run's own fields (`Journaled.OWN`: the pending action, how the
shown screen was reached) are never merged. The merged model is what this run goes on with, so it reads what the
other learned.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, PrivateAttr

from lluma_agent.navmap.jsonfile import BookError, Kind, load_book, open_book, save_book, set_aside

try:
    import fcntl
except ImportError:  # not on POSIX: runs sharing a file are not kept apart (the last write wins, as before)
    fcntl = None  # type: ignore[assignment]

Stamp = tuple[int, int, int]  # inode, size, modification time (ns): another write changes one of them
Entry = tuple[str, tuple[Any, ...]]  # a recording method's name and its arguments


class Journaled(BaseModel):
    """A model whose recording methods each note themselves (`_note`), so another copy can record them again."""

    OWN: ClassVar[tuple[str, ...]] = ()  # fields that are the run's own, taken from it and never merged
    _journal: list[Entry] = PrivateAttr(default_factory=list)

    @property
    def journal(self) -> list[Entry]:
        return self._journal

    def _note(self, op: str, *args: Any) -> None:
        self._journal.append((op, args))

    def replay(self, journal: list[Entry]) -> None:
        """Record again what another copy recorded (its journal), in order."""
        for op, args in journal:
            getattr(self, op)(*args)

    def own(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.OWN}


J = TypeVar("J", bound=Journaled)


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """The file's lock, held while it is read and written (flock: released by the system if the run is killed). The
    folder is made when missing (memory.shared_dir named before any device wrote there)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class SharedBook(Generic[J]):
    """The file at `path`, read once and written after every turn, merged with what other runs wrote."""

    def __init__(self, path: Path | str, kind: Kind[J]) -> None:
        self.path, self.kind = Path(path), kind
        self.stamp: Stamp | None = None  # the file as this run last read or wrote it
        self.left: dict[str, Any] = {}  # this run's own fields when it last read or wrote the file

    def open(self) -> tuple[J, str]:
        """The model to go on with, and what a person should be told (jsonfile.open_book)."""
        with locked(self.path):
            m, notice = open_book(self.path, self.kind)
            self.stamp = _stamp(self.path)
        self.left = m.own()
        return m, notice

    def save(self, ours: J) -> tuple[J, str]:
        """Write `ours`, merged onto the file when another run wrote it since; returns the model written (this run
        goes on with it) and what a person should be told ("" when nothing: a damaged file is set aside)."""
        told = ""
        with locked(self.path):
            if _stamp(self.path) != self.stamp:
                try:
                    ours = self._merged(load_book(self.path, self.kind), ours)
                except BookError as exc:  # never silently replaced: kept for a person to look at
                    kept = set_aside(self.path, self.kind.suffix) if os.path.lexists(self.path) else None
                    told = f"{exc}: set aside as {kept.name}; this run's {self.kind.noun} is written" if kept else ""
            save_book(self.path, ours)
            self.stamp = _stamp(self.path)
        ours.journal.clear()
        self.left = ours.own()
        return ours, told

    def _merged(self, theirs: J, ours: J) -> J:
        """The file's model with this run's journal recorded onto it, from where this run last left it."""
        for name, value in self.left.items():
            setattr(theirs, name, value)
        theirs.replay(ours.journal)
        for name, value in ours.own().items():
            setattr(theirs, name, value)
        theirs.journal.clear()
        return theirs
