"""`lluma demo` with one turn held open, for the tests that press Ctrl+C twice while a turn runs.

    python tests/held_demo.py HOLD_AT MARKS DEMO_ARGS...

The API stand-in holds its HOLD_AT-th reply (1-based) until the process has handled a second Ctrl+C, so the
second press always lands while that turn waits for its decision (two presses sent close together could
otherwise reach Python as one, or the second after the turn ended). Markers in the folder MARKS say where it is:
`held` once the reply is held, `pressN` once the N-th press has been handled.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Any

from lluma_agent.loop import app
from lluma_cli import demo
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy

HOLD_LIMIT_S = 120  # a hold never outlives a failed test: the reply goes out then anyway


def main(argv: list[str]) -> int:
    hold_at, marks, args = int(argv[0]), Path(argv[1]), argv[2:]
    second = threading.Event()
    presses = 0

    class Counted(app.CtrlC):
        def _handle(self, signum: int, frame: Any) -> None:
            nonlocal presses
            presses += 1
            n = presses
            if n >= 2:
                second.set()
            try:
                super()._handle(signum, frame)
            finally:  # written once the press is handled (the second raises KeyboardInterrupt)
                (marks / f"press{n}").touch()

    class Held(ScriptedPolicy):
        replies = 0

        def respond(self, request: dict[str, Any]) -> PolicyReply:
            Held.replies += 1
            if Held.replies == hold_at:
                (marks / "held").touch()
                second.wait(HOLD_LIMIT_S)
            return super().respond(request)

    demo.CtrlC = Counted  # type: ignore[misc]
    demo.ScriptedPolicy = Held  # type: ignore[misc]
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as at a terminal, whatever the test runner inherited
    return demo.main(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
