"""The stand-in player is told no more than a model (issue 51): each answer is a function of its request alone.

A demo run's requests (stored per turn in its run folder) are answered again: by a fresh player, and by one that has
just answered every request of the run in another order; the answers are the same. And each answer the run got from
its own player, which had answered all the earlier requests, is the one a fresh player gives. The run keeps a short
history, so its requests hold turns folded to text too (`-> pressButton(...)`, `earlier results: ...`), read the
same way.
"""

from __future__ import annotations

import ast
import copy
import inspect
import json
import random
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lluma_agent.runlog.requestlog import load_request
from lluma_cli.demo import sim_agent
from lluma_sim.api import policy as policy_module
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy

pytestmark = pytest.mark.cost(seconds=50)  # worker seconds in a full suite (conftest: slowest modules first)

TURNS = 36
# The survey off: with the truth vision it stops on the training screen's Back and the player meets the hub over
# and over; by hand it trains, meets events, races a goal and goes shopping. A short history folds every 6 turns.
OVERRIDES = {"LLUMA_SURVEY__ENABLED": "false", "LLUMA_CONTEXT__HISTORY_MAX_TURNS": "12",
             "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "6"}


class Recorded:
    """The demo's player, each request it answered kept with its reply."""

    def __init__(self) -> None:
        self.player = ScriptedPolicy()
        self.answered: list[tuple[dict[str, Any], PolicyReply]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        reply = self.player.respond(request)
        self.answered.append((copy.deepcopy(request), reply.model_copy(deep=True)))
        return reply


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[int, dict[str, Any]], Recorded]:
    """turn -> the request it sent, from a demo run's folder; and the run's player with what it answered."""
    logs = tmp_path_factory.mktemp("demo")
    player = Recorded()
    with sim_agent(TURNS, logs, seed=11, truth_vision=True, overrides=OVERRIDES, policy=player) as (_, coordinator):
        coordinator.run()
    return {n: r for n in range(1, TURNS + 1) if (r := load_request(Path(logs), n)) is not None}, player


def test_a_fresh_player_and_a_used_one_answer_a_request_alike(run: tuple[dict[int, dict[str, Any]], Recorded]) -> None:
    requests = list(run[0].values())
    assert len(requests) >= TURNS // 2
    used = ScriptedPolicy(seed=4)
    for request in random.Random(0).sample(requests, len(requests)):  # every request of the run, in another order
        used.respond(request)
    for request in requests:
        assert used.respond(request) == ScriptedPolicy(seed=4).respond(request)


def test_the_run_got_what_a_fresh_player_answers_from_each_request(
        run: tuple[dict[int, dict[str, Any]], Recorded]) -> None:
    answered = run[1].answered
    for request, reply in answered:  # the run's player had answered every earlier request when it answered this one
        assert ScriptedPolicy().respond(request) == reply, reply.decision
    assert len({reply.decision.split(" (")[0] for _, reply in answered}) >= 8  # training, events, a race, the shop
    folded = [r for r, _ in answered if "earlier results:" in json.dumps(r["messages"])]
    assert len(folded) >= TURNS // 3  # turns older than a fold were in the requests, as text


def test_the_player_assigns_its_attributes_only_when_made() -> None:
    """Whatever a request teaches it is gone with the request: no method but __init__ assigns to `self`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(policy_module.ScriptedPolicy)))
    assigned = [
        f"{method.name}:{node.lineno}"
        for method in ast.walk(tree) if isinstance(method, ast.FunctionDef) and method.name != "__init__"
        for node in ast.walk(method)
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        for part in ast.walk(target)
        if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == "self"
    ]
    assert not assigned, assigned
