"""vision.backend "truth" over adb (lluma_sim/truth_over_adb.py, lluma_agent/device/truth.py): a simulated phone
answers `lluma-truth` with the reading the demo's truth vision makes of the same frame; a phone without the command
stops the run at its start with one line; `lluma run` against `lluma sim phone` plays on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lluma_agent.config import ConfigError
from lluma_agent.device.android import Device
from lluma_agent.device.truth import PhoneTruth
from lluma_agent.runlog.turnlog import read_turns
from lluma_sim.adb.server import AdbServer
from lluma_sim.truth_over_adb import serve_truth
from lluma_sim.truth_vision import TruthVision

SERIAL = "sim-0"  # the adb_server fixture's one phone (tests/conftest.py)


def test_the_phone_reads_its_frame_as_the_demos_truth_vision(adb_server: AdbServer, device: Device) -> None:
    dev = adb_server.device(SERIAL)
    serve_truth(dev)
    reader = PhoneTruth(device)
    reader.check()
    for _ in range(3):  # the home screen, then the career's first screen
        frame = device.capture()
        asked = reader.analyze(frame.image, frame.phash)
        local = TruthVision(dev.game.truth).analyze(frame.image, frame.phash)  # type: ignore[attr-defined]
        assert asked.model_copy(update={"elapsed_ms": 0}) == local.model_copy(update={"elapsed_ms": 0})
        assert asked.backend == "truth" and asked.buttons and asked.screen_hash == frame.phash
        career = next((b for b in asked.buttons if b.name == "Career"), asked.buttons[0])
        device.tap(career.bounds)


def test_a_phone_without_the_command_stops_the_run_before_its_first_turn(device: Device) -> None:
    with pytest.raises(ConfigError, match=r"vision.backend 'truth' reads a simulated phone's own truth"):
        PhoneTruth(device).check()


def test_lluma_run_plays_on_the_sim_phones_truth(tmp_path: Path) -> None:
    """The process path: `lluma sim phone` serves it, `lluma run` told LLUMA_VISION__BACKEND=truth plays on it."""
    from lluma_sim.api.server import ApiServer

    phone = subprocess.Popen([sys.executable, "-m", "lluma_cli", "sim", "phone", "--port", "0"],
                             stdout=subprocess.PIPE, text=True)
    try:
        assert phone.stdout is not None
        port = phone.stdout.readline().split("127.0.0.1:", 1)[1].split(",", 1)[0]
        with ApiServer() as api:
            env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-offline", "LLUMA_DEVICE__ADB_PORT": port,
                   "LLUMA_DEVICE__SERIAL": "sim-0", "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05",
                   "LLUMA_MODEL__BASE_URL": api.base_url, "LLUMA_VISION__BACKEND": "truth",
                   "LLUMA_LOGS__DIR": str(tmp_path / "logs"), "LLUMA_MEMORY__DIR": str(tmp_path / "memory"),
                   "LLUMA_RUN__MAX_TURNS": "4"}
            run = subprocess.run([sys.executable, "-m", "lluma_cli", "run"], env=env, cwd=tmp_path,
                                 capture_output=True, text=True, timeout=300)
    finally:
        phone.terminate()
        phone.wait(timeout=30)
    assert run.returncode == 0, run.stderr[-2000:]
    (folder,) = [p for p in (tmp_path / "logs").iterdir() if p.is_dir()]
    turns = read_turns(folder)
    assert len(turns) == 4 and all(t.vision is not None and t.vision.backend == "truth" for t in turns)
    assert any(t.action is not None for t in turns)
    assert json.loads((folder / "run.json").read_text())["stop_kind"] == "max_turns"
