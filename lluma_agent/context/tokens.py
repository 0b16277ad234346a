"""The one offline token estimator, shared by the agent's accounting and the Messages API stand-in.

No Claude tokenizer is available offline (`messages.count_tokens` is exact but needs the network), so every
figure here is an ESTIMATE. Method, per piece of text (a BPE-like split, not a fixed chars-per-token ratio,
so prose, JSON and numbers each come out near their own density):

- letters: camelCase is split; a word of up to 6 letters is 1 token, 7-11 letters 2, and so on
  (+1 per 5 letters; a leading space joins the word, as in BPE vocabularies);
- digits: 1 token per 3 digits;
- punctuation runs: 1 token per 2 characters (`{"`, `":`, `",` are common merged pairs);
- whitespace: a single space is free (it rides on the next word); other runs (newline + indent) 1 token
  per 16 characters;
- any other character (CJK, emoji, symbols) 1 token each.

Tuned to about 3.7 characters per token on English prose and about 2.7 on compact JSON, the densities
reported for Claude's tokenizer. Images: ceil(w/28) x ceil(h/28) after the model's resize limits
(see lluma_facts.ModelSpec). Structural overheads (role markers, tool-use system prompt) are the documented
or measured constants below.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, Field

from lluma_facts import model_spec
from lluma_facts.images import image_block_size, image_tokens
from lluma_facts.images import resized_image_size as _resized
from lluma_facts.request import Section, content_blocks, prefix_blocks, strip_cache_control

METHOD = (
    "estimate (no offline Claude tokenizer): BPE-like pieces - words 1 token up to 6 letters then +1 per 5, "
    "digits 1 per 3, punctuation 1 per 2 characters, newline/indent runs 1 per 16, other characters 1 each; "
    "~3.7 chars/token on English prose, ~2.7 on compact JSON; images ceil(w/28) x ceil(h/28) after the model's "
    "resize; +4 per message, +346 (auto) / 313 (any/tool) for the tool-use system prompt"
)
DEFAULT_MODEL = "claude-haiku-4-5"

MESSAGE_OVERHEAD_TOKENS = 4  # role marker and separators per message
TOOL_USE_OVERHEAD_TOKENS = 8  # wrapper around a tool call (id, name tags)
TOOL_RESULT_OVERHEAD_TOKENS = 6  # wrapper around a tool result (id tag); an estimate like the two above, not measured
IMAGE_OVERHEAD_TOKENS = 3  # an image block's wrapper beyond its patches (lluma_facts.images); an estimate, not measured
# The API's own tool-use system prompt, added whenever `tools` is set (documented for Claude 4.x models).
TOOL_SYSTEM_PROMPT_TOKENS = {"auto": 346, "none": 346, "any": 313, "tool": 313}

_PIECE = re.compile(
    r"(?P<word>[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[^\W\d_]+)"  # letters, camelCase split; [^\W\d_] = any-script letters
    r"|(?P<num>\d+)"
    r"|(?P<space> (?=\S))"
    r"|(?P<ws>\s+)"
    r"|(?P<punct>[!-/:-@\[-`{-~]+)"
    r"|(?P<other>.)",
    re.DOTALL,
)
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def _piece_tokens(m: re.Match[str]) -> int:
    kind = m.lastgroup
    s = m.group()
    if kind == "word":
        wide = len(_WIDE.findall(s))  # CJK runs match as letters: one token per character
        rest = len(s) - wide
        return wide + (1 + max(0, rest - 2) // 5 if rest else 0)
    if kind == "num":
        return math.ceil(len(s) / 3)
    if kind == "ws":
        return math.ceil(len(s) / 16)
    if kind == "punct":
        return math.ceil(len(s) / 2)
    return 1 if kind == "other" else 0


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of `text` (see the module docstring for the method)."""
    return _estimate(text) if text else 0


@lru_cache(maxsize=4096)  # a turn's request repeats most texts of the last (memory files, the history): counted once
def _estimate(text: str) -> int:
    return sum(_piece_tokens(m) for m in _PIECE.finditer(text))


def estimate_upto(text: str, cap: int) -> int:
    """`estimate_text_tokens(text)` when that is at most `cap`; past it, the count so far extrapolated over the
    rest of the text by its length (a file far over a budget is not worth counting piece by piece)."""
    n = 0
    for m in _PIECE.finditer(text):
        n += _piece_tokens(m)
        if n > cap:
            done = m.end()
            return n + math.ceil((len(text) - done) * n / done)
    return n


def cut_to_tokens(text: str, limit: int) -> tuple[str, int]:
    """The longest start of `text`, cut between pieces, whose estimate is at most `limit` tokens, and that
    estimate (one pass, stopping at the cut)."""
    n = 0
    for m in _PIECE.finditer(text):
        t = _piece_tokens(m)
        if n + t > limit:
            return text[: m.start()], n
        n += t
    return text, n


def estimate_json_tokens(value: Any) -> int:
    """Tokens of a JSON value as the API would render it (compact form)."""
    return estimate_text_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


# ---- images -------------------------------------------------------------------------------------------


def resized_image_size(width: int, height: int, model: str = DEFAULT_MODEL) -> tuple[int, int]:
    """The size the API scales an image to for `model` (lluma_facts.images has the rule)."""
    return _resized(width, height, model_spec(model))


