"""A `lluma` command run in the foreground as a person runs it at a terminal, for the CLI tests that stop it with a
signal: started with SIGINT at its default (a suite started in the background by a shell without job control
inherits SIGINT ignored, and Python then installs no KeyboardInterrupt), killed if a test fails before it stops."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def _as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextmanager
def foreground(*args: str) -> Iterator[subprocess.Popen[str]]:
    """`python -m lluma_cli ARGS...` with its stdout and stderr piped as text."""
    proc = subprocess.Popen([sys.executable, "-m", "lluma_cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_at_a_terminal)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()


def stop(proc: subprocess.Popen[str], sig: int) -> tuple[str, str]:
    """Send `sig`, require exit 0 within 10 s, and return what the command printed after (stdout, stderr), read
    while it stops (a full pipe cannot hold it up)."""
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    return out, err
