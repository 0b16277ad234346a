"""Prompt-cache emulation, observed through the real SDK's `usage` over loopback HTTP."""

from __future__ import annotations

import base64
import io
from datetime import date
from typing import Any

import pytest
from PIL import Image

from lluma_sim.api.cache import ManualClock
from lluma_sim.api.server import ApiServer
from lluma_sim.api.tokens import count_request

HAIKU = "claude-haiku-4-5"
CC = {"type": "ephemeral"}
TOOLS = [
    {
        "name": "pressButton",
        "description": "Tap a button by name.",
        "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    }
]


def long_text(n_words: int, tag: str = "") -> str:
    words = ["career", "training", "energy", "stamina", "event", "choice", "skill", "race", "rest", "mood"]
    return tag + " ".join(words[i % len(words)] for i in range(n_words))


SYSTEM_5K = long_text(5000, "Rules. ")  # ~5,000+ tokens: above Haiku 4.5's 4,096 minimum


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def api(clock: ManualClock):
    # A day on which every model these tests name is served (Sonnet 4.5 retired on 2026-11-30).
    with ApiServer(clock=clock, today=date(2026, 11, 1)) as server:
        yield server


def create(api: ApiServer, **kw: Any):
    kw.setdefault("model", HAIKU)
    kw.setdefault("max_tokens", 200)
    return api.client().messages.create(**kw)


def test_same_long_prefix_twice_is_written_then_read(api: ApiServer):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    messages = [{"role": "user", "content": "<vision>{}</vision>"}]
    first = create(api, system=system, messages=messages, tools=TOOLS)
    second = create(api, system=system, messages=messages, tools=TOOLS)
    count = count_request({"model": HAIKU, "messages": messages, "system": system, "tools": TOOLS})
    prefix = count.section("tools") + count.section("system")
    assert first.usage.cache_creation_input_tokens == prefix > 4096
    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation.ephemeral_5m_input_tokens == prefix
    assert second.usage.cache_creation_input_tokens == 0
    assert second.usage.cache_read_input_tokens == prefix
    assert first.usage.input_tokens == second.usage.input_tokens > 0  # the uncached tail
    assert [e.cache_result for e in api.log] == ["write", "read"]
    assert [bp.result for bp in api.log[0].breakpoints] == ["write"]


@pytest.mark.filterwarnings("ignore:The model 'claude-sonnet-4-5' is deprecated:DeprecationWarning")
def test_prefix_below_the_minimum_is_never_cached(api: ApiServer):
    system = [{"type": "text", "text": long_text(2000), "cache_control": CC}]  # ~2,000 tokens < 4,096
    messages = [{"role": "user", "content": "hello"}]
    for _ in range(2):
        m = create(api, system=system, messages=messages)
        assert m.usage.cache_creation_input_tokens == 0 and m.usage.cache_read_input_tokens == 0
    total = count_request({"model": HAIKU, "messages": messages, "system": system}).total
    assert m.usage.input_tokens == total
    assert api.log[-1].breakpoints[0].result == "below_minimum"
    assert "below the 4,096-token minimum" in api.log[-1].cache_notes[0]
    # The same prefix is long enough for Sonnet 4.5 (minimum 1,024): per-model minimum.
    m = create(api, model="claude-sonnet-4-5", system=system, messages=messages)
    assert m.usage.cache_creation_input_tokens > 1024


def _blocks(n: int) -> list[dict[str, Any]]:
    return [{"type": "text", "text": f"past turn {i}: pressed Training, screen changed"} for i in range(n)]


def _with_breakpoint(blocks: list[dict[str, Any]], at: int) -> list[dict[str, Any]]:
    out = [dict(b) for b in blocks]
    out[at]["cache_control"] = CC
    return out


def test_a_breakpoint_more_than_20_blocks_past_the_last_write_misses(api: ApiServer):
    system = [{"type": "text", "text": SYSTEM_5K}]
    blocks = _blocks(40)
    ask = [{"role": "user", "content": "what next?"}]

    def turn(at: int):
        msgs = [{"role": "user", "content": _with_breakpoint(blocks, at)}, {"role": "assistant", "content": "ok"}]
        return create(api, system=system, messages=msgs + ask).usage

    first = turn(5)
    assert first.cache_creation_input_tokens > 0 and first.cache_read_input_tokens == 0
    far = turn(5 + 21)  # 21 blocks past the write: the lookback cannot see it
    assert far.cache_read_input_tokens == 0 and far.cache_creation_input_tokens > first.cache_creation_input_tokens
    assert "reads look back at most 20 blocks: miss" in api.log[-1].cache_notes[0]
    api.cache.clear()
    turn(5)
    near = turn(5 + 20)  # exactly 20 back: still found
    assert near.cache_read_input_tokens == first.cache_creation_input_tokens
    assert near.cache_creation_input_tokens > 0  # the 20 new blocks are written


def test_ttl_expires_on_the_clock_and_is_refreshed_by_reads(api: ApiServer, clock: ManualClock):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    messages = [{"role": "user", "content": "hi"}]
    assert create(api, system=system, messages=messages).usage.cache_creation_input_tokens > 0
    clock.advance(299)
    assert create(api, system=system, messages=messages).usage.cache_read_input_tokens > 0
    clock.advance(299)  # 598 s after the write, but 299 s after the read that refreshed it
    assert create(api, system=system, messages=messages).usage.cache_read_input_tokens > 0
    clock.advance(301)
    expired = create(api, system=system, messages=messages).usage
    assert expired.cache_read_input_tokens == 0 and expired.cache_creation_input_tokens > 0


def test_one_hour_ttl(api: ApiServer, clock: ManualClock):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    messages = [{"role": "user", "content": "hi"}]
    first = create(api, system=system, messages=messages).usage
    assert first.cache_creation.ephemeral_1h_input_tokens == first.cache_creation_input_tokens > 0
    assert first.cache_creation.ephemeral_5m_input_tokens == 0
    clock.advance(3000)
    assert create(api, system=system, messages=messages).usage.cache_read_input_tokens > 0
    clock.advance(3601)
    assert create(api, system=system, messages=messages).usage.cache_read_input_tokens == 0


def test_a_volatile_block_above_a_breakpoint_makes_every_turn_a_write(api: ApiServer):
    static = {"type": "text", "text": SYSTEM_5K, "cache_control": CC}
    for turn in range(4):
        volatile = {"type": "text", "text": f"Turn {turn}, 12:00:{turn:02d}. Memory: notes", "cache_control": CC}
        u = create(api, system=[static, volatile], messages=[{"role": "user", "content": "go"}]).usage
        assert u.cache_creation_input_tokens > 0  # the block after the timestamp is written again every turn
        if turn:
            assert u.cache_read_input_tokens == api.log[0].breakpoints[0].prefix_tokens  # only the static part


def test_rolling_breakpoint_reads_history_and_writes_one_turn(api: ApiServer):
    """The agent's layout: A after tools+system, C rolling on the last assistant message."""
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    history: list[dict[str, Any]] = []
    usages = []
    for turn in range(6):
        past = [dict(m) for m in history]
        if past:
            past[-1] = {
                "role": "assistant",
                "content": [{"type": "text", "text": past[-1]["content"][0]["text"], "cache_control": CC}],
            }
        current = {"role": "user", "content": [{"type": "text", "text": f"<vision>turn {turn} buttons</vision>"}]}
        usages.append(create(api, system=system, tools=TOOLS, messages=past + [current]).usage)
        history += [
            {"role": "user", "content": [{"type": "text", "text": f"T{turn} hub, pressed Training"}]},
            {"role": "assistant", "content": [{"type": "text", "text": f"Training (turn {turn})."}]},
        ]
    for prev, u in zip(usages[1:], usages[2:], strict=False):
        assert u.cache_read_input_tokens == prev.cache_read_input_tokens + prev.cache_creation_input_tokens
        assert 0 < u.cache_creation_input_tokens < 40  # one compact past turn
    assert usages[-1].cache_read_input_tokens > 0.95 * (usages[-1].input_tokens + usages[-1].cache_read_input_tokens)


def test_changing_tools_invalidates_everything_and_tool_choice_only_messages(api: ApiServer):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": long_text(100), "cache_control": CC}]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
    ]
    base = create(api, system=system, tools=TOOLS, messages=msgs).usage
    same = create(api, system=system, tools=TOOLS, messages=msgs).usage
    assert same.cache_read_input_tokens == base.cache_creation_input_tokens
    choice = create(api, system=system, tools=TOOLS, messages=msgs, tool_choice={"type": "any"}).usage
    system_part = api.log[-1].breakpoints[0].prefix_tokens  # tool_choice "any" has a shorter tool prompt
    assert choice.cache_read_input_tokens == system_part  # tools+system still cached; messages written again
    assert choice.cache_creation_input_tokens > 0
    other_tools = [{**TOOLS[0], "description": "Tap a named button."}]
    changed = create(api, system=system, tools=other_tools, messages=msgs).usage
    assert changed.cache_read_input_tokens == 0


