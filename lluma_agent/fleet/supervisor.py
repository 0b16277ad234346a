"""The fleet's one loop: every device's records as they come, whatever runs the agents (processes here, Ray actors).

It holds what is the fleet's alone: the budget (all devices' dollars together; reached, every device is stopped
after its turn), the notify stream (every event with its `device`), the live view, and each device's fate: an agent
that ends without its `done` record (killed, crashed) is started again from its checkpoint up to `spec.restarts`
times; a node that is lost does not count (its devices are started again and wait for a node holding them); a
device that is gone is reported and the others go on. `stop()` (Ctrl+C) stops every device after its turn, a
second one at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from lluma_agent.fleet.folder import DeviceResult, FleetFolder, FleetSpec, FleetSummary, Limits, Record
from lluma_agent.fleet.view import LiveView
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog import figures

POLL_S = 0.2  # how often the records are gathered: a turn takes seconds, a line late by 0.2 s is not seen


class Handle(Protocol):
    serial: str
    node: str
    lost_node: bool  # the agent ended because its node went away (Ray), not by itself

    def poll(self) -> list[Record]: ...
    def finished(self) -> bool: ...
    def died(self) -> str: ...
    def stop(self) -> None: ...


class Engine(Protocol):
    name: Literal["local", "ray"]

    def start(self, serial: str, limits: Limits) -> Handle: ...
    def close(self) -> None: ...


@dataclass
class Seat:
    """A device's place in the fleet: what it has done so far, how often its agent was started again."""

    serial: str
    turn: int = 0
    cost_usd: float = 0.0
    careers: int = 0
    restarts: int = 0
    result: DeviceResult | None = None  # the last start's done or gone record
    gone: str = ""
    node: str = ""
    lines: list[str] = field(default_factory=list)


class Supervisor:
    def __init__(self, folder: FleetFolder, spec: FleetSpec, engine: Engine, notifier: Notifier, view: LiveView,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.folder, self.spec, self.engine, self.notifier, self.view = folder, spec, engine, notifier, view
        self.clock = clock
        self.devices = {s: Seat(s) for s in spec.devices}
        self.stops = 0  # stop() calls: a person's Ctrl+C, or the budget
        self.reason = ""
        self.started = clock()
        self.handles: dict[str, Handle] = {}  # the agents playing now

    @property
    def spent(self) -> float:
        return sum(d.cost_usd for d in self.devices.values())

    def limits(self) -> Limits:
        """What is left of the fleet's limits for an agent starting now."""
        hours = max(1e-6, self.spec.hours - (self.clock() - self.started) / 3600) if self.spec.hours else 0.0
        cost = max(1e-6, self.spec.max_cost_usd - self.spent) if self.spec.max_cost_usd else 0.0
        return Limits(careers=self.spec.careers, hours=hours, max_cost_usd=cost, max_turns=self.spec.max_turns)

    def stop(self, reason: str = "stopped by user (Ctrl+C)") -> None:
        """Every device stops after its turn; called again, at once."""
        self.stops += 1
        self.reason = self.reason or reason
        for h in self.handles.values():
            h.stop()

    def run(self) -> FleetSummary:
        for serial in self.spec.devices:
            self._start(serial)
        while self.handles:
            for serial, h in list(self.handles.items()):
                for record in h.poll():
                    self._take(record)
                if h.finished():
                    for record in h.poll():
                        self._take(record)
                    del self.handles[serial]
                    self._ended(serial, h)
            if self.spec.max_cost_usd and self.spent >= self.spec.max_cost_usd and not self.stops:
                self.view.say(f"fleet: budget {figures.usd(self.spec.max_cost_usd)} reached "
                              f"({figures.usd(self.spent)}): every device stops after its turn")
                self.stop(f"the fleet's budget ({figures.usd(self.spec.max_cost_usd)}) reached")
            time.sleep(POLL_S)
        self.engine.close()
        summary = FleetSummary.of([self._result(d) for d in self.devices.values()],
                                  self.reason or "every device stopped", self.folder.root, self.engine.name)
        self.folder.write_summary(summary)
        return summary

    def _start(self, serial: str) -> None:
        h = self.engine.start(serial, self.limits())
        self.handles[serial] = h
        self.devices[serial].node = h.node
        if self.stops:  # a restart after a stop was asked: it stops after its first turn
            h.stop()

    def _take(self, r: Record) -> None:
        d = self.devices[r.serial]
        if r.kind == "turn":
            d.turn, d.cost_usd, d.careers = r.turn, r.cost_usd, r.careers
            total = figures.usd(self.spent)
            self.view.show(r.serial, f"careers {d.careers} | {r.line} | fleet: {total}")
        elif r.kind == "notify":
            self.notifier.send(NotifyEvent(r.event), {"device": r.serial, **r.data})
        elif r.kind in ("done", "gone"):
            d.result = r.result
            if r.result is not None:
                d.cost_usd, d.careers = r.result.cost_usd, r.result.careers_completed
            if r.kind == "gone" or (r.result is not None and r.result.gone):
                d.gone = r.line or (r.result.gone if r.result else "gone")
        else:
            self.view.say(f"{r.serial}: {r.line}")

    def _ended(self, serial: str, h: Handle) -> None:
        d = self.devices[serial]
        if d.gone:
            self._give_up(d, d.gone)
        elif d.result is not None:
            self.view.show(serial, f"stopped: {d.result.stop_reason} | careers {d.careers} | "
                                   f"{figures.usd(d.cost_usd)}")
        elif self.stops:  # stopped by a person or the budget before its agent could say so: nothing to restart
            self.view.show(serial, f"stopped ({h.died()})")
        elif h.lost_node:
            self.view.say(f"{serial}: its node {h.node or ''} is lost ({h.died()}); it goes on from its checkpoint "
                          "once a node holding it is back, the other devices go on")
            self.notifier.send(NotifyEvent.DEVICE_RESTARTED, {"device": serial, "why": f"node lost: {h.died()}"})
            self._start(serial)
        elif d.restarts < self.spec.restarts:
            d.restarts += 1
            self.view.say(f"{serial}: its agent died ({h.died()}); started again from its checkpoint "
                          f"(restart {d.restarts} of {self.spec.restarts})")
            self.notifier.send(NotifyEvent.DEVICE_RESTARTED, {"device": serial, "why": h.died(),
                                                              "restart": d.restarts})
            self._start(serial)
        else:
            self._give_up(d, f"its agent died {d.restarts + 1} times (the last: {h.died()}; fleet.restarts "
                             f"{self.spec.restarts})")

    def _give_up(self, d: Seat, why: str) -> None:
        d.gone = why
        self.view.say(f"{d.serial}: gone ({why}); the other devices go on")
        self.notifier.send(NotifyEvent.DEVICE_GONE, {"device": d.serial, "why": why})

    def _result(self, d: Seat) -> DeviceResult:
        base = d.result or DeviceResult(serial=d.serial, careers_completed=d.careers, turns=d.turn,
                                        cost_usd=round(d.cost_usd, 6), run_dir=str(self.folder.run_dir(d.serial)))
        return base.model_copy(update={"restarts": d.restarts, "gone": d.gone, "node": d.node or base.node})
