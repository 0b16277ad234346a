"""How the context is laid out, chosen once per run (`context.layout`): what the current turn shows,
how a past turn is remembered, and how history makes room.

`CachedLayout` is the design of docs/ARCHITECTURE.md (compact vision, memory in `system`, breakpoints,
folds with a summary); `BaselineLayout` (baseline.py) is the original harness, kept for bench/tokens.py.
The coordinator picks one at start; the loop has no branch on the layout.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from pydantic import BaseModel

from lluma_agent.context.history import History, PastTurn, Summarizer
from lluma_agent.model.calls import ToolResult
from lluma_vision.models import VisionData, VisionOutput


class Current(BaseModel):
    """The current turn's screen as sent, and as history will keep it."""

    screen: str  # the <vision> payload
    memory_text: str  # the memory block in `system` ("" when the layout sends it elsewhere)
    notes: list[str]
    record: str = ""  # what history keeps of the screen, when the layout keeps it as sent


class ContextLayout(Protocol):
    cache: bool  # send cache_control breakpoints

    def make_room(self, history: History, summarize: Summarizer) -> str | None:
        """History is over its limit: shrink it. Returns how it was folded (for the log), or None."""
        ...

    def current(self, out: VisionOutput, view: VisionData, memory_text: str, notes: list[str]) -> Current: ...

    def past_turn(self, history: History, turn: int, current: Current, view: VisionData, summary: str,
                  results: list[ToolResult], reply: list[dict[str, Any]]) -> PastTurn: ...


class CachedLayout:
    cache = True

    def make_room(self, history: History, summarize: Summarizer) -> str | None:
        return history.fold(summarize)

    def current(self, out: VisionOutput, view: VisionData, memory_text: str, notes: list[str]) -> Current:
        return Current(screen=view.to_json(), memory_text=memory_text, notes=notes)

    def past_turn(self, history: History, turn: int, current: Current, view: VisionData, summary: str,
                  results: list[ToolResult], reply: list[dict[str, Any]]) -> PastTurn:
        # "Same screen as T41" means the model saw exactly the same reading then.
        screen_hash = hashlib.sha1(view.to_json().encode("utf-8")).hexdigest()[:16]
        return PastTurn(
            turn=turn, results=[r.block(compact=True) for r in results],
            screen=history.screen_line(turn, screen_hash, summary), screen_hash=screen_hash, reply=reply,
        )
