"""The agent's side of current models, end to end: the real SDK over loopback HTTP to the Messages API stand-in,
the agent on the simulated phone. Request shape (Haiku 5.5 defaults), refusals, a busy API, append-only history
across a memory edit, drop_block, the fold's request, the count_tokens preflight and the honest bill."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fakes import FakeClock, IgnoresFoldAsk

from lluma_cli.demo import sim_agent
from lluma_facts.request import strip_cache_control
from lluma_sim.api.faults import Fault, FaultSchedule
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy


class Scripted:
    """The stand-in's player, with some turns answered by a script (e.g. a refusal)."""

    def __init__(self, script: dict[int, PolicyReply] | None = None) -> None:
        self.script = dict(script or {})
        self.player = ScriptedPolicy(seed=1)
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        self.requests.append(request)
        return self.script.pop(len(self.requests), None) or self.player.respond(request)


def _bodies(api: Any) -> list[dict[str, Any]]:
    return [e.request for e in api.log if e.endpoint == "messages" and e.status == 200 and e.request]


def test_requests_follow_the_current_model_rules(tmp_path):
    with sim_agent(3, tmp_path, seed=3, truth_vision=True) as (sim, coordinator):
        sim.api.keep_bodies = True
        totals = coordinator.run()
        bodies = [b for b in _bodies(sim.api) if "tools" in b]
    assert totals.turns == 3
    for body in bodies:
        assert body["model"] == "claude-haiku-5-5"
        assert body["thinking"] == {"type": "adaptive"}
        assert body["output_config"] == {"effort": "low"}
        assert body["max_tokens"] == 8192
        assert not {"temperature", "top_p", "top_k"} & set(body)
        assert body["messages"][-1]["role"] == "user"  # never a prefill


