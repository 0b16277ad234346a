"""Thinking-block signatures: what the stand-in signs, and how a replayed block is judged.

A signature holds two MACs under the server's secret: one over the thinking text (a block changed by the
client fails on every model) and one over the text AND the prefix it was made after: system, tools, the
earlier messages and the blocks before it in its own message, `cache_control` left out (breakpoints move
every turn; they are not part of the conversation). Models whose thinking is bound to its prefix
(`ModelSpec.thinking_bound_to_prefix`, the 5.5 generation) check the second MAC: a replay after a changed
system prompt, tools or earlier message gets 400, unless the request asks
`thinking.block_binding.prefix_mismatch_behavior = "drop_block"` with the beta header, in which case such
blocks are removed before the request is counted and the response lists them in `input_transformations`.
Every block is judged against the request as sent, so dropping one never invalidates the next.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from lluma_facts import ModelSpec
from lluma_facts.request import content_blocks, strip_cache_control, system_blocks
from lluma_sim.api.errors import ApiError, invalid

BINDING_BETA = "thinking-binding-controls-2026-08-01"
BOUND_ERROR = "Invalid `signature` in `thinking` block. The block is bound to a different conversation"
MAC_BYTES = 16  # the stand-in's signature MAC length (its own format, not the API's)


def prefix_digest(
    system: Any, tools: Any, messages: list[dict[str, Any]], message_index: int, block_index: int
) -> bytes:
    """What a block at messages[message_index].content[block_index] commits to."""
    before = [strip_cache_control(m) for m in messages[:message_index]]
    if message_index < len(messages):
        own = messages[message_index]
        before.append(
            {
                "role": own.get("role"),
                "content": strip_cache_control(content_blocks(own.get("content", ""))[:block_index]),
            }
        )
    canon = {
        "system": strip_cache_control(system_blocks(system)),
        "tools": strip_cache_control(tools or []),
        "messages": before,
    }
    return hashlib.sha256(
        json.dumps(canon, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    ).digest()


def _mac(secret: bytes, *parts: bytes) -> bytes:
    return hmac.new(secret, b"\x00".join(parts), hashlib.sha256).digest()[:MAC_BYTES]


def sign(secret: bytes, thinking: str, prefix: bytes) -> str:
    text = thinking.encode()
    return base64.b64encode(_mac(secret, b"text", text) + _mac(secret, b"bound", prefix, text)).decode()


def _macs(signature: str) -> tuple[bytes, bytes] | None:
    try:
        raw = base64.b64decode(signature, validate=True)
    except (ValueError, TypeError):
        return None
    return (raw[:MAC_BYTES], raw[MAC_BYTES:]) if len(raw) == 2 * MAC_BYTES else None


def text_matches(secret: bytes, block: dict[str, Any]) -> bool:
    """Whether a thinking block's text is what the stand-in signed (any model)."""
    macs = _macs(str(block.get("signature", "")))
    return macs is not None and hmac.compare_digest(
        macs[0], _mac(secret, b"text", str(block.get("thinking", "")).encode())
    )


def betas(headers: dict[str, str]) -> set[str]:
    return {b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()}


def drop_allowed(body: dict[str, Any], beta_headers: set[str]) -> bool:
    """Whether the request asks for drop_block, with the beta header that unlocks it (400 without it)."""
    binding = (body.get("thinking") or {}).get("block_binding")
    if binding is None:
        return False
    if BINDING_BETA not in beta_headers:
        raise invalid(f"thinking.block_binding: requires the beta header `anthropic-beta: {BINDING_BETA}`")
    if not isinstance(binding, dict) or binding.get("prefix_mismatch_behavior") not in ("error", "drop_block"):
        raise invalid("thinking.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'")
    return bool(binding["prefix_mismatch_behavior"] == "drop_block")


def check_bindings(
    body: dict[str, Any], secret: bytes, spec: ModelSpec, beta_headers: set[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Judge every replayed thinking block's binding against the request as sent.

    Returns (the messages the model reads: mismatched blocks dropped when drop_block allows it, the
    `input_transformations` to report). Raises ApiError 400 for a mismatch without drop_block."""
    allow_drop = drop_allowed(body, beta_headers)
    messages: list[dict[str, Any]] = body["messages"]
    if not spec.thinking_bound_to_prefix:
        return messages, []
    mismatched: set[tuple[int, int]] = set()
    for mi, msg in enumerate(messages):
        if msg.get("role") != "assistant":
            continue
        for bi, block in enumerate(content_blocks(msg.get("content", ""))):
            if block.get("type") != "thinking":
                continue
            macs = _macs(str(block.get("signature", "")))
            prefix = prefix_digest(body.get("system"), body.get("tools"), messages, mi, bi)
            bound = _mac(secret, b"bound", prefix, str(block.get("thinking", "")).encode())
            if macs is None or not hmac.compare_digest(macs[1], bound):
                if not allow_drop:
                    raise ApiError(400, "invalid_request_error", f"messages.{mi}.content.{bi}: {BOUND_ERROR}")
                mismatched.add((mi, bi))
    if not mismatched:
        return messages, []
    kept = [
        {
            **msg,
            "content": [b for bi, b in enumerate(content_blocks(msg.get("content", ""))) if (mi, bi) not in mismatched],
        }
        if any(m == mi for m, _ in mismatched)
        else msg
        for mi, msg in enumerate(messages)
    ]
    dropped = [
        {"type": "thinking_block_dropped", "path": f"messages.{mi}.content.{bi}", "reason": "prefix_mismatch"}
        for mi, bi in sorted(mismatched)
    ]
    return kept, dropped
