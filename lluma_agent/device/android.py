"""The phone, over adbutils: capture frames, tap boxes, swipe, scroll, back, type.

Every command opens its own adb connection (`host:transport:SERIAL` then the service), reads
until the device closes it, and maps failures to the seam's errors (device/protocol.py):

- `DeviceNotFound`: no such serial / nothing attached (at connect time);
- `DeviceDisconnected`: the device or server dropped mid-command. Reconnection has already been
  tried with exponential backoff for up to `outage_wait_s` (`reconnected` says whether it worked);
  the command is NOT retried here, because only the caller knows whether repeating a tap is safe;
- `InputUnknown`: an input command was sent but never answered (timeout). adb cannot take it back:
  the device may still run it, late. Its outcome is unknown until the next frame shows it;
- `FrameError`: a capture that cannot be trusted (cut short, undecodable, all black);
- `DeviceError`: the base, also for bad input (a box off screen, untypeable text).

Not thread-safe: one Device per agent loop.
"""

from __future__ import annotations

import io
import logging
import os
import random
import re
import shlex
import socket
import struct
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Literal, NoReturn

from adbutils import AdbConnection, AdbError
from PIL import Image

from lluma_agent.config import DeviceConfig
from lluma_agent.device.adb_client import NoDaemonClient
from lluma_agent.device.address import resolve
from lluma_agent.device.protocol import (
    BlackFrame,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    Frame,
    FrameError,
    InputUnknown,
)
from lluma_vision.models import Box

log = logging.getLogger(__name__)

RECV_CHUNK = 4 * 1024 * 1024  # large recv()s: 4 KB reads make a 10 MB frame take ~1 s
MAX_SIDE = 16384  # a raw header naming a longer side is not a frame (phones are under 4,000 px); a bound, not measured
RAW_FORMATS = {1: "RGBX", 2: "RGBX", 5: "BGRX"}  # Android PixelFormat -> Pillow raw mode (4 bytes/pixel)
KEYCODE_BACK = 4  # Android's KeyEvent.KEYCODE_BACK (a definition, not measured)
RECONNECT_MAX_WAIT_S = 5.0  # longest pause between reconnect attempts while a device is away
_INPUTS = ("tap", "swipe", "back", "text")  # what a command that timed out may still have done
SWIPE_STEPS = 4  # MOVE events of a held swipe


