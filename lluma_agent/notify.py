"""Telling a person: `notify.command` run once per event, the event as one JSON object on its standard input.

The command line is split like a shell line (shlex) and run without a shell, in a thread of its own: a command
that is missing, fails or hangs is logged on stderr (one line) and never stops or slows the run; one still
running after `notify.timeout_s` is killed. Events: `run_stopped`, `run_paused` (a stuck pause), `game_restarted`,
`session_error`, `career_ended`. The object is `{"event", "time" (UTC, ISO 8601), "run" (the run folder), **data}`.
`wait()` gives the sends in flight a bounded time to finish, so the run's last event is not lost when the
process exits (loop/app.py's close()).
"""

from __future__ import annotations

import json
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
        self._threads: list[threading.Thread] = []
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
        thread = threading.Thread(target=self._run, args=(event, body), name=f"notify-{event}", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()

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
        """Wait up to `timeout_s` (default notify.timeout_s) for the sends in flight; False if some still run."""
        deadline = time.monotonic() + (self.cfg.timeout_s if timeout_s is None else timeout_s)
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in self._threads)
