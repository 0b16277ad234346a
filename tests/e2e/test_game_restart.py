"""The agent on the simulated phone starts the game again after it was stopped from outside with the real `adb`
client, logs the start and tells the notify command (the issue's check, on one seed)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from lluma_agent.loop.stop import StopKind, exit_status
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import sim_agent
from lluma_sim.api.policy import PolicyReply

PKG = "com.cygames.umamusume"


def test_a_game_stopped_with_adb_is_started_again_by_the_agent(tmp_path: Path, adb_exe: str) -> None:
    events = tmp_path / "events.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} {shlex.quote(str(events))}"
    with sim_agent(8, tmp_path / "logs", seed=5, overrides={"LLUMA_NOTIFY__COMMAND": command},
                   truth_vision=True) as (sim, coordinator):
        for _ in range(2):
            assert coordinator.step().game_start is None  # the game is in front: nothing started
        subprocess.run([adb_exe, "-H", "127.0.0.1", "-P", str(sim.adb.port), "shell", "am", "force-stop", PKG],
                       check=True, timeout=30, capture_output=True)
        logs = [coordinator.step() for _ in range(3)]
        assert coordinator.notifier.wait(10)
    started = [t for t in logs if t.game_start is not None]
    assert len(started) == 1 and started[0] is logs[0] and started[0].game_start is not None
    assert started[0].game_start.ok and started[0].game_start.reason.startswith(
        "not in the foreground (com.google.android.apps.nexuslauncher/")
    assert coordinator.totals.game_starts == 1 and sim.game.app_state != "launcher"
    told = [json.loads(line) for line in events.read_text().splitlines()]
    # the run's end is told on the way out too (stepped by hand here, it ended without a stop of its own)
    assert [e["event"] for e in told] == ["game_restarted", "run_stopped"] and told[0]["ok"] is True
    assert told[1]["game_starts"] == 1 and told[1]["turns"] == 5


class PressForever:
    """A model that keeps pressing the Story tab: the screen stops changing after the first press."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        self.requests.append(request)
        call = {"type": "tool_use", "id": f"toolu_story_{len(self.requests)}", "name": "pressButton",
                "input": {"name": "Story"}}
        return PolicyReply(content=[{"type": "text", "text": "Story again."}, call], stop_reason="tool_use")


def test_the_ladder_on_the_simulated_phone_restarts_the_game_and_pauses_when_nothing_helps(tmp_path: Path) -> None:
    policy = PressForever()
    overrides = {"LLUMA_RUN__STUCK_AFTER": "2", "LLUMA_RUN__STUCK_FORCE_AFTER": "3",
                 "LLUMA_RUN__STUCK_PAUSE_AFTER": "5", "LLUMA_RECOVERY__MAX_CYCLES": "1", "LLUMA_RECOVERY__WAIT_S": "0"}
    with sim_agent(40, tmp_path, seed=2, policy=policy, overrides=overrides, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
    logs = read_turns(tmp_path)
    rungs = [t.recovery.rung for t in logs if t.recovery is not None]
    # the restart brought the title screen; stuck there again soon after, the ladder went on up (wait), then paused
    assert [r for r in rungs if r not in ("warn", "force")] == ["back", "safe_tap", "restart", "wait", "pause"]
    restart = next(t for t in logs if t.recovery and t.recovery.rung == "restart")
    assert restart.game_start is not None and restart.game_start.ok and totals.game_starts == 1
    after = logs[logs.index(restart) + 1]
    assert after.vision is not None and "Tap to Start" in after.vision.seen_by_model.get("texts", [])
    assert totals.stop_kind == StopKind.STUCK and exit_status(totals.stop_kind) == 3
    assert "the recovery ladder was climbed in vain 1 time(s)" in totals.stop_reason
    own = [t for t in logs if t.recovery and t.recovery.rung in ("back", "safe_tap", "restart", "wait", "pause")]
    assert len(policy.requests) == len(logs) - len(own)  # the coordinator's own rungs make no model call
    assert totals.recoveries == {r: rungs.count(r) for r in set(rungs) if r not in ("pause",)}


def test_a_session_error_on_the_simulated_phone_ends_the_run_and_tells_a_person(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} {shlex.quote(str(events))}"
    with sim_agent(10, tmp_path / "logs", seed=4, overrides={"LLUMA_NOTIFY__COMMAND": command},
                   truth_vision=True) as (sim, coordinator):
        coordinator.step()
        assert sim.game.hazard("session_error")
        totals = coordinator.run()
    assert totals.stop_kind == StopKind.SESSION and exit_status(totals.stop_kind) == 1
    assert totals.turns == 2 and "Session Error" in totals.stop_reason
    last = read_turns(tmp_path / "logs")[-1]
    assert last.response is None and last.action is None  # Title Screen never pressed, no model call
    told = [json.loads(line) for line in events.read_text().splitlines()]
    assert [e["event"] for e in told] == ["session_error", "run_stopped"] and told[1]["stop_kind"] == "session"
