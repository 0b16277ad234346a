"""The model layer's own retries, through the real anthropic SDK over loopback HTTP to the API stand-in.

No mock of the SDK: `make_client` builds a real `anthropic.Anthropic` (max_retries=0) pointed at `ApiServer`,
faults are injected by the stand-in, and `sleep`/`clock` are injected so minutes of backoff run instantly.
The last two tests drive the coordinator on the simulated phone: malformed tool input and a max_tokens stop.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import anthropic
import pytest

from lluma_agent.config import ModelConfig
from lluma_agent.model.claude import Model, ModelError, ModelReply, make_client
from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api.faults import Fault, FaultSchedule
from lluma_sim.api.server import ApiServer

KEY = "sk-ant-api03-TEST-SECRET-must-never-be-logged-0123456789"
HUB = {"buttons": [{"name": n} for n in ("Rest", "Training", "Skills")], "texts": ["Energy", "80/100"]}
REQUEST = {
    "model": "claude-haiku-4-5",
    "max_tokens": 300,
    "tools": tool_definitions(),
    "messages": [{"role": "user", "content": f"<vision>{json.dumps(HUB)}</vision>"}],
}


class FakeClock:
    """Stands in for time.sleep and time.monotonic: a sleep is recorded and moves the clock, instantly."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def model_for(api_url: str, **cfg_kw: object) -> tuple[Model, list[float]]:
    cfg = ModelConfig(base_url=api_url, **cfg_kw)
    clock = FakeClock()
    return Model(cfg, make_client(cfg, api_key=KEY), sleep=clock.sleep, clock=clock), clock.waits


def assert_played(reply: ModelReply) -> None:
    assert reply.stop_reason == "tool_use"
    assert any(c.name == "pressButton" for c in reply.tool_calls)
    assert reply.usage.output_tokens > 0


def assert_full_jitter(waits: list[float], base: float = 1.0, cap: float = 60.0) -> None:
    """Each wait is drawn from [0, min(cap, base x 2^n)]."""
    for n, w in enumerate(waits):
        assert 0.0 <= w <= min(cap, base * 2**n), (n, w)


