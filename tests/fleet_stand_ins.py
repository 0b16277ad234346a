"""Two simulated phones behind one adb server and one Messages API stand-in, as processes (`lluma sim phone`,
`lluma sim api`), and the environment a fleet reads them from: what tests/e2e/test_fleet*.py share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from foreground import foreground

from lluma_agent.runlog.folder import RunFolder

KEY = "sk-ant-offline-fleet-key"
# What any shell has, and what the suite sets for every process (one OCR thread, no real adb): no LLUMA_* setting.
CLEAN = {k: v for k, v in os.environ.items()
         if k in ("PATH", "HOME", "LANG", "LLUMA_OCR_THREADS", "ADBUTILS_ADB_PATH") or k.startswith("MALLOC_")}
# The settle waits of the demo's wiring (a simulated screen settles at once), and the phone's own reading of its frames
# (vision.backend truth, lluma_sim/truth_over_adb.py): a fleet's and a resume's subject is not the reading, which cost
# three quarters of these modules' CPU with the OCR (test_fleet: 188 CPU-s). Speed, not where the run plays.
QUICK = {"LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05", "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "2",
         "LLUMA_VISION__BACKEND": "truth"}
CAREER_TURNS = "1"  # a career of one game turn: about 10 agent turns from the home screen to its results


@contextmanager
def stand_ins() -> Iterator[dict[str, str]]:
    """The phones (sim-0, sim-1) and the API: the environment that points a fleet at them."""
    with foreground("sim", "phone", "--port", "0", "--devices", "2", "--style", "plain",
                    "--career-turns", CAREER_TURNS) as phone, foreground("sim", "api", "--port", "0", "--quiet") as api:
        assert phone.stdout is not None and api.stdout is not None
        port = phone.stdout.readline().split("127.0.0.1:", 1)[1].split(",", 1)[0]
        api.stdout.readline()
        base_url = api.stdout.readline().strip().split("=", 1)[1]
        yield {**CLEAN, **QUICK, "LLUMA_OCR_THREADS": "1", "ANTHROPIC_API_KEY": KEY,
               "LLUMA_DEVICE__ADB_PORT": port, "LLUMA_MODEL__BASE_URL": base_url}


def lluma(cwd: Path, *args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(exist_ok=True)  # no config.yaml there: the environment is the whole configuration
    return subprocess.run([sys.executable, "-m", "lluma_cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def checkpointed(run: Path) -> int:
    """The last turn the device's run folder has a checkpoint of (0: none yet)."""
    try:
        return int(json.loads(RunFolder.at(run).checkpoint.read_text())["turn"])
    except (OSError, ValueError, KeyError):
        return 0


def await_turn(proc: subprocess.Popen[str], runs: list[Path], turn: int, within: float) -> int:
    """Wait until every run folder has a checkpoint of `turn` (the fleet still running, within `within` seconds);
    the least turn checkpointed then."""
    deadline = time.monotonic() + within
    while (least := min(checkpointed(r) for r in runs)) < turn:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.1)
    return least


def first_steps(fleet: Path) -> list[int]:
    """The shared map's counts of the first step of a career from the home screen (each phone takes it once)."""
    shared = json.loads((fleet / "shared" / "memory.map.json").read_text())
    names = {k: v["name"] for k, v in shared["screens"].items()}
    return [t["count"] for t in shared["transitions"]
            if names[t["src"]] == "Home" and t["action"] == "pressButton:Career"]
