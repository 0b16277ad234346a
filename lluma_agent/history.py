"""Compact history of past turns, folded in chunks so the cached prefix stays stable between folds.

A past turn is the user message as it will be remembered (one line per tool result plus a one-line
screen summary, or "same screen as T41") followed by the model's reply, unmodified (thinking blocks
included). Nothing volatile goes in: the text of a past turn never changes once written.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.tokens import estimate_message_tokens

_API_FIELDS = {
    "text": ("type", "text"),
    "tool_use": ("type", "id", "name", "input"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
TEXT_KEEP_CHARS = 160  # a past reply's reasoning is kept to about its first sentence or two


def compact_reply(content: list[dict[str, Any]], turn: int) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The model's reply as it will be remembered, and the tool-id renames applied to it.

    Only API fields are kept. Without thinking blocks, tool ids become `t<turn>`, `t<turn>b`...
    (a random `toolu_...` id costs ~15 tokens, twice per call) and long text is trimmed. With
    thinking blocks the reply is kept exactly as returned: the API checks them.
    """
    blocks = []
    for block in content:
        keys = _API_FIELDS.get(block.get("type", ""))
        if keys is None or (block["type"] == "text" and not block.get("text")):
            continue
        blocks.append({k: copy.deepcopy(block[k]) for k in keys if k in block})
    if not blocks:
        return [{"type": "text", "text": "(no reply)"}], {}
    if any(b["type"] in ("thinking", "redacted_thinking") for b in blocks):
        return blocks, {}
    ids: dict[str, str] = {}
    for b in blocks:
        if b["type"] == "tool_use":
            suffix = "" if not ids else chr(ord("a") + len(ids))
            ids[b["id"]] = b["id"] = f"t{turn}{suffix}"
        elif b["type"] == "text" and len(b["text"]) > TEXT_KEEP_CHARS:
            b["text"] = b["text"][: TEXT_KEEP_CHARS - 3].rstrip() + "..."
    return blocks, ids


class PastTurn(BaseModel):
    turn: int
    results: list[dict[str, Any]] = Field(default_factory=list)  # compact tool_result blocks
    screen: str  # one-line summary, already deduplicated ("same screen as T41")
    screen_hash: str = ""
    reply: list[dict[str, Any]] = Field(default_factory=list)  # assistant content blocks, unmodified

    def user_blocks(self, tool_results_allowed: bool) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if tool_results_allowed:
            blocks.extend(copy.deepcopy(self.results))
        elif self.results:
            # The assistant message these answered was folded away: keep the facts as text.
            lines = [f"{r.get('content', '')}" for r in self.results]
            blocks.append({"type": "text", "text": "earlier results: " + " | ".join(lines)})
        blocks.append({"type": "text", "text": f"T{self.turn} {self.screen}"})
        return blocks

    def record_tokens(self) -> int:
        """The compact record of the turn (tool results + screen line): DESIGN's "past turn"."""
        return estimate_message_tokens({"role": "user", "content": self.user_blocks(True)})

    def reply_tokens(self) -> int:
        """The kept assistant message (reasoning + tool calls)."""
        return estimate_message_tokens({"role": "assistant", "content": self.reply})

    def digest(self) -> str:
        """Deterministic one-liner used when a summary call fails."""
        calls = [
            f"{b['name']}({', '.join(f'{v}' for v in (b.get('input') or {}).values())})"
            for b in self.reply
            if b.get("type") == "tool_use"
        ]
        return f"T{self.turn} {self.screen[:80]} -> {'; '.join(calls) or 'no action'}"


Summarizer = Callable[[list[dict[str, Any]]], str]

SUMMARY_REQUEST = (
    "<summarize>\nFold the turns above into a short summary (at most 150 words) for your future self: "
    "where the game stands, what worked, what failed, what to do next. Plain text, no tool calls."
)


class History:
    def __init__(self, max_turns: int = 40, chunk: int = 20) -> None:
        if not 0 < chunk <= max_turns:
            raise ValueError("fold chunk must be between 1 and history_max_turns")
        self.max_turns = max_turns
        self.chunk = chunk
        self.turns: list[PastTurn] = []
        self.summary: str = ""
        self.seen: dict[str, int] = {}  # screen hash -> first turn it was shown on (within the window)
        self.folds = 0

    def screen_line(self, turn: int, screen_hash: str, summary: str) -> str:
        """The summary, or a reference to an identical earlier screen still in the window."""
        first = self.seen.get(screen_hash) if screen_hash else None
        if first is not None and any(t.turn == first for t in self.turns):
            return f"same screen as T{first}"
        if screen_hash:
            self.seen[screen_hash] = turn
        return summary

    def append(self, turn: PastTurn) -> None:
        self.turns.append(turn)

    def messages(self) -> list[dict[str, Any]]:
        """Alternating user/assistant messages, ending with the last assistant reply."""
        return _render(self.turns, self.summary)

    def drop_oldest(self) -> None:
        """The baseline's sliding window: lose the oldest turn, no summary (breaks the prefix every turn)."""
        self.turns.pop(0)

    def needs_fold(self) -> bool:
        return len(self.turns) > self.max_turns

    def fold(self, summarize: Summarizer | None) -> str:
        """Fold the oldest chunk into the summary. Returns "model" or "digest" (how it was summarised)."""
        chunk, rest = self.turns[: self.chunk], self.turns[self.chunk :]
        how = "digest"
        text = ""
        if summarize is not None:
            # The request: the chunk as it stands, then the results answering its last reply, then the ask.
            msgs = _render(chunk, self.summary)
            closing = rest[0].user_blocks(tool_results_allowed=True)[:-1] if rest else []
            closing = [b for b in closing if b.get("type") == "tool_result"]
            msgs.append({"role": "user", "content": closing + [{"type": "text", "text": SUMMARY_REQUEST}]})
            try:
                text = summarize(msgs).strip()
                how = "model" if text else "digest"
            except Exception as exc:  # noqa: BLE001 - any failure falls back to the digest, and is reported
                text = ""
                how = f"digest ({type(exc).__name__}: {exc})"
        if not text:
            lines = [t.digest() for t in chunk]
            prev = [self.summary] if self.summary else []
            text = "\n".join(prev + lines[-30:])
        self.summary = text
        self.turns = rest
        kept = {t.turn for t in rest}
        self.seen = {h: n for h, n in self.seen.items() if n in kept}
        self.folds += 1
        return how


def _render(turns: list[PastTurn], summary: str) -> list[dict[str, Any]]:
    """Turns as alternating user/assistant messages; the summary opens the first user message."""
    msgs: list[dict[str, Any]] = []
    for i, t in enumerate(turns):
        blocks = t.user_blocks(tool_results_allowed=i > 0)
        if i == 0 and summary:
            blocks.insert(0, {"type": "text", "text": f"<summary of earlier turns>\n{summary}\n</summary>"})
        msgs.append({"role": "user", "content": blocks})
        reply = copy.deepcopy(t.reply) or [{"type": "text", "text": "(no reply)"}]
        msgs.append({"role": "assistant", "content": reply})
    return msgs
