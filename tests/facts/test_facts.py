"""The model registry, usage records, dollar costs and `lluma models`."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from anthropic.types import CacheCreation
from anthropic.types import Usage as SdkUsage

from lluma_cli import main as cli
from lluma_facts import (
    MODELS,
    RetiredModelError,
    UnknownModelError,
    Usage,
    cost_usd,
    current_models,
    model_spec,
    registry_day,
    replacement,
    usable_model,
)


def test_registry_has_the_current_families_and_the_older_models():
    assert set(MODELS) == {
        "claude-haiku-5-5",
        "claude-sonnet-5-5",
        "claude-opus-5-5",
        "claude-haiku-4-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-6",
        "claude-opus-4-5",
    }
    haiku = model_spec("claude-haiku-4-5")
    assert (haiku.input_usd_per_mtok, haiku.output_usd_per_mtok, haiku.min_cacheable_tokens) == (1.0, 5.0, 4096)
    assert (haiku.image_max_long_edge, haiku.image_max_tokens) == (1568, 1568)
    assert haiku.cache_write_5m_usd_per_mtok == 1.25 and haiku.cache_write_1h_usd_per_mtok == 2.0
    assert haiku.cache_read_usd_per_mtok == pytest.approx(0.1)
    assert (haiku.thinking, haiku.efforts, haiku.tokenizer_factor) == ("budget", (), 1.0)
    assert model_spec("claude-sonnet-4-5").min_cacheable_tokens == 1024
    assert model_spec("claude-opus-4-5").min_cacheable_tokens == 4096
    assert (model_spec("claude-sonnet-5-5").input_usd_per_mtok, model_spec("claude-opus-5-5").output_usd_per_mtok) == (
        2.0,
        20.0,
    )


def test_haiku_5_5_facts():
    h = model_spec("claude-haiku-5-5")
    low, high = h.prices
    assert (low.price.input, low.price.output, low.price.cache_read) == (0.10, 0.50, 0.01)
    assert (low.price.cache_write_5m, low.price.cache_write_1h) == (0.125, 0.20)
    assert high.above_prompt_tokens == 100_000
    assert (high.price.input, high.price.output, high.price.cache_read, high.price.cache_write_5m) == (
        0.50,
        2.50,
        0.05,
        0.625,
    )
    assert (h.min_cacheable_tokens, h.context_window, h.max_output_tokens) == (512, 1_000_000, 128_000)
    assert (h.thinking, h.thinking_default_on, h.default_effort) == ("adaptive", True, "medium")
    assert h.efforts == ("low", "medium", "high", "xhigh", "max") and h.disable_thinking_max_effort == "high"
    assert {"temperature", "top_p", "top_k", "thinking.budget_tokens"} <= set(h.rejected_params)
    assert h.rejects_prefill and h.thinking_bound_to_prefix and h.tokenizer_factor == 1.3


def test_dated_aliases_resolve_and_unknown_models_fail_clearly():
    assert model_spec("claude-haiku-4-5-20251001").id == "claude-haiku-4-5"
    assert model_spec("claude-sonnet-4-5-20250929").id == "claude-sonnet-4-5"
    with pytest.raises(UnknownModelError, match="unknown model 'gpt-4o'.*current models: claude-haiku-5-5"):
        model_spec("gpt-4o")
    with pytest.raises(UnknownModelError):
        cost_usd(Usage(input_tokens=1), "claude-unknown-1-0")


def test_a_retired_model_stops_with_the_current_ones_named():
    before, on = date(2026, 11, 23), date(2026, 11, 30)
    assert usable_model("claude-sonnet-4-5", today=before).status == "deprecated"
    with pytest.raises(RetiredModelError, match=r"retired on 2026-11-30; current models: claude-haiku-5-5, ") as exc:
        usable_model("claude-sonnet-4-5-20250929", today=on)
    assert "claude-sonnet-4-5," not in str(exc.value).split("current models:")[1]
    assert "claude-sonnet-4-5" in current_models(before) and "claude-sonnet-4-5" not in current_models(on)
    with pytest.raises(UnknownModelError, match="not in the model registry"):
        usable_model("claude-haiku-9", today=before)
    # Billing an old log still works after retirement.
    assert cost_usd(Usage(input_tokens=1_000_000), "claude-sonnet-4-5") == pytest.approx(3.0)


def test_the_registry_day_is_set_by_lluma_today(monkeypatch: pytest.MonkeyPatch):
    """LLUMA_TODAY sets the day retirement is judged on for the whole process; nothing reads the real date."""
    monkeypatch.setenv("LLUMA_TODAY", "2026-11-23")
    assert registry_day() == date(2026, 11, 23)
    assert usable_model("claude-sonnet-4-5").status == "deprecated"
    monkeypatch.setenv("LLUMA_TODAY", "2026-11-30")
    with pytest.raises(RetiredModelError) as exc:
        usable_model("claude-sonnet-4-5")
    assert exc.value.replacement == "claude-sonnet-4-6"
    monkeypatch.setenv("LLUMA_TODAY", "30.11.2026")
    with pytest.raises(ValueError, match=r"LLUMA_TODAY='30.11.2026' is not a day: write it as YYYY-MM-DD"):
        registry_day()
    monkeypatch.delenv("LLUMA_TODAY")
    assert registry_day() == date.today()


def test_a_retired_model_names_a_replacement_the_api_serves():
    before, after = date(2026, 11, 1), date(2027, 2, 1)
    assert replacement("claude-sonnet-4-5", before) == "claude-sonnet-4-5"  # not retired yet: itself
    assert replacement("claude-sonnet-4-5-20250929", after) == "claude-sonnet-4-6"
    assert replacement("claude-opus-4-5", after) == "claude-opus-5-5"
    for spec in MODELS.values():  # every named successor is a model the registry knows
        assert spec.replaced_by is None or model_spec(spec.replaced_by).id == spec.replaced_by
        assert (spec.retires is None) == (spec.replaced_by is None), f"{spec.id}: a retirement names its successor"


def test_the_long_prompt_tier_applies_to_the_whole_request():
    m = "claude-haiku-5-5"
    at_limit = Usage(input_tokens=60_000, cache_read_input_tokens=40_000, output_tokens=1_000)
    assert cost_usd(at_limit, m) == pytest.approx((60_000 * 0.10 + 40_000 * 0.01 + 1_000 * 0.50) / 1e6)
    above = Usage(input_tokens=60_001, cache_read_input_tokens=40_000, output_tokens=1_000)
    assert cost_usd(above, m) == pytest.approx((60_001 * 0.50 + 40_000 * 0.05 + 1_000 * 2.50) / 1e6)
    writes = Usage(input_tokens=1, cache_creation_input_tokens=200_000, cache_write_5m=100_000, cache_write_1h=100_000)
    assert cost_usd(writes, m) == pytest.approx((0.50 + 100_000 * 0.625 + 100_000 * 1.0) / 1e6)


def test_lluma_models_prints_the_registry(capsys: pytest.CaptureFixture[str]):
    assert cli.main(["models", "--today", "2026-11-23"]) == 0
    out = capsys.readouterr().out
    assert "claude-haiku-5-5  Claude Haiku 5.5  active" in out
    assert "prompts > 100,000 tokens: in $0.5  out $2.5  cache read $0.05" in out
    assert "claude-sonnet-4-5  Claude Sonnet 4.5  deprecated (retires 2026-11-30)" in out
    assert cli.main(["models", "--json", "--today", "2026-12-01"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["claude-sonnet-4-5"]["retired"] and not rows["claude-haiku-5-5"]["retired"]
    assert rows["claude-haiku-5-5"]["prices"][1]["price"]["input"] == 0.5
    assert rows["claude-haiku-5-5"]["default_effort"] == "medium"
    assert rows["claude-haiku-5-5"]["min_cacheable_tokens"] == 512


def test_lluma_models_says_the_apis_default_effort_and_the_one_lluma_sends(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The registry's default is the API's, for a request naming no effort; LLuMa always names model.effort."""
    monkeypatch.chdir(tmp_path)  # no config.yaml: model.effort's default
    assert cli.main(["models"]) == 0
    assert "(API default medium; LLuMa sends low: model.effort)" in capsys.readouterr().out
    monkeypatch.setenv("LLUMA_MODEL__EFFORT", "high")
    assert cli.main(["models", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert (rows["claude-haiku-5-5"]["default_effort"], rows["claude-haiku-5-5"]["lluma_effort"]) == ("medium", "high")
    assert rows["claude-haiku-4-5"]["lluma_effort"] is None  # a budget model takes no effort


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


def test_a_bad_lluma_today_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LLUMA_TODAY", "30.11.2026")
    assert cli.main(["models"]) == 2
    err = capsys.readouterr().err
    assert err == "lluma models: LLUMA_TODAY='30.11.2026' is not a day: write it as YYYY-MM-DD\n"
