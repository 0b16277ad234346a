"""What a model call gives back (`ModelReply`) or raises (`ModelError`), apart from the SDK that makes the call
(model/claude.py): the loop's records, the history and `lluma logs` use these, and importing the SDK takes 2-3 s
a process (`lluma logs` paid it for nothing)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.model.calls import ToolCall
from lluma_facts import Usage
from lluma_facts.retry import Attempt


class ModelError(RuntimeError):
    """The model could not be reached or refused the request after retries. Never contains the key.

    `retries` holds the attempts that failed before the last one (so a failed turn still logs them);
    `busy` says the API was overloaded, rate-limiting or unreachable for the whole retry window: the
    run waits it out instead of counting a failed turn."""

    def __init__(self, message: str, retries: list[Attempt] | None = None, busy: bool = False,
                 thinking_refused: bool = False) -> None:
        super().__init__(message)
        self.retries = list(retries or [])
        self.busy = busy
        self.thinking_refused = thinking_refused  # 400: a thinking block in the history was refused (its signature)


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
    # What the API removed from the request (drop_block), as it reported it.
    input_transformations: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def refused(self) -> bool:
        return self.stop_reason == "refusal"


def check_key(variable: str, key: str) -> None:
    """ModelError naming `variable` when the key holds whitespace or a control character: a key file saved with
    Windows line endings ends in a carriage return, which every request then fails on as if the API were down
    (retried for the whole outage window)."""
    if bad := [c for c in key if ord(c) <= 0x20 or ord(c) == 0x7F]:
        what = {"\r": "a carriage return (a key file with Windows line endings?)", "\n": "a newline",
                " ": "a space"}.get(bad[0], f"the control character {bad[0]!r}")
        raise ModelError(f"{variable} holds {what}; set it to the key alone")
