"""Fault injection for the Messages API stand-in: errors the SDK must retry, slow replies, bad model output.

A `FaultSchedule` answers "what goes wrong with request #i?" (0-based, counting every POST /v1/messages the
server receives, SDK retries included) from a fixed `at` map, then from a `queue` consumed in order.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from pydantic import BaseModel, Field

FaultKind = Literal[
    "rate_limit", "overloaded", "api_error", "slow", "malformed_tool_input", "max_tokens", "refusal", "invalid_vlm_json"
]

# HTTP status and error type of the faults that replace the response.
ERROR_FAULTS: dict[str, tuple[int, str, str]] = {
    "rate_limit": (429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "api_error": (500, "api_error", "Internal server error"),
}


class Fault(BaseModel):
    """One injected fault.

    - rate_limit: 429 with `retry-after` (seconds, may be fractional); overloaded: 529; api_error: 500.
    - slow: the reply is held `delay_s` seconds (set it past the client's timeout), then sent normally.
    - malformed_tool_input: the first tool_use gets input missing a required field, or a wrong type.
    - max_tokens: the reply is cut short with stop_reason "max_tokens" (its tool call dropped).
    - refusal: a safety classifier declines: stop_reason "refusal", no content.
    - invalid_vlm_json: the reply text is cut-off JSON (meant for a VLM reading request).
    """

    kind: FaultKind
    retry_after_s: float | None = Field(1.0, description="rate_limit/overloaded: retry-after header; None omits.")
    delay_s: float = Field(2.0, description="slow: seconds before the reply.")
    malformed: Literal["missing_field", "wrong_type"] = Field("missing_field", description="malformed_tool_input.")


class FaultSchedule:
    """Faults by request index (`at`) and/or a queue consumed one request at a time (`queue`)."""

    def __init__(self, at: dict[int, Fault | FaultKind] | None = None, queue: list[Fault | FaultKind] | None = None):
        self._at = {i: _fault(f) for i, f in (at or {}).items()}
        self._queue = [_fault(f) for f in queue or []]
        self._lock = threading.Lock()
        self.fired: list[tuple[int, FaultKind]] = []

    def add(self, fault: Fault | FaultKind, at: int | None = None) -> None:
        """Schedule a fault for request index `at`, or append it to the queue."""
        with self._lock:
            if at is None:
                self._queue.append(_fault(fault))
            else:
                self._at[at] = _fault(fault)

    def next(self, index: int, raw: bytes | None = None) -> Fault | None:
        """The fault for request `index`, if any (each scheduled fault fires once). `raw` is the request
        body, for schedules that look at what is asked (lluma_sim.fault_plan)."""
        with self._lock:
            fault = self._at.pop(index, None)
            if fault is None and self._queue:
                fault = self._queue.pop(0)
            if fault is not None:
                self.fired.append((index, fault.kind))
            return fault

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._at) + len(self._queue)

    @classmethod
    def parse(cls, specs: list[str], retry_after_s: float | None = 1.0) -> FaultSchedule:
        """From CLI strings `INDEX:KIND` or `KIND` (queued), e.g. ["3:rate_limit", "overloaded"]."""
        sched = cls()
        for spec in specs:
            idx, _, kind = spec.rpartition(":")
            sched.add(Fault(kind=kind, retry_after_s=retry_after_s), at=int(idx) if idx else None)
        return sched


def _fault(f: Fault | FaultKind) -> Fault:
    return f if isinstance(f, Fault) else Fault(kind=f)


def malform_tool_input(content: list[dict[str, Any]], tools: list[dict[str, Any]], how: str) -> str:
    """Break the first tool_use's input in place; returns what was done (for the request log)."""
    for block in content:
        if block.get("type") != "tool_use":
            continue
        named = (t.get("input_schema", {}) for t in tools if t.get("name") == block.get("name"))
        schema: dict[str, Any] = next(named, {})
        required = list(schema.get("required") or [])
        props = schema.get("properties") or {}
        if how == "missing_field" and required:
            block["input"] = {k: v for k, v in block["input"].items() if k != required[0]}
            return f"{block['name']}: dropped required field {required[0]!r}"
        target = required[0] if required else next(iter(props), None) or "value"
        declared = (props.get(target) or {}).get("type")
        block["input"] = {**block["input"], target: ["not", "a", "string"] if declared != "array" else 42}
        return f"{block['name']}: field {target!r} given the wrong type"
    return "no tool_use to malform"


def break_json(content: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The text is cut off mid-JSON (unparsable); the stop reason stays as it was."""
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text") or '{"buttons": []}'
    return [{"type": "text", "text": text[: max(1, len(text) // 2)] + ',"na'}]


# Faults that rewrite a reply the policy wrote: kind -> (content -> content).
REPLY_FAULTS = {"invalid_vlm_json": break_json}
