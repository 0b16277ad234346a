"""Requests the real API rejects are rejected by the stand-in too, and the SDK raises its own exceptions."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import anthropic
import httpx2
import pytest
from PIL import Image

from lluma_sim.api.server import ApiServer

HAIKU = "claude-haiku-4-5"
TOOLS = [
    {
        "name": "pressButton",
        "description": "Tap a button.",
        "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    }
]
USE = {"type": "tool_use", "id": "toolu_1", "name": "pressButton", "input": {"name": "OK"}}
RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "tapped 'OK'; screen changed"}


@pytest.fixture(scope="module")
def api():
    with ApiServer(keep_bodies=True) as server:
        yield server


def bad(api: ApiServer, **kw: Any) -> str:
    kw.setdefault("model", HAIKU)
    kw.setdefault("max_tokens", 100)
    with pytest.raises(anthropic.BadRequestError) as err:
        api.client().messages.create(**kw)
    assert err.value.type == "invalid_request_error"
    return str(err.value.api_message)


def png(w: int = 64, h: int = 32) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h)).save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def image(data: str, media: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}


def test_summarisation_without_tools_but_with_tool_blocks_in_history_is_a_400(api):
    """The bug that silently broke the original harness's summaries."""
    history = [
        {"role": "user", "content": "<vision>{}</vision>"},
        {"role": "assistant", "content": [USE]},
        {"role": "user", "content": [RESULT, {"type": "text", "text": "<summarize>\nFold the turns above."}]},
    ]
    msg = bad(api, messages=history)
    assert "must define tools" in msg
    ok = api.client().messages.create(model=HAIKU, max_tokens=100, tools=TOOLS, messages=history)
    assert ok.content[0].type == "text"


@pytest.mark.parametrize(
    ("messages", "needle"),
    [
        ([{"role": "assistant", "content": "hi"}], 'first message must use the "user" role'),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], "roles must alternate"),
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": "what now?"},
            ],
            "`tool_use` ids were found without `tool_result` blocks",
        ),
        (
            [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": [USE]},
                {"role": "user", "content": [{"type": "text", "text": "screen:"}, RESULT]},
            ],
            "`tool_result` blocks must come first",
        ),
        ([{"role": "user", "content": [RESULT]}], "unexpected `tool_use_id`"),
        ([{"role": "user", "content": [{"type": "text", "text": ""}]}], "non-whitespace text"),
        (
            [{"role": "user", "content": [{"type": "text", "text": "", "cache_control": {"type": "ephemeral"}}]}],
            "cache_control cannot be set for empty text blocks",
        ),
        (
            [
                {"role": "user", "content": "a"},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "thinking": "hmm",
                            "signature": "x",
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
                {"role": "user", "content": "b"},
            ],
            "thinking blocks cannot be cached",
        ),
    ],
)
def test_message_structure_errors(api, messages, needle):
    assert needle in bad(api, tools=TOOLS, messages=messages)


