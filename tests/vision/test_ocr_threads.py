"""LLUMA_OCR_THREADS: the OCR's threads when a caller names none; a bad value is one clear error."""

from __future__ import annotations

import pytest

from lluma_vision.pixels import ocr


def test_a_bad_thread_count_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.THREADS_ENV, "two")
    with pytest.raises(ValueError, match="LLUMA_OCR_THREADS must be a whole number"):
        ocr.get_engine()


def test_the_engine_takes_the_thread_count_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ocr.THREADS_ENV, "1")
    one = ocr.get_engine()
    assert ocr._ENGINE_KEY == 1
    assert ocr.get_engine() is one  # loaded once, not per read
    monkeypatch.setenv(ocr.THREADS_ENV, "")
    ocr.get_engine()
    assert ocr._ENGINE_KEY == 0  # empty: onnxruntime's own default
