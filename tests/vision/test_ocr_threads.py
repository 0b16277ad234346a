"""LLUMA_OCR_THREADS: the OCR's threads when a caller names none; a bad value is one clear error, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from lluma_agent.config import ConfigError, load_config
from lluma_vision.config import THREADS_ENV
from lluma_vision.pixels import ocr


def test_a_bad_thread_count_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "two")
    with pytest.raises(ValueError, match="LLUMA_OCR_THREADS must be a whole number"):
        ocr.get_engine()


def test_a_bad_thread_count_stops_a_command_at_its_configuration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="LLUMA_OCR_THREADS must be a whole number"):
        load_config(env={THREADS_ENV: "two"})  # what `lluma run`, `demo` and `doctor` load first
    from lluma_cli.main import main

    monkeypatch.setenv(THREADS_ENV, "-1")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.png").write_bytes(b"not read")
    assert main(["vision", str(tmp_path / "a.png")]) == 2  # a setting to fix, not a bug to report
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["lluma vision: LLUMA_OCR_THREADS must be a whole number of threads (0 = one per core), not '-1'"]


def test_the_engine_takes_the_thread_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    one = ocr.get_engine()
    assert ocr._ENGINE_KEY == 1
    assert ocr.get_engine() is one  # loaded once, not per read
    monkeypatch.setenv(THREADS_ENV, "")
    ocr.get_engine()
    assert ocr._ENGINE_KEY == 0  # empty: onnxruntime's own default
