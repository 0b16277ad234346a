"""The `sync:` file service (v1): STAT, LIST, RECV (pull), SEND (push) and QUIT.

Each request is a 4-byte id + u32 LE length + path. Files live in `SimDevice.files`;
directories are implied by the paths. Only v1 is spoken because the server advertises no
`stat_v2`/`ls_v2`, which is what makes the real client stay on v1.
"""

from __future__ import annotations

import socket
import stat
import struct
import time

from lluma_sim.adb.device import SimDevice
from lluma_sim.adb.wire import ProtocolError, recv_exact

SYNC_DATA_MAX = 64 * 1024  # adb's SYNC_DATA_MAX: the largest DATA chunk of `adb push` (AOSP adb/file_sync_protocol.h)
# What the simulated device stores in all (its files live in memory): a push beyond it is answered as a full
# device answers ("No space left on device"), its bytes read and dropped as they come, never held.
DEVICE_STORAGE = 64 * 1024 * 1024
MAX_PATH = 1024
BASE_DIRS = {"/", "/sdcard", "/system", "/data", "/data/local", "/data/local/tmp"}
_STARTED = int(time.time())


def _norm(path: str) -> str:
    return path.rstrip("/") or "/"


def _dirs(dev: SimDevice) -> set[str]:
    out = set(BASE_DIRS)
    for p in dev.files:
        while "/" in p.strip("/"):
            p = p.rsplit("/", 1)[0]
            out.add(p)
    return out


def _stat(dev: SimDevice, path: str) -> tuple[int, int, int]:
    path = _norm(path)
    if path in dev.files:
        return stat.S_IFREG | 0o644, len(dev.files[path]), _STARTED
    if path in _dirs(dev):
        return stat.S_IFDIR | 0o755, 4096, _STARTED
    return 0, 0, 0  # what adbd answers for a missing path


def _list(dev: SimDevice, path: str) -> list[tuple[str, int, int]]:
    base = _norm(path)
    prefix = "/" if base == "/" else base + "/"
    names: dict[str, tuple[int, int]] = {}
    for p in list(dev.files) + sorted(_dirs(dev)):
        if p.startswith(prefix) and p != base:
            child = p[len(prefix) :].split("/", 1)[0]
            m, size, _ = _stat(dev, prefix + child)
            names.setdefault(child, (m, size))
    return [(n, m, s) for n, (m, s) in sorted(names.items())]


def _send_fail(sock: socket.socket, msg: str) -> None:
    data = msg.encode()
    sock.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)


def _recv_file(sock: socket.socket, dev: SimDevice, path: str) -> None:
    data = dev.files.get(_norm(path))
    if data is None:
        _send_fail(sock, "No such file or directory" if path not in _dirs(dev) else "Is a directory")
        return
    out = bytearray()
    for i in range(0, len(data), SYNC_DATA_MAX):
        part = data[i : i + SYNC_DATA_MAX]
        out += b"DATA" + struct.pack("<I", len(part)) + part
    sock.sendall(bytes(out) + b"DONE" + struct.pack("<I", 0))


def _send_file(sock: socket.socket, dev: SimDevice, spec: str) -> None:
    path = spec.rsplit(",", 1)[0]
    free = DEVICE_STORAGE - sum(len(d) for p, d in dev.files.items() if p != _norm(path))
    buf: bytearray | None = bytearray()
    while True:
        kind, size = struct.unpack("<4sI", recv_exact(sock, 8))
        if kind == b"DONE":  # size is the mtime here
            break
        if kind != b"DATA" or size > SYNC_DATA_MAX:
            raise ProtocolError(f"sync SEND: unexpected {kind!r} of {size} bytes")
        data = recv_exact(sock, size)
        if buf is not None and len(buf) + size <= free:
            buf += data
        else:
            buf = None  # the device is full: the rest is read and dropped
    if buf is None:
        _send_fail(sock, f"failed to write {path}: No space left on device")
        return
    dev.files[_norm(path)] = bytes(buf)
    sock.sendall(b"OKAY" + struct.pack("<I", 0))


def serve(sock: socket.socket, dev: SimDevice) -> None:
    """Answer sync requests until QUIT or the client closes."""
    while True:
        head = sock.recv(8, socket.MSG_WAITALL)
        if len(head) < 8:
            return
        kind, size = struct.unpack("<4sI", head)
        if kind == b"QUIT":
            return
        if size > MAX_PATH:
            _send_fail(sock, "path too long")
            return
        path = recv_exact(sock, size).decode("utf-8", "replace")
        if kind == b"STAT":
            sock.sendall(b"STAT" + struct.pack("<III", *_stat(dev, path)))
        elif kind == b"LIST":
            out = bytearray()
            for name, mode, fsize in _list(dev, path):
                raw = name.encode()
                out += b"DENT" + struct.pack("<IIII", mode, fsize, _STARTED, len(raw)) + raw
            sock.sendall(bytes(out) + b"DONE" + bytes(16))
        elif kind == b"RECV":
            _recv_file(sock, dev, path)
        elif kind == b"SEND":
            _send_file(sock, dev, path)
        else:
            _send_fail(sock, f"unknown sync request {kind!r}")
            return
