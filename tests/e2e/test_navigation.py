"""The screen map end to end: the real loop on the simulated phone over adb and the Messages API stand-in over HTTP.

A career's first turns record the map beside the memory folder; a goTo asked for on the career hub walks to the
training screen with a real tap, checked against the map and on target on the phone; the story's pages, once the map
knows them, are passed without a model call. With `map.enabled: false` the requests carry neither the tool nor the
<map> line and no map file is written."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.navmap import load_map
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import sim_agent
from lluma_cli.sim_check import taps_off_target
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy, new_tool_id

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=40)]  # reads frames with the OCR (pyproject: markers)

HUB_HINT = "<map>screen: Career;"  # the career hub's name on the simulator's screens


class WalksToTraining:
    """The stand-in's player, but on the hub, once the map knows the way, it asks goTo for the training screen."""

    def __init__(self, player: ScriptedPolicy) -> None:
        self.player, self.walked = player, 0
        self.rng = random.Random(3)

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        last = json.dumps(request.get("messages", [{}])[-1])
        offered = any(t.get("name") == "goTo" for t in request.get("tools") or [])
        if offered and not self.walked and HUB_HINT in last and "Training -> Training" in last:
            self.walked += 1
            use = {"type": "tool_use", "id": new_tool_id(self.rng), "name": "goTo", "input": {"screen": "Training"}}
            return PolicyReply(content=[{"type": "text", "text": "To the training screen."}, use], decision="goTo")
        return self.player.respond(request)


@pytest.mark.timeout(1800)  # 24 turns of OCR on the simulated phone: a loaded machine takes minutes
def test_the_map_is_recorded_walked_and_passes_routine_screens(tmp_path: Path) -> None:
    logs, memory = tmp_path / "logs", tmp_path / "memory"
    policy = WalksToTraining(ScriptedPolicy(seed=7))
    requests: list[dict[str, Any]] = []
    # the survey off: it opens the training screen from the hub itself, and this test asks goTo there (the survey's
    # own walk is tests/agent/test_survey.py's and tests/e2e/test_decide_at_the_grain.py's)
    overrides = {"LLUMA_MEMORY__DIR": str(memory), "LLUMA_SURVEY__ENABLED": "false"}
    with sim_agent(24, logs, seed=7, policy=policy, overrides=overrides) as (sim, agent):
        respond = policy.respond
        policy.respond = lambda request: (requests.append(request), respond(request))[1]  # type: ignore[method-assign]
        totals = Coordinator.run(agent)
        game = sim.game
    turns = read_turns(logs)
    assert taps_off_target(game, logs) == []  # goTo's and the routine passes' taps too
    # recorded beside the memory folder: the career's main screens and the ways between them
    m = load_map(tmp_path / "memory.map.json")
    names = {s.name for s in m.screens.values()}
    assert {"Career", "Training"} <= names, names
    assert any(m.name(t.src) == "Career" and m.name(t.dst) == "Training" for t in m.transitions)
    # the goTo: one walk of one step, checked, answered next turn
    [walk] = [t for t in turns if t.navigation]
    assert walk.action is not None and walk.action.tool == "goTo" and totals.goto_calls == 1
    assert [(s.step, s.of, s.expected, s.reached, s.ok) for s in walk.navigation] == [
        (1, 1, "Training", "Training", True)]
    after = next(t for t in turns if t.turn == walk.turn + 1)
    assert any(r.content.startswith("goTo(Training): walked 1 step(s)") for r in after.tool_results)
    # routine passes: no model call on those turns, the next model turn is told
    passed = [t for t in turns if t.routine is not None]
    assert passed and totals.routine_passes == len(passed)
    assert all(t.response is None and t.usage.output_tokens == 0 for t in passed)
    assert len(requests) == len(turns) - len(passed)  # the stand-in was asked on every other turn
    told = next(t for t in turns if t.turn > passed[0].turn and t.routine is None and t.response is not None)
    assert any(n.startswith("[passed without asking: ") for n in told.notes)


def test_map_disabled_adds_nothing(tmp_path: Path) -> None:
    logs, memory = tmp_path / "logs", tmp_path / "memory"
    requests: list[dict[str, Any]] = []
    player = ScriptedPolicy(seed=7)

    class Recording:
        def respond(self, request: dict[str, Any]) -> PolicyReply:
            requests.append(request)
            return player.respond(request)

    overrides = {"LLUMA_MEMORY__DIR": str(memory), "LLUMA_MAP__ENABLED": "false"}
    with sim_agent(4, logs, seed=7, policy=Recording(), overrides=overrides) as (_, agent):
        totals = Coordinator.run(agent)
    assert totals.turns == 4 and len(requests) == 4
    sent = json.dumps(requests)
    assert "goTo" not in sent and "<map>" not in sent and "screen map" not in sent
    assert not (tmp_path / "memory.map.json").exists()
