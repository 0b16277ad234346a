"""The model layer: one Messages API call per turn through the anthropic SDK.

Retries are ours, not the SDK's (max_retries=0 on the client): one policy for every call the agent makes
(lluma_facts.retry: full-jitter backoff for minutes, a server's retry-after capped), each retry in the turn
log. A request whose preserved thinking no longer matches its prefix (400 "bound to a different
conversation") is sent once more with `block_binding: drop_block`; what the API dropped is kept in
`ModelReply.input_transformations`. A thinking block refused for its signature alone is `ModelError.thinking_refused`:
the loop drops the history's thinking and asks again (loop/coordinator.py).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any, cast

import anthropic
from anthropic.types import OutputConfigParam
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from anthropic.types.thinking_config_param import ThinkingConfigParam
from pydantic import BaseModel

from lluma_agent.config import ModelConfig, check_base_url
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.reply import ModelError, ModelReply, check_key
from lluma_facts import Usage
from lluma_facts.registry import RetiredModelError, UnknownModelError, model_spec, usable_model
from lluma_facts.retry import Attempt, RetryPolicy, Tried, call_with_retries, describe, is_retryable

__all__ = [
    "Attempt", "Model", "ModelError", "ModelReply", "Shape", "check_key", "check_model", "make_client", "parse_reply",
    "request_shape", "retry_policy",
]

BINDING_BETA = "thinking-binding-controls-2026-08-01"
BINDING_ERROR = "bound to a different conversation"
# A replayed thinking block the API will not take, whatever the reason (another key or account signed it: a
# stand-in started again, a rotated key, a resume on another model); drop_block does not cover it.
THINKING_REFUSED = re.compile(r"invalid\W+signature\W+in\W+thinking\W+block", re.IGNORECASE)


class MessagesRequest(MessageCreateParamsNonStreaming, total=False):
    """Keyword arguments of `client.messages.create`: the SDK's own TypedDict, carried from building to sending
    (context/request.py builds it, Model sends it), so mypy checks what is sent."""

    extra_headers: dict[str, str]
    extra_body: dict[str, Any]


def stored_request(data: dict[str, Any]) -> MessagesRequest:
    """A request read back from disk (`requests/`, replay): JSON of what was sent, so it has the shape that was
    checked when it was built. The one place an untyped dict becomes a request."""
    return cast(MessagesRequest, data)


class Shape(BaseModel):
    """What a request says about thinking, from the model's row in the registry and the config."""

    thinking: ThinkingConfigParam | None = None
    output_config: OutputConfigParam | None = None
    expects_thinking: bool = False  # replies will carry thinking blocks (their turns are kept verbatim)


def request_shape(cfg: ModelConfig) -> Shape:
    """Adaptive models get `thinking: adaptive` and `output_config.effort`; budget models (Haiku 4.5) get a
    thinking budget when one is set. No model gets temperature/top_p/top_k or a prefill: we never send them."""
    spec = model_spec(cfg.name)
    if spec.thinking == "adaptive":
        return Shape(thinking={"type": "adaptive"}, output_config={"effort": cfg.effort}, expects_thinking=True)
    if cfg.thinking_budget:
        return Shape(thinking={"type": "enabled", "budget_tokens": cfg.thinking_budget}, expects_thinking=True)
    return Shape()


def check_model(cfg: ModelConfig, vlm_model: str | None = None) -> None:
    """An unknown or retired model (decision or VLM), or an effort the model does not take, stops the run at
    start with one line naming the current models."""
    for key, name in (("model.name", cfg.name), ("vision.vlm_model", vlm_model)):
        if name is None:
            continue
        try:
            spec = usable_model(name)
        except (UnknownModelError, RetiredModelError) as exc:
            raise ModelError(f"{key}: {exc}") from None
        if key == "model.name" and spec.thinking == "adaptive" and cfg.effort not in spec.efforts:
            raise ModelError(f"model.effort: {name} takes {', '.join(spec.efforts)}, not {cfg.effort!r}")


def retry_policy(cfg: ModelConfig) -> RetryPolicy:
    return RetryPolicy(
        max_wait_s=cfg.retry_max_wait_s, window_s=cfg.retry_window_s, retry_after_cap_s=cfg.retry_after_cap_s
    )


def make_client(cfg: ModelConfig, api_key: str | None = None) -> anthropic.Anthropic:
    key = api_key if api_key is not None else os.environ.get(cfg.api_key_env)
    if not key:
        raise ModelError(f"no API key: set {cfg.api_key_env} (or run `lluma demo`, which needs none)")
    check_key(cfg.api_key_env, key)
    if not cfg.base_url and (env_url := os.environ.get("ANTHROPIC_BASE_URL")):
        try:
            check_base_url(env_url)
        except ValueError as exc:
            raise ModelError(f"ANTHROPIC_BASE_URL {exc}") from None
    kwargs: dict[str, Any] = {"api_key": key, "max_retries": 0, "timeout": cfg.timeout_s}
    if cfg.base_url:
        kwargs["base_url"] = cfg.base_url
    return anthropic.Anthropic(**kwargs)