# ---- 1. 429 + retry-after, capped ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("retry_after", "cap", "expected"),
    [
        (600.0, 2.5, 2.5),  # the server asks for ten minutes: we wait only the cap
        (600.0, 120.0, 60.0),  # ...and never more than one wait's cap (60 s)
        (0.25, 20.0, 0.25),  # below the cap: obeyed exactly
        (-1.0, 20.0, 0.0),  # nonsense: retried at once (time.sleep would raise on a negative wait)
    ],
)
def test_rate_limit_is_retried_and_retry_after_is_capped(retry_after, cap, expected):
    faults = FaultSchedule(at={0: Fault(kind="rate_limit", retry_after_s=retry_after)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url, retry_after_cap_s=cap)
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


def test_retry_after_ms_wins_over_retry_after():
    """The stand-in sends only `retry-after`; the SDK's own transport hook serves the -ms header here."""
    import httpx2

    sent: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(1)
        if len(sent) == 1:
            return httpx2.Response(529, headers={"retry-after-ms": "1500", "retry-after": "30"},
                                   json={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
        return httpx2.Response(200, json={
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "pressButton", "input": {"name": "Rest"}}],
            "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}})

    cfg = ModelConfig()
    clock = FakeClock()
    client = anthropic.Anthropic(api_key=KEY, base_url="http://api.test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    assert_played(Model(cfg, client, sleep=clock.sleep, clock=clock).decide(REQUEST))
    assert clock.waits == [1.5]


# ---- 2. 529 / 500: full-jitter exponential backoff for minutes --------------------------------------------


def test_overloaded_and_server_errors_back_off_with_full_jitter_then_succeed():
    queue = [Fault(kind=k, retry_after_s=None) for k in ("overloaded", "api_error", "overloaded")]
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url)
        reply = model.decide(REQUEST)
        log = api.log

    assert_played(reply)
    assert len(waits) == 3
    assert_full_jitter(waits)
    rounded = [round(w, 3) for w in waits]
    assert [(r.status, r.waited_s) for r in reply.retries] == list(zip([529, 500, 529], rounded, strict=True))
    assert [r.error.split(":")[0] for r in reply.retries] == ["overloaded_error", "api_error", "overloaded_error"]
    assert [(e.status, e.retry_count) for e in log] == [(529, 0), (500, 1), (529, 2), (200, 3)]


def test_a_thirty_second_overload_is_ridden_out():
    """The old policy (0.5/1/2 s, three tries) ended a run in a 10 s overload; this one waits it out."""
    queue = [Fault(kind="overloaded", retry_after_s=None)] * 12
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url)
        assert_played(model.decide(REQUEST))
        assert [e.status for e in api.log] == [529] * 12 + [200]
    assert len(waits) == 12
    assert_full_jitter(waits)


def test_the_retry_window_ends_the_call_as_busy():
    """Five minutes of 529s asking for a minute each: 60 s waits until the window is spent, then a busy error."""
    queue = [Fault(kind="overloaded", retry_after_s=60)] * 8
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url)
        with pytest.raises(ModelError) as err:
            model.decide(REQUEST)
        statuses = [e.status for e in api.log]
    assert waits == [60.0] * 5
    assert statuses == [529] * 6
    assert err.value.busy  # the coordinator waits this out: it is not a failed turn
    assert str(err.value).startswith("API error 529 (gave up after 6 attempts): overloaded_error")


# ---- 3. a reply slower than the client's timeout ------------------------------------------------------


def test_slow_reply_past_the_timeout_is_retried_as_a_timeout():
    faults = FaultSchedule(at={0: Fault(kind="slow", delay_s=5.0)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url, timeout_s=0.5)
        reply = model.decide(REQUEST)
        served = [e for e in api.log if e.status == 200 and e.fault is None]

    assert_played(reply)
    assert len(waits) == 1
    assert_full_jitter(waits)
    assert [(r.error, r.status) for r in reply.retries] == [("APITimeoutError", None)]
    assert faults.fired == [(0, "slow")]
    assert [(e.messages_index, e.retry_count) for e in served] == [(1, 1)]


# ---- 4. giving up, and what is not retried ------------------------------------------------------------


def test_after_the_window_model_error_is_clear_and_keyless():
    queue = [Fault(kind="api_error", retry_after_s=None)] * 40
    with ApiServer(faults=FaultSchedule(queue=queue)) as api:
        model, waits = model_for(api.base_url, retry_window_s=20)
        with pytest.raises(ModelError) as err:
            model.decide(REQUEST)
        log = api.log

    message = str(err.value)
    tries = len(log)
    assert message.startswith(f"API error 500 (gave up after {tries} attempts): api_error")
    assert KEY not in message and KEY not in repr(err.value)
    assert err.value.__cause__ is None and err.value.__suppress_context__  # no SDK exception (or request) chained
    assert sum(waits) == pytest.approx(20.0)  # the last wait is trimmed to the window; none after the last try
    assert_full_jitter(waits)
    assert [r.status for r in err.value.retries] == [500] * (tries - 1)
    assert [e.retry_count for e in log] == list(range(tries))


def test_an_unreachable_api_gives_up_after_the_window(free_port):
    model, waits = model_for(f"http://127.0.0.1:{free_port}", retry_window_s=10)
    with pytest.raises(ModelError) as err:
        model.decide(REQUEST)
    tries = len(err.value.retries) + 1
    assert str(err.value) == f"cannot reach the API (gave up after {tries} attempts): APIConnectionError"
    assert err.value.busy
    assert KEY not in repr(err.value)
    assert sum(waits) == pytest.approx(10.0)
    assert [r.error for r in err.value.retries] == ["APIConnectionError"] * (tries - 1)


@pytest.mark.parametrize(
    ("broken", "detail"),
    [
        ({"extra_body": {"temperature": 0.2}}, "temperature"),  # the current API version rejects it
        ({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x"}]}]}, "tool"),
    ],
)
def test_invalid_requests_are_not_retried(broken, detail):
    with ApiServer() as api:
        model, waits = model_for(api.base_url)
        with pytest.raises(ModelError) as err:
            model.decide({**REQUEST, **broken})
        log = api.log

    message = str(err.value)
    assert message.startswith("API error 400: invalid_request_error") and detail in message
    assert KEY not in message
    assert not err.value.busy
    assert waits == [] and err.value.retries == []
    assert [(e.status, e.error_type) for e in log] == [(400, "invalid_request_error")]


def test_a_thinking_block_signed_by_another_stand_in_is_refused_and_said_so():
    """A stand-in started again signs with a new key: the thinking it made before is refused (400), as the real API
    refuses another account's. The error says so (`thinking_refused`), so the loop can drop it; another 400 not."""
    request = {**REQUEST, "model": "claude-haiku-5-5", "max_tokens": 2048, "thinking": {"type": "adaptive"}}
    with ApiServer() as first:
        model, _ = model_for(first.base_url)
        reply = model.decide(request)
    assert any(b["type"] == "thinking" for b in reply.content)
    calls = [b for b in reply.content if b["type"] == "tool_use"]
    results = [{"type": "tool_result", "tool_use_id": c["id"], "content": "tapped"} for c in calls]
    again = {**request, "messages": [*request["messages"], {"role": "assistant", "content": reply.content},
                                     {"role": "user", "content": [*results, {"type": "text", "text": "next"}]}]}
    with ApiServer() as second:
        model, waits = model_for(second.base_url)
        with pytest.raises(ModelError) as err:
            model.decide(again)
        assert err.value.thinking_refused and not err.value.busy and waits == []
        assert "Invalid `signature` in `thinking` block" in str(err.value)
        with pytest.raises(ModelError) as other:
            model.decide({**REQUEST, "extra_body": {"temperature": 0.2}})
        assert not other.value.thinking_refused


def test_an_earlier_retry_is_kept_when_a_later_error_is_not_retryable():
    faults = FaultSchedule(at={0: Fault(kind="rate_limit", retry_after_s=1)})
    with ApiServer(faults=faults) as api:
        model, waits = model_for(api.base_url)
        with pytest.raises(ModelError) as err:
            model.decide({**REQUEST, "extra_body": {"temperature": 0.2}})
        assert [e.status for e in api.log] == [429, 400]
    assert "400" in str(err.value) and waits == [1.0]
    assert [r.status for r in err.value.retries] == [429]
    assert not err.value.busy


# ---- 5. the key never reaches the server's log --------------------------------------------------------


def test_the_api_key_is_sent_but_never_logged():
    seen: list[str] = []
    faults = FaultSchedule(
        queue=[Fault(kind="rate_limit", retry_after_s=0.1), "overloaded", Fault(kind="slow", delay_s=2.0)]
    )
    with ApiServer(faults=faults, keep_bodies=True, on_request=lambda e: seen.append(e.model_dump_json())) as api:
        model, _ = model_for(api.base_url, timeout_s=0.5)
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
    from lluma_agent.loop.app import build  # the vision package may still be in progress elsewhere
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
        api_log = [e for e in sim.api.log if e.endpoint == "messages"]  # not the count_tokens preflight
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
