"""One device's agent in a fleet: the same loop as `lluma run`, in the device's own run and memory folders, the
map, event book and procedures in the fleet's shared folder, its events handed to the fleet.

It resumes from its checkpoint whenever its run folder holds one (a restart after a kill, `--resume FLEETDIR`), and
counts the fleet's careers and turns per device over the whole run, so a restart plays what is left. Whatever it
does goes out as `Record`s through `emit`: a line per turn, the notify events, then `done` (or `gone`, with why).
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from lluma_agent.config import Config, ConfigError, load_config
from lluma_agent.device.protocol import DeviceError
from lluma_agent.fleet.folder import DeviceResult, FleetFolder, FleetSpec, Limits, Record
from lluma_agent.loop.app import build, live_line
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.resume import NoCompletedTurn, ResumeError, ResumePoint, open_point
from lluma_agent.loop.stop import StopKind
from lluma_agent.loop.turn import RunTotals
from lluma_agent.model.claude import ModelError, make_client
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.runs import LogDirInUse
from lluma_agent.runlog.turnlog import RunSummary, TurnLog

Emit = Callable[[Record], None]
Runner = Callable[[Coordinator], RunTotals]
START_ERRORS = (ConfigError, ModelError, DeviceError, LogDirInUse, ResumeError, OSError)  # said in one line


class Relay(Notifier):
    """The run's events handed to the fleet (one notify stream, each event naming its device), not run here."""

    def __init__(self, cfg: Config, serial: str, emit: Emit) -> None:
        super().__init__(cfg.notify, run=serial)
        self.serial, self.emit = serial, emit

    @property
    def enabled(self) -> bool:
        return True

    def send(self, event: NotifyEvent, data: dict[str, Any] | None = None) -> None:
        self.emit(Record(kind="notify", serial=self.serial, event=NotifyEvent(event).value, data=data or {}))

    def close(self, timeout_s: float | None = None) -> list[NotifyEvent]:
        return []


def settings(folder: FleetFolder, spec: FleetSpec, serial: str, environ: Mapping[str, str]) -> Config:
    """The device's configuration: the fleet's file and environment, with its own folders and serial."""
    env = {**environ,
           "LLUMA_DEVICE__SERIAL": serial,
           "LLUMA_LOGS__DIR": str(folder.run_dir(serial)),
           "LLUMA_MEMORY__DIR": str(folder.memory_dir(serial)),
           "LLUMA_MEMORY__SHARED_DIR": str(folder.shared),
           "LLUMA_NOTIFY__COMMAND": ""}  # the fleet runs notify.command, once for every device
    if ":" in serial:  # an emulator reached over TCP (127.0.0.1:5555): adb connects to it first
        env["LLUMA_DEVICE__CONNECT"] = serial
    return load_config(spec.config, env=env)


def resume_point(folder: FleetFolder, serial: str) -> ResumePoint | None:
    """The device's run to go on with, or None: nothing there yet, or a run killed in its first turn (started over)."""
    run = folder.run_dir(serial)
    if not run.is_dir():
        return None
    try:
        return open_point(run)
    except NoCompletedTurn:
        return None
    except ResumeError as exc:
        if "holds no run" in str(exc):
            return None
        raise


def played_out(folder: FleetFolder, spec: FleetSpec, serial: str, node: str) -> DeviceResult | None:
    """The device's result when its run stopped having played the fleet's careers or turns (a fleet resumed after
    it), read from its folder without touching the device; None when it has more to play."""
    run = RunFolder.at(folder.run_dir(serial))
    try:
        summary = RunSummary.model_validate_json(run.summary.read_bytes())
        done = sum(bool(json.loads(p.read_bytes()).get("complete")) for p in run.careers.glob("career_*.json"))
    except (OSError, ValueError, ValidationError):
        return None
    if not ((spec.careers and done >= spec.careers) or (spec.max_turns and summary.turns >= spec.max_turns)):
        return None
    return DeviceResult(serial=serial, node=node, careers_completed=done, turns=summary.turns,
                        cost_usd=round(summary.cost_usd, 6), stop_kind=summary.stop_kind,
                        stop_reason=summary.stop_reason, run_dir=str(run.path))


def _limit(cfg: Config, spec: FleetSpec, limits: Limits, point: ResumePoint | None, careers_before: int) -> bool:
    """The sitting's limits from what is left of the fleet's; False when the device has nothing left to play."""
    run = cfg.run
    run.max_hours, run.max_cost_usd = limits.hours, limits.max_cost_usd
    run.max_careers = max(0, spec.careers - careers_before) if spec.careers else 0
    played = point.turn if point is not None else 0
    run.max_turns = max(0, spec.max_turns - played) if spec.max_turns else 0
    return not ((spec.careers and not run.max_careers) or (spec.max_turns and not run.max_turns))


def play(folder: FleetFolder, spec: FleetSpec, serial: str, limits: Limits, emit: Emit, runner: Runner,
         environ: Mapping[str, str] = os.environ, node: str = "") -> DeviceResult:
    """Play the device until its limits or a stop; `runner` runs the loop (a process's Ctrl+C handling, a Ray
    actor's stop flag). Never raises for a device that cannot start: that is a `gone` record."""
    node = node or platform.node()
    if (result := played_out(folder, spec, serial, node)) is not None:
        emit(Record(kind="done", serial=serial, turn=result.turns, cost_usd=result.cost_usd,
                    careers=result.careers_completed, result=result))
        return result
    result = DeviceResult(serial=serial, node=node, run_dir=str(folder.run_dir(serial)))
    try:
        cfg = settings(folder, spec, serial, environ)
        point = resume_point(folder, serial)
        coordinator, close = build(cfg, make_client(cfg.model), quiet=True, resume=point,
                                   notifier=Relay(cfg, serial, emit), watch=lambda log, t: watch(log, t))
    except START_ERRORS as exc:
        result.gone = f"cannot start: {' '.join(str(exc).split())}"
        emit(Record(kind="gone", serial=serial, line=result.gone, result=result))
        return result
    careers = coordinator.careers
    assert careers is not None  # build() makes one

    def watch(log: TurnLog, totals: RunTotals) -> None:
        emit(Record(kind="turn", serial=serial, turn=log.turn, cost_usd=totals.cost_usd,
                    careers=len(careers.book.ended), line=live_line(log, totals, careers.book.now)))

    try:
        if _limit(cfg, spec, limits, point, careers.before):
            totals = runner(coordinator)
        else:  # its last career ended just before a kill, before run.json said so: nothing is left to play
            totals = coordinator.totals
            totals.stop_kind, totals.stop_reason = StopKind.MAX_CAREERS, f"max_careers ({spec.careers}) ended"
    finally:
        close()
    result.careers_completed = len(careers.book.ended)
    result.turns, result.cost_usd = totals.turns, round(totals.cost_usd, 6)
    result.stop_kind, result.stop_reason = totals.stop_kind, totals.stop_reason
    if totals.stop_kind == StopKind.DEVICE:
        result.gone = totals.stop_reason
    emit(Record(kind="done", serial=serial, turn=totals.turns, cost_usd=totals.cost_usd,
                careers=result.careers_completed, result=result))
    return result
