"""A fleet's folder and the records its devices' agents send.

    FLEETDIR/fleet.json              what was asked (FleetSpec): the devices, the limits, the engine
    FLEETDIR/shared/                 what the game teaches once (memory.shared_dir): memory.map.json,
                                     memory.events.json, procedures.json; locked and journaled, every device's kept
    FLEETDIR/devices/SERIAL/         the device's run folder (turn logs, checkpoint, careers), named by its serial
                                     (the shared map tells the devices' steps apart by it): `lluma stats` reads it
    FLEETDIR/devices/SERIAL/memory/  the device's own memory folder
    FLEETDIR/devices/SERIAL/agent.log  what its agent said on stderr (each start appends)
    FLEETDIR/summary.json            the fleet's totals when it stopped (FleetSummary, also `--json`)

A serial such as `127.0.0.1:5555` is kept in a folder name with `_` for the characters a file name should not hold.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from lluma_agent.atomic import atomic_write_text

SPEC = "fleet.json"
SUMMARY = "summary.json"


class FleetError(Exception):
    """A fleet that cannot start or be read; the message is one line for a person."""


class FleetSpec(BaseModel):
    """What a fleet was asked to do, kept so `--resume FLEETDIR` goes on with the same."""

    devices: list[str]
    careers: int = 0  # careers per device (0: no limit)
    hours: float = 0.0  # hours per sitting (0: no limit)
    max_cost_usd: float = 0.0  # the fleet's one budget, all devices together (0: no limit)
    max_turns: int = 0  # turns per device (0: no limit)
    restarts: int = 3  # a dead agent started again from its checkpoint at most this many times
    config: str | None = None  # the config file every device reads (absolute), or None for the defaults
    ray: str | None = None  # the Ray cluster's address, or None: processes on this machine
    created_at: float = Field(default_factory=time.time)


class Limits(BaseModel):
    """One start of a device's agent: what is left of the fleet's limits (0: no limit)."""

    careers: int = 0
    hours: float = 0.0
    max_cost_usd: float = 0.0
    max_turns: int = 0


class DeviceResult(BaseModel):
    """A device's part in the fleet's `--json`."""

    serial: str
    node: str = ""  # where its agent ran: this machine's name, or the Ray node's address
    careers_completed: int = 0
    turns: int = 0
    cost_usd: float = 0.0
    stop_kind: str | None = None
    stop_reason: str = ""
    restarts: int = 0  # times its agent was started again from its checkpoint
    gone: str = ""  # why the device was given up ("": it played to its stop)
    run_dir: str = ""


class FleetSummary(BaseModel):
    devices: list[DeviceResult]
    careers_completed: int
    turns: int
    cost_usd: float
    stop_reason: str
    fleet_dir: str
    engine: Literal["local", "ray"] = "local"

    @classmethod
    def of(cls, results: list[DeviceResult], stop_reason: str, folder: Path, engine: Literal["local", "ray"]
           ) -> FleetSummary:
        return cls(devices=results, careers_completed=sum(r.careers_completed for r in results),
                   turns=sum(r.turns for r in results), cost_usd=round(sum(r.cost_usd for r in results), 6),
                   stop_reason=stop_reason, fleet_dir=str(folder), engine=engine)


class Record(BaseModel):
    """What a device's agent tells the supervisor, one at a time (a JSON line from a process, a Ray poll)."""

    kind: Literal["turn", "notify", "done", "gone", "said"]
    serial: str
    turn: int = 0
    cost_usd: float = 0.0  # the device's run so far, every sitting (a turn's record)
    careers: int = 0  # careers the run completed so far
    line: str = ""  # the turn's live line, or what was said
    event: str = ""  # notify: the event's name
    data: dict[str, Any] = {}  # notify: its fields
    result: DeviceResult | None = None  # done


def folder_name(serial: str) -> str:
    """`127.0.0.1:5555` -> `127.0.0.1_5555`: a serial as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", serial) or "_"


class FleetFolder:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()

    @property
    def spec_path(self) -> Path:
        return self.root / SPEC

    @property
    def shared(self) -> Path:
        return self.root / "shared"

    @property
    def summary_path(self) -> Path:
        return self.root / SUMMARY

    def device(self, serial: str) -> Path:
        return self.root / "devices" / folder_name(serial)

    def run_dir(self, serial: str) -> Path:
        return self.device(serial)

    def memory_dir(self, serial: str) -> Path:
        return self.device(serial) / "memory"

    def agent_log(self, serial: str) -> Path:
        return self.device(serial) / "agent.log"

    def is_fleet(self) -> bool:
        return self.spec_path.is_file()

    def create(self, spec: FleetSpec) -> None:
        """A new fleet's folder; FleetError when `root` holds one already (nothing written)."""
        if self.is_fleet():
            raise FleetError(f"{self.root} holds a fleet already: go on with it with --resume {self.root}")
        if len({folder_name(s) for s in spec.devices}) != len(spec.devices):
            raise FleetError(f"two devices of {', '.join(spec.devices)} are the same serial")
        self.shared.mkdir(parents=True, exist_ok=True)
        for serial in spec.devices:
            self.memory_dir(serial).mkdir(parents=True, exist_ok=True)
        self.save(spec)

    def save(self, spec: FleetSpec) -> None:
        atomic_write_text(self.spec_path, spec.model_dump_json(indent=2))

    def spec(self) -> FleetSpec:
        """The fleet's spec; FleetError (one line) when the folder holds none or a damaged one."""
        try:
            return FleetSpec.model_validate_json(self.spec_path.read_bytes())
        except FileNotFoundError:
            raise FleetError(f"{self.root} holds no fleet (no {SPEC})") from None
        except (OSError, ValidationError, ValueError) as exc:
            raise FleetError(f"{self.spec_path} cannot be read ({str(exc).splitlines()[0]})") from None

    def write_summary(self, summary: FleetSummary) -> None:
        atomic_write_text(self.summary_path, summary.model_dump_json(indent=2))

    def summary(self) -> FleetSummary | None:
        try:
            return FleetSummary.model_validate_json(self.summary_path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None
