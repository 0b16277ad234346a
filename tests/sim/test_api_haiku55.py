"""The stand-in speaks Claude Haiku 5.5: each rule through the real SDK over HTTP on loopback."""

from __future__ import annotations

import json
import statistics
from datetime import date
from typing import Any

import anthropic
import pytest

from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api.faults import FaultSchedule
from lluma_sim.api.server import ApiServer
from lluma_sim.api.thinking import BINDING_BETA
from lluma_sim.api.tokens import count_request

H55 = "claude-haiku-5-5"
H45 = "claude-haiku-4-5"
TOOLS = tool_definitions()
SYSTEM = [{"type": "text", "text": "You play Uma Musume through tools. Press buttons by name."}]
HUB = {
    "buttons": [{"name": n} for n in ("Rest", "Training", "Skills", "Recreation", "Races")],
    "texts": ["Energy", "85/100"],
}
BOUND = "Invalid `signature` in `thinking` block. The block is bound to a different conversation"


def turn(vision: dict[str, Any] = HUB, results: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [*(results or []), {"type": "text", "text": f"<vision>{json.dumps(vision)}</vision>"}],
    }


def as_sent(message: anthropic.types.Message) -> dict[str, Any]:
    """An assistant reply as the client sends it back: blocks exactly as returned."""
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]}


def answer(message: anthropic.types.Message) -> dict[str, Any]:
    uses = [b for b in message.content if b.type == "tool_use"]
    return turn(results=[{"type": "tool_result", "tool_use_id": u.id, "content": "pressed: changed"} for u in uses])


@pytest.fixture
def api():
    with ApiServer(seed=3) as server:
        yield server


def create(api: ApiServer, **kw: Any) -> anthropic.types.Message:
    kw.setdefault("model", H55)
    kw.setdefault("max_tokens", 2048)
    kw.setdefault("messages", [turn()])
    return api.client().messages.create(**kw)


def rejected(api: ApiServer, **kw: Any) -> str:
    with pytest.raises(anthropic.BadRequestError) as exc:
        create(api, **kw)
    return str(exc.value)


def test_budget_thinking_sampling_parameters_and_prefill_are_400(api: ApiServer):
    assert "budget_tokens: is not supported for claude-haiku-5-5" in rejected(
        api, thinking={"type": "enabled", "budget_tokens": 1024}
    )
    old_version = {"anthropic-version": "2023-06-01"}  # an API version that still takes sampling parameters
    for param, value in (("temperature", 0.2), ("top_p", 0.9), ("top_k", 5)):
        assert f"{param}: is not supported for claude-haiku-5-5" in rejected(
            api, extra_body={param: value}, extra_headers=old_version
        )
        create(api, model=H45, extra_body={param: value}, extra_headers=old_version)  # Haiku 4.5 still takes it
    prefill = [turn(), {"role": "assistant", "content": "I will press"}]
    assert "does not support assistant message prefill" in rejected(api, messages=prefill)
    assert create(api, model=H45, messages=prefill).stop_reason in ("end_turn", "tool_use")


def test_effort_values_and_when_thinking_may_be_disabled(api: ApiServer):
    assert "output_config.effort: Input should be" in rejected(api, extra_body={"output_config": {"effort": "huge"}})
    assert "output_config.effort: is not supported for claude-haiku-4-5" in rejected(
        api, model=H45, extra_body={"output_config": {"effort": "low"}}
    )
    for effort in ("low", "medium", "high"):
        m = create(api, thinking={"type": "disabled"}, extra_body={"output_config": {"effort": effort}})
        assert [b.type for b in m.content][0] != "thinking"
    for effort in ("xhigh", "max"):
        assert "only allowed with output_config.effort at most 'high'" in rejected(
            api, thinking={"type": "disabled"}, extra_body={"output_config": {"effort": effort}}
        )
    assert create(api, thinking={"type": "disabled"}).content[0].type == "text"  # default effort medium
    assert "always on" in rejected(api, model="claude-opus-5-5", thinking={"type": "disabled"})
    assert "'adaptive' is not supported for claude-haiku-4-5" in rejected(api, model=H45, thinking={"type": "adaptive"})


