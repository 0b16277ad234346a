"""Every config value has a range, and every config problem stops with one clear line naming the key
(`lluma run` and `lluma demo` alike: exit 2, no traceback)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lluma_agent.config import ConfigError, load_config

LLUMA = Path(sys.executable).parent / "lluma"

BAD_VALUES = [
    ("model.max_tokens", "model: {max_tokens: -5}"),
    ("model.timeout_s", "model: {timeout_s: 0}"),
    ("model.retry_window_s", "model: {retry_window_s: -1}"),
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


def _bad_config_files(tmp_path: Path) -> list[tuple[str, list[str], dict[str, str]]]:
    latin1 = tmp_path / "latin1.yaml"
    latin1.write_bytes("model: {name: caf\xe9}\n".encode("latin-1"))
    folder = tmp_path / "a-folder.yaml"
    folder.mkdir()
    ranged = tmp_path / "ranged.yaml"
    ranged.write_text("model: {max_tokens: -5}\n")
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    return [
        ("latin1.yaml", ["--config", str(latin1)], {}),
        ("a-folder.yaml", ["--config", str(folder)], {}),
        ("model.max_tokens", ["--config", str(ranged)], {}),
        ("run.stuck_after", [], {"LLUMA_RUN__STUCK_AFTER": "0"}),
        ("memory.dir", [], {"LLUMA_MEMORY__DIR": str(a_file)}),  # (the demo keeps memory in its log folder)
    ]


def _in_process(command: str, args: list[str], env: dict[str, str], cwd: Path,
                capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`lluma command args` through the same entry point, in this process (a config error stops before any adb
    or API work; starting the interpreter and importing the SDK for each case took 4 s)."""
    from lluma_cli.main import main

    with pytest.MonkeyPatch.context() as mp:
        for key, value in {"ANTHROPIC_API_KEY": "sk-test", **env}.items():
            mp.setenv(key, value)
        mp.chdir(cwd)
        capsys.readouterr()
        try:
            code = main([command, *args])
        except SystemExit as exc:  # what the interpreter would turn into the exit status
            code = exc.code if isinstance(exc.code, int) else 1
        return code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "demo"])
def test_bad_configs_are_one_line_and_exit_2(tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    for i, (key, args, env) in enumerate(_bad_config_files(tmp_path)):
        if command == "demo" and key == "memory.dir":
            continue
        extra = ["--turns", "1", "--logs", str(tmp_path / "logs")] if command == "demo" else []
        if i == 0:  # the first case as a person meets it: the installed command in its own process
            full_env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false", "ANTHROPIC_API_KEY": "sk-test", **env}
            done = subprocess.run([str(LLUMA), command, *args, *extra], env=full_env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120)
            code, err = done.returncode, done.stderr.strip()
        else:
            code, raw = _in_process(command, [*args, *extra], env, tmp_path, capsys)
            err = raw.strip()
        assert code == 2, (key, code, err[-800:])
        assert "Traceback" not in err and len(err.splitlines()) == 1, (key, err)
        assert key in err, (key, err)
