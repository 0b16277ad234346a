"""`lluma fleet`: several devices from one command, one agent each.

Each device plays in its own run folder with its own checkpoint and memory; the screen map, the event book and the
model's procedures are the fleet's, shared; one budget (run.max_cost_usd, or --max-cost, for all devices together)
and one notify stream, each event naming its device. On one machine each device is a supervised process; with
--ray ADDRESS each is a Ray actor on the node that holds it (the custom resource `adb:SERIAL`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import Any

from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.fleet.folder import FleetError, FleetFolder, FleetSpec, FleetSummary
from lluma_agent.fleet.local import LocalEngine
from lluma_agent.fleet.supervisor import Engine, Supervisor
from lluma_agent.fleet.view import LiveView
from lluma_agent.loop.stop import START_EXIT, StopKind, exit_status
from lluma_agent.notify import Notifier
from lluma_agent.runlog import figures
from lluma_agent.runlog.runs import new_run_dir
from lluma_cli.errors import OneLineParser, at_least_one, dollars, hours
from lluma_cli.invoked import command


def serials(text: str) -> list[str]:
    found = [s.strip() for s in text.split(",") if s.strip()]
    if not found:
        raise argparse.ArgumentTypeError("expected serials separated by commas, e.g. emulator-5554,emulator-5556")
    return found


def _parser() -> OneLineParser:
    ap = OneLineParser(prog="lluma fleet", description=__doc__)
    ap.add_argument("--devices", type=serials, metavar="SERIAL,SERIAL,...",
                    help="the devices to play, one agent each (default fleet.devices in the configuration)")
    ap.add_argument("--careers", type=at_least_one, metavar="N", help="stop each device once N careers have ended")
    ap.add_argument("--hours", type=hours, metavar="H", help="stop every device after H hours")
    ap.add_argument("--max-turns", type=at_least_one, metavar="N",
                    help="turns per device (default run.max_turns; none with --careers or --hours)")
    ap.add_argument("--max-cost", type=dollars, metavar="USD",
                    help="the fleet's budget, all devices together (default run.max_cost_usd)")
    ap.add_argument("--restarts", type=int, metavar="N", help="a dead agent is started again at most N times "
                    "from its checkpoint (default fleet.restarts)")
    ap.add_argument("--dir", type=Path, metavar="FLEETDIR", help="the fleet's folder (default logs.dir/fleet-<time>)")
    ap.add_argument("--resume", type=Path, metavar="FLEETDIR",
                    help="go on with the fleet in FLEETDIR: every device from its checkpoint, with the fleet's limits "
                         "(--careers, --hours, --max-cost, --max-turns given here replace them)")
    ap.add_argument("--ray", metavar="ADDRESS",
                    help="run each device's agent as a Ray actor in the cluster at ADDRESS (pip install "
                         "'lluma[fleet]'); a node declares the devices it holds as resources adb:SERIAL")
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("--json", action="store_true", help="print only the fleet's summary, as one JSON object (the "
                    "live view goes to stderr)")
    return ap


def _spec(args: Any) -> tuple[FleetFolder, FleetSpec, bool]:
    """The fleet to play: a new one from the arguments and the configuration (True: its folder is made once the
    engine is ready), or the one --resume names."""
    limits = {k: v for k, v in (("careers", args.careers), ("hours", args.hours), ("max_cost_usd", args.max_cost),
                                ("max_turns", args.max_turns), ("restarts", args.restarts), ("ray", args.ray))
              if v is not None}
    if args.resume is not None:
        if args.devices or args.dir:
            raise FleetError("--devices and --dir cannot go with --resume: the fleet keeps its own")
        folder = FleetFolder(args.resume)
        spec = folder.spec().model_copy(update=limits)
        folder.save(spec)
        return folder, spec, False
    config = find_config(args.config)
    cfg = load_config(config)
    devices = args.devices or cfg.fleet.devices
    if not devices:
        raise FleetError("no devices: give --devices SERIAL,SERIAL,... or fleet.devices in the configuration "
                         "(`adb devices` lists the serials)")
    bounded = args.careers is not None or args.hours is not None
    spec = FleetSpec(devices=devices, max_cost_usd=cfg.run.max_cost_usd, restarts=cfg.fleet.restarts,
                     max_turns=0 if bounded else cfg.run.max_turns,
                     config=str(Path(config).resolve()) if config is not None else None)
    spec = spec.model_copy(update=limits)
    folder = FleetFolder(args.dir if args.dir is not None else new_run_dir(cfg.logs.dir, "fleet"))
    if folder.is_fleet():
        raise FleetError(f"{folder.root} holds a fleet already: go on with it with --resume {folder.root}")
    return folder, spec, True


def _engine(folder: FleetFolder, spec: FleetSpec) -> Engine:
    if spec.ray is None:
        return LocalEngine(folder)
    from lluma_agent.fleet.ray_engine import RayEngine  # Ray is an optional extra: imported only when asked for

    engine = RayEngine(folder, spec.ray)
    for serial in engine.missing(spec.devices):
        print(f"lluma fleet: no node of the Ray cluster holds {serial} yet (resource adb:{serial}); its agent waits "
              "for one", file=sys.stderr)
    return engine


def in_words(s: FleetSummary) -> str:
    width = max([len(d.serial) for d in s.devices] + [5])
    lines = [f"\nfleet of {len(s.devices)} device(s) ({s.stop_reason}); folder {s.fleet_dir}"]
    for d in s.devices:
        fate = f"gone: {d.gone}" if d.gone else d.stop_reason
        restarts = f", restarted {d.restarts}x" if d.restarts else ""
        lines.append(f"  {d.serial:<{width}}  careers {d.careers_completed:>3}  turns {d.turns:>5}  "
                     f"{figures.usd(d.cost_usd):>9}  {fate}{restarts}")
    lines.append(f"  {'total':<{width}}  careers {s.careers_completed:>3}  turns {s.turns:>5}  "
                 f"{figures.usd(s.cost_usd):>9}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    folder: FleetFolder | None = None
    new = False
    try:
        folder, spec, new = _spec(args)
        cfg = load_config(spec.config)
        engine = _engine(folder, spec)
        if new:
            folder.create(spec)
    except (ConfigError, FleetError, OSError, ValueError) as exc:
        if new and folder is not None:
            with contextlib.suppress(OSError):
                folder.root.rmdir()  # only while still empty: a fleet that did not start leaves no folder behind
        print(f"lluma fleet: {' '.join(str(exc).split())}", file=sys.stderr)
        return START_EXIT
    if args.json:  # stdout is the summary's alone: what a library prints there (Ray's "(raylet) ...") goes to stderr
        sys.stdout.flush()
        summary_out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    notifier = Notifier(cfg.notify, run=folder.root.name)
    view = LiveView(sys.stderr if args.json else sys.stdout, spec.devices)
    supervisor = Supervisor(folder, spec, engine, notifier, view)

    def on_signal(signum: int, frame: Any) -> None:
        if not supervisor.stops:
            print("\nstopping every device after its turn (Ctrl+C again: at once)", file=sys.stderr, flush=True)
        supervisor.stop()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        summary = supervisor.run()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        notifier.close()
    if args.json:
        with summary_out:
            summary_out.write(summary.model_dump_json() + "\n")
    else:
        print(in_words(summary))
        print(f"go on with it: {command('fleet', '--resume', str(folder.root))}; side by side: "
              f"{command('stats', str(folder.root))}")
    failed = any(d.gone or d.stop_kind is None or exit_status(StopKind(d.stop_kind)) for d in summary.devices)
    return 1 if failed else 0  # every device stopped as `lluma run` stops with exit 0, or not


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
