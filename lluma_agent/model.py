"""The model layer: one Messages API call per turn through the anthropic SDK.

Retries are ours, not the SDK's (max_retries=0 on the client): the SDK obeys `retry-after` with no
cap, and we want every retry in the turn log. Retried: 408, 409, 429, 5xx (529 overloaded),
connection errors and timeouts; backoff 0.5 s x 2^n capped at 8 s, `retry-after` capped by config.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import anthropic
from pydantic import BaseModel, Field

from lluma_agent.config import ModelConfig
from lluma_agent.tools import ToolCall
from lluma_facts import Usage

RETRY_STATUS = {408, 409, 429}


class Attempt(BaseModel):
    error: str
    status: int | None = None
    waited_s: float = 0.0


class ModelError(RuntimeError):
    """The model could not be reached or refused the request after retries. Never contains the key.

    `retries` holds the attempts that failed before the last one (so a failed turn still logs them)."""

    def __init__(self, message: str, retries: list[Attempt] | None = None) -> None:
        super().__init__(message)
        self.retries = list(retries or [])


class ModelReply(BaseModel):
    content: list[dict[str, Any]]  # assistant blocks exactly as returned (thinking blocks untouched)
    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    stop_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    request_id: str | None = None
    latency_s: float = 0.0
    retries: list[Attempt] = Field(default_factory=list)


def make_client(cfg: ModelConfig, api_key: str | None = None) -> anthropic.Anthropic:
    key = api_key if api_key is not None else os.environ.get(cfg.api_key_env)
    if not key:
        raise ModelError(f"no API key: set {cfg.api_key_env} (or run `lluma demo`, which needs none)")
    kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0, "timeout": cfg.timeout_s}
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    return anthropic.Anthropic(**kwargs)


def _retry_after(exc: anthropic.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
        return max(0.0, float(value)) if value is not None else None  # a negative value would crash sleep()
    except (TypeError, ValueError):  # absent, or an HTTP date: fall back to our backoff
        return None


def parse_reply(message: Any) -> ModelReply:
    content = [block.model_dump(exclude_none=True) for block in message.content]
    calls = [
        ToolCall(id=b["id"], name=b["name"], input=b.get("input") or {}) for b in content if b["type"] == "tool_use"
    ]
    text = "\n".join(b.get("text", "") for b in content if b["type"] == "text").strip()
    thinking = "\n".join(b.get("thinking", "") for b in content if b["type"] == "thinking").strip()
    return ModelReply(
        content=content,
        text=text,
        thinking=thinking,
        tool_calls=calls,
        stop_reason=message.stop_reason,
        usage=Usage.from_api(message.usage),
        request_id=getattr(message, "_request_id", None),
    )


class Model:
    def __init__(self, cfg: ModelConfig, client: anthropic.Anthropic, sleep: Callable[[float], None] = time.sleep):
        self.cfg = cfg
        self.client = client
        self.sleep = sleep

    def decide(self, request: dict[str, Any]) -> ModelReply:
        retries: list[Attempt] = []
        for attempt in range(self.cfg.max_retries + 1):
            started = time.monotonic()
            # The SDK's own retries are off, so it would send retry-count 0 every time: say which attempt this is.
            headers = {**(request.get("extra_headers") or {}), "x-stainless-retry-count": str(attempt)}
            tried = "" if attempt == 0 else f" (gave up after {attempt + 1} attempts)"
            try:
                message = self.client.messages.create(**{**request, "extra_headers": headers})
            except anthropic.APIStatusError as exc:
                retryable = exc.status_code in RETRY_STATUS or exc.status_code >= 500
                if not retryable or attempt == self.cfg.max_retries:
                    raise ModelError(f"API error {exc.status_code}{tried}: {_short(exc)}", retries) from None
                wait = _retry_after(exc)
                wait = min(wait, self.cfg.retry_after_cap_s) if wait is not None else min(0.5 * 2**attempt, 8.0)
                retries.append(Attempt(error=_short(exc), status=exc.status_code, waited_s=wait))
            except anthropic.APIConnectionError as exc:  # includes APITimeoutError
                if attempt == self.cfg.max_retries:
                    raise ModelError(f"cannot reach the API{tried}: {type(exc).__name__}", retries) from None
                wait = min(0.5 * 2**attempt, 8.0)
                retries.append(Attempt(error=type(exc).__name__, waited_s=wait))
            else:
                reply = parse_reply(message)
                reply.latency_s = time.monotonic() - started
                reply.retries = retries
                return reply
            self.sleep(wait)
        raise AssertionError("unreachable")


def _short(exc: anthropic.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    raw = body.get("error")
    err = raw if isinstance(raw, dict) else {}
    return f"{err.get('type', type(exc).__name__)}: {err.get('message', str(exc))}"[:300]
