"""Every config value has a range: a nonsense value stops at start with an error naming its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from lluma_agent.config import ConfigError, load_config

BAD_VALUES = [
    ("model.max_tokens", "model: {max_tokens: -5}"),
    ("model.timeout_s", "model: {timeout_s: 0}"),
    ("model.max_retries", "model: {max_retries: -1}"),
    ("run.max_cost_usd", "run: {max_cost_usd: -1}"),
    ("run.max_cost_usd", "run: {max_cost_usd: .nan}"),
    ("run.max_turns", "run: {max_turns: -3}"),
    ("run.stuck_after", "run: {stuck_after: 0}"),
    ("device.tap_inner_fraction", "device: {tap_inner_fraction: 5}"),
    ("device.adb_port", "device: {adb_port: 99999}"),
    ("device.command_timeout_s", "device: {command_timeout_s: .inf}"),
    ("device.settle_threshold", "device: {settle_threshold: -1}"),
    ("context.history_max_turns", "context: {history_max_turns: 0}"),
    ("context", "context: {history_max_turns: 10, fold_chunk_turns: 10}"),
    ("context.screenshots", "context: {screenshots: -1}"),
    ("memory.budget_tokens", "memory: {budget_tokens: 0}"),
    ("vision.ocr_short_side", "vision: {ocr_short_side: 0}"),
    ("vision.max_buttons", "vision: {max_buttons: 0}"),
    ("vision.cache_max_distance", "vision: {cache_max_distance: 1000}"),
    ("logs.keep_screenshots", "logs: {keep_screenshots: -1}"),
]


@pytest.mark.parametrize(("key", "yaml_text"), BAD_VALUES)
def test_out_of_range_values_name_their_key(tmp_path: Path, key: str, yaml_text: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(yaml_text + "\n")
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(path, env={})


def test_nan_from_the_environment_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"run\.max_cost_usd"):
        load_config(None, env={"LLUMA_RUN__MAX_COST_USD": "nan"})


def test_the_defaults_are_in_range() -> None:
    load_config(None, env={})
