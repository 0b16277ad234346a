"""The stand-in's own token count: what it bills, independent of the agent's estimator.

The real API counts with the model's tokenizer, which the agent cannot see; the agent estimates
(lluma_agent/context/tokens.py). If the stand-in billed with that same estimator, the agent's figures would always
look exact. So it counts its own way, a different method, calibrated to the few real counts we have:

- text is cut like a byte-level BPE pre-tokenizer (GPT-2 style: a word takes its leading space, digits in
  runs of at most 3, punctuation runs, whitespace runs), then each piece costs by its UTF-8 bytes:
  an ASCII word up to 9 bytes is one token, +1 per 4 bytes after that (common words are single merges);
  other letters 1 per 3 bytes (a CJK character is one token); a digit group 1; punctuation 1 per 3 bytes;
  whitespace 1 per 8 bytes;
- each model's tokenizer factor from the registry scales text (Haiku 5.5 counts ~30% more than 4.5);
- images cost the documented ceil(w/28) x ceil(h/28) after the model's resize (not scaled: patches);
- fixed costs: 3 per message, 7 per tool call wrapper, 5 per tool result, and the API's tool-use system
  prompt (346 tokens auto/none, 313 any/tool on Claude 4.x, scaled by the factor).

Calibration: on the agent's default prefix (tools + system prompt) this gives about 4,200 for Haiku 4.5, where
a real `count_tokens` said about 4,176; the agent's estimator says about 4,580 (it errs high on purpose).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pydantic import BaseModel, Field

from lluma_facts import ModelSpec, model_spec
from lluma_facts.images import image_block_size, image_tokens
from lluma_facts.request import Section, content_blocks, prefix_blocks, strip_cache_control

# the stand-in's counts of a message's, a tool call's, a tool result's and an image's wrapper: chosen, not measured
MESSAGE_TOKENS = 3
TOOL_USE_TOKENS = 7  # chosen, as the line above
TOOL_RESULT_TOKENS = 5  # chosen, as above
IMAGE_TOKENS = 2  # chosen, as above
TOOL_PROMPT_TOKENS = {"auto": 346, "none": 346, "any": 313, "tool": 313}

_PIECE = re.compile(
    r"(?P<word> ?[^\W\d_]+)"
    r"|(?P<num> ?\d{1,3})"
    r"|(?P<punct> ?(?:[^\s\w]|_)+)"
    r"|(?P<ws>\s+)",
)


def raw_text_tokens(text: str) -> int:
    """Tokens of `text` at factor 1.0 (Haiku 4.5's tokenizer, approximately)."""
    n = 0
    for m in _PIECE.finditer(text):
        size = len(m.group().encode())
        kind = m.lastgroup
        if kind == "word":
            if m.group().isascii():
                n += 1 if size <= 9 else 1 + math.ceil((size - 9) / 4)
            else:
                n += math.ceil(size / 3)
        elif kind == "num":
            n += 1
        elif kind == "punct":
            n += math.ceil(size / 3)
        else:
            n += math.ceil(size / 8)
    return n


def _scaled(raw: int, spec: ModelSpec) -> int:
    return math.ceil(raw * spec.tokenizer_factor)


def text_tokens(text: str, model: str) -> int:
    """Tokens of `text` for `model` (its tokenizer factor applied)."""
    return _scaled(raw_text_tokens(text), model_spec(model))


def _json_raw(value: Any) -> int:
    return raw_text_tokens(json.dumps(strip_cache_control(value), ensure_ascii=False, separators=(",", ":")))


def _block_raw(block: dict[str, Any], spec: ModelSpec) -> tuple[int, int]:
    """(text tokens before the factor, image tokens) of one content block."""
    kind = block.get("type")
    if kind == "text":
        return raw_text_tokens(str(block.get("text", ""))), 0
    if kind == "image":
        size = image_block_size(block)
        return IMAGE_TOKENS, image_tokens(*size, spec) if size else spec.image_max_tokens
    if kind == "tool_use":
        return TOOL_USE_TOKENS + raw_text_tokens(str(block.get("name", ""))) + _json_raw(block.get("input", {})), 0
    if kind == "tool_result":
        text, images = TOOL_RESULT_TOKENS, 0
        for inner in content_blocks(block.get("content", "")):
            t, i = _block_raw(inner, spec) if isinstance(inner, dict) else (0, 0)
            text, images = text + t, images + i
        return text, images
    if kind == "thinking":
        return raw_text_tokens(str(block.get("thinking", ""))), 0
    if kind == "redacted_thinking":
        return max(1, len(str(block.get("data", ""))) // 3), 0
    return _json_raw(block), 0


def block_tokens(block: dict[str, Any], model: str) -> int:
    """Tokens of one content block for `model` (output blocks are counted the same way)."""
    spec = model_spec(model)
    text, images = _block_raw(block, spec)
    return _scaled(text, spec) + images


class CountedBlock(BaseModel):
    """One block of a request in prefix order, with what the stand-in bills for it."""

    index: int
    section: Section
    path: str
    kind: str
    tokens: int = Field(description="Tokens, with the per-message / tool-prompt overheads it carries.")
    cache_control: dict[str, Any] | None = None


class RequestCount(BaseModel):
    """The stand-in's count of a request's input tokens, per block in prefix order."""

    model: str
    blocks: list[CountedBlock]

    @property
    def total(self) -> int:
        return sum(b.tokens for b in self.blocks)

    def section(self, name: Section) -> int:
        return sum(b.tokens for b in self.blocks if b.section == name)


def count_request(body: dict[str, Any]) -> RequestCount:
    """Count a (validated) Messages API body: `model`, `messages`, optional `system`, `tools`, `tool_choice`."""
    spec = model_spec(body["model"])
    choice = str((body.get("tool_choice") or {}).get("type", "auto"))
    blocks: list[CountedBlock] = []
    for pb in prefix_blocks(messages=body["messages"], system=body.get("system"), tools=body.get("tools")):
        if pb.section == "tools":
            text, images = _json_raw(pb.block) + (TOOL_PROMPT_TOKENS.get(choice, 346) if pb.index == 0 else 0), 0
        else:
            text, images = _block_raw(pb.block, spec)
            text += MESSAGE_TOKENS if pb.first_in_message else 0
        blocks.append(
            CountedBlock(
                index=pb.index,
                section=pb.section,
                path=pb.path,
                kind=pb.kind,
                tokens=_scaled(text, spec) + images,
                cache_control=pb.cache_control,
            )
        )
    return RequestCount(model=spec.id, blocks=blocks)
