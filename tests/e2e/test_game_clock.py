"""The game's clock is the run's progress (loop/progress.py): a game that never moves stops the run by itself with
stop kind no_progress (exit 4), after the model is told and the ladder is climbed; a game that moves plays on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_agent.loop.stop import NO_PROGRESS_EXIT, StopKind, exit_status
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import run_demo

pytestmark = pytest.mark.cost(seconds=40)  # worker seconds in a full suite (conftest: slowest modules first)

FAST_WAITS = {"LLUMA_RECOVERY__WAIT_S": "0.2", "LLUMA_LOOP__COME_BACK_MAX_S": "0.2", "LLUMA_LOOP__WAIT_S": "0.1"}


def test_a_game_that_never_moves_stops_the_run_by_itself(tmp_path: Path) -> None:
    """Hazards on every input: the screens change every turn (no stuck streak), the career never starts."""
    logs = tmp_path / "run"
    overrides = {**FAST_WAITS, "LLUMA_RUN__PROGRESS_WARN_AFTER": "12", "LLUMA_RUN__PROGRESS_AFTER": "16"}
    s = run_demo(200, logs, seed=5, quiet=True, hazard_rate=1.0, truth_vision=True, overrides=overrides)
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