def test_a_refusal_does_nothing_that_turn_and_several_in_a_row_stop_the_run(tmp_path):
    refusal = PolicyReply(content=[{"type": "text", "text": "I can't help with that."}], stop_reason="refusal")
    policy = Scripted({1: refusal})
    with sim_agent(3, tmp_path, seed=3, policy=policy, truth_vision=True) as (sim, coordinator):
        first = coordinator.step()
        assert first.action is None and first.response is not None and first.response.stop_reason == "refusal"
        assert any("refus" in e for e in first.errors)
        second = coordinator.step()
        assert second.action is not None  # the run goes on
    with sim_agent(10, tmp_path / "again", seed=3, policy=Scripted({n: refusal for n in range(1, 11)}),
                   truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
    assert totals.turns == 3 and "refused 3 turns in a row" in totals.stop_reason


def test_a_busy_api_is_waited_out_and_never_ends_the_run(tmp_path):
    """Three turns whose calls stay overloaded for the whole five-minute window (retry-after honoured, capped
    at 60 s, on a fake clock), then the API is back: the run goes on to max_turns."""
    faults = FaultSchedule(queue=[Fault(kind="overloaded", retry_after_s=90)] * 18)
    clock = FakeClock()  # the run's one clock: the model's retries wait on it, and the stand-in reads it
    with sim_agent(5, tmp_path, seed=3, faults=faults, clock=clock, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
        logs = coordinator.logger
    assert totals.stop_reason == "max_turns (5) reached"
    assert clock.waits[:5] == [60.0] * 5  # retry-after 90 s, capped at 60 s
    del logs
    busy = [p for p in sorted(tmp_path.glob("turn_*.json")) if "gave up after 6 attempts" in p.read_text()]
    assert len(busy) == 3
    first = json.loads(busy[0].read_text())
    assert len(first["response"]["retries"]) == 5  # every retry is in the turn log


def test_history_only_appends_across_a_persons_memory_edit(tmp_path):
    with sim_agent(6, tmp_path, seed=3, truth_vision=True) as (sim, coordinator):
        sim.api.keep_bodies = True
        coordinator.step()
        coordinator.step()
        (tmp_path / "memory" / "orders.md").write_text("Always rest below 50 energy.\n")
        coordinator.step()
        coordinator.step()
        bodies = [b for b in _bodies(sim.api) if "tools" in b]
    assert len(bodies) == 4
    for before, after in zip(bodies, bodies[1:], strict=False):
        # Turn N+1's request is turn N's request, byte for byte, then turn N's kept reply and the new turn.
        assert strip_cache_control(after["system"]) == strip_cache_control(before["system"])
        assert after["tools"] == before["tools"]
        n = len(before["messages"])
        assert strip_cache_control(after["messages"][:n]) == strip_cache_control(before["messages"])
        assert after["messages"][n]["role"] == "assistant" and len(after["messages"]) == n + 2
    assert "Always rest below 50 energy." not in json.dumps(bodies[-1]["system"])  # the snapshot is unchanged
    edit_turn = json.dumps(bodies[2]["messages"][-1])
    assert "orders.md" in edit_turn and "Always rest below 50 energy." in edit_turn


def test_a_changed_prefix_is_recovered_with_drop_block_and_logged(tmp_path):
    with sim_agent(3, tmp_path, seed=3, truth_vision=True) as (sim, coordinator):
        sim.api.keep_bodies = True
        coordinator.step()
        # the kept thinking is now bound to another prefix
        coordinator.prompter.system_prompt += "\n(edited while running)"
        log = coordinator.step()
        statuses = [(e.status, (e.request or {}).get("thinking")) for e in sim.api.log if e.endpoint == "messages"]
    assert log.response is not None and log.response.input_transformations
    assert log.action is not None  # the turn played
    assert statuses[-2][0] == 400
    assert statuses[-1] == (200, {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}})


def _asks_summary(request: dict) -> bool:
    last = request["messages"][-1]["content"]
    return any(b.get("type") == "text" and b["text"].startswith("<summarize>") for b in last)


def test_the_fold_reads_its_chunk_from_the_cache_writes_none_and_every_call_is_billed(tmp_path):
    env = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "4", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "2"}
    # A model that wrote no summary ahead (IgnoresFoldAsk): the fold makes its own call.
    with sim_agent(7, tmp_path, seed=3, overrides=env, policy=IgnoresFoldAsk(),
                   truth_vision=True) as (sim, coordinator):
        sim.api.keep_bodies = True
        totals = coordinator.run()
        folds = [e for e in sim.api.log if e.endpoint == "messages" and e.request and _asks_summary(e.request)]
        counts = [e for e in sim.api.log if e.endpoint == "count_tokens"]
    logs = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("turn_*.json"))]
    assert folds and all(e.usage is not None and e.usage.cache_creation_input_tokens == 0 for e in folds)
    # The decisions' tool_choice (a different one seeds the message part anew) and a breakpoint on the chunk's last
    # reply: the chunk is read from the cache; only the closing results and the ask are billed uncached.
    for e in folds:
        assert e.request is not None and "tool_choice" not in e.request
        assert e.usage is not None and e.usage.input_tokens < 0.25 * e.usage.cache_read_input_tokens
    fold_turns = [lg for lg in logs if lg["history_fold"]]
    assert fold_turns and all(any(c["kind"] == "fold" for c in lg["side_calls"]) for lg in fold_turns)
    # The preflight ran at the start and after the fold, and says what it found.
    assert len(counts) == 1 + len(fold_turns)
    pre = [c for lg in logs for c in lg["side_calls"] if c["kind"] == "preflight"]
    assert len(pre) == len(counts) and all("prefix" in c["text"] for c in pre)
    # The bill: the run's cost is the sum of every call in every turn, and each turn holds an estimate beside it.
    assert totals.cost_usd == pytest.approx(sum(lg["cost"]["turn_usd"] for lg in logs))
    assert all(lg["estimated_input_tokens"] > 0 for lg in logs if lg["response"])
