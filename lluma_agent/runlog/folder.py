"""A run folder, and every name in it, in one place.

    turn_000012.json            the turn log, written last for its turn
    turns.sqlite                one row per turn and the full-text index (rebuilt from the turn logs if lost)
    run.json                    why and how the run ended
    checkpoint.json             what a resume goes on with; a folder without one completed no turn
    screens/turn_000012.jpg     the turn's screenshot (the newest logs.keep_screenshots are kept)
    requests/turn_000012.json.gz  the request as sent; requests/images/<digest>.<ext> each image sent, once
    confirm/turn_000012.png     the action a person was asked about (`lluma run --confirm`), marked
    careers/career_001.json     each career the run played, written when it ends (runlog/careers.py)
    memory_at_start.json        the memory folder as the run found it; memory_at_turn_N.json for a resume at N
    .lluma-run.lock             held while a process writes the folder

The root is `logs.dir` (a run writes run-<time>/ inside it; logread.default_root). Modules that write or read
these files take a `RunFolder` and ask it for the path, never spell a name.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

_TURN_GLOB = "turn_*.json"
_DB = "turns.sqlite"
_MEMORY_AT_TURN = "memory_at_turn_"


def _numbered(turn: int) -> str:
    return f"turn_{turn:06d}"


class RunFolder(BaseModel):
    """The paths of one run folder (a value: holding one creates nothing on disk)."""

    model_config = ConfigDict(frozen=True)

    path: Path

    @classmethod
    def at(cls, folder: RunFolder | Path | str) -> RunFolder:
        return folder if isinstance(folder, RunFolder) else cls(path=Path(folder))

    # ---- one file per run --------------------------------------------------------------------------------
    @property
    def db(self) -> Path:
        return self.path / _DB

    def db_companion(self, suffix: str) -> Path:
        """turns.sqlite + `suffix`: SQLite's `-wal` and `-shm`, or `.damaged` (a database set aside)."""
        return self.path / f"{_DB}{suffix}"

    @property
    def db_rebuild(self) -> Path:
        """Where a rebuilt database is written before it replaces turns.sqlite (a dot file, as every temp file)."""
        return self.path / f".{_DB}.rebuild.tmp"

    @property
    def summary(self) -> Path:
        return self.path / "run.json"

    @property
    def checkpoint(self) -> Path:
        return self.path / "checkpoint.json"

    @property
    def lock(self) -> Path:
        return self.path / ".lluma-run.lock"

    @property
    def memory_at_start(self) -> Path:
        return self.path / "memory_at_start.json"

    def memory_at_turn(self, turn: int) -> Path:
        """The memory snapshot of a sitting resumed at `turn`."""
        return self.path / f"{_MEMORY_AT_TURN}{turn:06d}.json"

    def memory_snapshots(self) -> list[Path]:
        """The memory_at_turn_N.json of every resumed sitting."""
        return sorted(self.path.glob(f"{_MEMORY_AT_TURN}*.json"))

    # ---- one file per career ----------------------------------------------------------------------------
    @property
    def careers(self) -> Path:
        return self.path / "careers"

    def career(self, number: int) -> Path:
        return self.careers / f"career_{number:03d}.json"

    # ---- one file per turn -------------------------------------------------------------------------------
    def turn_log(self, turn: int) -> Path:
        return self.path / f"{_numbered(turn)}.json"

    def turn_logs(self) -> list[Path]:
        """Every turn log, in turn order (the names sort by number)."""
        return sorted(self.path.glob(_TURN_GLOB))

    def has_turn_logs(self) -> bool:
        return any(self.path.glob(_TURN_GLOB))

    @property
    def screens(self) -> Path:
        return self.path / "screens"

    def screenshot(self, turn: int, part: str = "") -> Path:
        """The turn's screenshot; `part` names another frame of the same turn (a survey's "s2")."""
        return self.screens / f"{_numbered(turn)}{f'_{part}' if part else ''}.jpg"

    def screenshots(self) -> list[Path]:
        """Every kept screenshot, oldest turn first."""
        return sorted(self.screens.glob("turn_*.jpg"))

    @property
    def requests(self) -> Path:
        return self.path / "requests"

    def request(self, turn: int) -> Path:
        return self.requests / f"{_numbered(turn)}.json.gz"

    def stored_requests(self) -> list[Path]:
        return sorted(self.requests.glob("turn_*.json.gz"))

    @property
    def images(self) -> Path:
        """Each image a stored request sent, once, by digest."""
        return self.requests / "images"

    @property
    def confirm(self) -> Path:
        """The marked frames a person in the loop was asked about."""
        return self.path / "confirm"

    def confirm_picture(self, turn: int) -> Path:
        return self.confirm / f"{_numbered(turn)}.png"


def resumed_at(path: Path) -> int | None:
    """The turn a `memory_at_turn_N.json` was written for, or None for any other name."""
    digits = path.stem.rsplit("_", 1)[-1]
    return int(digits) if path.name.startswith(_MEMORY_AT_TURN) and digits.isdigit() else None
