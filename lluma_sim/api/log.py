"""The stand-in's request log: one `LogEntry` per HTTP request (never with auth headers)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lluma_facts import Usage
from lluma_sim.api.cache import BreakpointResult


class LogEntry(BaseModel):
    """One request as the stand-in saw it (for tests and benchmarks)."""

    index: int = Field(description="Arrival order over all requests, from 0.")
    messages_index: int | None = Field(None, description="Order among POST /v1/messages (what faults count).")
    at: float = Field(description="Server clock time.")
    endpoint: str
    status: int
    model: str | None = None
    api_version: str | None = None
    retry_count: int | None = Field(None, description="The SDK's x-stainless-retry-count header.")
    stream: bool = False
    error_type: str | None = None
    error_message: str | None = None
    fault: str | None = Field(None, description="Injected fault kind, with detail.")
    layout: dict[str, int] = Field(default_factory=dict, description="Blocks per section: tools/system/messages.")
    section_tokens: dict[str, int] = Field(default_factory=dict, description="Stand-in's tokens per section.")
    message_count: int = 0
    breakpoints: list[BreakpointResult] = Field(default_factory=list)
    cache_notes: list[str] = Field(default_factory=list)
    read_index: int | None = Field(None, description="Last block read from cache, if any.")
    usage: Usage | None = None
    cost_usd: float | None = None
    stop_reason: str | None = None
    thinking_tokens: int = Field(0, description="Output tokens of the reply's thinking (billed even when omitted).")
    input_transformations: list[dict[str, Any]] = Field(
        default_factory=list, description="What the stand-in changed before reading: dropped thinking blocks."
    )
    policy: str = Field("", description="The policy's decision line.")
    tool_calls: list[str] = Field(default_factory=list)
    request: dict[str, Any] | None = Field(None, description="The body (images elided), when keep_bodies=True.")

    @property
    def cache_result(self) -> str:
        """read / write / read+write / none, from the usage."""
        if self.usage is None:
            return "none"
        parts = [
            n
            for n, v in (
                ("read", self.usage.cache_read_input_tokens),
                ("write", self.usage.cache_creation_input_tokens),
            )
            if v
        ]
        return "+".join(parts) or "none"


def _elide_images(value: Any) -> Any:
    if isinstance(value, dict):
        if value.get("type") == "base64" and isinstance(value.get("data"), str):
            return {**value, "data": f"<{len(value['data'])} base64 chars>"}
        return {k: _elide_images(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_elide_images(v) for v in value]
    return value


def elide_images(value: Any) -> Any:
    """The request body with base64 payloads replaced by their length (logs stay small)."""
    if isinstance(value, dict):
        if value.get("type") == "base64" and isinstance(value.get("data"), str):
            return {**value, "data": f"<{len(value['data'])} base64 chars>"}
        return {k: elide_images(v) for k, v in value.items()}
    if isinstance(value, list):
        return [elide_images(v) for v in value]
    return value


def print_entry(e: LogEntry) -> None:
    if e.usage is None:
        print(
            f"#{e.index} {e.status} {e.error_type or ''}: {e.error_message or ''} {e.fault or ''}".rstrip(), flush=True
        )
        return
    u = e.usage
    print(
        f"#{e.index} {e.status} {e.model} in={u.input_tokens} write={u.cache_creation_input_tokens} "
        f"read={u.cache_read_input_tokens} out={u.output_tokens} ${e.cost_usd:.5f} {e.policy}"
        + (f" [fault {e.fault}]" if e.fault else ""),
        flush=True,
    )
