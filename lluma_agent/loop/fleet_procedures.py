"""The procedures the models of a fleet's devices wrote, kept in one file every device reads (memory.shared_dir).

Each device's model writes its own `procedures.yaml` in its own memory folder, as without a fleet. After each turn
the device hands what it changed there since it last did so (a procedure written, changed or deleted) to the
fleet's `procedures.json`, under the file's lock (navmap/shared.py): only its own changes, so a device that did
not touch a procedure never writes back an older copy of another's, and every device's entries are kept. A device
plays its own procedures first, then the fleet's others (a name both wrote is its own). A file that cannot be read
is set aside, never silently replaced.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from lluma_agent.atomic import atomic_write_text
from lluma_agent.navmap.jsonfile import set_aside
from lluma_agent.navmap.shared import locked

FILE = "procedures.json"


class FleetProcedures:
    def __init__(self, shared_dir: Path, device: str) -> None:
        self.path, self.device = Path(shared_dir) / FILE, device
        self.mine: dict[str, Any] = {}  # what this device last handed over, by name

    def _read(self) -> tuple[dict[str, dict[str, Any]], str]:
        """The file's entries (name -> {by, at, procedure}) and what a person should be told ("" when nothing)."""
        try:
            data = json.loads(self.path.read_bytes())
            entries = data["procedures"]
            if not isinstance(entries, dict) or not all(isinstance(e, dict) and "procedure" in e
                                                        for e in entries.values()):
                raise ValueError("its procedures are not a mapping of entries")
            return entries, ""
        except FileNotFoundError:
            return {}, ""
        except (OSError, ValueError, KeyError, TypeError) as exc:
            kept = set_aside(self.path, ".json") if os.path.lexists(self.path) else None
            return {}, f"{self.path} cannot be read ({exc}): set aside as {kept.name if kept else '?'}"

    def share(self, own: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """Hand this device's changes to its procedures (`own`, as its file holds them) over; returns the others'
        procedures (name -> the YAML's mapping, this device's own names left out) and what a person should be told."""
        with locked(self.path):
            entries, told = self._read()
            changed = False
            for name, body in own.items():
                if self.mine.get(name) != body:
                    entries[name] = {"by": self.device, "at": time.time(), "procedure": body}
                    changed = True
            for name in set(self.mine) - set(own):  # deleted here: gone from the fleet unless another wrote it since
                if entries.get(name, {}).get("by") == self.device:
                    del entries[name]
                    changed = True
            if changed:
                atomic_write_text(self.path, json.dumps({"procedures": entries}, indent=1, ensure_ascii=False))
        self.mine = dict(own)
        return {n: e["procedure"] for n, e in entries.items() if n not in own}, told

    def by(self, name: str) -> str:
        """Which device wrote the fleet's procedure `name` (for the source named in a fault)."""
        try:
            return str(json.loads(self.path.read_bytes())["procedures"][name]["by"])
        except (OSError, ValueError, KeyError, TypeError):
            return "another device"
