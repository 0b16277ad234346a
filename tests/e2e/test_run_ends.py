"""Every run ends by itself (issue 23): `lluma run` against an API that never answers stops with exit 1
within `--max-turns`, on the simulated phone over real adb and a real (closed) loopback port."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from lluma_cli import run
from lluma_sim.adb.server import AdbServer
from lluma_sim.game import SimGame

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed once the block ends: every connection is refused


def test_a_run_whose_api_never_answers_ends_with_exit_1_within_max_turns(tmp_path: Path, monkeypatch, capsys) -> None:
    with AdbServer() as adb:
        adb.add_device("emulator-5554", SimGame(seed=3))
        env = {
            "ANTHROPIC_API_KEY": "sk-ant-test", "LLUMA_DEVICE__SERIAL": "emulator-5554",
            "LLUMA_DEVICE__ADB_PORT": str(adb.port), "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05",
            "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "1", "LLUMA_MODEL__BASE_URL": f"http://127.0.0.1:{_closed_port()}",
            "LLUMA_MODEL__RETRY_WINDOW_S": "1", "LLUMA_VISION__BACKEND": "ocr",
            "LLUMA_LOGS__DIR": str(tmp_path / "logs"), "LLUMA_MEMORY__DIR": str(tmp_path / "memory"),
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(tmp_path)
        assert run.main(["--max-turns", "3"]) == 1
    err = capsys.readouterr().err
    assert "lluma run: max_turns (3) reached without one answer from the model API: cannot reach the API" in err
    [folder] = (tmp_path / "logs").glob("run-*")
    assert len(list(folder.glob("turn_*.json"))) == 3
    summary = json.loads((folder / "run.json").read_text())
    assert summary["stop_kind"] == "model" and summary["turns"] == 3


def test_an_unreachable_device_exits_1_as_the_readme_says(tmp_path: Path, monkeypatch, capsys) -> None:
    for key, value in {"ANTHROPIC_API_KEY": "sk-ant-test", "LLUMA_DEVICE__ADB_PORT": str(_closed_port()),
                       "LLUMA_LOGS__DIR": str(tmp_path / "logs"), "LLUMA_VISION__BACKEND": "ocr"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    assert run.main([]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("lluma run: no adb server answers at 127.0.0.1:")
    assert not list((tmp_path / "logs").glob("run-*"))  # a failed start leaves no empty run folder