def estimate_image_tokens(width: int, height: int, model: str = DEFAULT_MODEL) -> int:
    """ceil(w/28) x ceil(h/28) after the model's resize (1920x1080 -> ~1,560 on Haiku 4.5; 504x896 -> 576)."""
    return image_tokens(width, height, model_spec(model))


# ---- blocks and requests ------------------------------------------------------------------------------


def estimate_block_tokens(block: dict[str, Any], model: str = DEFAULT_MODEL) -> int:
    """Tokens of one content block: text, image (base64 header decoded for its size), tool_use, tool_result,
    thinking, redacted_thinking, document; anything else by its JSON."""
    kind = block.get("type")
    if kind == "text":
        return estimate_text_tokens(str(block.get("text", "")))
    if kind == "image":
        size = image_block_size(block)
        spec = model_spec(model)
        body = estimate_image_tokens(*size, model=model) if size else spec.image_max_tokens
        return body + IMAGE_OVERHEAD_TOKENS
    if kind == "tool_use":
        return (
            TOOL_USE_OVERHEAD_TOKENS
            + estimate_text_tokens(str(block.get("name", "")))
            + estimate_json_tokens(block.get("input", {}))
        )
    if kind == "tool_result":
        content = block.get("content", "")
        if isinstance(content, str):
            inner = estimate_text_tokens(content)
        else:
            inner = sum(estimate_block_tokens(b, model) for b in content or [] if isinstance(b, dict))
        return TOOL_RESULT_OVERHEAD_TOKENS + inner
    if kind == "thinking":
        return estimate_text_tokens(str(block.get("thinking", "")))
    if kind == "redacted_thinking":
        return max(1, len(str(block.get("data", ""))) // 4)
    if kind == "document":
        source = block.get("source") or {}
        if source.get("type") == "text":
            return estimate_text_tokens(str(source.get("data", "")))
    return estimate_json_tokens(strip_cache_control(block))


def estimate_tool_tokens(tool: dict[str, Any]) -> int:
    """One tool definition (name, description, input_schema) as rendered into the prompt."""
    return estimate_json_tokens(strip_cache_control(tool))


def tool_system_prompt_tokens(tool_choice: dict[str, Any] | None) -> int:
    return TOOL_SYSTEM_PROMPT_TOKENS.get(str((tool_choice or {}).get("type", "auto")), 346)


def estimate_message_tokens(message: dict[str, Any], model: str = DEFAULT_MODEL) -> int:
    blocks = content_blocks(message.get("content", ""))
    return MESSAGE_OVERHEAD_TOKENS + sum(estimate_block_tokens(b, model) for b in blocks)


class BlockEstimate(BaseModel):
    """One block of a request in prompt-prefix order (tools -> system -> messages)."""

    index: int = Field(description="Position in the prefix, counting every tool, system block and content block.")
    section: Section
    path: str = Field(description="Where it sits in the request, e.g. tools.2, system.0, messages.5.content.1.")
    kind: str = Field(description="tool, text, image, tool_use, tool_result, thinking, ...")
    role: str | None = None
    tokens: int = Field(description="Estimated tokens, including per-message / tool-prompt overheads it carries.")
    cache_control: dict[str, Any] | None = Field(None, description="The block's cache_control, if any.")


class RequestEstimate(BaseModel):
    """Estimated input tokens of a request, per section and per block."""

    model: str
    tools: int
    system: int
    messages: list[int] = Field(description="Per message, including its overhead.")
    blocks: list[BlockEstimate]

    @property
    def total(self) -> int:
        return self.tools + self.system + sum(self.messages)


def estimate_request(
    *,
    messages: list[dict[str, Any]],
    model: str = DEFAULT_MODEL,
    system: str | list[dict[str, Any]] | None = None,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: dict[str, Any] | None = None,
) -> RequestEstimate:
    """Per-section and per-block estimates for a Messages API request (the keyword names match the API's)."""
    blocks: list[BlockEstimate] = []
    sections = {"tools": 0, "system": 0}
    factor = model_spec(model).tokenizer_factor  # the same text is more tokens on newer tokenizers
    per_message = [0] * len(messages)
    for pb in prefix_blocks(messages=messages, system=system, tools=tools):
        if pb.section == "tools":
            t = estimate_tool_tokens(pb.block) + (tool_system_prompt_tokens(tool_choice) if pb.index == 0 else 0)
            t = math.ceil(t * factor)
        else:
            t = estimate_block_tokens(pb.block, model)
            t = t if pb.kind == "image" else math.ceil(t * factor)
            t += MESSAGE_OVERHEAD_TOKENS if pb.first_in_message else 0
        if pb.message is None:
            sections[pb.section] += t
        else:
            per_message[pb.message] += t
        blocks.append(
            BlockEstimate(
                index=pb.index,
                section=pb.section,
                path=pb.path,
                kind=pb.kind,
                role=pb.role,
                tokens=t,
                cache_control=pb.cache_control,
            )
        )
    per_message = [n or MESSAGE_OVERHEAD_TOKENS for n in per_message]
    return RequestEstimate(
        model=model, tools=sections["tools"], system=sections["system"], messages=per_message, blocks=blocks
    )
