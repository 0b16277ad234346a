"""The API key is written nowhere: not in turn logs, SQLite, memory, reports, stdout/stderr, error messages or
the stand-in's request dumps. A run with a sentinel key, then every command that reads the run, then a run whose
API is unreachable; every byte written is searched for the key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lluma_sim.adb.server import AdbServer
from lluma_sim.api.faults import FaultSchedule
from lluma_sim.api.server import ApiServer

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=41)]  # reads frames with the OCR (pyproject: markers)

LLUMA = Path(sys.executable).parent / "lluma"
SENTINEL = "sk-ant-api03-SENTINEL7f3a9c1e5b2d8f4a6c0e9b7d5f3a1c8e"
FRAGMENTS = (SENTINEL, SENTINEL[14:40], SENTINEL[-12:])  # also no partial copy long enough to identify it


def _lluma(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(LLUMA), *args], env=env, cwd=cwd, capture_output=True, timeout=600)


def _leaks(blob: bytes) -> list[str]:
    return [f for f in FRAGMENTS if f.encode() in blob]


def test_a_sentinel_key_is_written_nowhere(tmp_path: Path) -> None:
    faults = FaultSchedule(at={1: "api_error", 3: "rate_limit"})  # error paths write messages too
    outputs: list[tuple[str, bytes]] = []
    with AdbServer() as adb, ApiServer(faults=faults, keep_bodies=True) as api:
        adb.add_device("sim-0")
        env = {
            **os.environ,
            "ADBUTILS_ADB_PATH": "/bin/false",
            "ANTHROPIC_API_KEY": SENTINEL,
            "LLUMA_DEVICE__ADB_PORT": str(adb.port),
            "LLUMA_DEVICE__SERIAL": "sim-0",
            "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05",
            "LLUMA_MODEL__BASE_URL": api.base_url,
            "LLUMA_LOGS__DIR": str(tmp_path / "logs"),
            "LLUMA_MEMORY__DIR": str(tmp_path / "memory"),
            "LLUMA_RUN__MAX_TURNS": "4",
        }
        run = _lluma(["run"], env, tmp_path)
        outputs.append(("run", run.stdout + run.stderr))
        assert run.returncode == 0, run.stderr.decode()[-2000:]
        (run_dir,) = [p for p in (tmp_path / "logs").iterdir() if p.is_dir()]
        assert list(run_dir.glob("turn_*.json")), "the run wrote no turn logs"
        for args in (["logs", str(run_dir)], ["logs", str(run_dir), "--turn", "1"], ["stats", str(run_dir), "--json"],
                     ["report", str(run_dir), "-o", str(tmp_path / "report.html")], ["doctor"], ["memory"]):
            done = _lluma(args, env, tmp_path)
            outputs.append((" ".join(args), done.stdout + done.stderr))
        dumps = "\n".join(entry.model_dump_json() for entry in api.log)
    outputs.append(("stand-in request log", dumps.encode()))
    # The API is gone: the error messages of a failing run must not carry the key either.
    dead = {**env, "LLUMA_MODEL__BASE_URL": "http://127.0.0.1:9", "LLUMA_RUN__MAX_TURNS": "1",
            "LLUMA_LOGS__DIR": str(tmp_path / "logs-dead")}
    failed = _lluma(["run"], dead, tmp_path)
    outputs.append(("run without API", failed.stdout + failed.stderr))

    leaks = [(name, _leaks(blob)) for name, blob in outputs if _leaks(blob)]
    leaks += [(str(p), _leaks(p.read_bytes())) for p in tmp_path.rglob("*") if p.is_file() and _leaks(p.read_bytes())]
    assert leaks == []
    assert (tmp_path / "report.html").exists()
