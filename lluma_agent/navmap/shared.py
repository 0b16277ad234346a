"""The map file as several runs share it: two phones on one memory folder, or a run and its resume started twice.

Each run keeps the map in memory and writes it after every turn. Written whole, the last writer's map would be the
file, and what the other run learned since it read the file lost. So a write takes the file's lock (a sidecar
`.lock` file: the map itself is replaced by each atomic write), and when another run wrote the file since this one
last read or wrote it, the file's map is read and what this run recorded since (the map's journal) is recorded
again onto it, in order: counts, streaks, failures and interruptions come out as if both runs had recorded into one
map. The pending action and how the shown screen was reached are this run's own. The merged map is what this run
goes on with, so it reads what the other learned.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from lluma_agent.navmap.model import Arrival, ScreenMap
from lluma_agent.navmap.store import MapError, load_map, open_map, save_map, set_aside

try:
    import fcntl
except ImportError:  # not on POSIX: runs sharing a map are not kept apart (the last write wins, as before)
    fcntl = None  # type: ignore[assignment]

Stamp = tuple[int, int, int]  # inode, size, modification time (ns): another write changes one of them


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """The map's lock, held while it is read and written (flock: released by the system if the run is killed)."""
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        if fcntl is not None:
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class SharedMap:
    """The map file at `path`, read once and written after every turn, merged with what other runs wrote."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.stamp: Stamp | None = None  # the file as this run last read or wrote it
        self.arrival: Arrival | None = None  # how this run's shown screen was reached when it last wrote

    def open(self) -> tuple[ScreenMap, str]:
        """The map to go on with, and what a person should be told (store.open_map)."""
        with _locked(self.path):
            m, notice = open_map(self.path)
            self.stamp = _stamp(self.path)
        self.arrival = m.arrival
        return m, notice

    def save(self, ours: ScreenMap) -> tuple[ScreenMap, str]:
        """Write `ours`, merged onto the file when another run wrote it since; returns the map written (this run
        goes on with it) and what a person should be told ("" when nothing: a damaged file is set aside)."""
        told = ""
        with _locked(self.path):
            if _stamp(self.path) != self.stamp:
                try:
                    ours = self._merged(load_map(self.path), ours)
                except MapError as exc:  # never silently replaced: kept for a person to look at
                    kept = set_aside(self.path) if self.path.exists() else None
                    told = f"{exc}: set aside as {kept.name}; this run's map is written" if kept else ""
            save_map(self.path, ours)
            self.stamp = _stamp(self.path)
        ours.journal.clear()
        self.arrival = ours.arrival
        return ours, told

    def _merged(self, theirs: ScreenMap, ours: ScreenMap) -> ScreenMap:
        """The file's map with this run's journal recorded onto it, from where this run last left it."""
        theirs.arrival = self.arrival
        theirs.replay(ours.journal)
        theirs.pending, theirs.arrival = ours.pending, ours.arrival
        theirs.journal.clear()
        return theirs
