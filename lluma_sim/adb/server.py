"""A fake adb server on 127.0.0.1 that adbutils and the real `adb` client talk to unmodified.

Host services: version (41), devices(-l), track-devices, features, get-state/-serialno/-devpath,
connect/disconnect, kill, wait-for-*, transport:S / transport-any/-usb/-local/-id:N and
tport:serial:S / tport:any (8-byte LE transport id after OKAY). On a transport: `shell:`,
`shell,v2,...:` (shell protocol v2), `exec:` and `sync:`. Every device runs its own game.

    with AdbServer() as server:                      # ephemeral port, one device "sim-0"
        server.faults("sim-0").drop_mid_frame = 1    # the next capture is cut off
        adbutils.AdbClient("127.0.0.1", server.port).device("sim-0").shell("wm size")
"""

from __future__ import annotations

import ipaddress
import logging
import re
import select
import socket
import socketserver
import threading
import time
from collections.abc import Callable

from lluma_sim.adb import shell as adb_shell
from lluma_sim.adb import sync as adb_sync
from lluma_sim.adb.device import Faults, Game, SimDevice
from lluma_sim.adb.wire import (
    V2_STDERR,
    V2_STDOUT,
    ProtocolError,
    abort,
    close_gracefully,
    fail,
    length_prefixed,
    okay,
    read_request,
    v2_exit,
    v2_packets,
)

log = logging.getLogger(__name__)

ADB_SERVER_VERSION = 41  # what adb 1.0.41 and adbutils expect; anything else makes them take old paths
FEATURES = "shell_v2,cmd"  # only what is implemented: advertising stat_v2 would make `adb pull` send STA2
DEFAULT_TCP_PORT = 5555  # adbd's port after `adb tcpip` (adb's documentation)
_SERIAL_CMD = re.compile(r"^(?P<serial>.+?):(?P<cmd>get-state|get-serialno|get-devpath|features|wait-for-[a-z-]+)$")

GameFactory = Callable[[str, int], Game]  # (serial, index) -> game


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


class _TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    request_queue_size = 1024  # listen backlog (socketserver's 5 dropped connections in a burst of 500)
    daemon_threads = True
    allow_reuse_address = True
    block_on_close = False
    sim: AdbServer


class _Handler(socketserver.BaseRequestHandler):
    server: _TCPServer

    def handle(self) -> None:
        self.server.sim._serve_connection(self.request)


