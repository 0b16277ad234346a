"""Fuzzing the Messages API stand-in's request parser: whatever body arrives, the answer is a JSON 200 or a
JSON 4xx error naming the problem — never the stand-in's own 500 (which would hide what the real API says)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

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


def _check(server: ApiServer, raw: bytes) -> None:
    status, _headers, payload = server.handle("POST", "/v1/messages", HEADERS, raw)
    assert status == 200 or 400 <= status < 500, (status, payload[:300])
    answer = json.loads(payload)
    if status != 200:
        assert answer["type"] == "error" and answer["error"]["message"]


@settings(max_examples=200, deadline=None)
@given(body=mutated_requests())
def test_mutated_requests_get_a_clear_answer(body: dict[str, Any]) -> None:
    with ApiServer() as server:
        _check(server, json.dumps(body).encode())


@settings(max_examples=100, deadline=None)
@given(raw=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_arbitrary_bytes_get_a_clear_answer(raw: bytes) -> None:
    with ApiServer() as server:
        _check(server, raw)
