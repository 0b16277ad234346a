"""The suite's cache of cold real-screen readings (tests/vision/real_reads.py): read once, then loaded as read."""

from __future__ import annotations

from pathlib import Path

import pytest
import real_reads

from lluma_sim.game import SimGame

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


def test_a_reading_is_kept_on_disk_under_the_code_key_and_loaded_as_it_was(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(real_reads, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(real_reads, "_READ", {})
    SimGame(seed=3).capture().save(tmp_path / "home.png")
    first = real_reads.cold_read(tmp_path, "home.png")
    (kept,) = (tmp_path / "cache" / real_reads.code_key()).glob("*.json")
    again = real_reads._read(tmp_path, "home.png")
    assert first.buttons and first == again.model_copy(update={"elapsed_ms": first.elapsed_ms})  # cold: the same
    monkeypatch.setattr(real_reads, "_READ", {})  # a new session (another worker, the next run)
    monkeypatch.setattr(real_reads, "_read", lambda *a: pytest.fail("read again instead of loaded"))
    assert real_reads.cold_read(tmp_path, "home.png") == first
    kept.unlink()  # the file changed or the code did (a new key): read afresh
    monkeypatch.setattr(real_reads, "_READ", {})
    with pytest.raises(pytest.fail.Exception, match="read again"):
        real_reads.cold_read(tmp_path, "home.png")
