"""How the context is laid out, fixed for a run: what the current turn shows, how a past turn is remembered,
and how history makes room.

`CachedLayout` is the design of docs/ARCHITECTURE.md (compact vision, memory in `system`, breakpoints,
folds with a summary) and the only one a run uses; the original harness's layout is the token benchmark's
baseline (bench/baseline_layout.py), handed to the coordinator by the benchmark. The loop has no branch on
the layout.
"""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from pydantic import BaseModel

from lluma_agent.context.history import Folded, History, PastTurn, Summarizer
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.calls import ToolResult
from lluma_agent.model.claude import MessagesRequest, Shape
from lluma_vision.models import VisionData, VisionOutput


class Current(BaseModel):
    """The current turn's screen as sent, and as history will keep it."""

    screen: str  # the <vision> payload
    memory_text: str  # the memory block in `system` ("" when the layout sends it elsewhere)
    notes: list[str]
    record: str = ""  # what history keeps of the screen, when the layout keeps it as sent


class Sent(BaseModel):
    """What the current turn sent, for history: its blocks as sent, whether its results went as text, and the
    memory updates it delivered."""

    blocks: list[dict[str, Any]]
    results_as_text: bool = False
    memory_notes: list[str] = []


class ContextLayout(Protocol):
    """A strategy: every place the layouts differ is one of these, so the loop never asks which it has."""

    name: str  # in the checkpoint: a run goes on only with the layout it started with
    cache: bool  # the request carries cache_control breakpoints (and the cached prefix is worth a preflight)

    def make_room(self, history: History, summarize: Summarizer) -> Folded | None:
        """History is over its limit: shrink it. Returns the fold (how, for the log, and its summary call), or
        None when the layout shrinks without one."""
        ...

    def memory_text(self, history: History, memory: MemoryStore) -> str:
        """The memory block this request carries."""
        ...

    def fold_note(self, history: History) -> str | None:
        """A note for this turn ahead of a fold (the summary it needs, written in this reply), or None."""
        ...

    def current(self, out: VisionOutput, view: VisionData, memory_text: str, notes: list[str]) -> Current: ...

    def finish(self, request: MessagesRequest, shape: Shape) -> MessagesRequest:
        """The built request, with whatever this layout must add before it is sent."""
        ...

    def past_turn(self, history: History, turn: int, current: Current, view: VisionData, summary: str,
                  results: list[ToolResult], reply: list[dict[str, Any]], sent: Sent) -> PastTurn: ...


class CachedLayout:
    name = "cached"
    cache = True

    def make_room(self, history: History, summarize: Summarizer) -> Folded | None:
        return history.fold(summarize)

    def fold_note(self, history: History) -> str | None:
        return history.fold_ask()

    def memory_text(self, history: History, memory: MemoryStore) -> str:
        return history.memory or ""  # the snapshot in `system`, refreshed only at folds (the prefix stays put)

    def current(self, out: VisionOutput, view: VisionData, memory_text: str, notes: list[str]) -> Current:
        return Current(screen=view.to_json(), memory_text=memory_text, notes=notes)

    def finish(self, request: MessagesRequest, shape: Shape) -> MessagesRequest:
        return request

    def past_turn(self, history: History, turn: int, current: Current, view: VisionData, summary: str,
                  results: list[ToolResult], reply: list[dict[str, Any]], sent: Sent) -> PastTurn:
        # "Same screen as T41" means the model saw exactly the same reading then.
        screen_hash = hashlib.sha1(view.to_json().encode("utf-8")).hexdigest()[:16]
        # Append-only: a reply that holds thinking is bound to the user message it answered, kept as sent.
        thinking = any(b.get("type") in ("thinking", "redacted_thinking") for b in reply)
        return PastTurn(
            turn=turn, results=[r.block(compact=True) for r in results],
            screen=history.screen_line(turn, screen_hash, summary), screen_hash=screen_hash, reply=reply,
            sent=sent.blocks if thinking else None, results_as_text=sent.results_as_text, notes=sent.memory_notes,
            epoch=history.folds,
        )
