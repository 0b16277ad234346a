"""Fuzzing the Messages API stand-in's request parser: whatever body arrives, the answer is a JSON 200 or a
JSON 4xx error naming the problem — never the stand-in's own 500 (which would hide what the real API says)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lluma_sim.api.policy import ScriptedPolicy
from lluma_sim.api.server import ApiServer

HEADERS = {"authorization": "Bearer sk-fuzz", "anthropic-version": "2026-10-21", "content-type": "application/json"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)
# Strings as they may arrive in JSON: lone surrogates ("\ud800" is valid JSON text) and control characters.
odd_text = st.sampled_from(["", "\ud800", "a\udfffb", "\x00", "ウマ娘", "x" * 5000])

VALID: dict[str, Any] = {
    "model": "claude-haiku-4-5",
    "max_tokens": 256,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "hello"}]}],
}
KEYS = ["model", "max_tokens", "messages", "system", "tools", "tool_choice", "thinking", "temperature", "stream",
        "output_config", "metadata", "stop_sequences"]


@st.composite
def mutated_requests(draw: st.DrawFn) -> dict[str, Any]:
    body = json.loads(json.dumps(VALID))
    for _ in range(draw(st.integers(1, 4))):
        key = draw(st.sampled_from(KEYS))
        if draw(st.booleans()) and key in body:
            del body[key]
        else:
            body[key] = draw(json_values | odd_text)
    if draw(st.booleans()):  # reach into the message content too
        block = body.get("messages")
        if isinstance(block, list) and block and isinstance(block[0], dict):
            block[0]["content"] = draw(json_values | odd_text | st.just([{"type": "text", "text": draw(odd_text)}]))
    return body


@pytest.fixture(scope="module")
def stand_in() -> Iterator[ApiServer]:
    """One running stand-in for the module's 600 examples (a server per example cost its start and stop each)."""
    with ApiServer() as server:
        yield server


def _fresh(server: ApiServer) -> ApiServer:
    """The module's stand-in as a new one is: no cache, no log, a new player (examples stay independent)."""
    server.reset()
    server.policy = ScriptedPolicy()
    return server


# the module's stand-in is shared on purpose: each example starts from _fresh
SHARED = [HealthCheck.function_scoped_fixture]


def _check(server: ApiServer, raw: bytes) -> None:
    status, _headers, payload = server.handle("POST", "/v1/messages", HEADERS, raw)
    assert status == 200 or 400 <= status < 500, (status, payload[:300])
    answer = json.loads(payload)
    if status != 200:
        assert answer["type"] == "error" and answer["error"]["message"]


@settings(max_examples=200, deadline=None, suppress_health_check=SHARED)
@given(body=mutated_requests())
def test_mutated_requests_get_a_clear_answer(stand_in: ApiServer, body: dict[str, Any]) -> None:
    _check(_fresh(stand_in), json.dumps(body).encode())


@settings(max_examples=100, deadline=None, suppress_health_check=SHARED)
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bytes_get_a_clear_answer(stand_in: ApiServer, raw: bytes) -> None:
    _check(_fresh(stand_in), raw)


# ---- request shapes a conversation can hold (issue 23: the stand-in never wedges) ----------------------------

def _tool_defs() -> list[dict[str, Any]]:
    from lluma_agent.tools.registry import default_tools

    return [dict(d) for d in default_tools().definitions()]


TOOLS = _tool_defs()
TOOL_NAMES = [t["name"] for t in TOOLS]
vision_values = st.fixed_dictionaries({}, optional={
    "buttons": st.lists(st.fixed_dictionaries({}, optional={"name": json_values, "meta": json_values,
                                                            "region": json_values}) | json_values, max_size=4),
    "texts": json_values, "cinematic": json_values, "menu": json_values,
}) | json_values
blocks_extra = st.dictionaries(st.sampled_from(["cache_control", "is_error", "citations", "bogus", "id"]),
                               json_values, max_size=2)


@st.composite
def conversations(draw: st.DrawFn) -> dict[str, Any]:
    """A game conversation whose tool call holds input of any JSON type, with fields missing or extra."""
    name = draw(st.sampled_from([*TOOL_NAMES, "noSuchTool"]))
    use: dict[str, Any] = {"type": "tool_use", "id": "toolu_01fuzz", "name": name, "input": draw(json_values)}
    for key in draw(st.lists(st.sampled_from(["id", "name", "input"]), max_size=1)):
        del use[key]
    use.update(draw(blocks_extra))
    result: dict[str, Any] = {"type": "tool_result", "tool_use_id": "toolu_01fuzz",
                              "content": draw(json_values | odd_text)}
    result.update(draw(blocks_extra))
    vision = f"<vision>{json.dumps(draw(vision_values))}</vision>"
    first = {"role": "user", "content": [{"type": "text", "text": "<vision>{\"buttons\": [{\"name\": \"OK\"}]}</vision>"}]}  # noqa: E501
    last_content: Any = [result, {"type": "text", "text": vision}]
    if draw(st.booleans()):
        last_content = draw(st.just(last_content) | json_values | st.lists(json_values, max_size=3))
    return {**VALID, "model": "claude-haiku-4-5", "tools": TOOLS,
            "messages": [first, {"role": "assistant", "content": [{"type": "text", "text": "ok"}, use]},
                         {"role": "user", "content": last_content}]}


def _policy_state(server: ApiServer) -> str:
    """The player's attributes: what a request could leave behind in it (it should leave nothing)."""
    return repr({k: v for k, v in vars(server.policy).items() if k != "screen"})


@settings(max_examples=300, deadline=None, suppress_health_check=SHARED)
@given(body=conversations())
def test_any_tool_input_in_history_gets_a_clear_answer_and_never_wedges_the_stand_in(stand_in: ApiServer,
                                                                                    body: dict[str, Any]) -> None:
    server = _fresh(stand_in)
    before = _policy_state(server)
    status, _h, payload = server.handle("POST", "/v1/messages", HEADERS, json.dumps(body).encode())
    assert status == 200 or 400 <= status < 500, (status, payload[:300])
    if status != 200:
        assert _policy_state(server) == before  # a refused request changes nothing
    # the next, well-formed request is answered: nothing the last one held can wedge the policy
    again = {**body, "messages": body["messages"][:2] + [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01fuzz", "content": "ok"},
                                     {"type": "text", "text": '<vision>{"buttons": [{"name": "OK"}]}</vision>'}]}]}
    if status == 200:
        status2, _h, payload2 = server.handle("POST", "/v1/messages", HEADERS, json.dumps(again).encode())
        assert status2 == 200 or 400 <= status2 < 500, (status2, payload2[:300])


def test_malformed_input_of_a_tool_without_arguments_is_answered_every_time() -> None:
    """The wedge of issue 23: a list inside advanceDialogue's input crashed the policy on every later request."""
    with ApiServer() as server:
        convo = {**VALID, "tools": TOOLS, "messages": [
            {"role": "user", "content": [{"type": "text", "text": '<vision>{"buttons": [{"name": "OK"}]}</vision>'}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01x", "name": "advanceDialogue",
                                               "input": {"bogus": [1, 2]}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01x", "content": "not run",
                                          "is_error": True},
                                         {"type": "text", "text": '<vision>{"buttons": [{"name": "OK"}]}</vision>'}]}]}
        for _ in range(3):
            status, _h, payload = server.handle("POST", "/v1/messages", HEADERS, json.dumps(convo).encode())
            assert status == 200, payload[:300]
