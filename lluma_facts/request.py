"""The shape of a Messages API request, as both the agent and the stand-in walk it.

Prompt-prefix order is tools -> system -> messages (each message's content blocks in turn); caching,
token counting and the thinking-binding check all follow it. No counting and no judgement here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Section = Literal["tools", "system", "messages"]


def system_blocks(system: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if system is None or system == "":
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    return list(system)


def content_blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def strip_cache_control(value: Any) -> Any:
    """`value` without any cache_control key, at any depth (breakpoints are not part of the prompt)."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return value


def block_cache_control(block: dict[str, Any]) -> dict[str, Any] | None:
    """A block's breakpoint; a tool_result also carries one set on a block inside its content."""
    cc = block.get("cache_control")
    if isinstance(cc, dict) and cc:
        return cc
    if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
        for inner in block["content"]:
            found = inner.get("cache_control") if isinstance(inner, dict) else None
            if isinstance(found, dict) and found:
                return found
    return None


@dataclass(frozen=True)
class PrefixBlock:
    """One block of a request in prefix order: a tool definition, a system block or a message content block."""

    index: int
    section: Section
    path: str  # tools.2, system.0, messages.5.content.1
    kind: str  # tool, text, image, tool_use, tool_result, thinking, ...
    block: dict[str, Any]
    role: str | None = None
    message: int | None = None  # message index, for message blocks
    first_in_message: bool = False

    @property
    def cache_control(self) -> dict[str, Any] | None:
        return block_cache_control(self.block)


def prefix_blocks(
    *,
    messages: list[dict[str, Any]],
    system: str | list[dict[str, Any]] | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> list[PrefixBlock]:
    """Every block of a request in prompt-prefix order (the keyword names match the API's)."""
    out: list[PrefixBlock] = []
    for i, tool in enumerate(tools or []):
        out.append(PrefixBlock(len(out), "tools", f"tools.{i}", "tool", tool))
    for i, b in enumerate(system_blocks(system)):
        out.append(PrefixBlock(len(out), "system", f"system.{i}", str(b.get("type")), b))
    for mi, msg in enumerate(messages):
        for bi, b in enumerate(content_blocks(msg.get("content", ""))):
            out.append(
                PrefixBlock(
                    len(out),
                    "messages",
                    f"messages.{mi}.content.{bi}",
                    str(b.get("type")),
                    b,
                    role=msg.get("role"),
                    message=mi,
                    first_in_message=bi == 0,
                )
            )
    return out
