"""The shared token estimator: text densities, images, blocks, requests, and the harness-shaped turn."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from lluma_agent.context.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    estimate_block_tokens,
    estimate_image_tokens,
    estimate_request,
    estimate_text_tokens,
    image_block_size,
    resized_image_size,
)

ROOT = Path(__file__).resolve().parents[2]
PROSE = (
    "Each turn the agent captures the screen, turns it into a compact list of buttons, asks the model what "
    "to do with a context that is trimmed and cached, lets the model keep its own memory files, and taps. "
    "Users run it against an emulator or a phone, read the per-turn logs, and edit the memory files by hand."
)


def test_text_estimates_have_the_right_densities():
    assert estimate_text_tokens("") == 0
    assert 3.3 <= len(PROSE) / estimate_text_tokens(PROSE) <= 4.2
    compact = json.dumps(
        {"buttons": [{"name": "Training", "meta": "", "region": "bottom"}] * 10, "menu": {"usable": True}},
        separators=(",", ":"),
    )
    assert 2.3 <= len(compact) / estimate_text_tokens(compact) <= 3.2
    assert estimate_text_tokens("12345678") == 3  # digits in threes
    assert estimate_text_tokens("こんにちは") == 5  # one per CJK character
    assert estimate_text_tokens(PROSE * 2) == 2 * estimate_text_tokens(PROSE)  # additive over repeats
    assert estimate_text_tokens("pressButton") == 2  # camelCase splits


@pytest.mark.parametrize(
    ("w", "h", "tokens"),
    [(504, 896, 576), (1920, 1080, 1560), (1080, 1920, 1560), (100, 100, 16), (1568, 28, 56)],
)
def test_image_tokens(w, h, tokens):
    assert estimate_image_tokens(w, h) == tokens
    rw, rh = resized_image_size(w, h)
    assert max(rw, rh) <= 1568


def _b64(fmt: str, w: int, h: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (10, 200, 30)).save(buf, format=fmt)
    return base64.b64encode(buf.getvalue()).decode()


@pytest.mark.parametrize(
    ("fmt", "media"), [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")]
)
def test_image_size_is_read_from_the_base64_header(fmt, media):
    block = {"type": "image", "source": {"type": "base64", "media_type": media, "data": _b64(fmt, 504, 896)}}
    assert image_block_size(block) == (504, 896)
    assert estimate_block_tokens(block) == 576 + 3


def test_block_kinds():
    use = {"type": "tool_use", "id": "toolu_1", "name": "pressButton", "input": {"name": "Training"}}
    assert 10 <= estimate_block_tokens(use) <= 25
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "tapped 'Training'; screen changed"}
    assert estimate_block_tokens(result) == 6 + estimate_text_tokens(result["content"])
    img = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _b64("PNG", 504, 896)}}
    nested = {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "shot"}, img]}
    assert estimate_block_tokens(nested) > 576
    assert estimate_block_tokens({"type": "thinking", "thinking": PROSE, "signature": "x"}) == estimate_text_tokens(
        PROSE
    )
    url = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    assert estimate_block_tokens(url) == 1568 + 3  # unknown size: the model's maximum
    assert estimate_block_tokens({"type": "search_result", "title": "x", "content": []}) > 0


def test_request_sections_and_blocks():
    tools = [{"name": "back", "description": "Go back.", "input_schema": {"type": "object", "properties": {}}}]
    system = [{"type": "text", "text": PROSE, "cache_control": {"type": "ephemeral"}}]
    messages = [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "back", "input": {}}]},
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "ok", "cache_control": {"type": "ephemeral"}}],
                },
                {"type": "text", "text": "<vision>{}</vision>"},
            ],
        },
    ]
    est = estimate_request(messages=messages, system=system, tools=tools)
    assert est.total == est.tools + est.system + sum(est.messages) == sum(b.tokens for b in est.blocks)
    assert [b.section for b in est.blocks] == ["tools", "system", "messages", "messages", "messages", "messages"]
    assert [b.index for b in est.blocks] == list(range(6))
    assert est.blocks[4].path == "messages.2.content.0" and est.blocks[4].cache_control == {"type": "ephemeral"}
    assert est.system == estimate_text_tokens(PROSE)
    assert est.messages[0] == MESSAGE_OVERHEAD_TOKENS + 1
    any_choice = estimate_request(messages=messages, system=system, tools=tools, tool_choice={"type": "any"})
    assert est.tools - any_choice.tools == 346 - 313


def test_estimate_of_the_harness_turn_is_within_15_percent_of_its_measured_total():
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "estimate_turn.py"), "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    data = json.loads(out.stdout)
    assert abs(data["total"] / data["measured"] - 1) < 0.15  # the original harness measured 24,479 tokens
    assert data["sections"]["screenshots (2)"] == 2 * (1560 + 3)
    text = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "estimate_turn.py")], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert "ESTIMATE" in text and "Method:" in text
