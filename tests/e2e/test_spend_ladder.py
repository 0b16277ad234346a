"""The stuck ladder never spends (issue 51), on the simulated phone over adb and the API stand-in over HTTP.

A goal race lost, the game asks "Use 1 Alarm Clock to try again?" with Cancel and Try Again; Back does nothing on it
here, so a model that presses back again and again climbs the ladder on it: warned, its input replaced by the forced
action (the dialogue tap and the back key by turns), then the coordinator's back and safe tap. Each goes through the
spend gate (the reading's `screen.spends`); none lands on Try Again or Cancel and no Alarm Clock is spent without the
model's word. (The simulator's dialog keeps its buttons clear of the dialogue tap; tests/agent/test_spend_gate.py
has a client's layout where the ungated tap lands on Try Again.)
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.demo import sim_agent
from lluma_sim.api.policy import PolicyReply
from lluma_sim.game import SimGame

pytestmark = pytest.mark.cost(seconds=7)  # worker seconds in a full suite (conftest: slowest modules first)

def _player() -> ModuleType:
    """The simulator's own tests' player (tests/sim/test_sim_game.py: start a career, lose a goal race), shared."""
    folder = str(Path(__file__).resolve().parents[1] / "sim")
    if folder not in sys.path:
        sys.path.append(folder)
    return importlib.import_module("test_sim_game")


class BackForever:
    """A model that presses back whatever it sees: nothing moves on the Try Again dialog."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        self.requests.append(request)
        call = {"type": "tool_use", "id": f"toolu_back_{len(self.requests)}", "name": "back", "input": {}}
        return PolicyReply(content=[{"type": "text", "text": "Back again."}, call], stop_reason="tool_use")


def _lose_a_goal_race(game: SimGame) -> None:
    """The game at a lost goal race's Try Again, its dialog deaf to Back."""
    play = _player()
    play.start_career(game)
    assert play.lose_goal_race(game).screen == "try_again"
    dialog = game.state.dialog
    assert dialog is not None and dialog.kind == "try_again"
    game.restore(game.snapshot().model_copy(update={"dialog": dialog.model_copy(update={"back": False})}))


def test_the_ladder_on_a_try_again_dialog_never_spends_an_alarm_clock(tmp_path: Path) -> None:
    overrides = {"LLUMA_RUN__STUCK_AFTER": "1", "LLUMA_RUN__STUCK_FORCE_AFTER": "2",
                 "LLUMA_RUN__STUCK_PAUSE_AFTER": "9", "LLUMA_RECOVERY__WAIT_S": "0"}
    with sim_agent(30, tmp_path, seed=1, policy=BackForever(), overrides=overrides, truth_vision=True,
                   career_turns=24) as (sim, coordinator):
        game = sim.game
        _lose_a_goal_race(game)
        clocks, taps = game.truth().clocks, len(game.taps)
        logs: list[TurnLog] = []
        while len(logs) < 16 and not any(t.recovery and t.recovery.rung == "safe_tap" for t in logs):
            logs.append(coordinator.step())
        received = game.taps[taps:]
        assert game.truth().screen == "try_again" and game.truth().clocks == clocks  # no Alarm Clock spent
    rungs = [t.recovery.rung for t in logs if t.recovery is not None]
    assert rungs.count("force") >= 6 and "back" in rungs and "safe_tap" in rungs, rungs
    # every turn read the dialog and what it spends
    assert all(t.vision is not None and t.vision.full["screen"]["spends"]["item"] == "Alarm Clock" for t in logs)
    # the forced dialogue taps and the safe tap reached the phone, on neither button; nothing was spent
    tapped = [t.action.tool for t in logs if t.action is not None and t.action.point is not None]
    assert "advanceDialogue" in tapped and "safeTap" in tapped and len(received) == len(tapped), (tapped, received)
    assert not any(r.element in ("Try Again", "Cancel") or r.spent for r in received), received
