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

import base64
import binascii
import json
import math
import re
import struct
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

from lluma_facts import model_spec

METHOD = (
    "estimate (no offline Claude tokenizer): BPE-like pieces - words 1 token up to 6 letters then +1 per 5, "
    "digits 1 per 3, punctuation 1 per 2 characters, newline/indent runs 1 per 16, other characters 1 each; "
    "~3.7 chars/token on English prose, ~2.7 on compact JSON; images ceil(w/28) x ceil(h/28) after the model's "
    "resize; +4 per message, +346 (auto) / 313 (any/tool) for the tool-use system prompt"
)
DEFAULT_MODEL = "claude-haiku-4-5"
IMAGE_PATCH_PX = 28

MESSAGE_OVERHEAD_TOKENS = 4  # role marker and separators per message
TOOL_USE_OVERHEAD_TOKENS = 8  # wrapper around a tool call (id, name tags)
TOOL_RESULT_OVERHEAD_TOKENS = 6
IMAGE_OVERHEAD_TOKENS = 3
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


def estimate_text_tokens(text: str) -> int:
    """Estimated tokens of `text` (see the module docstring for the method)."""
    if not text:
        return 0
    n = 0
    for m in _PIECE.finditer(text):
        kind = m.lastgroup
        s = m.group()
        if kind == "word":
            wide = len(_WIDE.findall(s))  # CJK runs match as letters: one token per character
            rest = len(s) - wide
            n += wide + (1 + max(0, rest - 2) // 5 if rest else 0)
        elif kind == "num":
            n += math.ceil(len(s) / 3)
        elif kind == "ws":
            n += math.ceil(len(s) / 16)
        elif kind == "punct":
            n += math.ceil(len(s) / 2)
        elif kind == "other":
            n += 1
    return n


def estimate_json_tokens(value: Any) -> int:
    """Tokens of a JSON value as the API would render it (compact form)."""
    return estimate_text_tokens(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


# ---- images -------------------------------------------------------------------------------------------


def image_tokens_for(width: int, height: int) -> int:
    return math.ceil(width / IMAGE_PATCH_PX) * math.ceil(height / IMAGE_PATCH_PX)


def resized_image_size(width: int, height: int, model: str = DEFAULT_MODEL) -> tuple[int, int]:
    """The size the API scales an image to: long edge <= the model's limit, then tokens <= its token limit."""
    spec = model_spec(model)
    if width <= 0 or height <= 0:
        return (0, 0)
    scale = min(1.0, spec.image_max_long_edge / max(width, height))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    if image_tokens_for(w, h) <= spec.image_max_tokens:
        return (w, h)
    # Largest long edge that fits the token budget (token count only grows with size: binary search).
    long0 = max(w, h)
    lo, hi = 1, long0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        s = mid / long0
        cw, ch = max(1, int(w * s)), max(1, int(h * s))
        if image_tokens_for(cw, ch) <= spec.image_max_tokens:
            lo = mid
        else:
            hi = mid - 1
    s = lo / long0
    return (max(1, int(w * s)), max(1, int(h * s)))


def estimate_image_tokens(width: int, height: int, model: str = DEFAULT_MODEL) -> int:
    """ceil(w/28) x ceil(h/28) after the model's resize (1920x1080 -> ~1,560 on Haiku 4.5; 504x896 -> 576)."""
    w, h = resized_image_size(width, height, model)
    return image_tokens_for(w, h) if w and h else 0


def sniff_image(data: bytes) -> tuple[str, int, int] | None:
    """(media_type, width, height) from an image's header bytes, or None if not jpeg/png/gif/webp."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        w, h = struct.unpack(">II", data[16:24])
        return ("image/png", w, h)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return ("image/gif", w, h)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return ("image/webp", w & 0x3FFF, h & 0x3FFF)
        if chunk == b"VP8L":
            b = data[21:25]
            w = 1 + (((b[1] & 0x3F) << 8) | b[0])
            h = 1 + (((b[3] & 0x0F) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
            return ("image/webp", w, h)
        if chunk == b"VP8X":
            w = 1 + int.from_bytes(data[24:27], "little")
            h = 1 + int.from_bytes(data[27:30], "little")
            return ("image/webp", w, h)
        return ("image/webp", 0, 0)
    if data[:2] == b"\xff\xd8":
        return _sniff_jpeg(data)
    return None


def _sniff_jpeg(data: bytes) -> tuple[str, int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        seg_len = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return ("image/jpeg", w, h)
        i += 2 + seg_len
    return ("image/jpeg", 0, 0)


def decode_base64_header(data: str, nbytes: int = 64 * 1024) -> bytes:
    """The first bytes of a base64 payload (enough for any image header; JPEG may need several KB)."""
    chunk = data[: (nbytes // 3) * 4]
    try:
        return base64.b64decode(chunk, validate=False)
    except (binascii.Error, ValueError):
        return b""


def image_block_size(block: dict[str, Any]) -> tuple[int, int] | None:
    """(width, height) of an image block with a base64 source; None when unknown (url/file source)."""
    source = block.get("source") or {}
    if source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    info = sniff_image(decode_base64_header(source["data"]))
    if info is None or not info[1] or not info[2]:
        return None
    return (info[1], info[2])


# ---- blocks and requests ------------------------------------------------------------------------------


def _strip_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache_control(v) for v in value]
    return value


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
    return estimate_json_tokens(_strip_cache_control(block))


def estimate_tool_tokens(tool: dict[str, Any]) -> int:
    """One tool definition (name, description, input_schema) as rendered into the prompt."""
    return estimate_json_tokens(_strip_cache_control(tool))


def tool_system_prompt_tokens(tool_choice: dict[str, Any] | None) -> int:
    return TOOL_SYSTEM_PROMPT_TOKENS.get(str((tool_choice or {}).get("type", "auto")), 346)


def estimate_tools_tokens(tools: Iterable[dict[str, Any]] | None, tool_choice: dict[str, Any] | None = None) -> int:
    tools = list(tools or [])
    if not tools:
        return 0
    return tool_system_prompt_tokens(tool_choice) + sum(estimate_tool_tokens(t) for t in tools)


def system_blocks(system: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if system is None or system == "":
        return []
    if isinstance(system, str):
        return [{"type": "text", "text": system}]
    return list(system)


def content_blocks(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def estimate_system_tokens(system: str | list[dict[str, Any]] | None) -> int:
    return sum(estimate_block_tokens(b) for b in system_blocks(system))


def estimate_message_tokens(message: dict[str, Any], model: str = DEFAULT_MODEL) -> int:
    blocks = content_blocks(message.get("content", ""))
    return MESSAGE_OVERHEAD_TOKENS + sum(estimate_block_tokens(b, model) for b in blocks)


Section = Literal["tools", "system", "messages"]


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


def _block_cache_control(block: dict[str, Any]) -> dict[str, Any] | None:
    """A block's breakpoint; a tool_result also carries one set on a block inside its content."""
    cc = block.get("cache_control")
    if cc:
        return cc
    if block.get("type") == "tool_result" and isinstance(block.get("content"), list):
        for inner in block["content"]:
            if isinstance(inner, dict) and inner.get("cache_control"):
                return inner["cache_control"]
    return None


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
    tools = list(tools or [])
    tools_total = 0
    for i, tool in enumerate(tools):
        t = estimate_tool_tokens(tool) + (tool_system_prompt_tokens(tool_choice) if i == 0 else 0)
        tools_total += t
        blocks.append(
            BlockEstimate(
                index=len(blocks),
                section="tools",
                path=f"tools.{i}",
                kind="tool",
                tokens=t,
                cache_control=tool.get("cache_control"),
            )
        )
    system_total = 0
    for i, b in enumerate(system_blocks(system)):
        t = estimate_block_tokens(b, model)
        system_total += t
        blocks.append(
            BlockEstimate(
                index=len(blocks),
                section="system",
                path=f"system.{i}",
                kind=str(b.get("type")),
                tokens=t,
                cache_control=b.get("cache_control"),
            )
        )
    per_message: list[int] = []
    for mi, msg in enumerate(messages):
        msg_total = 0
        for bi, b in enumerate(content_blocks(msg.get("content", ""))):
            t = estimate_block_tokens(b, model) + (MESSAGE_OVERHEAD_TOKENS if bi == 0 else 0)
            msg_total += t
            blocks.append(
                BlockEstimate(
                    index=len(blocks),
                    section="messages",
                    path=f"messages.{mi}.content.{bi}",
                    kind=str(b.get("type")),
                    role=msg.get("role"),
                    tokens=t,
                    cache_control=_block_cache_control(b),
                )
            )
        per_message.append(msg_total or MESSAGE_OVERHEAD_TOKENS)
    return RequestEstimate(model=model, tools=tools_total, system=system_total, messages=per_message, blocks=blocks)
