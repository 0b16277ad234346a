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
from foreground import foreground, stop


def test_sim_api_runs_in_the_foreground(tmp_path: Path):
    log = tmp_path / "requests.jsonl"
    with foreground("sim", "api", "--port", "0", "--fault", "0:rate_limit", "--retry-after", "0.01",
                    "--log", str(log)) as proc:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        env_line = lines[1].strip()
        assert env_line.startswith("ANTHROPIC_BASE_URL=http://127.0.0.1:"), lines
        base_url = env_line.split("=", 1)[1]
        run_line = proc.stdout.readline()  # the settings `lluma run` needs against it
        assert f"LLUMA_MODEL__BASE_URL={base_url} ANTHROPIC_API_KEY=" in run_line and "BACKEND=ocr" in run_line
        client = anthropic.Anthropic(api_key="sk-cli-test", base_url=base_url, max_retries=0, timeout=10)
        with pytest.raises(anthropic.RateLimitError):
            client.messages.create(
                model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
            )
        ok = client.messages.create(
            model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
        assert ok.type == "message"
        out, _err = stop(proc, signal.SIGINT)
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


def test_done_check_haiku_5_5_against_lluma_sim_api():
    """Issue 12's check: against `lluma sim api`, Haiku 5.5 rejects a thinking budget and temperature, returns a
    thinking block, accepts a replay with the same prefix, rejects one whose system prompt changed, and accepts
    it with drop_block and the beta header."""
    with foreground("sim", "api", "--port", "0", "--quiet") as proc:
        base_url = [proc.stdout.readline(), proc.stdout.readline()][1].strip().split("=", 1)[1]
        client = anthropic.Anthropic(api_key="sk-done-check", base_url=base_url, max_retries=0, timeout=10)
        system = [{"type": "text", "text": "You play a training game. Answer briefly."}]
        user = {"role": "user", "content": "Energy is 40/100. Rest or train?"}

        def create(**kw):
            return client.messages.create(**{"model": "claude-haiku-5-5", "max_tokens": 2048, **kw})

        with pytest.raises(anthropic.BadRequestError, match="budget_tokens"):
            create(system=system, messages=[user], thinking={"type": "enabled", "budget_tokens": 1024})
        with pytest.raises(anthropic.BadRequestError, match="temperature"):
            create(system=system, messages=[user], extra_body={"temperature": 0.3})
        first = create(system=system, messages=[user])
        assert first.content[0].type == "thinking" and first.content[0].signature
        replay = [
            user,
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
            {"role": "user", "content": "And now?"},
        ]
        assert create(system=system, messages=replay).type == "message"
        changed = [{"type": "text", "text": "You play a training game. Memory: plan.md changed."}]
        with pytest.raises(anthropic.BadRequestError, match="bound to a different conversation"):
            create(system=changed, messages=replay)
        dropped = create(
            system=changed,
            messages=replay,
            thinking={"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}},
            extra_headers={"anthropic-beta": "thinking-binding-controls-2026-08-01"},
        )
        assert (dropped.model_extra or {})["input_transformations"][0]["path"] == "messages.1.content.0"
        stop(proc, signal.SIGINT)
