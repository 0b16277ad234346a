"""The model layer's own retries, through the real anthropic SDK over loopback HTTP to the API stand-in.

No mock of the SDK: `make_client` builds a real `anthropic.Anthropic` (max_retries=0) pointed at `ApiServer`,
faults are injected by the stand-in, and `sleep` is injected so backoff waits are recorded instead of slept.
The last two tests drive the coordinator on the simulated phone: malformed tool input and a max_tokens stop.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from lluma_agent.config import ModelConfig
from lluma_agent.model import Model, ModelError, ModelReply, make_client
from lluma_agent.tools import tool_definitions
from lluma_sim.api_faults import Fault, FaultSchedule
from lluma_sim.api_server import ApiServer

KEY = "sk-ant-api03-TEST-SECRET-must-never-be-logged-0123456789"
HUB = {"buttons": [{"name": n} for n in ("Rest", "Training", "Skills")], "texts": ["Energy", "80/100"]}
REQUEST = {
    "model": "claude-haiku-4-5",
    "max_tokens": 300,
    "tools": tool_definitions(),
    "messages": [{"role": "user", "content": f"<vision>{json.dumps(HUB)}</vision>"}],
}


class Waits(list[float]):
    """Stands in for time.sleep: records each wait instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def model_for(api_url: str, **cfg_kw: object) -> tuple[Model, Waits]:
    cfg = ModelConfig(base_url=api_url, **cfg_kw)
    waits = Waits()
    return Model(cfg, make_client(cfg, api_key=KEY), sleep=waits), waits


def assert_played(reply: ModelReply) -> None:
    assert reply.stop_reason == "tool_use"
    assert any(c.name == "pressButton" for c in reply.tool_calls)
    assert reply.usage.output_tokens > 0


# ---- 1. 429 + retry-after, capped ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("retry_after", "cap", "expected"),
    [
        (60.0, 2.5, 2.5),  # the server asks for a minute: we wait only the cap
        (0.25, 20.0, 0.25),  # below the cap: obeyed exactly
        (None, 20.0, 0.5),  # no retry-after header: our backoff
        (-1.0, 20.0, 0.0),  # nonsense: retried at once (time.sleep would raise on a negative wait)
    ],
)
def test_rate_limit_is_retried_and_retry_after_is_capped(retry_after, cap, expected):
    faults = FaultSchedule(at={0: Fault(kind="rate_limit", retry_after_s=retry_after)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url, retry_after_cap_s=cap, max_retries=3)
        reply = model.decide(REQUEST)
        log = api.log

    assert_played(reply)
    assert waits == [expected]
    assert len(reply.retries) == 1
    attempt = reply.retries[0]
    assert attempt.status == 429 and attempt.waited_s == expected
    assert attempt.error.startswith("rate_limit_error")
    # The server saw the 429 then the retry, and the retry says which attempt it is (x-stainless-retry-count).
    assert [(e.status, e.retry_count, e.fault) for e in log] == [(429, 0, "rate_limit"), (200, 1, None)]
    assert faults.fired == [(0, "rate_limit")]


# ---- 2. 529 / 500: exponential backoff ------------------------------------------------------------------


def test_overloaded_and_server_errors_back_off_exponentially_then_succeed():
    queue = [Fault(kind=k, retry_after_s=None) for k in ("overloaded", "api_error", "overloaded")]
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url, max_retries=3)
        reply = model.decide(REQUEST)
        log = api.log

    assert_played(reply)
    assert waits == [0.5, 1.0, 2.0]
    assert [(r.status, r.waited_s) for r in reply.retries] == [(529, 0.5), (500, 1.0), (529, 2.0)]
    assert [r.error.split(":")[0] for r in reply.retries] == ["overloaded_error", "api_error", "overloaded_error"]
    assert [(e.status, e.retry_count) for e in log] == [(529, 0), (500, 1), (529, 2), (200, 3)]


def test_backoff_is_capped_at_eight_seconds():
    queue = [Fault(kind="api_error", retry_after_s=None)] * 6
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url, max_retries=6)
        assert_played(model.decide(REQUEST))
        assert [e.status for e in api.log] == [500] * 6 + [200]
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]


