"""Telling a person: `notify.command` run once per event, the event as one JSON object on its standard input.

The command line is split like a shell line (shlex) and run without a shell, one event after another in a thread
of their own, so a person hears them in the order they happened (a career's end before the run's): a command
that is missing, fails or hangs is logged on stderr (one line) and never stops or slows the run; one still
running after `notify.timeout_s` is killed. Events: `run_stopped`, `run_paused` (a stuck pause), `game_restarted`,
`session_error`, `career_ended`. The object is `{"event", "time" (UTC, ISO 8601), "run" (the run folder), **data}`.
`wait()` gives the sends in flight a bounded time to finish, so the run's last event is not lost when the
process exits (loop/app.py's close()).
"""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any

from lluma_agent.config import NotifyConfig


def _say(line: str) -> None:
    print(f"notify: {line}", file=sys.stderr, flush=True)


class Notifier:
    """Runs `cfg.command` per event; does nothing when it is None."""

    def __init__(self, cfg: NotifyConfig, run: str = "") -> None:
        self.cfg, self.run = cfg, run
        self.argv = shlex.split(cfg.command) if cfg.command else []
        self._events: queue.Queue[tuple[str, bytes]] = queue.Queue()
        self._worker: threading.Thread | None = None  # started at the first event, lives as long as the process
        self._idle = threading.Condition()
        self._pending = 0  # events handed over and not yet done
        self.sent: list[str] = []  # events handed to the command, in order (what a test or the summary can list)

    @property
    def enabled(self) -> bool:
        return bool(self.argv)

    def send(self, event: str, data: dict[str, Any] | None = None) -> None:
        """Start the command for `event` in the background; returns at once."""
        if not self.argv:
            return
        payload = {"event": event, "time": datetime.now(UTC).isoformat(timespec="seconds"), "run": self.run,
                   **(data or {})}
        body = (json.dumps(payload, ensure_ascii=False, default=str) + "\n").encode("utf-8")
        self.sent.append(event)
        with self._idle:
            self._pending += 1
            if self._worker is None:
                self._worker = threading.Thread(target=self._drain, name="notify", daemon=True)
                self._worker.start()
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
                    self._pending -= 1
                    self._idle.notify_all()

    def _run(self, event: str, body: bytes) -> None:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
        except OSError as exc:  # missing, not executable
            _say(f"{event}: cannot run {self.argv[0]!r} ({type(exc).__name__}: {exc})")
            return
        try:
            _, err = proc.communicate(body, timeout=self.cfg.timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            _say(f"{event}: {self.argv[0]!r} still running after {self.cfg.timeout_s:g} s (notify.timeout_s); killed")
            return
        except OSError as exc:  # it exited without reading its input (a broken pipe)
            proc.wait()
            _say(f"{event}: {self.argv[0]!r} did not take the event ({type(exc).__name__}: {exc})")
            return
        if proc.returncode:
            tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] if err else []
            _say(f"{event}: {self.argv[0]!r} failed (exit {proc.returncode})" + (f": {tail[0][:200]}" if tail else ""))

    def wait(self, timeout_s: float | None = None) -> bool:
        """Wait up to `timeout_s` (default notify.timeout_s) for the events handed over; False if some are not done."""
        deadline = time.monotonic() + (self.cfg.timeout_s if timeout_s is None else timeout_s)
        with self._idle:
            while self._pending and (left := deadline - time.monotonic()) > 0:
                self._idle.wait(left)
            return self._pending == 0
