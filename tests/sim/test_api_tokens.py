"""The stand-in's own token count: independent of the agent's estimator, scaled per model."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from lluma_agent.context.tokens import estimate_request, estimate_text_tokens
from lluma_agent.tools.registry import tool_definitions
from lluma_sim.api.tokens import block_tokens, count_request, raw_text_tokens, text_tokens

PROMPT = (Path(__file__).resolve().parents[2] / "lluma_agent" / "system_prompt.md").read_text()


def test_text_pieces_cost_by_their_bytes():
    assert raw_text_tokens("hello world") == 2  # each word with its leading space is one merge
    assert raw_text_tokens(" extraordinarily") == 3  # 16 bytes: 1 + ceil(7 / 4)
    assert raw_text_tokens("1234567") == 3  # digits in groups of at most three
    assert raw_text_tokens("育成ウマ娘") == 5  # one per CJK character (3 bytes each)
    assert raw_text_tokens('{"a":1}') == 5  # `{"`, `a`, `":`, `1`, `}`: punctuation runs, 1 per 3 bytes
    assert raw_text_tokens("") == 0


def test_haiku_5_5_counts_text_30_percent_higher_but_not_images():
    text = "Press Training when energy is above 60 and the failure rate is below 10 percent. " * 20
    assert text_tokens(text, "claude-haiku-4-5") == raw_text_tokens(text)
    assert text_tokens(text, "claude-haiku-5-5") == -(-raw_text_tokens(text) * 13 // 10)
    buf = io.BytesIO()
    Image.new("RGB", (504, 896)).save(buf, format="PNG")
    image = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(buf.getvalue()).decode()},
    }
    # 18 x 32 patches either way; only the small wrapper is text.
    assert block_tokens(image, "claude-haiku-4-5") - 576 == 2
    assert block_tokens(image, "claude-haiku-5-5") - 576 == 3


def test_the_stand_in_disagrees_with_the_agent_estimator_on_the_default_prefix():
    """The agent estimates high on purpose; the stand-in counts like a tokenizer would."""
    body = {
        "model": "claude-haiku-4-5",
        "messages": [{"role": "user", "content": "hi"}],
        "system": [{"type": "text", "text": PROMPT}],
        "tools": tool_definitions(),
    }
    count = count_request(body)
    est = estimate_request(messages=body["messages"], system=body["system"], tools=body["tools"])
    stand_in_prefix = count.section("tools") + count.section("system")
    agent_prefix = est.tools + est.system
    assert stand_in_prefix < agent_prefix  # the agent's estimate sits above the count it is billed
    assert 0.8 < stand_in_prefix / agent_prefix < 1.0
    assert estimate_text_tokens(PROMPT) != raw_text_tokens(PROMPT)  # two methods, not one shared function
    haiku55 = count_request({**body, "model": "claude-haiku-5-5"})
    assert 1.28 < (haiku55.section("tools") + haiku55.section("system")) / stand_in_prefix < 1.32
    assert [b.path for b in count.blocks][:2] == ["tools.0", "tools.1"] and count.blocks[
        -1
    ].path == "messages.0.content.0"
