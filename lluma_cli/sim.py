"""`lluma sim ...`: run an offline stand-in in the foreground.

    lluma sim phone [--port 15037] [--devices N] [--seed S] [--size 1080x1920] [--hazards RATE]
                    [--career-turns N]
    lluma sim api ...            (the Messages API stand-in, lluma_sim.api.server)

Add a stand-in with a subparser and a `_run_<name>` function (`api` passes its arguments through).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

from lluma_cli.errors import OneLineParser, career_length, rate
from lluma_cli.invoked import command

DEFAULT_PHONE_PORT = 15037  # not 5037, so a real adb server can run beside the simulator


def _stop_on_sigterm() -> None:
    """SIGTERM (`kill`, a service manager, a container stopping) ends a stand-in as Ctrl+C does: through the same
    clean shutdown (the port closed, the request log flushed and closed), exit 0. Installed as soon as the stand-in
    listens, before it prints its settings: a SIGTERM sent on reading them is already taken this way."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None
    if not (100 <= w <= 8192 and 100 <= h <= 8192):
        raise argparse.ArgumentTypeError(f"size out of range: {text}")
    return w, h


HAZARDS_PER_INPUT = rate("hazards per input")


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="lluma sim", description="Offline stand-ins for the phone and the API.")
    sub = p.add_subparsers(dest="stand_in", required=True, metavar="{phone,api}")
    phone = sub.add_parser("phone", help="a simulated phone behind a fake adb server on 127.0.0.1")
    phone.add_argument("--port", type=int, default=DEFAULT_PHONE_PORT, help="adb server port (0 = any free port)")
    phone.add_argument("--devices", type=int, default=1, help="number of simulated phones")
    phone.add_argument("--seed", type=int, default=0, help="game seed of the first phone (+1 for each next)")
    phone.add_argument("--size", type=_size, default=(1080, 1920), help="screen size WIDTHxHEIGHT")
    phone.add_argument("--hazards", type=HAZARDS_PER_INPUT, default=0.0, metavar="RATE",
                       help="the game's hazards (crash, not responding, connection error, daily reset, maintenance, "
                            "data update, tutorial, long loading) at RATE per input, 0..1 (default 0)")
    phone.add_argument("--career-turns", type=career_length, default=78, metavar="N",
                       help="a career's length in game turns (default 78, the real game's; a shorter one keeps its "
                            "calendar and goals, compressed)")
    phone.add_argument("--style", choices=["plain", "hard"], default="hard",
                       help="screens to play: hard (the default, as `lluma demo`: what real screens have) or plain")
    sub.add_parser("api", help="the Messages API stand-in (its own arguments follow)", add_help=False)
    return p


def _run_phone(args: argparse.Namespace) -> int:
    from lluma_sim.adb.server import AdbServer
    from lluma_sim.game import SimGame
    from lluma_sim.truth_over_adb import serve_truth

    if not 1 <= args.devices <= 16:
        print("lluma sim phone: --devices must be 1..16", file=sys.stderr)
        return 2
    w, h = args.size

    def game(serial: str, index: int) -> SimGame:
        return SimGame(seed=args.seed + index, width=w, height=h, max_turns=args.career_turns, hazards=args.hazards,
                       style=args.style)

    server = AdbServer(port=args.port, size=args.size, seed=args.seed, game_factory=game)
    try:
        server.start()
    except OSError as exc:
        print(f"lluma sim phone: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 1
    _stop_on_sigterm()
    try:
        serials = [f"sim-{i}" for i in range(args.devices)]
        for s in serials:
            serve_truth(server.add_device(s))  # `lluma-truth`: vision.backend truth reads the phone's own truth
        port = server.port
        adb = f"adb -H 127.0.0.1 -P {port}"
        print(f"simulated phone(s) on a fake adb server at 127.0.0.1:{port}, screen {w}x{h}, seed {args.seed}, "
              f"careers of {args.career_turns} turns, hazards {args.hazards:g} per input, {args.style} screens")
        print("serials: " + " ".join(serials))
        print("try:")
        print(f"  {adb} devices -l")
        print(f"  {adb} -s {serials[0]} exec-out screencap -p > screen.png")
        print(f"  {adb} -s {serials[0]} shell input tap {w // 2} {h // 2}")
        print(f"  ANDROID_ADB_SERVER_PORT={port} adb -s {serials[0]} shell wm size")
        print(f"  {adb} -s {serials[0]} shell am force-stop com.cygames.umamusume   (the game stops: the launcher)")
        print(f"run the agent on it, offline (with `{command('sim', 'api')}` in another terminal, on its default port "
              "18080):")
        print(f"  LLUMA_DEVICE__ADB_PORT={port} LLUMA_DEVICE__SERIAL={serials[0]} "
              "LLUMA_MODEL__BASE_URL=http://127.0.0.1:18080 ANTHROPIC_API_KEY=sk-ant-offline LLUMA_VISION__BACKEND=ocr "
              f"{command('run', '--max-turns', '10')}")
        print(f"stop: Ctrl+C, SIGTERM or `{adb} kill-server`", flush=True)
        while not server.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _run_api(argv: list[str]) -> int:
    """`lluma sim api`: the Messages API stand-in in the foreground (lluma_sim.api.server)."""
    from lluma_sim.api.faults import FaultSchedule
    from lluma_sim.api.log import LogEntry, print_entry
    from lluma_sim.api.policy import ScriptedPolicy
    from lluma_sim.api.server import HOST, ApiServer

    ap = argparse.ArgumentParser(
        prog="lluma sim api",
        description="Run the Messages API stand-in in the foreground on 127.0.0.1 (Ctrl+C or SIGTERM stops it).",
    )
    ap.add_argument("--port", type=int, default=18080, help="port on 127.0.0.1 (0 picks a free one)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the scripted policy and of reply lengths")
    ap.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="[INDEX:]KIND",
        help="inject a fault: rate_limit, overloaded, api_error, slow, malformed_tool_input, "
        "max_tokens, refusal; with INDEX for that request (0-based), else queued (repeatable)",
    )
    ap.add_argument("--retry-after", type=float, default=1.0, help="retry-after seconds of injected 429/529")
    ap.add_argument("--log", metavar="FILE", help="append every request's log entry to FILE as JSON lines")
    ap.add_argument("--quiet", action="store_true", help="no line per request")
    args = ap.parse_args(argv)
    sink = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115 - closed below

    def on_request(entry: LogEntry) -> None:
        if not args.quiet:
            print_entry(entry)
        if sink:
            sink.write(entry.model_dump_json(exclude={"request"}) + "\n")
            sink.flush()

    try:
        server = ApiServer(
            port=args.port,
            policy=ScriptedPolicy(seed=args.seed),
            seed=args.seed,
            faults=FaultSchedule.parse(args.fault, retry_after_s=args.retry_after),
            on_request=on_request,
        ).start()
    except OSError as exc:
        print(f"lluma sim api: cannot listen on {HOST}:{args.port}: {exc}", file=sys.stderr)
        return 1
    _stop_on_sigterm()
    try:
        print(f"Messages API stand-in on {server.base_url} (any API key is accepted; nothing leaves this machine)")
        print(f"ANTHROPIC_BASE_URL={server.base_url}")
        print(f"for `{command('run')}`: LLUMA_MODEL__BASE_URL={server.base_url} ANTHROPIC_API_KEY=sk-ant-offline "
              "(any key) LLUMA_VISION__BACKEND=ocr (the stand-in reads no screenshots; ocr is also what `auto` picks)",
              flush=True)
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("\nstopping", file=sys.stderr)
    finally:
        server.stop()
        if sink:
            sink.close()
    return 0


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
