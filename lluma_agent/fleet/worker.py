"""One device's agent as a process of its own: `python -m lluma_agent.fleet.worker FLEETDIR SERIAL LIMITS`.

Its records go out on stdout, one JSON line each; anything else it prints goes to stderr (the supervisor keeps it
in the device's agent.log). SIGTERM stops it after the current turn, a second one at once, as Ctrl+C stops
`lluma run` (loop/app.CtrlC). Exit 0 once its run stopped, 3 when the device is gone or the agent cannot start.
"""

from __future__ import annotations

import os
import sys
import threading

from lluma_agent.fleet.agent import play
from lluma_agent.fleet.folder import FleetFolder, Limits, Record
from lluma_agent.loop.app import CtrlC

GONE_EXIT = 3  # the worker tells its supervisor its device is gone (not restarted); a definition, not measured


def work(argv: list[str]) -> int:
    folder, serial, limits = FleetFolder(argv[0]), argv[1], Limits.model_validate_json(argv[2])
    records = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stdout is the records' alone
    lock = threading.Lock()

    def emit(record: Record) -> None:
        with lock:
            try:
                records.write(record.model_dump_json() + "\n")
            except OSError:  # the supervisor is gone: the run goes on and its folder keeps everything
                pass

    with CtrlC() as ctrl_c:
        result = play(folder, folder.spec(), serial, limits, emit, ctrl_c.run)
    return GONE_EXIT if result.gone else 0


if __name__ == "__main__":
    raise SystemExit(work(sys.argv[1:]))
