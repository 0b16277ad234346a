"""Files that never end a run (issue 51), end to end: `lluma demo` on the simulated phone and the stand-in over HTTP,
its memory folder (LOGS/memory) seeded as a person or the model may leave it: a procedures.yaml nested thousands of
levels deep, an event book beside it holding NaN. Before, the first `runPlan` hit a RecursionError (3,000 lines of
traceback a turn) and three such turns ended the run; now the demo plays on with one line naming each file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lluma_agent.runlog.turnlog import read_turns

pytestmark = pytest.mark.cost(seconds=15)  # worker seconds in a full suite (conftest: slowest modules first)

TURNS = 4  # the stand-in asks for runPlan(new_career) on the first


@pytest.mark.timeout(300)
def test_a_demo_with_a_deeply_nested_procedures_file_plays_on_with_one_line(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "memory").mkdir(parents=True)
    procedures = logs / "memory" / "procedures.yaml"
    procedures.write_text("nap: " + "[" * 3000 + "]" * 3000 + "\n")  # 3,000 levels deep in 6 KB
    book = logs / "memory.events.json"
    book.write_text('{"version": 1, "events": {"Lunch": {"choices": {"Rest": {"times": 1, "sums": {"Speed": NaN}, '
                    '"counts": {"Speed": 1}}}}}}')
    run = subprocess.run([sys.executable, "-m", "lluma_cli", "demo", "--turns", str(TURNS), "--logs", str(logs),
                          "--truth-vision", "--json"], capture_output=True, text=True, timeout=280,
                         env={**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"})
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    summary = json.loads(run.stdout)
    assert summary["turns"] == TURNS and summary["stop_kind"] == "max_turns"
    assert summary["plans"]["run"] >= 1  # the built-in new_career ran, the model's file aside
    [said] = [line for line in run.stderr.splitlines() if "procedures.yaml" in line]  # one line
    assert said == (f"plans: {procedures}: not YAML: nested more than 32 levels deep at line 1, column 37; its "
                    "procedures are left out (the file stays), the built-in ones go on")
    assert procedures.is_file()  # left where it is, for the model or a person to mend
    [book_said] = [line for line in run.stderr.splitlines() if "memory.events" in line]
    assert f"{book}: not an event book (not JSON: NaN is no number JSON has" in book_said
    assert "set aside as memory.events.damaged-" in book_said and list(logs.glob("memory.events.damaged-*.json"))
    turns = read_turns(logs)
    assert [t.turn for t in turns] == list(range(1, TURNS + 1))
    assert not any(e.startswith("internal: ") for t in turns for e in t.errors)
    assert sum(e.startswith(f"plans: {procedures}: ") for t in turns for e in t.errors) == 1