def parse_reply(message: Any) -> ModelReply:
    """Blocks are picked by type, never by position (a reply may open with a thinking block)."""
    content = [block.model_dump(exclude_none=True) for block in message.content]
    calls = [
        ToolCall(id=b["id"], name=b["name"], input=b.get("input") or {}) for b in content if b["type"] == "tool_use"
    ]
    text = "\n".join(b.get("text", "") for b in content if b["type"] == "text").strip()
    thinking = "\n".join(b.get("thinking", "") for b in content if b["type"] == "thinking").strip()
    transformations = getattr(message, "input_transformations", None) or []
    return ModelReply(
        content=content,
        text=text,
        thinking=thinking,
        tool_calls=calls,
        stop_reason=message.stop_reason,
        usage=Usage.from_api(message.usage),
        request_id=getattr(message, "_request_id", None),
        input_transformations=[t if isinstance(t, dict) else dict(t) for t in transformations],
    )


def drop_block(request: MessagesRequest) -> MessagesRequest:
    """The same request, asking the API to drop preserved thinking whose prefix changed instead of failing."""
    # block_binding is newer than the SDK's ThinkingConfigParam: it travels in extra_body, which overrides.
    thinking = {**(request.get("thinking") or {"type": "adaptive"}),
                "block_binding": {"prefix_mismatch_behavior": "drop_block"}}
    headers = {**(request.get("extra_headers") or {}), "anthropic-beta": BINDING_BETA}
    return {**request, "extra_body": {**(request.get("extra_body") or {}), "thinking": thinking},
            "extra_headers": headers}


class Model:
    def __init__(
        self,
        cfg: ModelConfig,
        client: anthropic.Anthropic,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cfg = cfg
        self.client = client
        self.sleep = sleep
        self.clock = clock
        self.policy = retry_policy(cfg)

    def decide(self, request: MessagesRequest) -> ModelReply:
        tried = self._send(request)
        exc = tried.error
        thinking = request.get("thinking")
        if (isinstance(exc, anthropic.BadRequestError) and BINDING_ERROR in str(exc)
                and thinking is not None and thinking["type"] == "adaptive"):
            # A broken thinking binding: sent once more without the block that breaks it (drop_block).
            broken = Attempt(error=describe(exc), status=exc.status_code)
            again = self._send(drop_block(request))
            tried = Tried(attempts=[*tried.attempts, broken, *again.attempts], value=again.value, error=again.error)
        if isinstance(tried.error, anthropic.APIError):
            raise self._error(tried.error, tried.attempts) from None
        return tried.get().model_copy(update={"retries": tried.attempts})

    def _send(self, request: MessagesRequest) -> Tried[ModelReply]:
        started = self.clock()

        def call(attempt: int) -> ModelReply:
            # The SDK's own retries are off, so it would send retry-count 0 every time: say which attempt this is.
            headers = {**(request.get("extra_headers") or {}), "x-stainless-retry-count": str(attempt)}
            sent: MessagesRequest = {**request, "extra_headers": headers}
            reply = parse_reply(self.client.messages.create(**sent))
            reply.latency_s = self.clock() - started
            return reply

        return call_with_retries(call, self.policy, sleep=self.sleep, clock=self.clock, what="model call")

    def count_tokens(self, request: MessagesRequest) -> int:
        """The exact input tokens of `request` (free; needs the network): the prefix check at start and after folds."""
        r = request
        result = call_with_retries(
            lambda _n: self.client.messages.count_tokens(
                model=r["model"], messages=r["messages"], system=r.get("system", anthropic.omit),
                tools=r.get("tools", anthropic.omit), tool_choice=r.get("tool_choice", anthropic.omit),
                thinking=r.get("thinking", anthropic.omit), output_config=r.get("output_config", anthropic.omit)),
            self.policy, sleep=self.sleep, clock=self.clock, what="count_tokens",
        )
        return int(result.get().input_tokens)

    def preflight(self, request: MessagesRequest) -> tuple[bool, str] | None:
        """The real size of the cached prefix (tools + system + memory snapshot) against the model's minimum
        cacheable prefix: (big enough, a line for the log). A failure is reported, never raised."""
        probe: MessagesRequest = {"model": request["model"], "max_tokens": 1,
                                  "messages": [{"role": "user", "content": "."}]}
        if "system" in request:
            probe["system"] = request["system"]
        if "tools" in request:
            probe["tools"] = request["tools"]
        try:
            n = self.count_tokens(probe)
        except anthropic.APIError as exc:
            return True, f"prefix check failed: {describe(exc)}"
        minimum = model_spec(str(request["model"])).min_cacheable_tokens
        if n < minimum:
            return False, f"prefix {n:,} tokens is below the minimum cacheable {minimum:,}: nothing will be cached"
        return True, f"prefix {n:,} tokens (tools + system + memory), minimum cacheable {minimum:,}: cached"

    def _error(self, exc: anthropic.APIError, retries: list[Attempt]) -> ModelError:
        tried = f" (gave up after {len(retries) + 1} attempts)" if retries else ""
        busy = is_retryable(exc)
        if isinstance(exc, anthropic.APIStatusError):
            refused = isinstance(exc, anthropic.BadRequestError) and bool(THINKING_REFUSED.search(str(exc)))
            return ModelError(f"API error {exc.status_code}{tried}: {describe(exc)}", retries, busy=busy,
                              thinking_refused=refused)
        return ModelError(f"cannot reach the API{tried}: {type(exc).__name__}", retries, busy=busy)
