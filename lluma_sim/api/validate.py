"""Request validation for the Messages API stand-in: the 400s the real API gives, with clear messages.

Paths in messages follow the API's style (`messages.3.content.0: ...`) so a failing agent request points at
the offending block.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import date
from typing import Any

from lluma_facts import EFFORTS, ModelLookupError, ModelSpec, usable_model
from lluma_facts.images import sniff_image
from lluma_sim.api import thinking as api_thinking
from lluma_sim.api.errors import ApiError, invalid

CURRENT_API_VERSION = "2026-10-21"
SAMPLING_REMOVED_IN = "2026-10-21"  # API versions from this date reject temperature/top_p/top_k
MAX_BREAKPOINTS = 4  # at most 4 cache_control blocks a request (the prompt caching documentation)
# the stand-in's bound on one image (the vision documentation names 8000 px a side and a 32 MB request; not measured)
MAX_IMAGE_BASE64_BYTES = 10 * 1024 * 1024
MAX_IMAGE_SIDE_PX = 8000  # the vision documentation: an image over 8000 px a side is refused
IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")

MESSAGES_FIELDS = {
    "model", "messages", "max_tokens", "system", "tools", "tool_choice", "thinking", "output_config", "metadata",
    "stop_sequences", "stream", "cache_control", "container", "diagnostics", "inference_geo", "service_tier",
    "speed", "temperature", "top_p", "top_k",
}  # fmt: skip
COUNT_TOKENS_FIELDS = {
    "model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control", "speed",
}  # fmt: skip
USER_BLOCKS = {"text", "image", "document", "tool_result", "search_result"}
ASSISTANT_BLOCKS = {"text", "tool_use", "thinking", "redacted_thinking", "server_tool_use"}


def validate_request(
    body: Any,
    *,
    api_version: str = CURRENT_API_VERSION,
    endpoint: str = "messages",
    thinking_secret: bytes | None = None,
    today: date | None = None,
) -> ModelSpec:
    """Raise ApiError (400, or 404 for an unknown or retired model) when the real API would reject `body`;
    returns the model's registry row. Thinking bindings are judged after this (api_thinking)."""
    if not isinstance(body, dict):
        raise invalid("request body must be a JSON object")
    allowed = MESSAGES_FIELDS if endpoint == "messages" else COUNT_TOKENS_FIELDS
    for key in body:
        if key not in allowed:
            raise invalid(f"{key}: Extra inputs are not permitted")
    if api_version >= SAMPLING_REMOVED_IN:
        for key in ("temperature", "top_p", "top_k"):
            if key in body:
                raise invalid(
                    f"{key}: is not supported with anthropic-version {api_version}; remove it from the request"
                )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise invalid("model: Field required")
    if endpoint == "messages":
        mt = body.get("max_tokens")
        if mt is None:
            raise invalid("max_tokens: Field required")
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 0:
            raise invalid("max_tokens: Input should be a non-negative integer")
    _validate_system(body.get("system"))
    tool_names = _validate_tools(body.get("tools"), body.get("tool_choice"))
    _validate_thinking(body.get("thinking"), body.get("max_tokens"), endpoint)
    _validate_output_config(body.get("output_config"))
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise invalid("messages: at least one message is required")
    has_tool_blocks = _validate_messages(
        messages, thinking_secret, bool((body.get("thinking") or {}).get("type") == "enabled")
    )
    if has_tool_blocks and not tool_names:
        raise invalid(
            "Requests which include `tool_use` or `tool_result` blocks must define tools. "
            "(Pass the same `tools` as the conversation used, e.g. for a summarisation call.)"
        )
    _validate_breakpoints(body)
    try:
        spec = usable_model(body["model"], today)
    except ModelLookupError as exc:
        raise ApiError(404, "not_found_error", f"model: {body['model']} ({exc})") from exc
    if endpoint == "messages" and body["max_tokens"] > spec.max_output_tokens:
        raise invalid(
            f"max_tokens: {body['max_tokens']} > {spec.max_output_tokens}, which is the maximum allowed number "
            f"of output tokens for {body['model']}"
        )
    _validate_model_rules(body, spec)
    return spec


def effort_of(body: dict[str, Any], spec: ModelSpec) -> str | None:
    """The effort a request runs at: output_config.effort, else the model's default (None: no effort)."""
    return (body.get("output_config") or {}).get("effort") or spec.default_effort


