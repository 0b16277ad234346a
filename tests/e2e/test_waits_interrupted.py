"""Probe: Ctrl+C or SIGKILL while the run waits (the Recover TP dialog's wait, the recovery ladder's top rung):
Ctrl+C cuts the wait short and stops after the turn, SIGKILL leaves the files as they were after the last finished
turn; either way every turn log parses, the SQLite rows match them, and `--resume` goes on from the checkpoint,
the wait where it was (the TP dialog waited out again, the ladder at its wait rung)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lluma_agent.loop.resume import open_point
from lluma_agent.runlog.turnlog import read_turns

pytestmark = pytest.mark.cost(seconds=38)  # worker seconds in a full suite (conftest: slowest modules first)

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("waiting_child.py")


def child(folder: Path, mode: str, *more: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests'}", "ADBUTILS_ADB_PATH": "/bin/false"}
    return subprocess.Popen([sys.executable, str(CHILD), str(folder), mode, *more], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def consistent(logs: Path) -> list[int]:
    """Every turn log whole, the SQLite index intact with a row for each: the turns written."""
    turns = [t.turn for t in read_turns(logs)]  # a torn or half-written file raises here
    db = sqlite3.connect(logs / "turns.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = sorted(r[0] for r in db.execute("SELECT turn FROM turns"))
    finally:
        db.close()
    assert rows == turns and not list(logs.glob(".*.tmp"))
    return turns


@pytest.mark.parametrize("mode", ["tp", "ladder"])
@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl_c", "sigkill"])
def test_a_run_stopped_in_a_long_wait_leaves_consistent_files_and_resumes(tmp_path: Path, mode: str,
                                                                          how: signal.Signals) -> None:
    proc = child(tmp_path, mode)
    deadline = time.monotonic() + 120
    while not (tmp_path / "waiting").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never came to its wait"
        time.sleep(0.05)
    time.sleep(0.3)  # well into the 600 s wait
    proc.send_signal(how)
    out, err = proc.communicate(timeout=60)  # Ctrl+C does not wait the wait out
    logs = tmp_path / "logs"
    turns = consistent(logs)
    point = open_point(logs)
    if how == signal.SIGINT:
        assert proc.returncode == 0 and json.loads(out)["stop_kind"] == "person", err
        assert point.turn == turns[-1]  # the turn that waited is logged and checkpointed
        waited = read_turns(logs)[-1]
        assert (re.match(r"cancelled 'Recover TP' and waited [0-9] s", waited.guard[0]) if mode == "tp"
                else waited.recovery is not None and waited.recovery.rung == "wait"), waited  # cut short
    else:
        assert proc.returncode == -signal.SIGKILL
        assert point.turn == turns[-1]  # the waiting turn never finished: nothing of it was written
    (tmp_path / "waiting").unlink()
    again = child(tmp_path, mode, "resume")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    resumed = [t for t in read_turns(logs) if t.turn > point.turn]
    assert [t.turn for t in resumed] == [point.turn + 1, point.turn + 2] and consistent(logs)[-1] == point.turn + 2
    first = resumed[0]
    if mode == "ladder":  # the ladder goes on where it was: killed in its wait, the wait again; else from the top
        assert first.recovery is not None and first.recovery.rung == ("wait" if how == signal.SIGKILL else "over")
    else:  # the dialog still up: waited out again (no model call), then the model plays on
        assert first.guard[0].startswith("cancelled 'Recover TP' and waited 0 s") and first.response is None
        assert resumed[1].response is not None and resumed[1].action is not None
