"""Issue 39's "a person told every time, not 500 times" on the simulated phone and the API stand-in: a notify
command that leaves a child behind still hears the run's end and leaves nothing running; a game that cannot be
started ends the run with one notification."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from processes import all_gone

from lluma_cli.demo import sim_agent

LEAVES_A_CHILD = """import json, os, subprocess, sys
event = json.loads(sys.stdin.read())
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])  # holds our stdout and stderr
with open(sys.argv[1], 'a') as f:
    f.write(json.dumps({**event, 'pids': [os.getpid(), child.pid]}) + '\\n')
"""


def _hook(tmp_path: Path) -> tuple[str, Path]:
    hook, out = tmp_path / "hook.py", tmp_path / "events.jsonl"
    hook.write_text(LEAVES_A_CHILD, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} {shlex.quote(str(out))}", out


def test_a_notify_that_leaves_a_child_behind_still_tells_the_end_and_leaves_nothing_running(tmp_path: Path) -> None:
    command, out = _hook(tmp_path)
    overrides = {"LLUMA_NOTIFY__COMMAND": command, "LLUMA_NOTIFY__TIMEOUT_S": "20"}
    with sim_agent(4, tmp_path / "logs", seed=5, overrides=overrides) as (sim, coordinator):
        coordinator.step()
        sim.game.stop_app()  # stopped from outside: the next turn starts it again and tells the command
        totals = coordinator.run()
    # leaving sim_agent closed the run: run_stopped was sent and waited for (before: "still running after 20 s",
    # the game_restarted command's child holding the pipe for two minutes)
    told = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["event"] for e in told] == ["game_restarted", "run_stopped"]
    assert told[1]["stop_kind"] == "max_turns" and told[1]["turns"] == totals.turns == 4
    assert all_gone([p for e in told for p in e["pids"]])
