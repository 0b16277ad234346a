"""`lluma run --resume DIR` from a fresh shell goes on on the run's own phone, adb server and API: the run folder keeps
where it played (never the key), a missing key is one line naming its variable, and another serial is refused unless
a person says `--device-changed`. The real path: `lluma sim phone` and `lluma sim api` as processes, `lluma run` as a
person types it, in an environment holding nothing of the first run's settings."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fleet_stand_ins import CLEAN, QUICK
from foreground import foreground

from lluma_agent.runlog.folder import RunFolder

pytestmark = pytest.mark.cost(seconds=40)  # `lluma run` reads the phone's own truth (fleet_stand_ins.QUICK)

KEY = "sk-ant-offline-resume-key"


@pytest.fixture(scope="module")
def stand_ins() -> Iterator[tuple[int, str]]:
    """Two simulated phones (sim-0, sim-1) behind one adb server, and the API stand-in: their port and URL."""
    with foreground("sim", "phone", "--port", "0", "--devices", "2", "--style", "plain") as phone, \
            foreground("sim", "api", "--port", "0", "--quiet") as api:
        assert phone.stdout is not None and api.stdout is not None
        port = int(phone.stdout.readline().split("127.0.0.1:", 1)[1].split(",", 1)[0])
        api.stdout.readline()
        base_url = api.stdout.readline().strip().split("=", 1)[1]
        yield port, base_url


def _lluma(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)  # no config.yaml there: the environment is the whole configuration
    return subprocess.run([sys.executable, "-m", "lluma_cli", *args], cwd=cwd, env={**CLEAN, **QUICK, **env},
                          capture_output=True, text=True, timeout=300)


def _setup(run: Path) -> dict[str, object]:
    return json.loads(RunFolder.at(run).checkpoint.read_text(encoding="utf-8"))["setup"]


@pytest.fixture(scope="module")
def played(stand_ins: tuple[int, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-turn `lluma run` on sim-0, configured only by its environment (as README's offline recipe)."""
    port, base_url = stand_ins
    home = tmp_path_factory.mktemp("where")
    first = _lluma(home / "first", "run", "--max-turns", "2", env={
        "LLUMA_DEVICE__SERIAL": "sim-0", "LLUMA_DEVICE__ADB_PORT": str(port), "LLUMA_MODEL__BASE_URL": base_url,
        "ANTHROPIC_API_KEY": KEY, "LLUMA_MEMORY__DIR": str(home / "memory"), "LLUMA_LOGS__DIR": str(home / "logs")})
    assert first.returncode == 0, first.stderr
    (run,) = (home / "logs").glob("run-*")
    return run


def test_a_fresh_shell_goes_on_on_the_same_phone(played: Path, stand_ins: tuple[int, str]) -> None:
    port, base_url = stand_ins
    setup = _setup(played)
    assert setup["serial"] == "sim-0" and setup["adb_port"] == port and setup["base_url"] == base_url
    assert not [p for p in played.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]  # never the key

    elsewhere = played.parent.parent / "elsewhere"
    no_key = _lluma(elsewhere, "run", "--resume", str(played), "--max-turns", "1", env={})
    assert no_key.returncode == 2 and no_key.stderr.count("\n") == 1, no_key.stderr
    assert no_key.stderr.startswith(f"lluma run: no API key: set ANTHROPIC_API_KEY to go on with the run in {played}")
    assert "never the key" in no_key.stderr

    other = _lluma(elsewhere, "run", "--resume", str(played), "--max-turns", "1",
                   env={"ANTHROPIC_API_KEY": KEY, "LLUMA_DEVICE__SERIAL": "sim-1"})
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert (f"the run in {played} played on device sim-0, and LLUMA_DEVICE__SERIAL asks for sim-1: add "
            "--device-changed to go on on sim-1") in other.stderr
    assert sorted(p.name for p in played.glob("turn_*.json")) == ["turn_000001.json", "turn_000002.json"]

    same = _lluma(elsewhere, "run", "--resume", str(played), "--max-turns", "1", env={"ANTHROPIC_API_KEY": KEY})
    assert same.returncode == 0, same.stderr
    assert (f"going on with device sim-0, adb server 127.0.0.1:{port}, API {base_url}, memory "
            f"{played.parent.parent / 'memory'}, as the run left them") in same.stderr
    assert "(max_turns (1 more) reached)" in same.stdout  # the sitting's own number, not the run's 3
    assert (played / "turn_000003.json").is_file() and _setup(played)["serial"] == "sim-0"


def test_another_phone_only_when_a_person_says_so(played: Path) -> None:
    moved = _lluma(played.parent.parent / "elsewhere", "run", "--resume", str(played), "--max-turns", "1",
                   "--device-changed", env={"ANTHROPIC_API_KEY": KEY, "LLUMA_DEVICE__SERIAL": "sim-1"})
    assert moved.returncode == 0, moved.stderr
    assert "going on with device" not in moved.stderr  # the serial told is the one it plays on
    assert _setup(played)["serial"] == "sim-1"  # the run plays there from now on: its next resume goes on on sim-1
