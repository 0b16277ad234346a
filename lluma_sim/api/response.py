"""Shapes of what the stand-in sends back: Message JSON, usage, error JSON, and the SSE stream form."""

from __future__ import annotations

import copy
import json
import random
import string
from typing import Any

from lluma_sim.api.cache import CacheOutcome
from lluma_sim.api.tokens import block_tokens, text_tokens


def new_id(prefix: str, rng: random.Random | None = None) -> str:
    r = rng or random
    return prefix + "".join(r.choices(string.ascii_letters + string.digits, k=24))


def usage_json(cache: CacheOutcome, output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": cache.input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache.cache_creation_input_tokens,
        "cache_read_input_tokens": cache.cache_read_input_tokens,
        "cache_creation": {
            "ephemeral_5m_input_tokens": cache.cache_write_5m,
            "ephemeral_1h_input_tokens": cache.cache_write_1h,
        },
        "service_tier": "standard",
    }


def error_json(type_: str, message: str, request_id: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}, "request_id": request_id}


def fit_max_tokens(
    content: list[dict[str, Any]], max_tokens: int, model: str
) -> tuple[list[dict[str, Any]], int, bool]:
    """Cut the reply to `max_tokens` the way generation stops: text truncated, an unfinished tool call dropped.

    Returns (content, output_tokens, truncated)."""
    total = sum(block_tokens(b, model) for b in content)
    if total <= max_tokens:
        return content, max(1, total) if content else total, False
    kept: list[dict[str, Any]] = []
    used = 0
    for block in content:
        n = block_tokens(block, model)
        if used + n <= max_tokens:
            kept.append(block)
            used += n
            continue
        room = max_tokens - used
        if block.get("type") == "text" and room > 0:
            words = block["text"].split(" ")
            cut = copy.deepcopy(block)
            while words and text_tokens(" ".join(words), model) > room:
                words = words[: max(0, len(words) - max(1, len(words) // 4))]
            if words:
                cut["text"] = " ".join(words)
                kept.append(cut)
        break
    return kept, max_tokens, True


def message_json(
    *, msg_id: str, model: str, content: list[dict[str, Any]], stop_reason: str, usage: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def sse_body(message: dict[str, Any]) -> bytes:
    """The whole event stream for a finished message (sent at once; the SDK parses it the same way)."""
    events: list[tuple[str, dict[str, Any]]] = []
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}
    events.append(("message_start", {"type": "message_start", "message": start}))
    for i, block in enumerate(message["content"]):
        kind = block["type"]
        first: dict[str, Any]
        delta: dict[str, Any] | None
        if kind == "text":
            first, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        elif kind == "tool_use":
            first = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        elif kind == "thinking":
            first = {"type": "thinking", "thinking": "", "signature": ""}
            delta = {"type": "thinking_delta", "thinking": block["thinking"]}
        else:
            first, delta = block, None
        events.append(("content_block_start", {"type": "content_block_start", "index": i, "content_block": first}))
        if delta is not None:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
        if kind == "thinking":
            sig = {"type": "signature_delta", "signature": block.get("signature", "")}
            events.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": sig}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": message["usage"],
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()
