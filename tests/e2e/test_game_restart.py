"""The agent on the simulated phone starts the game again after it was stopped from outside with the real `adb`
client, logs the start and tells the notify command (the issue's check, on one seed)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from lluma_cli.demo import sim_agent

PKG = "com.cygames.umamusume"


def test_a_game_stopped_with_adb_is_started_again_by_the_agent(tmp_path: Path, adb_exe: str) -> None:
    events = tmp_path / "events.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} {shlex.quote(str(events))}"
    with sim_agent(8, tmp_path / "logs", seed=5, overrides={"LLUMA_NOTIFY__COMMAND": command}) as (sim, coordinator):
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
