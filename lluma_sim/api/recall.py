"""What the stand-in player recalls of its own play, from the request alone, as a model reads its history.

Each past turn is its reply (the screen it named first, the input it called, the memory files it wrote) and that
input's outcome (the tool result the next turn carries). Replies kept verbatim or compact carry their tool blocks;
turns older than the last fold are plain text (`-> pressButton(name='Rest')`, then `earlier results: ...`) and are
read the same way. A memory file's content is the latest the request shows: its own write in the conversation, a
person's edit told there, else the snapshot in `system`.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from pydantic import BaseModel

from lluma_facts.request import content_blocks

Action = tuple[str, tuple[Any, ...]]  # a move: (tool name, its arguments as a hashable tuple)
MEMORY_TOOLS = ("createMemoryFile", "writeMemoryFile", "deleteMemoryFile")
WRITES = ("writeMemoryFile", "createMemoryFile")
GOTO = "goTo"
_SURPRISE = re.compile(r"surprise|unexpected|stopped", re.IGNORECASE)
_OFFERED_SUMMARY = re.compile(r"^\s*<summary>.*?</summary>\s*", re.DOTALL)  # a fold's summary opens a reply
_QUOTED = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""
_CALL = re.compile(r"(\w+)\(((?:[^()'\"]|" + _QUOTED + r")*)\)")  # name(k='v', ...) as a folded turn writes it
_ARG = re.compile(r"(\w+)=(" + _QUOTED + r")")


class PastStep(BaseModel):
    """One past turn as the conversation shows it."""

    seen: str  # the screen as the reply named it first (its text up to the first ";"), lowercased
    action: Action | None = None  # the input it called (memory writes aside)
    wrote: list[str] = []  # the memory files it wrote or created
    failed: bool = False  # the input was refused, changed nothing, or (goTo) stopped on a surprise
    surprise: bool = False  # a goTo that stopped on a surprise: the screen changed, not to the one asked for


def args_key(args: Any) -> tuple[tuple[str, Any], ...]:
    """A tool call's input as a hashable key, whatever the history holds: malformed input (a list where a string
    goes, an input that is not an object) must not break the policy on every later request."""
    if not isinstance(args, dict):
        return (("", json.dumps(args, sort_keys=True, default=str)),)
    return tuple(sorted((str(k), v if isinstance(v, str | int | float | bool) or v is None
                         else json.dumps(v, sort_keys=True, default=str)) for k, v in args.items()))


def texts_of(message: dict[str, Any]) -> list[str]:
    return [str(b["text"]) for b in content_blocks(message.get("content", "")) if b.get("type") == "text"]


def steps(messages: list[dict[str, Any]]) -> list[PastStep]:
    """The past turns the request holds, oldest first: every assistant reply with the message that answered it."""
    return [_step(m, messages[i + 1]) for i, m in enumerate(messages[:-1]) if m.get("role") == "assistant"]


def last(messages: list[dict[str, Any]]) -> PastStep | None:
    """The turn just before the current one (its reply is the message before the last), or None."""
    if len(messages) < 2 or messages[-2].get("role") != "assistant":
        return None
    return _step(messages[-2], messages[-1])


def _step(reply: dict[str, Any], answer: dict[str, Any]) -> PastStep:
    blocks = content_blocks(reply.get("content", ""))
    text = _OFFERED_SUMMARY.sub("", " ".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text"))
    reasoning, _, folded = text.partition("\n-> ")
    seen = reasoning.split(";", 1)[0].strip().lower()
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    calls = [(str(b.get("name")), b.get("input"), b.get("id")) for b in uses] or [
        (name, {k: _literal(v) for k, v in _ARG.findall(args)}, None) for name, args in _CALL.findall(folded)]
    wrote = [str(inp.get("name")) for name, inp, _ in calls if name in WRITES and isinstance(inp, dict)]
    inputs = [(name, inp, use_id) for name, inp, use_id in calls if name not in MEMORY_TOOLS]
    if not inputs:
        return PastStep(seen=seen, wrote=wrote)
    name, inp, use_id = inputs[0]
    outcome, refused = _outcome(answer, use_id)
    surprise = name == GOTO and bool(_SURPRISE.search(outcome))
    failed = refused or surprise or "unchanged" in outcome or "not executed" in outcome
    return PastStep(seen=seen, action=(name, args_key(inp)), wrote=wrote, failed=failed, surprise=surprise)


def _outcome(answer: dict[str, Any], use_id: Any) -> tuple[str, bool]:
    """(The result's text, lowercased; whether it is an error) for a call: its tool_result, or, for a folded turn,
    the `earlier results:` line the next turn carries."""
    for b in content_blocks(answer.get("content", "")):
        if use_id is not None and b.get("type") == "tool_result" and b.get("tool_use_id") == use_id:
            return result_text(b).lower(), bool(b.get("is_error"))
        if use_id is None and b.get("type") == "text" and str(b.get("text", "")).startswith("earlier results:"):
            return str(b["text"]).lower(), False
    return "", False


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return " ".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def _literal(quoted: str) -> Any:
    try:
        return ast.literal_eval(quoted)
    except (ValueError, SyntaxError):
        return quoted.strip("'\"")


def memory_file(request: dict[str, Any], name: str) -> str | None:
    """A memory file's content as the request shows it last (None: no such file shown)."""
    shown = re.compile(r"<file name=\"" + re.escape(name) + r"\"[^>]*>\n?(.*?)\n?</file>", re.DOTALL)
    for m in reversed(request.get("messages") or []):
        for b in reversed(content_blocks(m.get("content", ""))):
            if b.get("type") == "tool_use" and b.get("name") in WRITES and (b.get("input") or {}).get("name") == name:
                return str((b.get("input") or {}).get("content", ""))
            if b.get("type") == "text" and m.get("role") == "user" and (hit := shown.findall(str(b.get("text", "")))):
                return str(hit[-1])  # a person's edit of the file, told in the conversation
    system = request.get("system") or ""
    texts = [system] if isinstance(system, str) else [str(b.get("text", "")) for b in system if isinstance(b, dict)]
    hits = [h for t in texts for h in shown.findall(t)]
    return hits[-1] if hits else None
