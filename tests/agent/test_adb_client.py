"""The adbutils adapter: the one private hook it overrides must still be the one adbutils calls.

If adbutils renames `AdbConnection._safe_connect` or stops calling it, NoDaemonClient would start
an adb daemon behind the user's back again; these tests fail loudly then (update lluma_agent/device/adb_client.py).
"""

from __future__ import annotations

from pathlib import Path

import adbutils
import pytest

from lluma_agent.device.adb_client import NoDaemonClient
from lluma_sim.adb.server import AdbServer


@pytest.fixture
def fake_adb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An `adb` executable that only records that someone ran it (adbutils runs `adb start-server`)."""
    marker = tmp_path / "adb-was-started"
    exe = tmp_path / "adb"
    exe.write_text(f"#!/bin/sh\necho \"$@\" >> {marker}\n")
    exe.chmod(0o755)
    monkeypatch.setenv("ADBUTILS_ADB_PATH", str(exe))
    return marker


def test_an_unreachable_server_is_an_error_and_no_daemon_is_started(fake_adb: Path, free_port: int) -> None:
    # Control: plain adbutils does start a daemon here; that is what the adapter exists to prevent.
    with pytest.raises(adbutils.AdbError):
        adbutils.AdbClient("127.0.0.1", free_port).server_version()
    assert fake_adb.read_text().split() == ["start-server"]
    fake_adb.unlink()

    with pytest.raises(adbutils.AdbError, match="connect to adb server failed"):
        NoDaemonClient("127.0.0.1", free_port, timeout=2.0).server_version()
    assert not fake_adb.exists(), "NoDaemonClient ran `adb start-server`: adbutils changed the hook it overrides"


def test_the_client_talks_to_a_server_with_its_timeout() -> None:
    with AdbServer() as server:
        server.add_device("sim-0")
        client = NoDaemonClient("127.0.0.1", server.port, timeout=7.5)
        assert client.server_version() == 41
        assert [(d.serial, d.state) for d in client.list()] == [("sim-0", "device")]
        conn = client.make_connection()
        try:
            assert conn.conn.gettimeout() == 7.5
        finally:
            conn.close()