def test_adaptive_thinking_is_on_by_default_and_its_text_is_omitted_unless_summarized(api: ApiServer):
    plain = create(api, tools=TOOLS, system=SYSTEM)
    assert [b.type for b in plain.content][:2] == ["thinking", "text"] and plain.content[-1].type == "tool_use"
    assert plain.content[0].thinking == "" and plain.content[0].signature
    visible = count_request(
        {
            "model": H55,
            "messages": [{"role": "user", "content": [b.model_dump(exclude_none=True) for b in plain.content[1:]]}],
        }
    )
    assert api.log[-1].thinking_tokens == 0  # omitted text has no tokens of its own in the reply...
    assert plain.usage.output_tokens > visible.total  # ...but the thinking was billed
    shown = create(api, tools=TOOLS, system=SYSTEM, thinking={"type": "adaptive", "display": "summarized"})
    assert shown.content[0].type == "thinking" and len(shown.content[0].thinking) > 100
    deep = [
        create(
            api,
            tools=TOOLS,
            extra_body={"output_config": {"effort": e}},
            thinking={"type": "adaptive", "display": "summarized"},
        )
        for e in ("low", "max")
    ]
    assert api.log[-1].thinking_tokens > api.log[-2].thinking_tokens  # max effort thinks longer than low
    assert deep[1].usage.output_tokens > deep[0].usage.output_tokens


