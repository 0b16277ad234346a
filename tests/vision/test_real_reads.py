"""The suite's cache of cold real-screen readings (tests/vision/real_reads.py): read once, then loaded as read."""

from __future__ import annotations

import fcntl
import threading
import time
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
    (kept,) = (tmp_path / "cache" / real_reads.code_key()).glob("*.pickle")
    again, blocks = real_reads._read(tmp_path, "home.png")
    assert first.buttons and first == again.model_copy(update={"elapsed_ms": first.elapsed_ms})  # cold: the same
    assert [b.text for b in real_reads.cold_read_blocks(tmp_path, "home.png")[1]] == [b.text for b in blocks]
    monkeypatch.setattr(real_reads, "_READ", {})  # a new session (another worker, the next run)
    monkeypatch.setattr(real_reads, "_read", lambda *a: pytest.fail("read again instead of loaded"))
    assert real_reads.cold_read(tmp_path, "home.png") == first
    kept.unlink()  # the file changed or the code did (a new key): read afresh
    monkeypatch.setattr(real_reads, "_READ", {})
    with pytest.raises(pytest.fail.Exception, match="read again"):
        real_reads.cold_read(tmp_path, "home.png")


def test_warming_reads_past_a_file_another_worker_holds_then_waits_for_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(real_reads, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(real_reads, "_READ", {})
    order: list[str] = []
    monkeypatch.setattr(real_reads, "_read", lambda folder, name: order.append(name) or (name, []))
    for name in ("a.png", "b.png"):
        (tmp_path / name).write_bytes(name.encode())
    lock = real_reads.cache_path(tmp_path, "a.png").with_suffix(".lock")
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as held:  # another worker is reading a.png now
        fcntl.flock(held, fcntl.LOCK_EX)
        warming = threading.Thread(target=real_reads.warm, args=([(tmp_path, "a.png"), (tmp_path, "b.png")],))
        warming.start()
        deadline = time.monotonic() + 5
        while order != ["b.png"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert order == ["b.png"] and warming.is_alive()  # b read first, then it waits on a
    warming.join(timeout=5)  # the other worker let go (the lock closed) without writing a: read here
    assert not warming.is_alive() and order == ["b.png", "a.png"]
