"""`lluma sim phone` and `lluma sim api` stop on SIGTERM as on Ctrl+C: a service manager or `kill` gets the same
clean shutdown (exit 0, the port closed, the request log complete)."""

from __future__ import annotations

import json
import signal
import socket
import sys
from pathlib import Path

import anthropic
import pytest
from foreground import foreground, stop

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _refused(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def test_sim_api_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with foreground("sim", "api", "--port", "0", "--log", str(log)) as proc:
        assert proc.stdout is not None
        proc.stdout.readline()
        base_url = proc.stdout.readline().strip().split("=", 1)[1]
        client = anthropic.Anthropic(api_key="sk-term-test", base_url=base_url, max_retries=0, timeout=10)
        client.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}])
        _out, err = stop(proc, signal.SIGTERM)
    assert "stopping" in err and "Traceback" not in err
    assert _refused(int(base_url.rsplit(":", 1)[1]))
    assert [json.loads(line)["status"] for line in log.read_text().splitlines()] == [200]


def test_sim_phone_stops_cleanly_on_sigterm() -> None:
    with foreground("sim", "phone", "--port", "0") as proc:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split("127.0.0.1:", 1)[1].split(",", 1)[0])
        for line in proc.stdout:
            if line.startswith("stop:"):
                break
        else:
            pytest.fail("lluma sim phone ended before printing how to stop it")
        assert not _refused(port)
        _out, err = stop(proc, signal.SIGTERM)
    assert "Traceback" not in err
    assert _refused(port)