def test_replayed_thinking_is_bound_to_its_prefix(api: ApiServer):
    first = create(api, tools=TOOLS, system=SYSTEM)
    history = [turn(), as_sent(first), answer(first)]
    again = create(api, tools=TOOLS, system=SYSTEM, messages=history)  # same prefix: accepted
    assert again.content[0].type == "thinking"
    # Breakpoints are not part of the conversation: moving cache_control breaks nothing.
    marked = [turn(), as_sent(first), answer(first)]
    marked[1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    create(api, tools=TOOLS, system=[{**SYSTEM[0], "cache_control": {"type": "ephemeral"}}], messages=marked)

    changed_system = [{"type": "text", "text": SYSTEM[0]["text"] + " Memory: plan.md updated."}]
    assert f"messages.1.content.0: {BOUND}" in rejected(api, tools=TOOLS, system=changed_system, messages=history)
    edited_turn = [turn({"buttons": [{"name": "Rest"}]}), as_sent(first), answer(first)]
    assert BOUND in rejected(api, tools=TOOLS, system=SYSTEM, messages=edited_turn)
    assert BOUND in rejected(api, tools=TOOLS[:-1], system=SYSTEM, messages=history)
    tampered = [turn(), as_sent(first), answer(first)]
    tampered[1]["content"][0]["thinking"] = "I changed my mind."
    assert "passed back unmodified" in rejected(api, tools=TOOLS, system=SYSTEM, messages=tampered)


def test_drop_block_with_the_beta_header_accepts_and_lists_what_it_dropped(api: ApiServer):
    first = create(api, tools=TOOLS, system=SYSTEM)
    second = create(api, tools=TOOLS, system=SYSTEM, messages=[turn(), as_sent(first), answer(first)])
    history = [turn(), as_sent(first), answer(first), as_sent(second), answer(second)]
    changed = [{"type": "text", "text": "A new system prompt."}]
    drop = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    assert "requires the beta header" in rejected(api, tools=TOOLS, system=changed, messages=history, thinking=drop)
    m = create(
        api,
        tools=TOOLS,
        system=changed,
        messages=history,
        thinking=drop,
        extra_headers={"anthropic-beta": BINDING_BETA},
    )
    assert m.stop_reason == "tool_use"
    dropped = m.model_extra["input_transformations"] if m.model_extra else None
    assert [d["path"] for d in dropped] == ["messages.1.content.0", "messages.3.content.0"]
    assert all(d["type"] == "thinking_block_dropped" and d["reason"] == "prefix_mismatch" for d in dropped)
    assert api.log[-1].input_transformations == dropped
    # The new reply is bound to the request as sent: replaying it after the same (still mismatched) history
    # drops only the two old blocks again.
    later = [*history, as_sent(m), answer(m)]
    m2 = create(
        api, tools=TOOLS, system=changed, messages=later, thinking=drop, extra_headers={"anthropic-beta": BINDING_BETA}
    )
    assert [d["path"] for d in m2.model_extra["input_transformations"]] == [
        "messages.1.content.0",
        "messages.3.content.0",
    ]


def test_a_refusal_comes_from_the_fault_schedule():
    with ApiServer(faults=FaultSchedule(at={1: "refusal"})) as api:
        assert create(api, tools=TOOLS).stop_reason == "tool_use"
        refused = create(api, tools=TOOLS)
        assert refused.stop_reason == "refusal" and refused.content == []
        assert api.log[-1].fault == "refusal"


def test_the_512_token_cache_minimum(api: ApiServer):
    def system_of(words: int) -> list[dict[str, Any]]:
        return [{"type": "text", "text": "Train speed early. " * words, "cache_control": {"type": "ephemeral"}}]

    short, long_ = system_of(90), system_of(130)
    tokens = [
        count_request({"model": H55, "messages": [turn()], "system": s}).section("system") for s in (short, long_)
    ]
    assert tokens[0] < 512 < tokens[1] < 4096
    assert create(api, system=short).usage.cache_creation_input_tokens == 0
    assert api.log[-1].breakpoints[0].result == "below_minimum"
    assert create(api, system=long_).usage.cache_creation_input_tokens == tokens[1]
    assert create(api, system=long_).usage.cache_read_input_tokens == tokens[1]
    assert create(api, model=H45, system=long_).usage.cache_creation_input_tokens == 0  # Haiku 4.5: 4,096


def test_prompts_above_100k_tokens_are_billed_at_the_long_prompt_tier(api: ApiServer):
    big = [{"role": "user", "content": "energy " * 80_000}]
    m = create(api, messages=big, thinking={"type": "disabled"})
    assert m.usage.input_tokens > 100_000
    want = (m.usage.input_tokens * 0.50 + m.usage.output_tokens * 2.50) / 1e6
    assert api.log[-1].cost_usd == pytest.approx(want)
    small = create(api, thinking={"type": "disabled"})
    assert api.log[-1].cost_usd == pytest.approx(
        (small.usage.input_tokens * 0.10 + small.usage.output_tokens * 0.50) / 1e6
    )


def test_reply_lengths_are_drawn_from_a_seeded_distribution():
    def lengths(seed: int) -> list[int]:
        with ApiServer(seed=seed) as api:
            return [create(api, model=H45, tools=TOOLS).usage.output_tokens for _ in range(15)]

    a, b = lengths(1), lengths(1)
    assert a == b  # same seed, same lengths
    assert lengths(2) != a
    assert all(80 <= n <= 210 for n in a) and len(set(a)) > 5 and 100 <= statistics.median(a) <= 170


def test_haiku_4_5_thinking_is_stripped_from_cached_history_after_a_non_tool_result_turn(api: ApiServer):
    budget = {"type": "enabled", "budget_tokens": 1024}
    system = [{"type": "text", "text": "Train speed early. " * 1200, "cache_control": {"type": "ephemeral"}}]
    first = create(api, model=H45, system=system, tools=TOOLS, thinking=budget, max_tokens=3000)
    assert first.content[0].type == "thinking" and first.content[0].thinking  # budget models show the text
    reply = as_sent(first)
    reply["content"][-1]["cache_control"] = {"type": "ephemeral"}
    only_results = {"role": "user", "content": answer(first)["content"][:-1]}
    mixed = answer(first)
    def ask(last: dict[str, Any]) -> anthropic.types.Message:
        return create(
            api, model=H45, system=system, tools=TOOLS, thinking=budget, max_tokens=3000, messages=[turn(), reply, last]
        )

    ask(only_results)  # a tool-use loop keeps the thinking: history is written, then read
    ask(only_results)
    assert [e.breakpoints[-1].result for e in api.log[-2:]] == ["write", "read"]
    m = ask(mixed)
    entry = api.log[-1]
    assert entry.breakpoints[-1].result == "thinking_stripped" and "stripped" in " ".join(entry.cache_notes)
    assert m.usage.cache_read_input_tokens == entry.breakpoints[0].prefix_tokens  # only the system prompt
    # Haiku 5.5 keeps its thinking (bound to the prefix), so the same layout reads history from cache.
    first55 = create(api, system=system, tools=TOOLS)
    reply55 = as_sent(first55)
    reply55["content"][-1]["cache_control"] = {"type": "ephemeral"}
    create(api, system=system, tools=TOOLS, messages=[turn(), reply55, answer(first55)])
    create(api, system=system, tools=TOOLS, messages=[turn(), reply55, answer(first55)])
    assert api.log[-1].breakpoints[-1].result == "read"


def test_a_retired_model_is_404_naming_the_current_ones():
    with ApiServer(today=date(2026, 11, 30)) as api:
        with pytest.raises(anthropic.NotFoundError, match="retired on 2026-11-30; current models: claude-haiku-5-5"):
            create(api, model="claude-sonnet-4-5")
    with ApiServer(today=date(2026, 11, 23)) as api:
        assert create(api, model="claude-sonnet-4-5").stop_reason == "end_turn"
