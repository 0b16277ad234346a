"""Injected faults: the SDK retries 429/529 (visible in the request log), times out on slow replies, and the
agent gets malformed tool input and max_tokens stops to cope with."""

from __future__ import annotations

import json

import anthropic
import pytest

from lluma_agent.model.calls import ToolCall
from lluma_agent.tools.registry import ToolInputError, parse_args, tool_definitions
from lluma_sim.api.faults import Fault, FaultSchedule
from lluma_sim.api.server import ApiServer

HAIKU = "claude-haiku-4-5"
TOOLS = tool_definitions()
HUB = {"buttons": [{"name": n} for n in ("Rest", "Training", "Skills")], "texts": ["Energy", "80/100"]}
MESSAGES = [{"role": "user", "content": f"<vision>{json.dumps(HUB)}</vision>"}]


def ask(api: ApiServer, **client_kw):
    return api.client(**client_kw).messages.create(model=HAIKU, max_tokens=300, tools=TOOLS, messages=MESSAGES)


@pytest.mark.parametrize("kind", ["rate_limit", "overloaded", "api_error"])
def test_retryable_errors_are_retried_by_the_sdk_and_logged(kind):
    faults = FaultSchedule(at={0: Fault(kind=kind, retry_after_s=0.05), 1: Fault(kind=kind, retry_after_s=0.05)})
    with ApiServer(faults=faults) as api:
        msg = ask(api, max_retries=2)
        assert msg.stop_reason == "tool_use"
        status = {"rate_limit": 429, "overloaded": 529, "api_error": 500}[kind]
        assert [e.status for e in api.log] == [status, status, 200]
        assert [e.retry_count for e in api.log] == [0, 1, 2]  # the SDK's x-stainless-retry-count
        assert [e.fault for e in api.log] == [kind, kind, None]
        assert faults.fired == [(0, kind), (1, kind)]


def test_without_retries_the_sdk_raises_its_own_exception_classes():
    faults = FaultSchedule(queue=[Fault(kind="rate_limit", retry_after_s=7), "overloaded", "api_error"])
    with ApiServer(faults=faults) as api:
        with pytest.raises(anthropic.RateLimitError) as err:
            ask(api)
        assert err.value.response.headers["retry-after"] == "7"
        assert err.value.type == "rate_limit_error"
        with pytest.raises(anthropic.OverloadedError) as over:
            ask(api)
        assert over.value.status_code == 529 and over.value.type == "overloaded_error"
        with pytest.raises(anthropic.InternalServerError):
            ask(api)
        assert ask(api).stop_reason == "tool_use"  # the queue is spent


def test_a_slow_reply_times_out_the_client_which_retries():
    faults = FaultSchedule(at={0: Fault(kind="slow", delay_s=0.6), 2: Fault(kind="slow", delay_s=0.6)})
    with ApiServer(faults=faults) as api:
        msg = ask(api, timeout=0.2, max_retries=1)  # attempt 0 times out; the SDK's retry is served normally
        assert msg.stop_reason == "tool_use"
        assert [e.retry_count for e in api.log if e.fault is None] == [1]
        with pytest.raises(anthropic.APITimeoutError):
            ask(api, timeout=0.2, max_retries=0)
    assert faults.fired == [(0, "slow"), (2, "slow")]


def test_malformed_tool_input_reaches_the_agent():
    faults = FaultSchedule(
        queue=[Fault(kind="malformed_tool_input"), Fault(kind="malformed_tool_input", malformed="wrong_type")]
    )
    with ApiServer(faults=faults) as api:
        for _ in range(2):
            msg = ask(api)
            use = next(b for b in msg.content if b.type == "tool_use")
            with pytest.raises(ToolInputError):
                parse_args(ToolCall(id=use.id, name=use.name, input=use.input))
        assert api.log[0].fault.startswith("malformed_tool_input: createMemoryFile: dropped required field")
        assert "wrong type" in api.log[1].fault


def test_max_tokens_stop():
    with ApiServer(faults=FaultSchedule(queue=["max_tokens"])) as api:
        msg = ask(api)
        assert msg.stop_reason == "max_tokens"
        assert not [b for b in msg.content if b.type == "tool_use"]
        assert msg.usage.output_tokens == 300
        # A max_tokens too small for the reply cuts it the same way, without any fault.
        small = api.client().messages.create(model=HAIKU, max_tokens=6, tools=TOOLS, messages=MESSAGES)
        assert small.stop_reason == "max_tokens" and small.usage.output_tokens == 6
        assert [b.type for b in small.content] in (["text"], [])


def test_schedule_parses_cli_specs():
    s = FaultSchedule.parse(["2:rate_limit", "overloaded"])
    assert s.next(0).kind == "overloaded"
    assert s.next(1) is None and s.next(2).kind == "rate_limit" and s.pending == 0
