"""The game as an app over adb: GameApp on the real Device (adbutils) against the simulated phone's adb server, and
`lluma doctor`'s check that game.package is installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lluma_agent.config import GameConfig
from lluma_agent.device.android import Device
from lluma_agent.device.app import GameApp
from lluma_cli import doctor
from lluma_sim.adb.server import AdbServer

PKG = "com.cygames.umamusume"
ACT = "jp.co.cygames.umamusume_activity.UmamusumeActivity"


def test_the_simulated_game_is_in_front_stops_and_starts_again(device: Device) -> None:
    app = GameApp(device, GameConfig())
    assert app.installed() and app.in_foreground()
    app.stop()
    focus = app.focus()
    assert not focus.shows(PKG) and focus.app == "com.google.android.apps.nexuslauncher"
    started = app.start()
    assert started.ok and "Events injected: 1" in started.output and app.in_foreground()


def test_am_start_with_the_activity_and_a_wrong_one(device: Device) -> None:
    app = GameApp(device, GameConfig(activity=ACT))
    app.stop()
    started = app.start()
    assert started.ok and started.command == f"am start -n {PKG}/{ACT}" and app.in_foreground()
    wrong = GameApp(device, GameConfig(activity="jp.co.cygames.NoSuchActivity")).start()
    assert not wrong.ok and "does not exist" in wrong.output


def test_a_package_not_installed_cannot_start(device: Device) -> None:
    app = GameApp(device, GameConfig(package="jp.co.cygames.umamusume"))
    assert not app.installed() and not app.in_foreground()
    started = app.start()
    assert not started.ok and "monkey aborted" in started.output


def test_a_stop_from_outside_with_the_real_adb_client_is_seen(adb_server: AdbServer, device: Device,
                                                              adb_exe: str) -> None:
    app = GameApp(device, GameConfig())
    assert app.in_foreground()
    subprocess.run([adb_exe, "-H", "127.0.0.1", "-P", str(adb_server.port), "-s", "sim-0", "shell", "am",
                    "force-stop", PKG], check=True, timeout=30, capture_output=True)
    assert not app.in_foreground()


def test_the_foreground_check_is_one_cheap_command(device: Device, monkeypatch: pytest.MonkeyPatch) -> None:
    """It runs every turn: one `dumpsys window` a check, nothing else (its cost, measured, is in GameApp.focus).
    Counted, not timed: a loaded machine cannot fail it and a slow command cannot hide in it."""
    app = GameApp(device, GameConfig())
    sent: list[str] = []
    shell = device.shell

    def counted(command: str, what: str = "shell") -> tuple[str, str, int | None]:
        sent.append(command)
        return shell(command, what)

    monkeypatch.setattr(device, "shell", counted)
    for _ in range(20):
        assert app.in_foreground()
    assert sent == ["dumpsys window"] * 20


def _config(tmp_path: Path, port: int, package: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(f"device:\n  adb_port: {port}\n  command_timeout_s: 3\ngame:\n  package: {package}\n"
                    f"memory:\n  dir: {tmp_path / 'memory'}\nlogs:\n  dir: {tmp_path / 'logs'}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("package", [PKG, "jp.co.cygames.umamusume"])
def test_doctor_checks_that_the_game_is_installed(tmp_path: Path, adb_server: AdbServer, package: str,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(doctor, "check_ocr", lambda cfg: doctor.Check("ocr", "ok", "not loaded in this test"))
    code = doctor.main(["--config", str(_config(tmp_path, adb_server.port, package)), "--json"])
    game = next(c for c in json.loads(capsys.readouterr().out) if c["name"] == "game")
    if package == PKG:
        assert game["status"] == "ok" and game["detail"] == f"{PKG} (game.package) is installed on sim-0"
    else:
        assert code == 1 and game["status"] == "fail"
        assert game["detail"] == f"jp.co.cygames.umamusume (game.package) is not installed on sim-0; installed: {PKG}"
        assert "Global com.cygames.umamusume" in game["fix"] and "Korea com.kakaogames.umamusume" in game["fix"]
