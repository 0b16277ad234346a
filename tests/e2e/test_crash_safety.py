"""A demo killed with SIGKILL at random moments leaves every turn log parseable, SQLite intact and memory whole."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from lluma_agent.runlog.turnlog import TurnLog

LLUMA = Path(sys.executable).parent / "lluma"


def _start_demo(logs: Path, seed: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"}
    env.pop("ANTHROPIC_API_KEY", None)
    cmd = [str(LLUMA), "demo", "--turns", "200", "--seed", str(seed), "--logs", str(logs), "--json", "--truth-vision"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_for_turns(logs: Path, n: int, proc: subprocess.Popen[bytes], timeout_s: float = 240) -> None:
    deadline = time.monotonic() + timeout_s
    while len(list(logs.glob("turn_*.json"))) < n:
        assert proc.poll() is None, "the demo ended before it was killed"
        assert time.monotonic() < deadline, f"no {n} turns within {timeout_s} s"
        time.sleep(0.05)


def _check_consistent(logs: Path) -> int:
    turn_files = sorted(logs.glob("turn_*.json"))
    for path in turn_files:
        TurnLog.model_validate_json(path.read_text(encoding="utf-8"))  # whole and valid, or this raises
    db = sqlite3.connect(logs / "turns.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = {r[0] for r in db.execute("SELECT log FROM turns")}
    finally:
        db.close()
    # The JSON is written first, then its row: only the newest turn may lack its row (killed in between).
    assert not {p.name for p in turn_files[:-1]} - rows
    memory = logs / "memory"
    for path in memory.iterdir() if memory.is_dir() else []:
        if path.name.startswith("."):
            continue  # a temp file of the write in flight: removed at the next start
        text = path.read_bytes().decode("utf-8")
        if path.suffix in (".yaml", ".yml"):
            yaml.safe_load(text)
    return len(turn_files)


def test_sigkill_at_random_moments_leaves_logs_sqlite_and_memory_whole(tmp_path: Path) -> None:
    rng = random.Random(20261123)
    for kill in range(3):
        logs = tmp_path / f"run{kill}"
        proc = _start_demo(logs, seed=kill)
        try:
            _wait_for_turns(logs, rng.randint(2, 6), proc)
            time.sleep(rng.uniform(0.0, 1.5))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGKILL
        assert _check_consistent(logs) >= 2


def test_a_new_logger_removes_stale_temp_files(tmp_path: Path) -> None:
    from lluma_agent.runlog.turnlog import TurnLogger

    (tmp_path / "screens").mkdir()
    (tmp_path / ".turn_000003.json.x1y2.tmp").write_text(json.dumps({"half": True})[:5])
    (tmp_path / "screens" / ".turn_000003.jpg.a.tmp").write_bytes(b"\xff\xd8")
    TurnLogger(tmp_path).close()
    assert not list(tmp_path.rglob("*.tmp"))
