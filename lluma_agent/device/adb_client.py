"""The one place lluma reaches into adbutils internals: a client that never starts an adb daemon.

adbutils' `AdbConnection` runs `adb start-server` when nothing answers at host:port (its private
`_safe_connect`). We want a missing server to be a clear error naming host:port instead (`lluma run`
and `lluma doctor` say so; nothing starts behind the user's back). adbutils has no public switch for
it, so our connection overrides that one hook. tests/agent/test_adb_client.py fails loudly if adbutils
renames the hook or stops calling it; everything else here is adbutils' public API.
"""

from __future__ import annotations

import socket

import adbutils
from adbutils import AdbConnection


class _NoDaemonConnection(AdbConnection):
    def _safe_connect(self) -> socket.socket:
        return self._create_socket()  # connect, or raise AdbConnectionError / AdbTimeout


class NoDaemonClient(adbutils.AdbClient):
    """adbutils' client, except that an unreachable server is an error instead of a spawned daemon."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        super().__init__(host, port, socket_timeout=timeout)
        self.timeout = timeout

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        conn = _NoDaemonConnection(self.host, self.port)
        conn.conn.settimeout(timeout or self.timeout)
        return conn