def test_overloaded_with_retry_after_obeys_it():
    faults = FaultSchedule(at={0: Fault(kind="overloaded", retry_after_s=3)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url, retry_after_cap_s=20.0)
        assert_played(model.decide(REQUEST))
    assert waits == [3.0]


# ---- 3. a reply slower than the client's timeout ------------------------------------------------------


def test_slow_reply_past_the_timeout_is_retried_as_a_timeout():
    faults = FaultSchedule(at={0: Fault(kind="slow", delay_s=5.0)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url, timeout_s=0.5, max_retries=2)
        reply = model.decide(REQUEST)
        served = [e for e in api.log if e.status == 200 and e.fault is None]

    assert_played(reply)
    assert waits == [0.5]
    assert [(r.error, r.status) for r in reply.retries] == [("APITimeoutError", None)]
    assert faults.fired == [(0, "slow")]
    assert [(e.messages_index, e.retry_count) for e in served] == [(1, 1)]


# ---- 4. giving up, and what is not retried ------------------------------------------------------------


def test_after_the_last_retry_model_error_is_clear_and_keyless():
    queue = [Fault(kind="api_error", retry_after_s=None)] * 3
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url, max_retries=2)
        with pytest.raises(ModelError) as err:
            model.decide(REQUEST)
        log = api.log

    message = str(err.value)
    assert message.startswith("API error 500 (gave up after 3 attempts): api_error")
    assert KEY not in message and KEY not in repr(err.value)
    assert err.value.__cause__ is None and err.value.__suppress_context__  # no SDK exception (or request) chained
    assert waits == [0.5, 1.0]  # no wait after the last attempt
    assert [(r.status, r.waited_s) for r in err.value.retries] == [(500, 0.5), (500, 1.0)]
    assert [(e.status, e.retry_count) for e in log] == [(500, 0), (500, 1), (500, 2)]


def test_an_unreachable_api_gives_up_after_retries(free_port):
    model, waits = model_for(f"http://127.0.0.1:{free_port}", max_retries=2)
    with pytest.raises(ModelError) as err:
        model.decide(REQUEST)
    assert str(err.value) == "cannot reach the API (gave up after 3 attempts): APIConnectionError"
    assert KEY not in repr(err.value)
    assert waits == [0.5, 1.0]
    assert [r.error for r in err.value.retries] == ["APIConnectionError"] * 2


@pytest.mark.parametrize(
    ("broken", "detail"),
    [
        ({"extra_body": {"temperature": 0.2}}, "temperature"),  # the current API version rejects it
        ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x"}]}]}, "tool"),
    ],
)
def test_invalid_requests_are_not_retried(broken, detail):
    with ApiServer() as api:
        model, waits = model_for(api.base_url, max_retries=3)
        with pytest.raises(ModelError) as err:
            model.decide({**REQUEST, **broken})
        log = api.log

    message = str(err.value)
    assert message.startswith("API error 400: invalid_request_error") and detail in message
    assert KEY not in message
    assert waits == [] and err.value.retries == []
    assert [(e.status, e.error_type) for e in log] == [(400, "invalid_request_error")]


def test_an_earlier_retry_is_kept_when_a_later_error_is_not_retryable():
    faults = FaultSchedule(at={0: Fault(kind="rate_limit", retry_after_s=1)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url)
        with pytest.raises(ModelError) as err:
            model.decide({**REQUEST, "extra_body": {"temperature": 0.2}})
        assert [e.status for e in api.log] == [429, 400]
    assert "400" in str(err.value) and waits == [1.0]
    assert [r.status for r in err.value.retries] == [429]


# ---- 5. the key never reaches the server's log --------------------------------------------------------


def test_the_api_key_is_sent_but_never_logged():
    seen: list[str] = []
    faults = FaultSchedule(
        queue=[Fault(kind="rate_limit", retry_after_s=0.1), "overloaded", Fault(kind="slow", delay_s=2.0)]
    )
    with ApiServer(faults=faults, keep_bodies=True, on_request=lambda e: seen.append(e.model_dump_json())) as api:
        model, _ = model_for(api.base_url, timeout_s=0.5, max_retries=4)
        reply = model.decide(REQUEST)
        with pytest.raises(ModelError) as err:
            model.decide({**REQUEST, "extra_body": {"temperature": 0.2}})
        # The stand-in refuses a request without credentials, so the key really was sent on every request above.
        anon = urllib.request.Request(
            f"{api.base_url}/v1/messages",
            data=json.dumps(REQUEST).encode(),
            headers={"content-type": "application/json", "anthropic-version": "2023-06-01"},
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(anon, timeout=5)
        assert refused.value.code == 401
        log = api.log

    assert_played(reply)
    assert {e.status for e in log} >= {429, 529, 200, 400, 401}
    assert all(e.request is not None for e in log if e.status in (200, 400))  # bodies kept: they are checked too
    dumped = "\n".join([*seen, *(e.model_dump_json() for e in log), reply.model_dump_json(), str(err.value)])
    assert KEY not in dumped
    assert KEY[-12:] not in dumped  # not even a fragment


# ---- coordinator level: malformed tool input and a max_tokens stop on the simulated phone ---------------


def test_coordinator_answers_malformed_input_with_is_error_and_logs_a_max_tokens_stop(tmp_path: Path):
    from lluma_agent.app import build  # the vision package may still be in progress elsewhere
    from lluma_cli.demo import sim_environment

    # Request 1 (turn 2) gets broken tool input; request 2 (turn 3) is cut at max_tokens.
    faults = FaultSchedule(at={1: "malformed_tool_input", 2: "max_tokens"})
    with sim_environment(4, tmp_path, seed=3, faults=faults) as sim:
        sim.api.keep_bodies = True
        inputs: list[tuple[int, str]] = []  # (turn, what reached the phone)
        game = sim.game
        turn = [0]
        for name in ("tap", "swipe", "keyevent"):
            original = getattr(game, name)

            def spy(*args, _name=name, _original=original):
                inputs.append((turn[0], _name))
                return _original(*args)

            setattr(game, name, spy)
        coordinator, close = build(sim.cfg, make_client(sim.cfg.model, api_key=KEY), quiet=True)
        try:
            logs = []
            for n in range(1, 5):
                turn[0] = n
                logs.append(coordinator.step())
        finally:
            close()
        api_log = sim.api.log
    t1, t2, t3, t4 = logs

    assert faults.fired == [(1, "malformed_tool_input"), (2, "max_tokens")]
    assert [e.status for e in api_log] == [200] * 4  # every request, including those after the faults, is valid
    assert "malformed_tool_input" in (api_log[1].fault or "")

    # Turn 1 played normally and tapped.
    assert t1.action is not None and any(t == 1 for t, _ in inputs)

    # Turn 2: the broken call is refused: an error in the log, nothing reached the phone.
    bad = next(c for c in t2.response.tool_calls if c.name in {"pressButton", "advanceDialogue", "back", "confirm"})
    assert t2.action is None
    assert [t for t, _ in inputs if t == 2] == []
    assert any(e.startswith(f"tool: invalid input for {bad.name}") for e in t2.errors)

    # Turn 3's request carries the is_error tool_result for it (tool results first in the user message).
    current = api_log[2].request["messages"][-1]["content"]
    results = [b for b in current if b.get("type") == "tool_result"]
    answer = next(b for b in results if b["tool_use_id"] == bad.id)
    assert answer.get("is_error") is True and "invalid input" in json.dumps(answer["content"])
    assert current[0]["type"] == "tool_result"

    # Turn 3: the reply was cut at max_tokens: logged as an error, its dropped tool call never ran.
    assert t3.response.stop_reason == "max_tokens" and t3.response.tool_calls == []
    assert any("max_tokens" in e for e in t3.errors)
    assert t3.action is None and [t for t, _ in inputs if t == 3] == []

    # Turn 4: back to normal.
    assert t4.response.stop_reason == "tool_use" and not t4.errors and t4.action is not None
    assert KEY not in "\n".join(e.model_dump_json() for e in api_log)
    assert KEY not in "\n".join(p.read_text() for p in tmp_path.glob("turn_*.json"))