def test_top_level_automatic_caching_marks_the_last_block(api: ApiServer):
    messages = [{"role": "user", "content": SYSTEM_5K}]
    first = create(api, messages=messages, cache_control=CC).usage
    again = create(api, messages=messages, cache_control=CC).usage
    assert (
        first.cache_creation_input_tokens > 4096 and again.cache_read_input_tokens == first.cache_creation_input_tokens
    )
    assert first.input_tokens == 0


def test_max_tokens_zero_prewarms_the_cache(api: ApiServer):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    warm = create(api, max_tokens=0, system=system, messages=[{"role": "user", "content": "warm"}])
    assert warm.content == [] and warm.stop_reason == "max_tokens" and warm.usage.output_tokens == 0
    real = create(api, system=system, messages=[{"role": "user", "content": "<vision>{}</vision>"}])
    assert real.usage.cache_read_input_tokens == warm.usage.cache_creation_input_tokens


def test_count_tokens_is_what_the_stand_in_bills(api: ApiServer):
    messages = [{"role": "user", "content": "hello there"}]
    counted = api.client().messages.count_tokens(model=HAIKU, messages=messages, tools=TOOLS, system="Be brief.")
    billed = create(api, messages=messages, tools=TOOLS, system="Be brief.").usage
    assert counted.input_tokens == billed.input_tokens == count_request(
        {"model": HAIKU, "messages": messages, "tools": TOOLS, "system": "Be brief."}
    ).total


