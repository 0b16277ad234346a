"""Byte-level framing of the adb host protocol, shared by the fake server's services.

Requests are 4 hex digits of length then the payload; replies are `OKAY` or `FAIL` + a
length-prefixed message. Shell protocol v2 packets are an id byte + u32 LE length + data.
"""

from __future__ import annotations

import socket
import struct

OKAY = b"OKAY"
FAIL = b"FAIL"
MAX_REQUEST = 64 * 1024  # the real server caps requests far lower; anything above is garbage

# Shell protocol v2 packet ids (adb's shell_protocol.h).
V2_STDIN, V2_STDOUT, V2_STDERR, V2_EXIT, V2_CLOSE_STDIN, V2_WINDOW = 0, 1, 2, 3, 4, 5
V2_CHUNK = 256 * 1024


class ProtocolError(Exception):
    """The peer sent something that is not the adb protocol; the connection is dropped."""


def recv_exact(sock: socket.socket, n: int) -> bytes:
    """Read exactly n bytes; EOFError if the peer closes first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError(f"peer closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def read_request(sock: socket.socket) -> str | None:
    """One length-prefixed request, or None when the peer closed cleanly before sending one."""
    head = sock.recv(4, socket.MSG_WAITALL)
    if not head:
        return None
    if len(head) < 4:
        raise ProtocolError(f"short request header {head!r}")
    try:
        size = int(head.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError(f"bad request length {head!r}") from None
    if size > MAX_REQUEST:
        raise ProtocolError(f"request of {size} bytes")
    try:
        return recv_exact(sock, size).decode("utf-8")
    except (EOFError, UnicodeDecodeError) as exc:
        raise ProtocolError(str(exc)) from None


def length_prefixed(text: str | bytes) -> bytes:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return b"%04x" % len(data) + data


def okay(sock: socket.socket, payload: str | None = None) -> None:
    sock.sendall(OKAY + (length_prefixed(payload) if payload is not None else b""))


def fail(sock: socket.socket, message: str) -> None:
    sock.sendall(FAIL + length_prefixed(message))


def v2_packets(kind: int, data: bytes) -> bytes:
    """Shell v2 framing of `data`, split like adbd does so no packet is huge."""
    out = bytearray()
    for i in range(0, len(data), V2_CHUNK):
        part = data[i : i + V2_CHUNK]
        out += struct.pack("<BI", kind, len(part)) + part
    return bytes(out)


def v2_exit(code: int) -> bytes:
    return struct.pack("<BIB", V2_EXIT, 1, code & 0xFF)


def close_gracefully(sock: socket.socket, drain_s: float = 2.0) -> None:
    """Half-close, then read what the client still sends (stdin packets, QUIT) until it closes.

    Closing with unread bytes in the receive buffer makes the kernel send RST, and a client
    that has not read our last bytes yet may lose them; draining first avoids that.
    """
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(drain_s)
        while sock.recv(65536):
            pass
    except OSError:
        pass
    finally:
        sock.close()


def abort(sock: socket.socket) -> None:
    """Close with RST, like a transport that vanished (the client sees a connection reset)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()
