"""`lluma sim ...`: run an offline stand-in in the foreground.

    lluma sim phone [--port 15037] [--devices N] [--seed S] [--size 1080x1920]
    lluma sim api ...            (the Messages API stand-in, lluma_sim.api.server)

Add a stand-in with a subparser and a `_run_<name>` function (`api` passes its arguments through).
"""

from __future__ import annotations

import argparse
import importlib
import sys

DEFAULT_PHONE_PORT = 15037  # not 5037, so a real adb server can run beside the simulator


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None
    if not (100 <= w <= 8192 and 100 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size out of range: {text}")
    return w, h


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lluma sim", description="Offline stand-ins for the phone and the API.")
    sub = p.add_subparsers(dest="stand_in", required=True, metavar="{phone,api}")
    phone = sub.add_parser("phone", help="a simulated phone behind a fake adb server on 127.0.0.1")
    phone.add_argument("--port", type=int, default=DEFAULT_PHONE_PORT, help="adb server port (0 = any free port)")
    phone.add_argument("--devices", type=int, default=1, help="number of simulated phones")
    phone.add_argument("--seed", type=int, default=0, help="game seed of the first phone (+1 for each next)")
    phone.add_argument("--size", type=_size, default=(1080, 1920), help="screen size WIDTHxHEIGHT")
    sub.add_parser("api", help="the Messages API stand-in (its own arguments follow)", add_help=False)
    return p


def _run_phone(args: argparse.Namespace) -> int:
    from lluma_sim.adb.server import AdbServer

    if not 1 <= args.devices <= 16:
        print("lluma sim phone: --devices must be 1..16", file=sys.stderr)
        return 2
    server = AdbServer(port=args.port, size=args.size, seed=args.seed)
    try:
        server.start()
    except OSError as exc:
        print(f"lluma sim phone: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 1
    serials = [f"sim-{i}" for i in range(args.devices)]
    for s in serials:
        server.add_device(s)
    port = server.port
    w, h = args.size
    adb = f"adb -H 127.0.0.1 -P {port}"
    print(f"simulated phone(s) on a fake adb server at 127.0.0.1:{port}, screen {w}x{h}, seed {args.seed}")
    print("serials: " + " ".join(serials))
    print("try:")
    print(f"  {adb} devices -l")
    print(f"  {adb} -s {serials[0]} exec-out screencap -p > screen.png")
    print(f"  {adb} -s {serials[0]} shell input tap {w // 2} {h // 2}")
    print(f"  ANDROID_ADB_SERVER_PORT={port} adb -s {serials[0]} shell wm size")
    print("run the agent on it, offline (with `lluma sim api` in another terminal, on its default port 18080):")
    print(f"  LLUMA_DEVICE__ADB_PORT={port} LLUMA_DEVICE__SERIAL={serials[0]} "
          "LLUMA_MODEL__BASE_URL=http://127.0.0.1:18080 ANTHROPIC_API_KEY=sk-ant-offline LLUMA_VISION__BACKEND=ocr "
          "lluma run --max-turns 10")
    print(f"stop: Ctrl+C or `{adb} kill-server`", flush=True)
    try:
        while not server.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _run_api(rest: list[str]) -> int:
    try:
        module = importlib.import_module("lluma_sim.api.server")
    except ModuleNotFoundError as exc:
        if exc.name != "lluma_sim.api.server":
            raise
        print("lluma sim api: not built yet", file=sys.stderr)
        return 1
    return int(module.main(rest) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv[:1] == ["api"]:  # everything after `api` belongs to the API stand-in, in order
            return _run_api(argv[1:])
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help and on bad arguments
        return int(exc.code or 0)
    return _run_phone(args)


if __name__ == "__main__":
    raise SystemExit(main())