def test_adding_an_image_or_changing_thinking_invalidates_messages_only(api: ApiServer):
    buf = io.BytesIO()
    Image.new("RGB", (56, 56)).save(buf, format="PNG")
    img = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(buf.getvalue()).decode()},
    }
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    history = [
        {"role": "user", "content": [{"type": "text", "text": long_text(200), "cache_control": CC}]},
        {"role": "assistant", "content": "ok"},
    ]
    base = create(api, system=system, messages=[*history, {"role": "user", "content": "next"}]).usage
    system_part = api.log[-1].breakpoints[0].prefix_tokens
    assert (
        create(
            api, system=system, messages=[*history, {"role": "user", "content": "again"}]
        ).usage.cache_read_input_tokens
        == base.cache_creation_input_tokens
    )
    with_image = create(
        api, system=system, messages=[*history, {"role": "user", "content": [img, {"type": "text", "text": "look"}]}]
    ).usage
    assert with_image.cache_read_input_tokens == system_part and with_image.cache_creation_input_tokens > 0
    thinking = create(
        api,
        system=system,
        max_tokens=2000,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=[*history, {"role": "user", "content": "think"}],
    ).usage
    assert thinking.cache_read_input_tokens == system_part


def png(colour: tuple[int, int, int]) -> dict[str, Any]:
    buf = io.BytesIO()
    Image.new("RGB", (56, 56), colour).save(buf, format="PNG")
    data = base64.b64encode(buf.getvalue()).decode()
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def shot_turn(n: int, image: dict[str, Any] | None) -> list[dict[str, Any]]:
    """One kept turn as the agent sends it with thinking on: the reading, its screenshot, the reply."""
    content: list[dict[str, Any]] = [{"type": "text", "text": f"T{n} " + long_text(150)}]
    if image is not None:
        content.append(image)
    return [{"role": "user", "content": content}, {"role": "assistant", "content": f"reply {n}"}]


def marked(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with breakpoint C on the last reply, as the agent marks them."""
    out = [dict(m) for m in messages]
    out[-1] = {"role": "assistant", "content": [{"type": "text", "text": out[-1]["content"], "cache_control": CC}]}
    return out


def history_read(api: ApiServer, system: list[dict[str, Any]], history: list[dict[str, Any]],
                 current: list[dict[str, Any]]) -> int:
    """Send history (breakpoint on its last reply) plus a current turn; the tokens read from cache."""
    usage = create(api, system=system, messages=[*marked(history), {"role": "user", "content": current}]).usage
    return usage.cache_read_input_tokens


def test_a_new_screenshot_in_the_newest_turn_leaves_earlier_entries_readable(api: ApiServer):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    first = shot_turn(1, png((200, 0, 0)))
    create(api, system=system, messages=[*marked(first), {"role": "user", "content": [png((0, 200, 0))]}])
    written = api.log[-1].breakpoints[-1]
    assert written.result == "write"
    # The next request keeps turn 1 and its screenshot as they were and appends turn 2 with a new screenshot.
    history = first + shot_turn(2, png((0, 200, 0)))
    read = history_read(api, system, history, [png((0, 0, 200)), {"type": "text", "text": "now"}])
    assert read == written.prefix_tokens  # the whole earlier prefix, its image included, read from cache
    assert api.log[-1].breakpoints[-1].result == "write"  # and the longer prefix is written for the next turn


@pytest.mark.parametrize("change", ["changed", "removed"])
def test_changing_or_removing_an_image_inside_the_prefix_misses_from_there_on(api: ApiServer, change: str):
    system = [{"type": "text", "text": SYSTEM_5K, "cache_control": CC}]
    keep = png((10, 10, 10))  # an image before the change: the presence of images is the same either way
    now = [{"type": "text", "text": "now"}, png((0, 0, 200))]
    history_read(api, system, shot_turn(1, keep), now)  # an entry ends at turn 1's reply
    turn1 = api.log[-1].breakpoints[-1].prefix_tokens
    history = shot_turn(1, keep) + shot_turn(2, png((200, 0, 0)))
    history_read(api, system, history, now)
    full = api.log[-1].breakpoints[-1].prefix_tokens
    assert history_read(api, system, history, now) == full > turn1  # unchanged: read in full
    # Turn 2's screenshot changes (or goes): the prefix is the same up to turn 1's reply and differs after.
    edited = shot_turn(1, keep) + shot_turn(2, png((0, 200, 0)) if change == "changed" else None)
    assert history_read(api, system, edited, now) == turn1
