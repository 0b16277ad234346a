"""`lluma sim api` in the foreground: prints the env line, serves the SDK, logs JSON lines, stops on Ctrl+C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anthropic
import pytest


def test_sim_api_runs_in_the_foreground(tmp_path: Path):
    log = tmp_path / "requests.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "lluma_cli",
        "sim",
        "api",
        "--port",
        "0",
        "--fault",
        "0:rate_limit",
        "--retry-after",
        "0.01",
        "--log",
        str(log),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        env_line = lines[1].strip()
        assert env_line.startswith("ANTHROPIC_BASE_URL=http://127.0.0.1:"), lines
        base_url = env_line.split("=", 1)[1]
        client = anthropic.Anthropic(api_key="sk-cli-test", base_url=base_url, max_retries=0, timeout=10)
        with pytest.raises(anthropic.RateLimitError):
            client.messages.create(
                model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
            )
        ok = client.messages.create(
            model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
        assert ok.type == "message"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "#0 429 rate_limit_error" in out and "#1 200 claude-haiku-4-5" in out
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["status"] for e in entries] == [429, 200]
    assert "sk-cli-test" not in log.read_text() and "sk-cli-test" not in out


@pytest.mark.skipif(os.name != "posix", reason="ports")
def test_sim_api_reports_a_busy_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run(
            [sys.executable, "-m", "lluma_cli", "sim", "api", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=20,
        )
    assert r.returncode == 1 and "cannot listen" in r.stderr
