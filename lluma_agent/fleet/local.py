"""The devices as supervised processes on this machine (the default engine): one `fleet.worker` each, in a
session of its own so the supervisor alone decides what a Ctrl+C does to it, ended with the supervisor if that
dies (Linux's parent-death signal)."""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from typing import IO, Literal

from pydantic import ValidationError

from lluma_agent.fleet.folder import FleetFolder, Limits, Record

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent dies


def _end_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: an orphaned worker plays on to its own stop
        pass


class ProcessHandle:
    """One device's agent process: its records as they come, whether it ended and how."""

    lost_node = False  # a process on this machine has no node to lose

    def __init__(self, folder: FleetFolder, serial: str, limits: Limits, environ: Mapping[str, str]) -> None:
        self.serial, self.node = serial, os.uname().nodename
        folder.device(serial).mkdir(parents=True, exist_ok=True)
        with open(folder.agent_log(serial), "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "lluma_agent.fleet.worker", str(folder.root), serial, limits.model_dump_json()],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, env=dict(environ),
                start_new_session=True, preexec_fn=_end_with_parent)
        self.records: queue.Queue[Record] = queue.Queue()
        self.reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
        self.reader.start()

    def _read(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for raw in stream:
            try:
                self.records.put(Record.model_validate_json(raw))
            except (ValidationError, ValueError):
                text = raw.decode("utf-8", "replace").strip()
                self.records.put(Record(kind="said", serial=self.serial, line=text[:200]))

    def poll(self) -> list[Record]:
        out = []
        while True:
            try:
                out.append(self.records.get_nowait())
            except queue.Empty:
                return out

    def finished(self) -> bool:
        """The process ended and every record it wrote was read."""
        return self.proc.poll() is not None and not self.reader.is_alive()

    def died(self) -> str:
        code = self.proc.returncode
        return f"killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exit {code}"

    def stop(self) -> None:
        """Stop after this turn; a second call stops at once (the worker's CtrlC counts them)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)


class LocalEngine:
    name: Literal["local", "ray"] = "local"

    def __init__(self, folder: FleetFolder, environ: Mapping[str, str] = os.environ) -> None:
        self.folder, self.environ = folder, environ

    def start(self, serial: str, limits: Limits) -> ProcessHandle:
        return ProcessHandle(self.folder, serial, limits, self.environ)

    def close(self) -> None:
        pass
