"""The price table, usage records and dollar costs."""

from __future__ import annotations

import pytest
from anthropic.types import CacheCreation
from anthropic.types import Usage as SdkUsage

from lluma_facts import MODELS, UnknownModelError, Usage, cost_usd, model_spec


def test_table_has_the_models_with_their_minimums_and_prices():
    assert set(MODELS) == {
        "claude-haiku-4-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-opus-4-5",
        "claude-haiku-5-5",
    }
    haiku = model_spec("claude-haiku-4-5")
    assert (haiku.input_usd_per_mtok, haiku.output_usd_per_mtok, haiku.min_cacheable_tokens) == (1.0, 5.0, 4096)
    assert (haiku.image_max_long_edge, haiku.image_max_tokens) == (1568, 1568)
    assert haiku.cache_write_5m_usd_per_mtok == 1.25 and haiku.cache_write_1h_usd_per_mtok == 2.0
    assert haiku.cache_read_usd_per_mtok == pytest.approx(0.1)
    assert model_spec("claude-sonnet-4-5").min_cacheable_tokens == 1024
    assert model_spec("claude-opus-4-5").min_cacheable_tokens == 4096
    assert not model_spec("claude-haiku-5-5").confirmed and "unconfirmed" in model_spec("claude-haiku-5-5").note


def test_dated_aliases_resolve_and_unknown_models_fail_clearly():
    assert model_spec("claude-haiku-4-5-20251001").id == "claude-haiku-4-5"
    assert model_spec("claude-sonnet-4-5-20250929").id == "claude-sonnet-4-5"
    with pytest.raises(UnknownModelError, match="unknown model 'gpt-4o'.*known: claude-haiku-4-5"):
        model_spec("gpt-4o")
    with pytest.raises(UnknownModelError):
        cost_usd(Usage(input_tokens=1), "claude-unknown-1-0")


def test_costs_per_million_tokens():
    m = 1_000_000
    assert cost_usd(Usage(input_tokens=m), "claude-haiku-4-5") == pytest.approx(1.0)
    assert cost_usd(Usage(output_tokens=m), "claude-haiku-4-5") == pytest.approx(5.0)
    assert cost_usd(Usage(cache_creation_input_tokens=m, cache_write_5m=m), "claude-haiku-4-5") == pytest.approx(1.25)
    assert cost_usd(Usage(cache_creation_input_tokens=m, cache_write_1h=m), "claude-haiku-4-5") == pytest.approx(2.0)
    assert cost_usd(Usage(cache_read_input_tokens=m), "claude-haiku-4-5") == pytest.approx(0.1)
    assert cost_usd(Usage(input_tokens=m, output_tokens=m), "claude-sonnet-4-5") == pytest.approx(18.0)
    assert cost_usd(Usage(input_tokens=m), "claude-opus-4-5") == pytest.approx(5.0)
    # A creation total without its split is billed as 5-minute writes.
    assert cost_usd(Usage(cache_creation_input_tokens=m), "claude-haiku-4-5") == pytest.approx(1.25)


def test_the_original_harness_turn():
    """24,479 uncached input tokens + ~300 output on Haiku 4.5: about 2.6 cents; cached it is a fraction."""
    uncached = cost_usd(Usage(input_tokens=24_479, output_tokens=300), "claude-haiku-4-5")
    assert uncached == pytest.approx(0.026, abs=0.001)
    cached = cost_usd(
        Usage(
            input_tokens=5_000,
            cache_read_input_tokens=19_000,
            cache_creation_input_tokens=400,
            cache_write_5m=400,
            output_tokens=300,
        ),
        "claude-haiku-4-5",
    )
    assert cached < 0.35 * uncached


def test_usage_from_the_sdk_object_and_dicts_and_addition():
    sdk = SdkUsage(
        input_tokens=10,
        output_tokens=5,
        cache_creation_input_tokens=300,
        cache_read_input_tokens=7000,
        cache_creation=CacheCreation(ephemeral_5m_input_tokens=100, ephemeral_1h_input_tokens=200),
    )
    u = Usage.from_api(sdk)
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens) == (10, 5, 7000)
    assert (u.cache_creation_input_tokens, u.cache_write_5m, u.cache_write_1h) == (300, 100, 200)
    bare = Usage.from_api(
        {"input_tokens": 3, "output_tokens": 1, "cache_creation_input_tokens": 50, "cache_read_input_tokens": None}
    )
    assert (bare.cache_write_5m, bare.cache_write_1h, bare.cache_read_input_tokens) == (50, 0, 0)
    total = u + bare
    assert total.input_tokens == 13 and total.cache_creation_input_tokens == 350 and total.cache_write_5m == 150
    assert total.total_input_tokens == 13 + 350 + 7000
    assert total.cache_hit_ratio == pytest.approx(7000 / 7363)
    assert Usage().cache_hit_ratio == 0.0