def _validate_model_rules(body: dict[str, Any], spec: ModelSpec) -> None:
    """What differs by model (the registry says): rejected parameters, thinking mode, effort, prefill."""
    model = body["model"]
    thinking = body.get("thinking") or {}
    for param in spec.rejected_params:
        if param in body:
            raise invalid(f"{param}: is not supported for {model}; remove it from the request")
    effort = (body.get("output_config") or {}).get("effort")
    if spec.thinking == "budget":
        if thinking.get("type") == "adaptive":
            raise invalid(
                f"thinking.type: 'adaptive' is not supported for {model}; use {{'type': 'enabled', 'budget_tokens': N}}"
            )
        if effort is not None:
            raise invalid(f"output_config.effort: is not supported for {model}")
        return
    if thinking.get("type") == "enabled" or "budget_tokens" in thinking:
        raise invalid(
            f"thinking.type.enabled.budget_tokens: is not supported for {model}; use thinking {{'type': "
            "'adaptive'}} and output_config.effort to set the depth"
        )
    if effort is not None and effort not in spec.efforts:
        raise invalid(f"output_config.effort: {model} accepts {', '.join(spec.efforts)}")
    if thinking.get("type") == "disabled":
        cap, level = spec.disable_thinking_max_effort, effort_of(body, spec)
        if cap is None:
            raise invalid(f"thinking.type: 'disabled' is not supported for {model} (its thinking is always on)")
        if level is not None and EFFORTS.index(level) > EFFORTS.index(cap):
            raise invalid(
                f"thinking.type: 'disabled' is only allowed with output_config.effort at most {cap!r} "
                f"(this request runs at {level!r})"
            )
    messages = body["messages"]
    if spec.rejects_prefill and messages and messages[-1].get("role") == "assistant":
        raise invalid(
            f"{model} does not support assistant message prefill: the conversation must end with a user message"
        )


def _validate_system(system: Any) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise invalid("system: Input should be a string or a list of text blocks")
    for i, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise invalid(f"system.{i}: system blocks must be text blocks")
        _validate_text(block, f"system.{i}")


