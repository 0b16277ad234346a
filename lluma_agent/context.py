"""Build one Messages API request in prefix order, with the cache breakpoints of DESIGN section 3.

    tools + system prompt        breakpoint A   (static)
    memory block                 breakpoint B   (changes only when memory changes)
    history (compact past turns) breakpoint C   (rolling: last block of the last assistant reply)
    current turn                 never cached   (tool results, <vision> JSON, screenshot, warnings)
"""

from __future__ import annotations

import copy
from typing import Any

from PIL import Image
from pydantic import BaseModel

from lluma_agent.tokens import RequestEstimate, estimate_request
from lluma_vision.jpeg import jpeg_base64


class Section(BaseModel):
    name: str
    tokens: int  # estimate (lluma_agent.tokens)
    blocks: int
    breakpoint: bool  # a cache_control marker ends this section


class Layout(BaseModel):
    sections: list[Section]


def _cache(ttl: str) -> dict[str, str]:
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def screenshot_block(image: Image.Image, max_side: int) -> dict[str, Any]:
    data, _ = jpeg_base64(image, max_side, resample=Image.Resampling.LANCZOS)
    return {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": data}}


def current_turn(
    tool_results: list[dict[str, Any]], vision_json: str, notes: list[str], screenshot: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """Tool results first (the API requires it), then the screen, then any warnings."""
    blocks = list(tool_results)
    blocks.append({"type": "text", "text": f"<vision>{vision_json}</vision>"})
    if screenshot is not None:
        blocks.append(screenshot)
    if notes:
        blocks.append({"type": "text", "text": "\n".join(notes)})
    return blocks


def _mark_last(content: list[dict[str, Any]], ttl: str) -> bool:
    for block in reversed(content):
        # cache_control is not allowed on thinking blocks or empty text.
        if block.get("type") in ("thinking", "redacted_thinking"):
            continue
        if block.get("type") == "text" and not block.get("text"):
            continue
        block["cache_control"] = _cache(ttl)
        return True
    return False


def build_request(
    *,
    model: str,
    max_tokens: int,
    tools: list[dict[str, Any]],
    system_prompt: str,
    memory_text: str,
    history: list[dict[str, Any]],
    current: list[dict[str, Any]],
    thinking_budget: int = 0,
    ttl: str = "5m",
    cache: bool = True,
) -> tuple[dict[str, Any], Layout]:
    """`cache=False` (the baseline layout) sends no breakpoints; an empty memory_text sends no memory block."""
    system: list[dict[str, Any]] = [{"type": "text", "text": system_prompt}]
    if memory_text:
        system.append({"type": "text", "text": memory_text})
    if cache:
        for block in system:
            block["cache_control"] = _cache(ttl)
    past = copy.deepcopy(history)
    hist_bp = cache and bool(past) and past[-1]["role"] == "assistant" and _mark_last(past[-1]["content"], ttl)
    messages = past + [{"role": "user", "content": current}]
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "tools": tools,
        "system": system,
        "messages": messages,
    }
    if thinking_budget > 0:
        request["thinking"] = {"type": "enabled", "budget_tokens": thinking_budget}
        request["max_tokens"] = max(max_tokens, thinking_budget + 512)
    # The same estimator the API stand-in bills with, so the log's layout and the usage agree.
    est = estimate_request(messages=messages, model=model, system=system, tools=tools)
    n_hist = len(messages) - 1
    message_of = [int(b.path.split(".")[1]) for b in est.blocks if b.section == "messages"]
    hist, cur = sum(i < n_hist for i in message_of), sum(i == n_hist for i in message_of)
    layout = Layout(
        sections=[
            Section(name="tools", tokens=est.tools, blocks=len(tools), breakpoint=False),
            Section(name="system", tokens=system_tokens(est, 0), blocks=1, breakpoint=cache),
            Section(name="memory", tokens=system_tokens(est, 1), blocks=1 if memory_text else 0,
                    breakpoint=cache and bool(memory_text)),
            Section(name="history", tokens=sum(est.messages[:n_hist]), blocks=hist, breakpoint=hist_bp),
            Section(name="current", tokens=est.messages[n_hist], blocks=cur, breakpoint=False),
        ]
    )
    return request, layout


def system_tokens(est: RequestEstimate, index: int) -> int:
    return sum(b.tokens for b in est.blocks if b.path == f"system.{index}")
