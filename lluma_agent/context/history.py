"""History of past turns, append-only between folds, folded in chunks.

A past turn whose reply holds thinking is kept exactly as sent and returned (its thinking is bound to
everything before it); any other turn is kept as its compact record (one line per tool result, memory
updates, a one-line screen summary or "same screen as T41") and its compact reply. Nothing volatile goes
in: the text of a past turn never changes once written, until a fold turns it into plain text.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.context.tokens import estimate_message_tokens
from lluma_agent.model.reply import ModelReply

_API_FIELDS = {
    "text": ("type", "text"),
    "tool_use": ("type", "id", "name", "input"),
    "thinking": ("type", "thinking", "signature"),
    "redacted_thinking": ("type", "data"),
}
_THINKING = ("thinking", "redacted_thinking")
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
    if any(b["type"] in _THINKING for b in blocks):
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
    """One turn as history stores it. Rendering is a pure function of these records (and the History's
    summary and fold count), so a history rebuilt from stored records renders the same bytes."""

    turn: int
    results: list[dict[str, Any]] = Field(default_factory=list)  # compact tool_result blocks
    screen: str  # one-line summary, already deduplicated ("same screen as T41")
    screen_hash: str = ""
    reply: list[dict[str, Any]] = Field(default_factory=list)  # assistant content blocks as kept
    # The user message exactly as sent, kept when the reply holds thinking: the thinking is bound to it.
    sent: list[dict[str, Any]] | None = None
    results_as_text: bool = False  # its results answered a reply that a fold had turned into text
    notes: list[str] = Field(default_factory=list)  # memory updates delivered with it (they outlive compaction)
    epoch: int = 0  # History.folds when the turn was made; turns older than the last fold render as text

    def record(self, as_text: bool) -> list[dict[str, Any]]:
        """The compact record: tool results (blocks, or one text line when their tool_use is gone), memory
        updates, then `T<n>` and the screen line."""
        blocks: list[dict[str, Any]] = []
        if as_text:
            if self.results:
                blocks.append(results_as_text(self.results))
        else:
            blocks.extend(copy.deepcopy(self.results))
        blocks += [{"type": "text", "text": n} for n in self.notes]
        blocks.append({"type": "text", "text": f"T{self.turn} {self.screen}"})
        return blocks

    def text_reply(self) -> list[dict[str, Any]]:
        """The reply as plain text (no thinking, no tool blocks): how turns older than the last fold are kept."""
        text = " ".join(b.get("text", "") for b in self.reply if b.get("type") == "text").strip()
        if len(text) > TEXT_KEEP_CHARS:
            text = text[: TEXT_KEEP_CHARS - 3].rstrip() + "..."
        calls = "; ".join(_call_line(b) for b in self.reply if b.get("type") == "tool_use")
        out = "\n".join(x for x in (text, f"-> {calls}" if calls else "") if x)
        return [{"type": "text", "text": out or "(no reply)"}]

    def kept_user(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.sent) if self.sent is not None else self.record(self.results_as_text)

    def record_tokens(self) -> int:
        """The user side of the turn as later requests carry it (verbatim when its reply holds thinking)."""
        return estimate_message_tokens({"role": "user", "content": self.kept_user()})

    def reply_tokens(self) -> int:
        """The kept assistant message (thinking, reasoning, tool calls)."""
        return estimate_message_tokens({"role": "assistant", "content": self.reply})

    def digest(self) -> str:
        """Deterministic one-liner used when a summary call fails."""
        calls = [
            f"{b['name']}({', '.join(f'{v}' for v in (b.get('input') or {}).values())})"
            for b in self.reply
            if b.get("type") == "tool_use"
        ]
        return f"T{self.turn} {self.screen[:80]} -> {'; '.join(calls) or 'no action'}"


def results_as_text(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Tool results whose tool_use was folded into text: the facts stay, as one text block."""
    return {"type": "text", "text": "earlier results: " + " | ".join(_result_text(r) for r in results)}


def _result_text(result: dict[str, Any]) -> str:
    content = result.get("content", "")
    if isinstance(content, list):
        content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content)


def _call_line(block: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={str(v)[:40]!r}" for k, v in (block.get("input") or {}).items())
    return f"{block.get('name')}({args})"


Summarizer = Callable[[list[dict[str, Any]]], ModelReply]  # the summary call: the chunk as messages -> its reply


class Folded(BaseModel):
    """What a fold did: how the chunk was summarised, and the summary call it made (billed to the folding turn)."""

    how: str  # "model", "digest", or "digest (why the call failed)"
    reply: ModelReply | None = None

SUMMARY_REQUEST = (
    "<summarize>\nFold the turns above into a short summary (at most 150 words) for your future self: "
    "where the game stands, what worked, what failed, what to do next. Plain text, no tool calls."
)


FOLD_ASK = (
    "NOTE: after this turn the oldest turns are folded into a summary. Begin this reply's text with "
    "<summary>at most 120 words for your future self, covering {span}: where the game stands, what worked, what "
    "failed, what to do next</summary>, then decide this turn as usual."
)
_OFFERED = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)


class HistoryState(BaseModel):
    """`History` as stored: rendering is a pure function of these, so the rebuilt prefix is byte-identical."""

    turns: list[PastTurn]
    summary: str
    seen: dict[str, int]
    folds: int
    memory: str | None  # the memory snapshot in `system` (refreshed only at folds)
    offered: str = ""  # a summary the model wrote ahead of the next fold (see fold_ask)


