"""The devices on several machines: each device's agent a Ray actor on the node whose adb server holds it.

A node declares each serial it holds as the custom resource `adb:SERIAL` (`ray start --address HEAD --resources
'{"adb:emulator-5554": 1}'`); an actor asks for one unit of it, so Ray places it there and nowhere else (and no
CPU: the OCR's threads are the agent's own business). The driver, on the head, holds what is the fleet's alone (the
supervisor: the budget, the notify stream, the live view); an actor hands its records over when polled.

The fleet's folder must be one every node sees at the same path (NFS, a shared disk, or the one machine of a test):
each agent writes its run folder and the shared map there directly, nothing is copied. The map's lock is flock,
which Linux's NFS client takes on the server. A node that dies ends its actors: the supervisor reports it and
starts them again; they wait, pending, until a node holding their `adb:SERIAL` is back, then go on from their
checkpoints.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Mapping
from typing import Any, Literal

from lluma_agent.fleet.agent import play
from lluma_agent.fleet.folder import FleetError, FleetFolder, Limits, Record
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.turn import RunTotals

try:
    import ray
    from ray.exceptions import RayError
except ImportError:  # an optional extra: `lluma fleet --ray` says how to install it
    ray = None  # type: ignore[assignment]

PROBE_S = 5.0  # a head on the network answers a TCP connect well within this; Ray's own retries take minutes
RESOURCE = "adb:{serial}"  # the custom resource a node holding the device declares
# The variables an agent needs from the driver's environment: its configuration, its adb server and API, the key.
PASSED = ("LLUMA_", "ANDROID_ADB_SERVER_", "ANTHROPIC_")


class DeviceAgent:
    """The actor: one device's agent in a thread of the actor's process, its records kept until polled."""

    def __init__(self) -> None:
        self.records: list[str] = []
        self.lock = threading.Lock()
        self.coordinator: Coordinator | None = None
        self.stops = 0
        self.thread: threading.Thread | None = None

    def start(self, root: str, serial: str, limits: str, environ: dict[str, str]) -> str:
        """Start playing; returns where the agent runs: the node's address and the start of its id."""
        folder = FleetFolder(root)
        os.environ.update(environ)  # the process is this agent's alone: the SDK reads the key from it
        ip = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
        node = f"{ip}/{ray.get_runtime_context().get_node_id()[:8]}"  # two nodes of one machine share the IP

        def runner(c: Coordinator) -> RunTotals:
            self.coordinator = c
            if self.stops:
                c.request_stop()
            return c.run()

        def go() -> None:
            play(folder, folder.spec(), serial, Limits.model_validate_json(limits), self._emit, runner,
                 node=node)

        self.thread = threading.Thread(target=go, name=f"agent-{serial}", daemon=True)
        self.thread.start()
        return node

    def _emit(self, record: Record) -> None:
        with self.lock:
            self.records.append(record.model_dump_json())

    def poll(self) -> tuple[list[str], bool]:
        """The records since the last poll, and whether the agent has ended."""
        ended = self.thread is not None and not self.thread.is_alive()
        with self.lock:
            out, self.records = self.records, []
        return out, ended

    def stop(self) -> None:
        """Stop after this turn (a thread cannot be interrupted at once: a second stop is the same)."""
        self.stops += 1
        if self.coordinator is not None:
            self.coordinator.request_stop()


class RayHandle:
    """One device's actor, seen from the driver: polled without blocking (a pending actor waits for its node)."""

    def __init__(self, actor: Any, serial: str, started: Any) -> None:
        self.actor, self.serial, self.started = actor, serial, started
        self.node, self.lost_node, self.why = "", False, ""
        self.pending: Any = None  # the poll in flight
        self.ended = False

    def poll(self) -> list[Record]:
        if self.ended:
            return []
        try:
            if not self.node and ray.wait([self.started], timeout=0)[0]:
                self.node = ray.get(self.started)
            if self.pending is None:
                self.pending = self.actor.poll.remote()
            if not ray.wait([self.pending], timeout=0)[0]:
                return []
            raw, ended = ray.get(self.pending)
            self.pending = None
        except RayError as exc:  # the actor died with its node (or was killed): reported, started again
            self.ended, self.lost_node = True, True
            self.why = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
            return []
        if ended:
            self.ended = True
            ray.kill(self.actor)
        return [Record.model_validate_json(r) for r in raw]

    def finished(self) -> bool:
        return self.ended

    def died(self) -> str:
        return self.why

    def stop(self) -> None:
        if not self.ended:
            self.actor.stop.remote()


class RayEngine:
    name: Literal["local", "ray"] = "ray"

    def __init__(self, folder: FleetFolder, address: str, environ: Mapping[str, str] = os.environ) -> None:
        if ray is None:
            raise FleetError("--ray needs Ray: pip install 'lluma[fleet]'")
        self.folder = folder
        self.environ = {k: v for k, v in environ.items() if k.startswith(PASSED)}
        try:  # Ray retries a dead address for minutes: a cluster that does not answer at once is said now
            host, _, port = address.rpartition(":")
            socket.create_connection((host, int(port)), timeout=PROBE_S).close()
        except (OSError, ValueError) as exc:
            raise FleetError(f"no Ray cluster answers at {address} ({exc}); start one with `ray start --head`, or "
                             "leave --ray out to play on this machine") from None
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise FleetError(f"no Ray cluster at {address} ({' '.join(str(exc).split())[:200]})") from None
        self.actor: Any = ray.remote(num_cpus=0, max_restarts=0)(DeviceAgent)
        resources = ray.cluster_resources()  # type: ignore[no-untyped-call]
        self.held = {k.removeprefix("adb:") for k in resources if k.startswith("adb:")}

    def start(self, serial: str, limits: Limits) -> RayHandle:
        actor: Any = self.actor.options(resources={RESOURCE.format(serial=serial): 1}).remote()
        started = actor.start.remote(str(self.folder.root), serial, limits.model_dump_json(), self.environ)
        return RayHandle(actor, serial, started)

    def missing(self, serials: list[str]) -> list[str]:
        """The devices no node of the cluster declares (their agents wait until one does)."""
        return [s for s in serials if s not in self.held]

    def close(self) -> None:
        ray.shutdown()
