"""The game's clock is the run's progress (loop/progress.py): a game that never moves stops the run by itself with
stop kind no_progress (exit 4), after the model is told and the ladder is climbed; a game that moves plays on."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from lluma_agent.loop.stop import NO_PROGRESS_EXIT, StopKind, exit_status
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import run_demo

pytestmark = pytest.mark.cost(seconds=60)  # worker seconds in a full suite (conftest: slowest modules first)

FAST_WAITS = {"LLUMA_RECOVERY__WAIT_S": "0.2", "LLUMA_LOOP__COME_BACK_MAX_S": "0.2", "LLUMA_LOOP__WAIT_S": "0.1"}


def test_a_game_that_never_moves_stops_the_run_by_itself(tmp_path: Path) -> None:
    """Hazards on every input: the screens change every turn (no stuck streak), the career never starts."""
    logs = tmp_path / "run"
    overrides = {**FAST_WAITS, "LLUMA_RUN__PROGRESS_WARN_AFTER": "12", "LLUMA_RUN__PROGRESS_AFTER": "16"}
    # Seed 6: on the game's one generator (issue 55), seed 5's night gave the model no turn between the warning (12)
    # and the stop (21): every one was a rung of the ladder.
    s = run_demo(200, logs, seed=6, quiet=True, hazard_rate=1.0, truth_vision=True, overrides=overrides)
    assert s.stop_kind == StopKind.NO_PROGRESS and exit_status(s.stop_kind) == NO_PROGRESS_EXIT == 4, s.stop_reason
    assert s.turns < 60 and "the game's clock has not moved for" in s.stop_reason
    turns = read_turns(logs)
    told = [t.turn for t in turns if t.response is not None and any("NO PROGRESS:" in n for n in t.notes)]
    assert told, "the model was never told that the clock had not moved"
    rungs = [t.recovery.rung for t in turns if t.recovery is not None and "clock has not moved" in t.recovery.reason]
    assert rungs[:4] == ["back", "safe_tap", "restart", "wait"] and rungs[-1] == "pause", rungs
    assert turns[-1].response is None  # the stopping turn makes no model call
    assert json.loads((logs / "run.json").read_text())["stop_kind"] == "no_progress"


def test_a_career_that_moves_is_never_stopped_for_progress(tmp_path: Path) -> None:
    """The perfect reader plays a real-length career's opening: the clock moves every few agent turns."""
    logs = tmp_path / "run"
    s = run_demo(90, logs, seed=5, quiet=True, truth_vision=True, career_turns=78)
    assert s.stop_kind == StopKind.MAX_TURNS, s.stop_reason
    assert s.game_turn >= 20
    assert not any(t.recovery is not None and "clock has not moved" in t.recovery.reason for t in read_turns(logs))


def test_a_heartbeat_tells_where_the_career_stands_and_what_it_will_take(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """notify.heartbeat_min: a `heartbeat` event at that interval with the career's turn and goal, the run's cost
    and an estimate to the career's end at its pace; the same on the live output. Off by default."""
    events = tmp_path / "events.jsonl"
    hook = tmp_path / "hook.py"
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')\n", encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} {shlex.quote(str(events))}"
    overrides = {"LLUMA_NOTIFY__COMMAND": command, "LLUMA_NOTIFY__HEARTBEAT_MIN": "0.001"}  # every 0.06 s
    run_demo(16, tmp_path / "run", seed=5, truth_vision=True, career_turns=78, overrides=overrides)
    told = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    beats = [e for e in told if e["event"] == "heartbeat"]
    assert len(beats) >= 10 and told[-1]["event"] == "run_stopped"
    late = beats[-1]
    assert late["game_turn"].endswith("/78") and late["goal"] and late["cost_usd"] > 0
    assert late["to_career_end_s"] > 0 and late["to_career_end_usd"] > 0
    out = capsys.readouterr().out
    assert f"heartbeat: turn 16, career turn {late['game_turn']}, goal: {late['goal']}" in out
    assert "to the career's end at this career's pace" in out
    quiet = tmp_path / "quiet.jsonl"
    plain = {"LLUMA_NOTIFY__COMMAND": command.replace(str(events), str(quiet))}
    run_demo(3, tmp_path / "run2", seed=5, quiet=True, truth_vision=True, overrides=plain)
    assert "heartbeat" not in quiet.read_text()