def _validate_tools(tools: Any, tool_choice: Any) -> set[str]:
    names: set[str] = set()
    if tools is not None:
        if not isinstance(tools, list):
            raise invalid("tools: Input should be a valid list")
        for i, tool in enumerate(tools):
            if not isinstance(tool, dict):
                raise invalid(f"tools.{i}: Input should be an object")
            name = tool.get("name")
            if not isinstance(name, str) or not _TOOL_NAME.match(name):
                raise invalid(f"tools.{i}.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
            if name in names:
                raise invalid(f"tools: Tool names must be unique (duplicate {name!r})")
            names.add(name)
            if "type" not in tool or tool.get("type") == "custom":
                schema = tool.get("input_schema")
                if not isinstance(schema, dict) or schema.get("type") != "object":
                    raise invalid(f"tools.{i}.input_schema: must be a JSON schema with type 'object'")
            _validate_cache_control(tool, f"tools.{i}")
    if tool_choice is not None:
        if not isinstance(tool_choice, dict) or tool_choice.get("type") not in ("auto", "any", "tool", "none"):
            raise invalid("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
        if tool_choice["type"] == "tool" and tool_choice.get("name") not in names:
            raise invalid(f"tool_choice: tool {tool_choice.get('name')!r} is not defined in `tools`")
        if tool_choice["type"] in ("any", "tool") and not names:
            raise invalid("tool_choice: `tools` must be provided when tool_choice is 'any' or 'tool'")
    return names


def _validate_thinking(thinking: Any, max_tokens: Any, endpoint: str) -> None:
    if thinking is None:
        return
    if not isinstance(thinking, dict) or thinking.get("type") not in ("enabled", "disabled", "adaptive"):
        raise invalid("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive'")
    if thinking.get("display", "omitted") not in ("summarized", "omitted"):
        raise invalid("thinking.display: Input should be 'summarized' or 'omitted'")
    if "block_binding" in thinking and thinking["type"] != "adaptive":
        raise invalid("thinking.block_binding: only allowed with thinking.type 'adaptive'")
    if thinking["type"] == "enabled":
        budget = thinking.get("budget_tokens")
        if not isinstance(budget, int) or budget < 1024:
            raise invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
        if endpoint == "messages" and isinstance(max_tokens, int) and max_tokens <= budget:
            raise invalid(f"`max_tokens` must be greater than `thinking.budget_tokens` ({max_tokens} <= {budget})")


def _validate_output_config(output_config: Any) -> None:
    if output_config is None:
        return
    if not isinstance(output_config, dict):
        raise invalid("output_config: Input should be an object")
    effort = output_config.get("effort")
    if effort is not None and effort not in EFFORTS:
        raise invalid(f"output_config.effort: Input should be {', '.join(repr(e) for e in EFFORTS)}")
    fmt = output_config.get("format")
    if fmt is not None:
        if not isinstance(fmt, dict) or fmt.get("type") != "json_schema" or not isinstance(fmt.get("schema"), dict):
            raise invalid("output_config.format: expected {'type': 'json_schema', 'schema': {...}}")


def _validate_text(block: dict[str, Any], path: str) -> None:
    text = block.get("text")
    if not isinstance(text, str):
        raise invalid(f"{path}.text: Field required")
    if not text.strip():
        if block.get("cache_control"):
            raise invalid(f"{path}: cache_control cannot be set for empty text blocks")
        raise invalid(f"{path}: text content blocks must contain non-whitespace text")


def _validate_cache_control(block: dict[str, Any], path: str) -> None:
    cc = block.get("cache_control")
    if cc is None:
        return
    if not isinstance(cc, dict) or cc.get("type") != "ephemeral":
        raise invalid(f"{path}.cache_control.type: Input should be 'ephemeral'")
    if cc.get("ttl", "5m") not in ("5m", "1h"):
        raise invalid(f"{path}.cache_control.ttl: Input should be '5m' or '1h'")


def _validate_image(block: dict[str, Any], path: str) -> None:
    source = block.get("source")
    if not isinstance(source, dict):
        raise invalid(f"{path}.source: Field required")
    if source.get("type") in ("url", "file"):
        return
    if source.get("type") != "base64":
        raise invalid(f"{path}.source.type: Input should be 'base64', 'url' or 'file'")
    media = source.get("media_type")
    if media not in IMAGE_MEDIA_TYPES:
        raise invalid(f"{path}.source.media_type: Input should be one of {', '.join(IMAGE_MEDIA_TYPES)}")
    data = source.get("data")
    if not isinstance(data, str) or not data:
        raise invalid(f"{path}.source.data: Field required")
    if len(data) > MAX_IMAGE_BASE64_BYTES:
        raise invalid(
            f"{path}.source.base64: image exceeds 10 MB maximum: {len(data)} bytes > {MAX_IMAGE_BASE64_BYTES}"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise invalid(f"{path}.source.base64.data: The image data is not valid base64") from exc
    info = sniff_image(raw)
    if info is None:
        raise invalid(f"{path}.source.base64.data: Could not process image (not a jpeg, png, gif or webp)")
    if info[0] != media:
        raise invalid(
            f"{path}.source.base64.data: Image does not match the provided media type {media} (it is {info[0]})"
        )
    if max(info[1], info[2]) > MAX_IMAGE_SIDE_PX:
        raise invalid(f"{path}: image dimensions exceed max allowed size: {MAX_IMAGE_SIDE_PX} pixels")


def _validate_block(block: Any, role: str, path: str, secret: bytes | None) -> None:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        raise invalid(f"{path}.type: Field required")
    kind = block["type"]
    allowed = USER_BLOCKS if role == "user" else ASSISTANT_BLOCKS
    if kind not in allowed:
        raise invalid(f"{path}: `{kind}` blocks are not allowed in a {role} message")
    if kind in ("thinking", "redacted_thinking") and "cache_control" in block:
        raise invalid(
            f"{path}.{kind}.cache_control: Extra inputs are not permitted (thinking blocks cannot be cached directly)"
        )
    _validate_cache_control(block, path)
    if kind == "text":
        _validate_text(block, path)
    elif kind == "image":
        _validate_image(block, path)
    elif kind == "tool_use":
        if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
            raise invalid(f"{path}: tool_use blocks need `id` and `name`")
        if not isinstance(block.get("input"), dict):
            raise invalid(f"{path}.input: Input should be an object")
    elif kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            raise invalid(f"{path}.tool_use_id: Field required")
        content = block.get("content", "")
        if isinstance(content, list):
            for j, inner in enumerate(content):
                ipath = f"{path}.content.{j}"
                if not isinstance(inner, dict) or inner.get("type") not in (
                    "text",
                    "image",
                    "document",
                    "search_result",
                ):
                    raise invalid(f"{ipath}: tool_result content must be text or image blocks")
                _validate_cache_control(inner, ipath)
                if inner["type"] == "text":
                    _validate_text(inner, ipath)
                elif inner["type"] == "image":
                    _validate_image(inner, ipath)
        elif not isinstance(content, str):
            raise invalid(f"{path}.content: Input should be a string or a list of blocks")
        if "is_error" in block and not isinstance(block["is_error"], bool):
            raise invalid(f"{path}.is_error: Input should be a valid boolean")
    elif kind == "thinking":
        if not isinstance(block.get("thinking"), str) or not isinstance(block.get("signature"), str):
            raise invalid(f"{path}: thinking blocks need `thinking` and `signature`")
        if secret is not None and not api_thinking.text_matches(secret, block):
            raise invalid(
                f"{path}: Invalid `signature` in `thinking` block (thinking blocks must be passed back unmodified)"
            )


def _validate_messages(messages: list[Any], secret: bytes | None, thinking_on: bool) -> bool:
    """Roles, blocks, tool_use/tool_result pairing. Returns whether any tool block was seen."""
    has_tool_blocks = False
    prev_tool_ids: list[str] = []
    prev_role = None
    for i, msg in enumerate(messages):
        path = f"messages.{i}"
        if not isinstance(msg, dict):
            raise invalid(f"{path}: Input should be an object")
        role = msg.get("role")
        if role not in ("user", "assistant"):
            raise invalid(f"{path}.role: Input should be 'user' or 'assistant'")
        if i == 0 and role != "user":
            raise invalid('messages: first message must use the "user" role')
        if role == prev_role:
            raise invalid(
                f'messages: roles must alternate between "user" and "assistant", but found multiple '
                f'"{role}" roles in a row (at {path})'
            )
        content = msg.get("content")
        if isinstance(content, str):
            if not content.strip():
                raise invalid(f"{path}: text content blocks must contain non-whitespace text")
            blocks: list[Any] = [{"type": "text", "text": content}]
        elif isinstance(content, list):
            if not content and not (role == "assistant" and i == len(messages) - 1):
                raise invalid(f"{path}.content: at least one content block is required")
            blocks = content
        else:
            raise invalid(f"{path}.content: Input should be a string or a list of blocks")
        for j, block in enumerate(blocks):
            _validate_block(block, role, f"{path}.content.{j}", secret)
        kinds = [b["type"] for b in blocks]
        if "tool_use" in kinds or "tool_result" in kinds:
            has_tool_blocks = True
        # Every tool_use of the previous assistant turn is answered first thing in this user message.
        results = [b for b in blocks if b["type"] == "tool_result"]
        if role == "user":
            n_lead = next((k for k, kind in enumerate(kinds) if kind != "tool_result"), len(kinds))
            if len(results) > n_lead:
                raise invalid(
                    f"{path}.content.{n_lead}: `tool_result` blocks must come first in the user "
                    "message, before any other content"
                )
            answered = [b["tool_use_id"] for b in results]
            missing = [t for t in prev_tool_ids if t not in answered]
            if missing:
                raise invalid(
                    f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block "
                    "in the next message, before any other content."
                )
            extra = [t for t in answered if t not in prev_tool_ids]
            if extra:
                raise invalid(
                    f"{path}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: {', '.join(extra)}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            prev_tool_ids = []
        else:
            prev_tool_ids = [b["id"] for b in blocks if b["type"] == "tool_use"]
            is_answered_turn = i < len(messages) - 1 and prev_tool_ids
            if (
                thinking_on
                and is_answered_turn
                and i == len(messages) - 2
                and kinds[0] not in ("thinking", "redacted_thinking")
            ):
                raise invalid(
                    f"{path}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                    f"`{kinds[0]}`. When `thinking` is enabled, the assistant message that made the "
                    "pending tool call must start with its thinking block (pass it back unmodified)."
                )
        prev_role = role
    if prev_tool_ids:
        raise invalid(
            f"messages.{len(messages) - 1}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(prev_tool_ids)}"
        )
    return has_tool_blocks


def _breakpoints(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(path, ttl) of every cache_control in prefix order, top-level automatic caching last."""
    out: list[tuple[str, str]] = []
    for i, tool in enumerate(body.get("tools") or []):
        if isinstance(tool, dict) and tool.get("cache_control"):
            out.append((f"tools.{i}", tool["cache_control"].get("ttl", "5m")))
    system = body.get("system")
    if isinstance(system, list):
        for i, b in enumerate(system):
            if b.get("cache_control"):
                out.append((f"system.{i}", b["cache_control"].get("ttl", "5m")))
    for i, msg in enumerate(body.get("messages") or []):
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        for j, b in enumerate(content):
            if b.get("cache_control"):
                out.append((f"messages.{i}.content.{j}", b["cache_control"].get("ttl", "5m")))
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                for k, inner in enumerate(b["content"]):
                    if isinstance(inner, dict) and inner.get("cache_control"):
                        out.append((f"messages.{i}.content.{j}.content.{k}", inner["cache_control"].get("ttl", "5m")))
    if isinstance(body.get("cache_control"), dict):
        out.append(("cache_control", body["cache_control"].get("ttl", "5m")))
    return out


def _validate_breakpoints(body: dict[str, Any]) -> None:
    if body.get("cache_control") is not None:
        _validate_cache_control(body, "(top level)")
    bps = _breakpoints(body)
    if len(bps) > MAX_BREAKPOINTS:
        where = ", ".join(p for p, _ in bps)
        raise invalid(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(bps)} ({where})."
        )
    seen_5m = None
    for path, ttl in bps:
        if ttl == "5m":
            seen_5m = seen_5m or path
        elif seen_5m:
            raise invalid(f"{path}: a cache_control with ttl='1h' must not come after one with ttl='5m' (at {seen_5m})")