class AdbServer:
    """The fake adb server. `port=0` picks a free port; only loopback addresses are accepted."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        size: tuple[int, int] = (1080, 1920),
        seed: int = 0,
        game_factory: GameFactory | None = None,
    ) -> None:
        if not _is_loopback(host):
            raise ValueError(f"the simulated adb server only listens on loopback, not {host!r}")
        self.host, self._port, self.size, self.seed = host, port, size, seed
        self._factory = game_factory or self._default_game
        self._devices: dict[str, SimDevice] = {}
        self._lock = threading.RLock()
        self._next_tid = 1
        self._added = 0
        self._tcp: _TCPServer | None = None
        self._conns: set[socket.socket] = set()
        self._stopped = threading.Event()

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> AdbServer:
        tcp = _TCPServer((self.host, self._port), _Handler, bind_and_activate=True)
        tcp.sim = self
        self._tcp, self._port = tcp, tcp.server_address[1]
        self._stopped.clear()
        threading.Thread(target=tcp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        log.info("fake adb server on %s:%d", self.host, self._port)
        return self

    def stop(self) -> None:
        """Stop accepting, close every open connection, release the port. Idempotent."""
        tcp, self._tcp = self._tcp, None
        if tcp is not None:
            tcp.shutdown()
            tcp.server_close()
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._stopped.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until stopped (by stop() or `adb kill-server`); True if it stopped."""
        return self._stopped.wait(timeout)

    def __enter__(self) -> AdbServer:
        return self.start() if self._tcp is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    # ---- devices -------------------------------------------------------------------------

    def _default_game(self, serial: str, index: int) -> Game:
        from lluma_sim.game import SimGame  # imported late: the server is usable with any Game

        return SimGame(seed=self.seed + index, width=self.size[0], height=self.size[1])

    def add_device(self, serial: str, game: Game | None = None) -> SimDevice:
        """Attach a device running `game` (a new SimGame when None)."""
        with self._lock:
            if serial in self._devices:
                raise ValueError(f"device {serial!r} already attached")
            game = game if game is not None else self._factory(serial, self._added)
            self._added += 1
            props = {
                "ro.product.model": "LLuMa_Sim",
                "ro.product.name": "lluma-sim",
                "ro.product.device": "lluma",
                "ro.product.manufacturer": "LLuMa",
                "ro.product.cpu.abi": "arm64-v8a",
                "ro.build.version.sdk": "34",
                "ro.build.version.release": "14",
                "ro.serialno": serial,
                "ro.sf.lcd_density": "420",
            }
            dev = SimDevice(serial=serial, game=game, transport_id=self._next_tid, props=props)
            dev.files["/system/build.prop"] = "".join(f"{k}={v}\n" for k, v in props.items()).encode()
            self._next_tid += 1
            self._devices[serial] = dev
            return dev

    def remove_device(self, serial: str) -> None:
        with self._lock:
            self._devices.pop(serial)

    def device(self, serial: str) -> SimDevice:
        with self._lock:
            try:
                return self._devices[serial]
            except KeyError:
                raise KeyError(f"no simulated device {serial!r} (have {sorted(self._devices)})") from None

    def game(self, serial: str) -> Game:
        return self.device(serial).game

    def faults(self, serial: str) -> Faults:
        return self.device(serial).faults

    @property
    def serials(self) -> list[str]:
        with self._lock:
            return list(self._devices)

    # ---- connections ---------------------------------------------------------------------

    def _serve_connection(self, sock: socket.socket) -> None:
        with self._lock:
            self._conns.add(sock)
        try:
            dev: SimDevice | None = None
            while True:
                req = read_request(sock)
                if req is None:
                    break
                if dev is None:
                    dev, keep = self._host(sock, req)
                    if not keep:
                        break
                else:
                    self._device_service(sock, dev, req)
                    return  # the service closed (or aborted) the socket
            close_gracefully(sock)
        except ProtocolError as exc:  # not adb: say so, then hang up
            log.debug("protocol error: %s", exc)
            try:
                fail(sock, f"protocol error: {exc}")
            except OSError:
                pass
            close_gracefully(sock, drain_s=0.2)
        except (OSError, EOFError) as exc:
            log.debug("connection dropped: %s", exc)
            sock.close()
        except Exception:
            log.exception("fake adb server: unexpected error")
            sock.close()
        finally:
            with self._lock:
                self._conns.discard(sock)

    def _resolve(self, kind: str, value: str | None, any_state: bool = False) -> tuple[SimDevice | None, str]:
        """Pick the device a request targets, like the real server; (None, error) if none fits."""
        with self._lock:
            if kind == "serial":
                dev = self._devices.get(value or "")
                if dev is None:
                    return None, f"device '{value}' not found"
            elif kind == "id":
                dev = next((d for d in self._devices.values() if str(d.transport_id) == value), None)
                if dev is None:
                    return None, f"no device with transport id '{value}'"
            else:
                pool = [d for d in self._devices.values() if kind == "any" or d.kind == kind]
                if not pool:
                    return None, "no devices/emulators found"
                if len(pool) > 1:
                    return None, "more than one device/emulator"
                dev = pool[0]
        if not any_state and dev.observe_state() == "offline":
            return None, "device offline"
        return dev, ""

    def _listing(self, long: bool, observe: bool = True) -> str:
        with self._lock:
            devs = list(self._devices.values())
        states = [d.observe_state() if observe else d.state for d in devs]
        if not long:
            return "".join(f"{d.serial}\t{st}\n" for d, st in zip(devs, states, strict=True))
        return "".join(
            f"{d.serial:<22} {st} product:{d.props['ro.product.name']} model:{d.props['ro.product.model']}"
            f" device:{d.props['ro.product.device']} transport_id:{d.transport_id}\n"
            for d, st in zip(devs, states, strict=True)
        )

    def _host(self, sock: socket.socket, req: str) -> tuple[SimDevice | None, bool]:
        """Answer one host request. Returns (device the socket switched to, keep socket open)."""
        kind, value, cmd = "any", None, req
        if req.startswith("host:"):
            cmd = req[5:]
        elif req.startswith(("host-usb:", "host-local:")):
            kind, _, cmd = req[5:].partition(":")
        elif req.startswith("host-serial:") and (m := _SERIAL_CMD.match(req[12:])):
            kind, value, cmd = "serial", m["serial"], m["cmd"]
        elif req.startswith("host-transport-id:"):
            value, _, cmd = req[len("host-transport-id:") :].partition(":")
            kind = "id"
        else:
            fail(sock, "unknown host service")
            return None, False

        if cmd == "version":
            okay(sock, f"{ADB_SERVER_VERSION:04x}")
        elif cmd == "kill":
            okay(sock)
            threading.Thread(target=self.stop, daemon=True).start()
        elif cmd in ("devices", "devices-l"):
            okay(sock, self._listing(cmd == "devices-l"))
        elif cmd in ("track-devices", "track-devices-l"):
            self._track(sock, cmd.endswith("-l"))
        elif cmd in ("features", "host-features"):
            dev, err = self._resolve(kind, value, any_state=True) if value else (None, "")
            if err:
                fail(sock, err)
            else:
                okay(sock, FEATURES)
        elif cmd in ("get-state", "get-serialno", "get-devpath"):
            dev, err = self._resolve(kind, value, any_state=True)
            if dev is None:
                fail(sock, err)
            else:
                answers = {"get-serialno": dev.serial, "get-devpath": f"{dev.kind}:sim"}
                okay(sock, dev.observe_state() if cmd == "get-state" else answers[cmd])
        elif cmd.startswith("connect:"):
            okay(sock, self._connect(cmd[8:]))
        elif cmd.startswith("disconnect:"):
            msg, ok = self._disconnect(cmd[11:])
            if ok:
                okay(sock, msg)
            else:
                fail(sock, msg)
        elif cmd.startswith("wait-for-"):
            self._wait_for(sock, kind, value, cmd)
        elif cmd.startswith(("transport", "tport:")):
            return self._switch(sock, cmd)
        else:
            fail(sock, "unknown host service")
        return None, False

    def _switch(self, sock: socket.socket, cmd: str) -> tuple[SimDevice | None, bool]:
        """host:transport:S, transport-any/-usb/-local/-id:N, tport:serial:S/any/usb/local."""
        tport = cmd.startswith("tport:")
        spec = cmd[6:] if tport else cmd[len("transport") :]
        if spec.startswith((":", "serial:")):
            kind, value = "serial", spec.partition(":")[2]
        elif spec.startswith(("-id:", "id:")):
            kind, value = "id", spec.partition(":")[2]
        else:
            kind, value = spec.lstrip("-"), None
            if kind not in ("any", "usb", "local"):
                fail(sock, "unknown host service")
                return None, False
        dev, err = self._resolve(kind, value)
        if dev is None:
            fail(sock, err)
            return None, False
        sock.sendall(b"OKAY" + (dev.transport_id.to_bytes(8, "little") if tport else b""))
        return dev, True

    def _connect(self, addr: str) -> str:
        host, _, port = addr.rpartition(":") if ":" in addr else (addr, "", str(DEFAULT_TCP_PORT))
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return f"failed to connect to '{addr}': bad address"
        serial = f"{host}:{int(port)}"
        with self._lock:
            if serial in self._devices:
                return f"already connected to {serial}"
            self.add_device(serial)
        return f"connected to {serial}"

    def _disconnect(self, addr: str) -> tuple[str, bool]:
        with self._lock:
            if not addr:
                for s in [s for s, d in self._devices.items() if d.kind == "local"]:
                    del self._devices[s]
                return "disconnected everything", True
            serial = addr if ":" in addr else f"{addr}:{DEFAULT_TCP_PORT}"
            if serial not in self._devices:
                return f"no such device '{serial}'", False
            del self._devices[serial]
        return f"disconnected {serial}", True

    def _client_gone(self, sock: socket.socket, wait_s: float) -> bool:
        """Wait up to wait_s; True if the client closed meanwhile (or the server stopped)."""
        readable, _, _ = select.select([sock], [], [], wait_s)
        return self._stopped.is_set() or bool(readable and not sock.recv(1024))

    def _track(self, sock: socket.socket, long: bool) -> None:
        okay(sock)
        last = None
        while True:
            listing = self._listing(long, observe=False)  # polling must not use up offline counts
            if listing != last:
                sock.sendall(length_prefixed(listing))
                last = listing
            if self._client_gone(sock, 0.2):
                return

    def _wait_for(self, sock: socket.socket, kind: str, value: str | None, cmd: str) -> None:
        state = cmd.rsplit("-", 1)[-1]
        okay(sock)
        while True:
            with self._lock:
                devs = [d for d in self._devices.values() if value in (None, d.serial, str(d.transport_id))]
            if (state == "disconnect" and not devs) or any(state in ("any", d.state) for d in devs):
                okay(sock)
                return
            if self._client_gone(sock, 0.1):
                return

    # ---- services on a device transport ------------------------------------------------------

    @staticmethod
    def _stream(sock: socket.socket, dev: SimDevice, cmd: str, v2: bool) -> None:
        code = 0
        for res in adb_shell.steps(dev, cmd):
            for kind, data in res.stream:
                sock.sendall(v2_packets(V2_STDOUT if kind == 1 else V2_STDERR, data) if v2 else data)
            code = res.code
        if v2:
            sock.sendall(v2_exit(code))
        close_gracefully(sock)

    def _device_service(self, sock: socket.socket, dev: SimDevice, req: str) -> None:
        head, _, cmd = req.partition(":")
        name, *opts = head.split(",")
        if name not in ("shell", "exec", "sync"):
            fail(sock, "closed")  # what the server says when adbd refuses a service
            sock.close()
            return
        okay(sock)  # before running: adbutils applies its shell timeout only after OKAY
        if dev.faults.delay_s > 0:
            time.sleep(dev.faults.delay_s)
        if name == "sync":
            adb_sync.serve(sock, dev)
            close_gracefully(sock)
            return
        v2 = name == "shell" and "v2" in opts
        if not cmd.strip():
            res = adb_shell.ShellResult(stderr=b"interactive shells are not simulated\n", code=1)
        else:
            if cmd.lstrip().startswith("input") and dev.faults.take("slow_input"):
                time.sleep(dev.faults.slow_s)  # the client times out; the device still runs it, late
            if adb_shell.chained(cmd):  # streamed, a command at a time: a chain of screencaps holds one frame
                self._stream(sock, dev, cmd, v2)
                return
            res = adb_shell.run(dev, cmd)
            if cmd.lstrip().startswith("input") and dev.faults.take("drop_after_input"):
                abort(sock)  # it ran; the answer is lost (an adb server restarted, a cable pulled)
                return
        if res.frame and dev.faults.take("drop_mid_frame"):
            cut = dev.faults.drop_after_bytes or len(res.stdout) // 3
            sock.sendall((v2_packets(V2_STDOUT, res.stdout) if v2 else res.stdout)[:cut])
            abort(sock)
            return
        for kind, data in res.stream:  # in the order the commands wrote it, as a pipe would carry it
            sock.sendall(v2_packets(V2_STDOUT if kind == 1 else V2_STDERR, data) if v2 else data)
        if v2:
            sock.sendall(v2_exit(res.code))
        close_gracefully(sock)