class _RawUnsupported(Exception):
    """The device's raw screencap output is not a format we read: use PNG from now on."""


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(RECV_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


def _decode_raw(sock: socket.socket) -> Image.Image:
    """Read `screencap` output: u32 LE width, height, format [, colour space], then pixels."""
    head = bytearray()
    while len(head) < 12 and (chunk := sock.recv(12 - len(head))):
        head += chunk
    if len(head) < 12:
        raise FrameError(f"raw screencap ended after {len(head)} header bytes")
    w, h, fmt = struct.unpack("<III", head)
    if not (0 < w <= MAX_SIDE and 0 < h <= MAX_SIDE) or fmt not in RAW_FORMATS:
        raise _RawUnsupported(f"header {bytes(head)!r} (w={w} h={h} format={fmt})")
    need = w * h * 4
    buf = bytearray(4 + need + 1)  # optional colour-space word, pixels, one byte to detect excess
    view, got = memoryview(buf), 0
    while got < len(buf) and (n := sock.recv_into(view[got:], min(RECV_CHUNK, len(buf) - got))):
        got += n
    if got == len(buf):
        raise FrameError(f"raw screencap longer than {w}x{h}x4 bytes (format {fmt}): not a frame")
    if got not in (need, need + 4):  # header of 12 bytes (old Android) or 16 (colour space)
        raise FrameError(f"raw screencap cut short: {got} of {need} pixel bytes for {w}x{h}")
    offset = got - need
    return Image.frombytes("RGB", (w, h), view[offset : offset + need], "raw", RAW_FORMATS[fmt])


def _decode_png(data: bytes) -> Image.Image:
    if not data:
        raise FrameError("PNG screencap returned nothing")
    try:
        img = Image.open(io.BytesIO(data))
        img.load()
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError, zlib errors...
        raise FrameError(f"PNG screencap undecodable ({len(data)} bytes): {exc}") from None
    return img.convert("RGB") if img.mode != "RGB" else img


def _v2_parse(data: bytes) -> tuple[bytes, bytes, int]:
    """Shell protocol v2 stream -> stdout, stderr, exit code. No exit packet = the stream broke."""
    out, err, pos = bytearray(), bytearray(), 0
    while pos + 5 <= len(data):
        kind, size = struct.unpack_from("<BI", data, pos)
        body = data[pos + 5 : pos + 5 + size]
        if len(body) < size:
            break
        pos += 5 + size
        if kind == 1:
            out += body
        elif kind == 2:
            err += body
        elif kind == 3 and size:
            return bytes(out), bytes(err), body[0]
    raise EOFError("shell stream ended without an exit status")


def adb_server_of(cfg: DeviceConfig, environ: Mapping[str, str] = os.environ) -> DeviceConfig:
    """`cfg` with the adb server adb users point at: ANDROID_ADB_SERVER_HOST / ANDROID_ADB_SERVER_PORT, as the
    `adb` client reads them, unless device.adb_host / adb_port is set (config.yaml or LLUMA_DEVICE__*): config wins."""
    address = resolve(cfg, environ)  # one answer for run, demo and doctor (device/address.py)
    if (address.host, address.port) == (cfg.adb_host, cfg.adb_port):
        return cfg
    return cfg.model_copy(update={"adb_host": address.host, "adb_port": address.port})


class Device:
    """A phone or emulator reached through an adb server (see DeviceConfig)."""

    def __init__(self, cfg: DeviceConfig, seed: int | None = None) -> None:
        self.address = resolve(cfg)
        cfg = adb_server_of(cfg)
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.client = NoDaemonClient(cfg.adb_host, cfg.adb_port, cfg.command_timeout_s)
        self.serial: str | None = None
        self.size: tuple[int, int] | None = None  # (width, height) from `wm size` at connect
        self._v2 = False
        self._raw_ok = cfg.capture == "raw"
        self._raw_failures = 0
        self._held_swipe_ok = True
        self._sent = False  # the current command reached the device (an input then cannot be taken back)
        # Called with a one-line status while a dropped device is being waited for (the live line).
        self.on_wait: Callable[[str], None] | None = None

    # ---- connection ------------------------------------------------------------------------

    def connect(self) -> str:
        """Find the device (after `adb connect` for emulators); returns its serial."""
        self._attach(wait_s=self.cfg.command_timeout_s)
        w, h = self.window_size()
        self.size = (h, w) if self.rotation() % 2 else (w, h)  # input and frames use the rotated space
        return self.serial or ""

    def _attach(self, wait_s: float = 0.0) -> None:
        """Probe the server, `adb connect` if configured, pick the device, read its features.

        A device in a passing state (offline right after `adb connect`, authorizing) is
        polled for up to `wait_s` before that is an error.
        """
        where = self.address.described
        try:
            self.client.server_version()
        except (AdbError, OSError, ValueError) as exc:
            raise DeviceError(
                f"no adb server answers at {where} ({exc}). Start one with `adb start-server`"
                " (or `lluma sim phone` for the simulator) and check device.adb_host/adb_port."
            ) from None
        if self.cfg.connect:
            msg = self.client.connect(self.cfg.connect, timeout=self.cfg.command_timeout_s)
            if not msg.startswith(("connected to", "already connected to")):
                hint = "is the emulator running, and is that its adb port?"
                raise DeviceNotFound(f"adb connect {self.cfg.connect}: {msg} ({hint})")
        want = self.cfg.serial or self.cfg.connect or self.serial  # a reconnect looks for the same device
        deadline = time.monotonic() + wait_s
        while True:
            infos = self.client.list()
            listed = ", ".join(f"{i.serial} ({i.state})" for i in infos) or "none"
            if want:
                info = next((i for i in infos if i.serial == want), None)
                if info is None:
                    raise DeviceNotFound(f"device {want!r} not found at {where}; attached: {listed}")
            else:
                ready = [i for i in infos if i.state == "device"]
                if len(ready) != 1:
                    what = "no device is" if not ready else f"{len(ready)} devices are"
                    raise DeviceNotFound(f"{what} attached at {where} (attached: {listed}); set device.serial")
                info = ready[0]
            if info.state == "device":
                break
            if info.state not in ("offline", "connecting", "authorizing") or time.monotonic() > deadline:
                hint = "unplug and replug it, and accept the debugging prompt on the phone"
                raise DeviceError(f"device {info.serial} is {info.state}, not ready ({hint})")
            time.sleep(0.2)
        self.serial = info.serial
        with self.client.make_connection() as c:
            c.send_command(f"host-serial:{self.serial}:features")
            c.check_okay()
            self._v2 = "shell_v2" in c.read_string_block().split(",")

    def _recover(self, what: str, exc: BaseException) -> NoReturn:
        """Reconnect with exponential backoff (pauses capped at RECONNECT_MAX_WAIT_S) for up to
        `outage_wait_s` (and at most `reconnect_attempts` attempts when that is set), then tell the
        caller what happened. A phone that sleeps or an emulator that restarts comes back within that."""
        cfg = self.cfg
        reason = f"{what} on {self.serial}: device dropped ({type(exc).__name__}: {exc})"
        last: BaseException = exc
        start = time.monotonic()
        attempt = 0
        while True:
            waited = time.monotonic() - start
            out_of_attempts = cfg.reconnect_attempts and attempt >= cfg.reconnect_attempts
            if out_of_attempts or (attempt and waited >= cfg.outage_wait_s):
                raise DeviceDisconnected(
                    f"{reason}; still unreachable after {attempt} attempt(s) over {waited:.0f} s: {last}",
                    reconnected=False,
                )
            pause = min(cfg.reconnect_backoff_s * 2**attempt, RECONNECT_MAX_WAIT_S)
            if attempt and self.on_wait is not None:
                self.on_wait(
                    f"waiting for device {self.serial}: unreachable for {waited:.0f} s "
                    f"(giving up after {cfg.outage_wait_s:.0f} s)"
                )
            time.sleep(max(0.0, min(pause, cfg.outage_wait_s - waited)) if attempt else pause)
            attempt += 1
            try:
                self._attach()
            except (DeviceError, AdbError, OSError) as err:
                last = err
                continue
            raise DeviceDisconnected(f"{reason}; reconnected after {attempt} attempt(s)", reconnected=True)

    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        if self.serial is None:
            raise DeviceError(f"{what}: not connected (call Device.connect() first)")
        self._sent = False
        try:
            yield
        except DeviceError:
            raise
        except TimeoutError as exc:
            if what in _INPUTS:  # sent, unanswered: reconnecting or resending could make it happen twice
                raise InputUnknown(
                    f"{what}: no answer within {self.cfg.command_timeout_s:g} s; the device may still run it"
                ) from None
            self._recover(what, exc)
        except (OSError, EOFError) as exc:  # reset, refused, stream cut
            if what in _INPUTS and self._sent:  # the device had the command: it may have run (a tap no log had)
                self._lost_after_sending(what, exc)
            self._recover(what, exc)
        except AdbError as exc:
            text = str(exc)
            if what in _INPUTS and "timeout" in text:
                raise InputUnknown(f"{what}: adb said {text!r}; the device may still run it") from None
            if any(s in text for s in ("not found", "offline", "no devices", "timeout", "closed", "failed")):
                if what in _INPUTS and self._sent:
                    self._lost_after_sending(what, exc)
                self._recover(what, exc)
            raise DeviceError(f"{what}: adb said {text!r}") from None

    def _lost_after_sending(self, what: str, exc: BaseException) -> NoReturn:
        """An input whose connection dropped once the device had it: reconnect for the next turn, and report
        the input as sent with an unknown outcome (never as "not done": the phone may have run it)."""
        try:
            self._recover(what, exc)
        except DeviceError as gone:
            raise InputUnknown(f"{what}: the connection dropped after sending ({type(exc).__name__}); the device "
                               f"may have run it; {gone}") from None

    def _open(self, service: str) -> AdbConnection:
        c = self.client.make_connection()
        try:
            # Plain host:transport works with every server version and saves adbutils' extra
            # host:version round trip per command.
            c.send_command(f"host:transport:{self.serial}")
            c.check_okay()
            c.send_command(service)
            self._sent = True  # from here the device may run it, whatever the answer
            c.check_okay()
        except BaseException:
            c.conn.close()
            raise
        return c

    def _exec(self, command: str) -> bytes:
        """Raw stdout of `command` (exec: never adds a pty, so binary output arrives intact)."""
        c = self._open("exec:" + command)
        try:
            return _read_all(c.conn)
        finally:
            c.conn.close()  # the device closed first: no need for adbutils' 10 ms close sleep

    def shell(self, command: str, what: str = "shell") -> tuple[str, str, int | None]:
        """Run a shell command: (stdout, stderr, exit code; None when the device has no shell v2)."""
        with self._guard(what):
            c = self._open(("shell,v2,raw:" if self._v2 else "shell:") + command)
            try:
                data = _read_all(c.conn)
            finally:
                c.conn.close()
            if not self._v2:
                return data.decode("utf-8", "replace"), "", None
            out, err, code = _v2_parse(data)
            return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), code

    def _input(self, command: str, what: str) -> None:
        out, err, code = self.shell(command, what)
        if code not in (0, None) or err.startswith("Error"):
            raise DeviceError(f"{what}: `{command}` failed (exit {code}): {(err or out).strip()[:300]}")

    # ---- capture ---------------------------------------------------------------------------

    def capture(self) -> Frame:
        """One validated frame: raw screencap, PNG when raw is unsupported or came back broken."""
        raw_problem = ""
        if self._raw_ok:
            with self._guard("capture"):
                c = self._open("exec:screencap")
                try:
                    frame = Frame.of(_decode_raw(c.conn), "raw")
                    self._raw_failures = 0
                    return frame
                except BlackFrame:
                    raise  # the screen is black, not the raw path broken: PNG would show the same
                except _RawUnsupported as exc:
                    log.warning("raw screencap unsupported (%s); using PNG from now on", exc)
                    self._raw_ok = False
                except FrameError as exc:
                    raw_problem = f"{exc}; "
                    self._raw_failures += 1
                    if self._raw_failures >= 3:  # a device whose raw path keeps failing: stop paying twice
                        log.warning("raw screencap failed 3 times in a row; using PNG from now on")
                        self._raw_ok = False
                finally:
                    c.conn.close()
        with self._guard("capture"):
            data = self._exec("screencap -p")
        try:
            return Frame.of(_decode_png(data), "png")
        except FrameError as exc:
            raise FrameError(f"{raw_problem}{exc}") from None

    # ---- input -----------------------------------------------------------------------------

    def _clip(self, box: Box) -> Box:
        if self.size is None:
            return box
        w, h = self.size
        x0, y0, x1, y1 = max(box.x0, 0), max(box.y0, 0), min(box.x1, w), min(box.y1, h)
        if x1 <= x0 or y1 <= y0:
            raise DeviceError(f"box {box.as_list()} is outside the {w}x{h} screen: nothing sent")
        return Box(x0=x0, y0=y0, x1=x1, y1=y1)

    def tap_point(self, box: Box) -> tuple[int, int]:
        """A point in the central `tap_inner_fraction` of the box (centre-weighted), plus up to
        `tap_jitter_px` of jitter, always inside the box (and the screen)."""
        box = self._clip(box)
        f, j = self.cfg.tap_inner_fraction, self.cfg.tap_jitter_px

        def axis(lo: int, hi: int) -> int:
            centre, half = (lo + hi - 1) / 2, (hi - lo - 1) * f / 2
            v = centre + self.rng.triangular(-half, half, 0) + self.rng.uniform(-j, j)
            return int(round(min(max(v, lo), hi - 1)))

        return axis(box.x0, box.x1), axis(box.y0, box.y1)

    def tap(self, box: Box) -> tuple[int, int]:
        """Tap inside `box` (device pixels); returns the point tapped."""
        x, y = self.tap_point(box)
        try:
            self._input(f"input tap {x} {y}", "tap")
        except InputUnknown as exc:
            exc.point = (x, y)
            raise
        return x, y

    def _check_point(self, x: int, y: int) -> None:
        if self.size is not None and not (0 <= x < self.size[0] and 0 <= y < self.size[1]):
            raise DeviceError(f"point ({x}, {y}) is outside the {self.size[0]}x{self.size[1]} screen: nothing sent")

    def swipe(
        self, x0: int, y0: int, x1: int, y1: int, duration_ms: int | None = None, hold_ms: int | None = None
    ) -> None:
        """Drag from (x0, y0) to (x1, y1) over `duration_ms`, then keep the finger still for
        `hold_ms` before lifting it so a list stops where it is instead of flinging on.

        `input swipe` lifts the finger right after its last move, so the release carries the
        full swipe velocity (inertia). A second, zero-distance swipe at the end would be a new
        touch: a tap or long press on whatever item is there. So a held swipe is one gesture
        of `input motionevent` DOWN / MOVE... / sleep / UP in a single shell command. Devices
        without `input motionevent` (or without shell v2 to report its failure) get a plain
        `input swipe` lasting duration + hold: slower, so it flings less.
        """
        duration_ms = self.cfg.swipe_ms if duration_ms is None else duration_ms
        hold_ms = self.cfg.swipe_hold_ms if hold_ms is None else hold_ms
        for x, y in ((x0, y0), (x1, y1)):
            self._check_point(x, y)
        if hold_ms > 0 and self._v2 and self._held_swipe_ok:
            step_s = duration_ms / 1000 / SWIPE_STEPS
            parts = [f"input motionevent DOWN {x0} {y0}"]
            for i in range(1, SWIPE_STEPS + 1):
                px, py = round(x0 + (x1 - x0) * i / SWIPE_STEPS), round(y0 + (y1 - y0) * i / SWIPE_STEPS)
                parts += [f"sleep {step_s:.3f}", f"input motionevent MOVE {px} {py}"]
            parts += [f"sleep {hold_ms / 1000:.3f}", f"input motionevent UP {x1} {y1}"]
            out, err, code = self.shell(" && ".join(parts), "swipe")
            if code == 0 and not err.startswith("Error"):
                return
            if "motionevent" not in err and "Unknown" not in err:
                raise DeviceError(f"swipe failed (exit {code}): {(err or out).strip()[:300]}")
            log.warning("`input motionevent` unsupported (%s); held swipes become slow swipes", err.strip()[:120])
            self._held_swipe_ok = False
        self._input(f"input swipe {x0} {y0} {x1} {y1} {duration_ms + max(hold_ms, 0)}", "swipe")

    def scroll(self, region: Box, direction: Literal["up", "down"]) -> tuple[int, int, int, int]:
        """Scroll the list in `region`: "down" shows what is below (the finger moves up).

        The swipe covers the middle half of the region, so it starts and ends on the list, and
        holds at the end (see swipe). Returns the swipe as (x0, y0, x1, y1).
        """
        if direction not in ("up", "down"):
            raise DeviceError(f"scroll direction must be 'up' or 'down', not {direction!r}")
        r = self._clip(region)
        x = self.tap_point(Box(x0=r.x0, y0=r.y0 + r.height // 2, x1=r.x1, y1=r.y0 + r.height // 2 + 1))[0]
        low, high = r.y0 + round(r.height * 0.75), r.y0 + round(r.height * 0.25)
        y0, y1 = (low, high) if direction == "down" else (high, low)
        try:
            self.swipe(x, y0, x, y1)
        except InputUnknown as exc:
            exc.swipe = (x, y0, x, y1)
            raise
        return x, y0, x, y1

    def back(self) -> None:
        """The system Back key (KEYCODE_BACK)."""
        self._input(f"input keyevent {KEYCODE_BACK}", "back")

    def text(self, s: str) -> None:
        """Type `s` into the focused field. ASCII only (`input text` cannot type anything else);
        spaces travel as %s (its only escape), the rest is single-quoted for the device shell."""
        if not s:
            return
        bad = sorted({c for c in s if not (" " <= c <= "~")})
        if bad:
            raise DeviceError(f"`input text` can only type printable ASCII; not {''.join(bad)!r}: nothing sent")
        self._input("input text " + shlex.quote(s.replace(" ", "%s")), "text")

    # ---- screen geometry ---------------------------------------------------------------------

    def window_size(self) -> tuple[int, int]:
        """(width, height) in pixels from `wm size` (an override size wins, like on the device)."""
        out, _, _ = self.shell("wm size", "window_size")
        m = re.search(r"Override size: (\d+)x(\d+)", out) or re.search(r"Physical size: (\d+)x(\d+)", out)
        if not m:
            raise DeviceError(f"unexpected `wm size` output: {out.strip()[:200]!r}")
        return int(m.group(1)), int(m.group(2))

    def rotation(self) -> int:
        """0..3 (quarter turns) from `dumpsys display`."""
        out, _, _ = self.shell("dumpsys display", "rotation")
        m = re.search(r"DisplayViewport\{[^}]*?valid=true[^}]*?orientation=(\d)", out) or re.search(
            r"orientation=(\d)", out
        )
        if not m:
            raise DeviceError("`dumpsys display` shows no orientation")
        return int(m.group(1))
