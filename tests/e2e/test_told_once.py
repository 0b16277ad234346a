"""Issue 39's "a person told every time, not 500 times" on the simulated phone and the API stand-in: a notify
command that leaves a child behind still hears the run's end and leaves nothing running; a game that cannot be
started ends the run with one notification."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path

from processes import all_gone

from lluma_agent.loop.stop import StopKind, exit_status
from lluma_agent.runlog.turnlog import read_turns
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
    with sim_agent(4, tmp_path / "logs", seed=5, overrides=overrides, truth_vision=True) as (sim, coordinator):
        coordinator.step()
        sim.game.stop_app()  # stopped from outside: the next turn starts it again and tells the command
        totals = coordinator.run()
    # leaving sim_agent closed the run: run_stopped was sent and waited for (before: "still running after 20 s",
    # the game_restarted command's child holding the pipe for two minutes)
    told = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["event"] for e in told] == ["game_restarted", "run_stopped"]
    assert told[1]["stop_kind"] == "max_turns" and told[1]["turns"] == totals.turns == 4
    assert all_gone([p for e in told for p in e["pids"]])


def test_a_game_package_not_installed_ends_the_run_with_one_notification(tmp_path: Path) -> None:
    """Before: every turn started it, told `game_restarted` (8 in 8 turns) and printed monkey's echoed arguments
    inside the live line, and the run went on for ever."""
    command, out = _hook(tmp_path)
    live = io.StringIO()
    overrides = {"LLUMA_NOTIFY__COMMAND": command, "LLUMA_GAME__PACKAGE": "com.example.notinstalled"}
    with sim_agent(10, tmp_path / "logs", seed=5, quiet=False, live=live, overrides=overrides,
                   truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
    assert totals.stop_kind == StopKind.GAME_START and exit_status(totals.stop_kind) == 1
    assert totals.turns == 3 and "com.example.notinstalled is not installed on the device" in totals.stop_reason
    assert [json.loads(line)["event"] for line in out.read_text().splitlines()] == ["run_stopped"]
    lines = live.getvalue().splitlines()
    # one line a turn; what else happened (the failed start) on the indented lines under it
    assert [line[:9] for line in lines if line.startswith("turn ")] == ["turn    1", "turn    2", "turn    3"]
    assert all(line.startswith(("turn ", "     | ")) for line in lines)
    first = "\n".join(lines).split("\nturn ")[0]  # turn 1's line and those under it
    assert "\n     | game start FAILED: ** No activities found to run, monkey aborted." in first
    logs = read_turns(tmp_path / "logs")
    assert [t.game_start.ok for t in logs if t.game_start] == [False] * 3 and logs[-1].response is None
