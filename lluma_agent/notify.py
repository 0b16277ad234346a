"""Telling a person: `notify.command` run once per event, the event as one JSON object on its standard input.

The command line is split like a shell line (shlex) and run without a shell, one event after another in a thread
of their own, so a person hears them in the order they happened (a career's end before the run's): a command
that is missing, fails or hangs is logged on stderr (one line) and never stops or slows the run. The events are
`NotifyEvent`'s members (a new event is one member; README's list is held to it by a test). The object is
`{"event", "time" (UTC, ISO 8601), "run" (the run folder), **data}`.

Each command runs in a process group of its own: when it exits, whatever it left running in that group is killed,
and past `notify.timeout_s` the whole group is (killing the command alone left its children running, holding the
pipe the run waited on). Its stderr goes to a temporary file, never a pipe, so a child that keeps it open blocks
nothing. `close()`, at the run's end (loop/app.py), gives the events handed over one `notify.timeout_s` in all,
then kills what still runs and names the events not delivered.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from datetime import UTC, datetime
from enum import StrEnum
from typing import IO, Any

from lluma_agent.config import NotifyConfig

ERR_TAIL_BYTES = 4096  # the end of a failed command's stderr, for its last line


class NotifyEvent(StrEnum):
    """What a person is told of, by its name in the event's JSON."""

    RUN_STOPPED = "run_stopped"  # the run ended, whatever its stop kind but a stuck pause (loop/app.py)
    RUN_PAUSED = "run_paused"  # the run ended paused: stuck, the recovery ladder climbed in vain
    GAME_RESTARTED = "game_restarted"  # a start of the game that worked (loop/coordinator.py)
    SESSION_ERROR = "session_error"  # "Session Error" on screen: a person must look
    CAREER_ENDED = "career_ended"  # a career's record, as written in careers/ (loop/careers.py)
    HEARTBEAT = "heartbeat"  # every notify.heartbeat_min minutes: where the career stands (loop/heartbeat.py)
    DEVICE_RESTARTED = "device_restarted"  # a fleet's device whose agent died, started again from its checkpoint
    DEVICE_GONE = "device_gone"  # a fleet's device given up (away, or its agent died too often); the others go on


def _say(line: str) -> None:
    print(f"notify: {line}", file=sys.stderr, flush=True)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the command's process group (its id is the command's pid: start_new_session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # nothing of the group is left
        pass


def _last_line(err: IO[bytes]) -> str:
    err.seek(0, os.SEEK_END)
    err.seek(max(0, err.tell() - ERR_TAIL_BYTES))
    lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else ""


class Notifier:
    """Runs `cfg.command` per event; does nothing when it is None."""

    def __init__(self, cfg: NotifyConfig, run: str = "") -> None:
        self.cfg, self.run = cfg, run
        self.argv = shlex.split(cfg.command) if cfg.command else []
        self._events: queue.Queue[tuple[NotifyEvent, bytes]] = queue.Queue()
        self._worker: threading.Thread | None = None  # started at the first event, lives as long as the process
        self._idle = threading.Condition()
        self._pending: list[NotifyEvent] = []  # events handed over and not yet done, the one in flight first
        self._running: subprocess.Popen[bytes] | None = None  # the command in flight
        self._closed = False  # close() was called: nothing more is started
        self.sent: list[NotifyEvent] = []  # events handed to the command, in order (a test or the summary lists them)

    @property
    def enabled(self) -> bool:
        return bool(self.argv)

    def send(self, event: NotifyEvent, data: dict[str, Any] | None = None) -> None:
        """Start the command for `event` in the background; returns at once."""
        event = NotifyEvent(event)  # one of the events a person is told of, whoever calls (ValueError otherwise)
        if not self.argv:
            return
        payload = {"event": event, "time": datetime.now(UTC).isoformat(timespec="seconds"), "run": self.run,
                   **(data or {})}
        body = (json.dumps(payload, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        with self._idle:
            if self._closed:  # the run's end was told already (close): nothing more is started
                return
            self.sent.append(event)
            self._pending.append(event)
            if self._worker is None:
                self._worker = threading.Thread(target=self._drain, name="notify", daemon=True)
                self._worker.start()
                _LIVE.add(self)
        self._events.put((event, body))

    def _drain(self) -> None:
        while True:
            event, body = self._events.get()
            try:
                self._run(event, body)
            except Exception as exc:  # noqa: BLE001 - a notify bug must not end the thread and silence the rest
                _say(f"{event}: {type(exc).__name__}: {exc}")
            finally:
                with self._idle:
                    self._pending.remove(event)
                    self._idle.notify_all()

    def _run(self, event: NotifyEvent, body: bytes) -> None:
        with tempfile.TemporaryFile() as err:
            with self._idle:
                if self._closed:  # the run ended before this one's turn came: close() named it
                    return
                try:
                    proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                                            start_new_session=True)
                except OSError as exc:  # missing, not executable
                    _say(f"{event}: cannot run {self.argv[0]!r} ({type(exc).__name__}: {exc})")
                    return
                self._running = proc
            try:
                problem = self._finish(proc, body)
            finally:
                _kill_group(proc)  # what it left running in its group (after a timeout: the whole group)
                proc.wait()
                with self._idle:
                    self._running = None
            if problem is None and proc.returncode:
                tail = _last_line(err)
                problem = f"failed (exit {proc.returncode})" + (f": {tail}" if tail else "")
        if problem is not None and not (self._closed and proc.returncode == -signal.SIGKILL):
            _say(f"{event}: {self.argv[0]!r} {problem}")

    def _finish(self, proc: subprocess.Popen[bytes], body: bytes) -> str | None:
        """Hand `body` over and wait for the command, at most notify.timeout_s; what went wrong, or None."""
        try:
            proc.communicate(body, timeout=self.cfg.timeout_s)
        except subprocess.TimeoutExpired:
            return f"still running after {self.cfg.timeout_s:g} s (notify.timeout_s); killed with what it started"
        except OSError as exc:  # it exited without reading its input (a broken pipe)
            return f"did not take the event ({type(exc).__name__}: {exc})"
        return None

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to `timeout_s` (default notify.timeout_s) for the events handed over; False if some are not done."""
        deadline = time.monotonic() + (self.cfg.timeout_s if timeout_s is None else timeout_s)
        with self._idle:
            while self._pending and (left := deadline - time.monotonic()) > 0:
                self._idle.wait(left)
            return not self._pending

    def close(self, timeout_s: float | None = None) -> list[NotifyEvent]:
        """The run's end: wait up to `timeout_s` (default notify.timeout_s) in all for the events handed over, then
        start no more, kill the command in flight with its group, and return the events not delivered."""
        self.wait(timeout_s)
        return self._stop()

    def _stop(self) -> list[NotifyEvent]:
        with self._idle:
            self._closed = True
            if self._running is not None:
                _kill_group(self._running)
            return list(self._pending)


_LIVE: weakref.WeakSet[Notifier] = weakref.WeakSet()


@atexit.register
def _kill_in_flight() -> None:
    """A process that ends without close() (a crash) leaves no command running: its own group is out of reach of
    the terminal's Ctrl+C."""
    for notifier in list(_LIVE):
        notifier._stop()
