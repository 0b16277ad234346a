"""Median time per screen capture of a 1080x2400 frame over loopback, by capture path.

The fake adb server runs in its own process, like a real adb server and phone, so its PNG
encoding and socket writes do not share this process's GIL. Two kinds of frame:

- sim: the SimGame's home screen (flat UI; its PNG is ~50 KB and quick to encode);
- real: a real game screenshot (../shared/data/screens) scaled to 1080x2400; its PNG is
  megabytes, like what a phone's `screencap -p` produces and sends.

The device serves an unchanged frame, so the figures measure the capture path (on-device
encoding as this machine does it, transport, host-side decoding), not rendering. A phone
encodes PNG several times slower than this machine (FACTS: 0.6-3 s per `screencap -p`).

    .venv/bin/python bench/capture.py [--n 15] [--frames sim,real]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import adbutils
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lluma_agent.config import DeviceConfig  # noqa: E402
from lluma_agent.device.android import Device  # noqa: E402
from lluma_sim.labelled.screens import screens_dir  # noqa: E402

SIZE = (1080, 2400)
SERIAL = "sim-0"
REAL_SCREEN = screens_dir() / "lluma__cinematics__fullscreen_cutscene_1.png"


class StillGame:
    """A phone showing one fixed picture (taps are ignored)."""

    def __init__(self, image: Image.Image) -> None:
        self.image, (self.width, self.height) = image, image.size

    def capture(self) -> Image.Image:
        return self.image

    def tap(self, x: int, y: int) -> None: ...
    def swipe(self, x0: int, y0: int, x1: int, y1: int, duration_ms: int) -> None: ...
    def keyevent(self, key: str | int) -> None: ...
    def text(self, s: str) -> None: ...


def _serve(kind: str, pipe: Connection) -> None:
    from lluma_sim.adb.device import Game
    from lluma_sim.adb.server import AdbServer
    from lluma_sim.game import SimGame

    game: Game
    if kind == "real":
        game = StillGame(Image.open(REAL_SCREEN).convert("RGB").resize(SIZE, Image.Resampling.LANCZOS))
    else:
        game = SimGame(width=SIZE[0], height=SIZE[1])
    server = AdbServer().start()
    server.add_device(SERIAL, game)
    pipe.send(server.port)
    server.wait()  # until `host:kill`


def _median_ms(fn: Callable[[], object], n: int) -> float:
    fn()  # warm up: imports, first render, first connection
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def bench(kind: str, n: int) -> list[tuple[str, float]]:
    parent, child = mp.Pipe()
    proc = mp.Process(target=_serve, args=(kind, child), daemon=True)
    proc.start()
    port = parent.recv()
    try:
        device = Device(DeviceConfig(adb_port=port, serial=SERIAL))
        device.connect()
        ad = adbutils.AdbClient("127.0.0.1", port).device(SERIAL)

        def screenshot() -> None:
            ad.screenshot(error_ok=False).load()  # Image.open is lazy: make it decode, as any use would

        def shell_raw() -> Image.Image:
            data = ad.shell("screencap", encoding=None)  # adbutils joins 4 KB reads
            w, h = int.from_bytes(data[0:4], "little"), int.from_bytes(data[4:8], "little")
            return Image.frombytes("RGB", (w, h), data[16:], "raw", "RGBX")

        assert device.capture().size == SIZE and ad.screenshot(error_ok=False).size == SIZE
        rows: list[tuple[str, Callable[[], object]]] = [
            ("our raw path: Device.capture() (validated + phash)", device.capture),
            ("adbutils screenshot() (PNG, decoded)", screenshot),
            ("raw via adbutils shell(..., encoding=None)", shell_raw),
            ("floor: one `echo` via adbutils shell()", lambda: ad.shell("echo")),
            ("floor: one `echo` via Device.shell()", lambda: device.shell("echo")),
        ]
        return [(name, _median_ms(fn, n)) for name, fn in rows]
    finally:
        adbutils.AdbClient("127.0.0.1", port).server_kill()
        proc.join(10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=15, help="captures per path (the median is reported)")
    ap.add_argument("--frames", default="sim,real", help="comma-separated: sim, real")
    args = ap.parse_args(argv)
    kinds = [k for k in args.frames.split(",") if k]
    if "real" in kinds and not REAL_SCREEN.exists():
        print(f"(no {REAL_SCREEN}: skipping the real-screenshot frame)")
        kinds.remove("real")
    for kind in kinds:
        print(f"bench/capture: {kind} frame, {args.n} captures per path...", file=sys.stderr, flush=True)
        results = bench(kind, args.n)
        base = results[1][1]
        print(f"\n{kind} frame, {SIZE[0]}x{SIZE[1]}, loopback, median of {args.n}:")
        print(f"  {'path':<52} {'ms':>8}  {'speed vs screenshot()':>21}")
        for name, ms in results:
            print(f"  {name:<52} {ms:8.1f}  {base / ms:20.1f}x")
        ratio = base / results[0][1]
        print(f"  raw path: {ratio:.1f}x faster than screenshot() (target >= 5x: {'met' if ratio >= 5 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
