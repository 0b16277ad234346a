"""Build one Messages API request in prefix order, with the cache breakpoints of docs/ARCHITECTURE.md
("Context and caching").

    tools + system prompt        breakpoint A   (static)
    memory snapshot              breakpoint B   (refreshed only when history folds)
    history (past turns)         breakpoint C   (rolling: last block of the last assistant reply)
    current turn                 breakpoint D   only when it will be kept verbatim (its reply binds to it)
"""

from __future__ import annotations

import copy
import re
from typing import TYPE_CHECKING, Any, cast
from xml.sax.saxutils import quoteattr

from PIL import Image
from pydantic import BaseModel

from lluma_agent.context.history import results_as_text as results_text
from lluma_agent.context.tokens import RequestEstimate, estimate_request
from lluma_vision.jpeg import jpeg_base64

if TYPE_CHECKING:  # the SDK's types, for mypy only: importing the SDK takes 2-3 s (model/reply.py)
    from anthropic.types import (
        MessageParam,
        OutputConfigParam,
        TextBlockParam,
        ThinkingConfigParam,
        ToolChoiceParam,
        ToolParam,
    )

    from lluma_agent.model.claude import MessagesRequest


class Section(BaseModel):
    name: str
    tokens: int  # estimate (lluma_agent.context.tokens)
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
    tool_results: list[dict[str, Any]], vision_json: str, notes: list[str], screenshot: dict[str, Any] | None,
    results_as_text: bool = False,
) -> list[dict[str, Any]]:
    """Tool results first (the API requires it), then the screen, then any warnings.

    `results_as_text`: the reply they answer was turned into text by a fold, so they are one text line."""
    blocks = [results_text(tool_results)] if results_as_text and tool_results else list(tool_results)
    blocks.append({"type": "text", "text": f"<vision>{vision_json}</vision>"})
    if screenshot is not None:
        blocks.append(screenshot)
    if notes:
        blocks.append({"type": "text", "text": "\n".join(notes)})
    return blocks


_TAG = re.compile(r"<(/?)(file|memory)\b", re.IGNORECASE)


def file_element(name: str, content: str | None, **attrs: str) -> str:
    """One memory file as the model reads it: `<file name="...">content</file>`, the name and attributes
    escaped as XML attributes, and any `<file`/`</memory` inside the content escaped (`&lt;file`), so a file
    can neither close its element nor open another. `content=None`: an empty element (a deleted file)."""
    head = f"<file name={quoteattr(name)}" + "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    if content is None:
        return head + "/>"
    body = _TAG.sub(r"&lt;\1\2", content.rstrip())
    return f"{head}>\n{body}\n</file>"


def memory_update_note(names: list[str], contents: dict[str, str]) -> str:
    """A person's memory edits as a message: the memory block in `system` is a snapshot refreshed only at a
    fold, so the new content travels in the current turn (and stays in the turn's record)."""
    parts = []
    for name in sorted(set(names)):
        if name in contents:
            parts.append(file_element(name, contents[name]))
        else:
            parts.append(file_element(name, None, deleted="true"))
    return ("NOTE: a person changed memory file(s) outside your tools: " + ", ".join(sorted(set(names)))
            + ". Their content now (it replaces the memory snapshot above):\n" + "\n".join(parts))


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
    thinking: ThinkingConfigParam | None = None,
    output_config: OutputConfigParam | None = None,
    tool_choice: ToolChoiceParam | None = None,
    ttl: str = "5m",
    cache: bool = True,
    cache_history: bool = True,
    cache_current: bool = False,
) -> tuple[MessagesRequest, Layout]:
    """`cache=False` (the baseline layout) sends no breakpoints; an empty memory_text sends no memory block.

    Breakpoints: A after the system prompt, B after the memory snapshot, C on the last block of the last
    kept reply (`cache_history`), and D on the current turn when it will be kept verbatim (`cache_current`:
    the reply is expected to hold thinking, which binds it). A fold's request sets C, not D: it reads the
    chunk from the entry the decision after that reply wrote (same tools, tool_choice and thinking settings)."""
    system: list[TextBlockParam] = [{"type": "text", "text": system_prompt}]
    if memory_text:
        system.append({"type": "text", "text": memory_text})
    if cache:
        for block in system:
            block["cache_control"] = _cache(ttl)  # type: ignore[typeddict-item]
    past = copy.deepcopy(history)
    now = copy.deepcopy(current)
    cache_hist = cache and cache_history
    hist_bp = cache_hist and bool(past) and past[-1]["role"] == "assistant" and _mark_last(past[-1]["content"], ttl)
    cur_bp = cache_hist and cache_current and _mark_last(now, ttl)
    messages = past + [{"role": "user", "content": now}]
    request: MessagesRequest = {
        "model": model,
        "max_tokens": max_tokens,
        "tools": cast("list[ToolParam]", tools),
        "system": system,
        "messages": cast("list[MessageParam]", messages),
    }
    if thinking is not None:
        request["thinking"] = thinking
    if output_config is not None:
        request["output_config"] = output_config
    if tool_choice is not None:
        request["tool_choice"] = tool_choice
    # The agent's own estimate (lluma_agent.context.tokens); the turn log puts the billed count beside it.
    est = estimate_request(
        messages=messages, model=model, system=cast(list[dict[str, Any]], system), tools=tools
    )
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
            Section(name="current", tokens=est.messages[n_hist], blocks=cur, breakpoint=cur_bp),
        ]
    )
    return request, layout


def system_tokens(est: RequestEstimate, index: int) -> int:
    return sum(b.tokens for b in est.blocks if b.path == f"system.{index}")
