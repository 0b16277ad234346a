"""A long run's resident memory: frames of several MB freed each turn go back to the system (lluma_agent/heap.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lluma_agent import heap

# A turn's pattern, small: an 8 MB frame freed once (glibc then raises its mmap threshold), then frames made and
# freed on threads, with small objects kept between them (the loop's logs, readings) so the heap cannot shrink.
CHURN = textwrap.dedent("""
    import json, sys, threading
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from lluma_agent import heap

    def rss():
        return next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines()
                    if l.startswith("VmRSS:")) / 1024

    fixed = heap.return_freed_frames() if sys.argv[1] == "fixed" else None
    first = bytearray(8 << 20)
    del first
    kept = []

    def turns():
        for _ in range(12):
            frames = [bytearray(8 << 20) for _ in range(3)]
            kept.append(bytearray(4096))
            del frames

    before = rss()
    for _ in range(2):
        t = threading.Thread(target=turns)
        t.start()
        t.join()
    print(json.dumps({{"fixed": fixed, "grew_mb": rss() - before}}))
""")


def _grew(mode: str) -> dict[str, object]:
    root = str(heap.__file__).rsplit("/lluma_agent/", 1)[0]
    out = subprocess.run([sys.executable, "-c", CHURN.format(root=root), mode], capture_output=True, text=True,
                         check=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_frames_freed_each_turn_go_back_to_the_system():
    fixed = _grew("fixed")
    assert fixed["fixed"] is True
    assert fixed["grew_mb"] < 8  # no frame stays resident once freed
    assert _grew("default")["grew_mb"] >= 16  # what a night grew by: freed frames kept in glibc's heaps


def test_a_threshold_set_by_the_person_is_left_alone(monkeypatch):
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert heap.return_freed_frames() is False