class History:
    """Past turns, append-only between folds: a request is the previous one plus the last reply and a new turn.

    A fold turns the oldest chunk into a summary, renders the kept turns as plain text (their thinking was
    bound to a prefix the fold changes) and refreshes the memory snapshot that sits in `system`."""

    def __init__(self, max_turns: int = 40, chunk: int = 20) -> None:
        if not 0 < chunk <= max_turns:
            raise ValueError("fold chunk must be between 1 and history_max_turns")
        self.max_turns = max_turns
        self.chunk = chunk
        self.turns: list[PastTurn] = []
        self.summary: str = ""
        self.seen: dict[str, int] = {}  # screen hash -> first turn it was shown on (within the window)
        self.folds = 0
        self.memory: str | None = None  # the memory snapshot in system; refreshed only by a fold
        self.offered = ""  # the summary the model wrote in the reply before a fold, folded in without a call

    def saved(self) -> HistoryState:
        return HistoryState(turns=list(self.turns), summary=self.summary, seen=dict(self.seen), folds=self.folds,
                            memory=self.memory, offered=self.offered)

    def restore(self, state: HistoryState) -> None:
        """Back to a saved state (a resumed run): the next request renders the same bytes as before the break."""
        self.turns, self.summary, self.seen = list(state.turns), state.summary, dict(state.seen)
        self.folds, self.memory, self.offered = state.folds, state.memory, state.offered

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
        return render(self.turns, self.summary, self.folds)

    def results_as_text(self) -> bool:
        """The next turn's tool results answer a reply that is kept as text (a fold came between)."""
        return bool(self.turns) and self.turns[-1].epoch < self.folds

    def drop_oldest(self) -> None:
        """The baseline's sliding window: lose the oldest turn, no summary (breaks the prefix every turn)."""
        self.turns.pop(0)

    def needs_fold(self) -> bool:
        return len(self.turns) > self.max_turns

    def fold_ask(self) -> str | None:
        """The note that asks the model, one turn ahead, for the summary the next fold needs (in the text of the
        reply it writes anyway), or None when the turn being decided does not bring a fold. The summary then costs
        its output tokens only, not a separate call that reads the whole chunk again."""
        if len(self.turns) + 1 <= self.max_turns:
            return None
        first, last = self.turns[0].turn, self.turns[min(self.chunk, len(self.turns)) - 1].turn
        earlier = "the summary of earlier turns and " if self.summary else ""
        return FOLD_ASK.format(span=f"{earlier}turns T{first}-T{last}")

    def offer(self, reply_text: str) -> None:
        """Keep the <summary> a reply wrote for the next fold: only the reply fold_ask asked (its turn, just
        appended, brings the fold), so a summary written of its own accord never stands in for a later chunk."""
        if not self.needs_fold():
            return
        if m := _OFFERED.search(reply_text):
            self.offered = m.group(1).strip()

    def drop_thinking(self) -> bool:
        """The API refused a kept thinking block (its signature: another key or account made it, as after the
        stand-in started again, or the real API on a rotated key): every turn kept so far is rendered as text from
        now on, as a fold renders the turns it keeps (no thinking, no tool blocks), with nothing summarised. The
        epoch moves as a fold's does. False when no kept turn holds thinking: there is nothing to drop."""
        if not any(t.epoch >= self.folds and any(b.get("type") in _THINKING for b in t.reply) for t in self.turns):
            return False
        self.folds += 1
        return True

    def fold(self, summarize: Summarizer | None, memory: str | None = None) -> Folded:
        """Fold the oldest chunk into the summary and take `memory` as the new snapshot. The summary is the one the
        model offered in its last reply, else a summary call (`summarize`), else a digest of the chunk."""
        chunk, rest = self.turns[: self.chunk], self.turns[self.chunk :]
        how = "digest"
        text = ""
        reply = None
        if self.offered:
            text, how, self.offered = self.offered, "reply", ""
        elif summarize is not None:
            # The request: the chunk exactly as the last request rendered it (same prefix, same bindings), the
            # results answering its last reply, then the ask.
            msgs = render(self.turns[: self.chunk + 1], self.summary, self.folds)
            closing: list[dict[str, Any]] = []
            if rest:
                msgs.pop()  # rest[0]'s reply
                closing = [b for b in msgs.pop()["content"] if b.get("type") == "tool_result"]
            msgs.append({"role": "user", "content": closing + [{"type": "text", "text": SUMMARY_REQUEST}]})
            try:
                reply = summarize(msgs)
                text = reply.text.strip()
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
        if memory is not None:
            self.memory = memory
        return Folded(how=how, reply=reply)


def render(turns: list[PastTurn], summary: str, folds: int) -> list[dict[str, Any]]:
    """Turns as alternating user/assistant messages; the summary opens the first user message.

    Turns made since the last fold are sent as they were (verbatim user message and reply when the reply
    holds thinking, else the compact record and the compact reply); older ones as plain text."""
    msgs: list[dict[str, Any]] = []
    for i, t in enumerate(turns):
        if t.epoch < folds:
            user, reply = t.record(as_text=True), t.text_reply()
        else:
            user = t.kept_user()
            reply = copy.deepcopy(t.reply) or [{"type": "text", "text": "(no reply)"}]
        if i == 0 and summary:
            user.insert(0, {"type": "text", "text": f"<summary of earlier turns>\n{summary}\n</summary>"})
        msgs.append({"role": "user", "content": user})
        msgs.append({"role": "assistant", "content": reply})
    return msgs