def test_at_most_four_breakpoints(api):
    cc = {"type": "ephemeral"}
    system = [{"type": "text", "text": f"part {i}", "cache_control": cc} for i in range(4)]
    msg = bad(
        api, system=system, messages=[{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": cc}]}]
    )
    assert "A maximum of 4 blocks with cache_control" in msg and "Found 5" in msg
    # Top-level automatic caching takes one of the four slots.
    assert "Found 5" in bad(api, system=system, cache_control=cc, messages=[{"role": "user", "content": "x"}])
    one_h = {"type": "ephemeral", "ttl": "1h"}
    assert "must not come after" in bad(
        api,
        system=[
            {"type": "text", "text": "a", "cache_control": cc},
            {"type": "text", "text": "b", "cache_control": one_h},
        ],
        messages=[{"role": "user", "content": "x"}],
    )


@pytest.mark.parametrize(
    ("block", "needle"),
    [
        (image("not base64 at all!"), "not valid base64"),
        (image(png(), "image/jpeg"), "does not match the provided media type image/jpeg"),
        (image(base64.b64encode(b"plain text, not an image").decode()), "Could not process image"),
        (image("A" * (10 * 1024 * 1024 + 4)), "exceeds 10 MB"),
        ({"type": "image", "source": {"type": "base64", "media_type": "image/bmp", "data": png()}}, "media_type"),
    ],
)
def test_image_blocks_are_checked(api, block, needle):
    assert needle in bad(api, messages=[{"role": "user", "content": [block, {"type": "text", "text": "what?"}]}])


def test_a_good_image_is_accepted_and_counted(api):
    m = api.client().messages.create(
        model=HAIKU,
        max_tokens=50,
        messages=[{"role": "user", "content": [image(png(504, 896)), {"type": "text", "text": "hi"}]}],
    )
    assert m.usage.input_tokens >= 576  # 18 x 32 patches


def test_sampling_parameters_are_rejected_for_this_api_version(api):
    for key, value in (("temperature", 0.2), ("top_p", 0.9), ("top_k", 5)):
        msg = bad(api, messages=[{"role": "user", "content": "hi"}], extra_body={key: value})
        assert key in msg and "2026-10-21" in msg
    assert "Extra inputs are not permitted" in bad(
        api, messages=[{"role": "user", "content": "hi"}], extra_body={"temprature": 1}
    )


def _raw(api: ApiServer, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx2.Response:
    h = {"authorization": "Bearer sk-x", "anthropic-version": "2026-10-21", "content-type": "application/json"}
    return httpx2.post(f"{api.base_url}/v1/messages", content=json.dumps(body), headers={**h, **(headers or {})})


def test_max_tokens_is_required_and_errors_have_the_api_shape(api):
    r = _raw(api, {"model": HAIKU, "messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 400
    body = r.json()
    assert body["type"] == "error" and body["error"] == {
        "type": "invalid_request_error",
        "message": "max_tokens: Field required",
    }
    assert r.headers["request-id"].startswith("req_")


def test_auth_version_model_and_path_errors(api):
    r = _raw(
        api, {"model": HAIKU, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}, {"authorization": ""}
    )
    assert r.status_code == 401 and r.json()["error"]["type"] == "authentication_error"
    x_key = _raw(
        api,
        {"model": HAIKU, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
        {"authorization": "", "x-api-key": "sk-x"},
    )
    assert x_key.status_code == 200
    assert (
        _raw(
            api,
            {"model": HAIKU, "max_tokens": 5, "messages": [{"role": "user", "content": "h"}]},
            {"anthropic-version": ""},
        ).status_code
        == 400
    )
    with pytest.raises(anthropic.NotFoundError):
        api.client().messages.create(
            model="claude-nonexistent-9", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )
    assert httpx2.get(f"{api.base_url}/v1/models").status_code == 404
    assert "max_tokens: 100000 > 64000" in bad(api, max_tokens=100_000, messages=[{"role": "user", "content": "hi"}])


def test_dated_model_alias_is_accepted(api):
    m = api.client().messages.create(
        model="claude-haiku-4-5-20251001", max_tokens=20, messages=[{"role": "user", "content": "hi"}]
    )
    assert m.model == "claude-haiku-4-5-20251001"


def test_thinking_blocks_must_come_back_unmodified(api):
    thinking = {"type": "enabled", "budget_tokens": 1024}
    first = [{"role": "user", "content": '<vision>{"buttons":[{"name":"OK"}]}</vision>'}]
    reply = api.client().messages.create(model=HAIKU, max_tokens=2000, tools=TOOLS, thinking=thinking, messages=first)
    blocks = [b.model_dump(exclude_none=True) for b in reply.content]
    assert blocks[0]["type"] == "thinking" and blocks[0]["signature"]
    use = next(b for b in blocks if b["type"] == "tool_use")
    answer = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": use["id"], "content": "done"},
            {"type": "text", "text": "<vision>{}</vision>"},
        ],
    }
    ok = api.client().messages.create(
        model=HAIKU,
        max_tokens=2000,
        tools=TOOLS,
        thinking=thinking,
        messages=first + [{"role": "assistant", "content": blocks}, answer],
    )
    assert ok.stop_reason in ("tool_use", "end_turn")
    tampered = [{**blocks[0], "thinking": blocks[0]["thinking"] + " (edited)"}, *blocks[1:]]
    assert "Invalid `signature`" in bad(
        api,
        max_tokens=2000,
        tools=TOOLS,
        thinking=thinking,
        messages=first + [{"role": "assistant", "content": tampered}, answer],
    )
    stripped = [b for b in blocks if b["type"] != "thinking"]
    assert "must start with its thinking block" in bad(
        api,
        max_tokens=2000,
        tools=TOOLS,
        thinking=thinking,
        messages=first + [{"role": "assistant", "content": stripped}, answer],
    )
    assert "greater than `thinking.budget_tokens`" in bad(api, max_tokens=1000, thinking=thinking, messages=first)


def test_the_api_key_is_never_logged(api):
    secret = "sk-ant-api03-SECRET-never-in-logs"
    api.client(api_key=secret).messages.create(model=HAIKU, max_tokens=20, messages=[{"role": "user", "content": "hi"}])
    dumped = json.dumps([e.model_dump() for e in api.log])
    assert secret not in dumped and f"bearer {secret}".lower() not in dumped.lower()
    assert api.log[-1].request is not None  # bodies were kept (keep_bodies=True), headers never are


def test_the_request_log_keeps_the_newest_requests_only(monkeypatch):
    """A night's stand-in answers thousands of requests: its log is bounded, the newest kept."""
    import lluma_sim.api.server as server

    monkeypatch.setattr(server, "LOG_KEPT", 3)
    with ApiServer() as api:
        for n in range(5):
            _raw(api, {"model": HAIKU, "max_tokens": n + 1, "messages": [{"role": "user", "content": "hi"}]})
        assert [e.index for e in api.log] == [2, 3, 4]
