"""Shared fixtures: a fake adb server with real SimGames on loopback, and the real `adb` client."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# Never let adbutils start a real adb daemon when something does not answer: fail fast instead.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"

# Parallel workers (`-n 3`) read with one OCR thread each: onnxruntime's default (a thread per core) in each worker
# made them contend for the cores (lluma_vision/config.py, THREADS_ENV, has the figures). Subprocesses inherit it.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("LLUMA_OCR_THREADS", "1")


def pytest_configure(config: pytest.Config) -> None:
    """One folder of OCR reads for the session (lluma_vision/pixels/kept_on_disk.py), made by the controller before
    its workers start, so they and every `lluma` process they run share it: the careers of many modules pass the
    same home, setup and hub screens, and a frame detected or a line recognised once is not read again. The reading
    is the same with it (tests/vision/test_ocr_recognised.py). A folder set outside (LLUMA_OCR_CACHE) is kept."""
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get(CACHE_ENV):
        return
    folder = tempfile.mkdtemp(prefix="lluma-ocr-")
    os.environ[CACHE_ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))

# Property tests draw the same examples on every run (a CI result does not depend on luck);
# HYPOTHESIS_PROFILE=explore draws fresh ones, to hunt for new failures.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

from lluma_agent.config import DeviceConfig  # noqa: E402
from lluma_agent.device.android import Device  # noqa: E402
from lluma_sim.adb.server import AdbServer  # noqa: E402
from lluma_vision.pixels.kept_on_disk import CACHE_ENV  # noqa: E402

SERIAL = "sim-0"


@pytest.fixture
def adb_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[AdbServer]:
    """A running fake adb server on an ephemeral loopback port with one device, "sim-0".

    ANDROID_ADB_SERVER_HOST/PORT point at it, so any `adbutils.AdbClient()` built in the test
    (and the real `adb` client) talks to it.
    """
    with AdbServer() as server:
        server.add_device(SERIAL)
        monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        yield server


@pytest.fixture
def device_cfg(adb_server: AdbServer) -> DeviceConfig:
    """Device settings for the fixture server, with fast reconnects so fault tests stay quick."""
    return DeviceConfig(
        adb_port=adb_server.port,
        serial=SERIAL,
        command_timeout_s=5.0,
        reconnect_attempts=3,
        reconnect_backoff_s=0.01,
        settle_interval_s=0.0,
        settle_timeout_s=5.0,
        swipe_ms=60,
        swipe_hold_ms=40,
    )


@pytest.fixture
def device(device_cfg: DeviceConfig) -> Device:
    d = Device(device_cfg, seed=7)
    d.connect()
    return d


@pytest.fixture
def free_port() -> int:
    """A loopback port with nothing listening on it (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def adb_exe() -> str:
    """The real adb client. Missing adb FAILS the test (no skip): `make adb` (part of `make test`) installs it."""
    path = shutil.which("adb")
    if path is None:
        pytest.fail("the real `adb` client is not on PATH: run `make adb` (apt package `adb`)")
    return path


@pytest.fixture
def adb(adb_server: AdbServer, adb_exe: str):
    """Run the real adb client against the fixture server: adb("-s", "sim-0", "shell", "wm", "size")."""

    def run(*args: str, timeout: float = 20) -> subprocess.CompletedProcess[bytes]:
        cmd = [adb_exe, "-H", "127.0.0.1", "-P", str(adb_server.port), *args]
        return subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)

    return run


E2E = Path(__file__).parent / "e2e"


def cost(item: pytest.Item) -> float:
    """A test module's worker seconds in a full suite, as its `cost(seconds=N)` marker says (0 without one)."""
    return max((float(m.kwargs.get("seconds", 0)) for m in item.iter_markers("cost")), default=0.0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The markers of pyproject's [tool.pytest.ini_options]: every test under tests/e2e is `e2e`; `ocr` is set where
    the test reads frames with the OCR; `slow` is every e2e or ocr test, so `-m "not slow"` is the quick part.

    Then the modules that cost the most go first (the order is stable otherwise). The workers take modules
    in this order (Makefile: `--dist loadscope --no-loadscope-reorder`), so the longest start at once and the short
    ones fill in around them: xdist's own order (most tests first) left the one-test night and the hard demo for
    last, each holding one worker alone for the suite's last six minutes."""
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
        if item.get_closest_marker("e2e") or item.get_closest_marker("ocr"):
            item.add_marker(pytest.mark.slow)
    seconds: dict[Path, float] = {}
    for item in items:
        seconds[item.path] = max(seconds.get(item.path, 0.0), cost(item))
    items.sort(key=lambda item: -seconds[item.path])  # stable: a module's own tests keep their order


CPU_ENV = "LLUMA_TEST_CPU"  # a file: each test's CPU seconds (its process and the processes it waited for) appended


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With LLUMA_TEST_CPU=FILE, a line per test: its node id and the CPU seconds it cost (setup, call, teardown;
    threads of the worker and the subprocesses it reaped), so the suite's time is read as CPU, which the two cores'
    load does not change much, unlike the wall times of `--durations`."""
    path = os.environ.get(CPU_ENV)
    if not path:
        yield
        return
    import json
    import resource

    def used() -> float:
        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    start = used()
    yield
    line = json.dumps({"test": item.nodeid, "cpu_s": round(used() - start, 2)})
    with open(path, "a", encoding="utf-8") as f:  # one short line a write: appends of workers do not interleave
        f.write(line + "\n")
