"""`lluma run`: play on a real phone or emulator with Claude."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from lluma_agent.config import find_config, load_config
from lluma_agent.loop import setup
from lluma_agent.loop.app import CtrlC, build
from lluma_agent.loop.resume import (
    NoCompletedTurn,
    ResumeError,
    ResumePoint,
    check_settings,
    how_to_go_on,
    newest_run,
    open_point,
)
from lluma_agent.loop.stop import exit_status
from lluma_agent.model.claude import make_client
from lluma_agent.runlog import figures
from lluma_agent.runlog.runs import new_run_dir, runs_newest_first
from lluma_cli.confirm import Person, in_the_loop
from lluma_cli.errors import at_least_one, dollars, hours, start_failed
from lluma_cli.invoked import command


def demo_not_run(folder: Path, root: Path | None) -> str:
    """A demo's folder given to `lluma run --resume` (or the newest run under `root`, a demo): the command that
    resumes it, and the newest run on a phone there when there is one."""
    line = f"{folder} holds a demo run: resume it with `{command('demo', '--resume', str(folder))}`"
    phones = [d for d in runs_newest_first(root) if d.name.startswith("run-")] if root is not None else []
    return line + (f", or go on with the newest run on a phone: `{command('run', '--resume', str(phones[0]))}`"
                   if phones else "")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma run", description=__doc__)
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("--serial", help="device serial (overrides device.serial)")
    ap.add_argument("-m", "--model", help="the Claude model to play with (overrides model.name; `lluma models`)")
    ap.add_argument("--connect", help="host:port to `adb connect` first, e.g. 127.0.0.1:5555")
    ap.add_argument("--max-turns", type=at_least_one,
                    help="overrides run.max_turns (with --resume: more turns); with --careers or --hours, only this "
                         "caps the turns")
    ap.add_argument("--max-cost", type=dollars, help="overrides run.max_cost_usd (with --resume: more dollars)")
    ap.add_argument("--careers", type=at_least_one, metavar="N",
                    help="stop once N careers have ended (overrides run.max_careers; with --resume: N more); "
                         "run.max_turns does not apply")
    ap.add_argument("--hours", type=hours, metavar="H",
                    help="stop after H hours (overrides run.max_hours); run.max_turns does not apply")
    ap.add_argument("--resume", nargs="?", const="", default=None, metavar="DIR",
                    help="go on with the run in DIR (default: the newest run under logs.dir) from its last complete "
                         "turn, logging into DIR, on its device, adb server, API and model unless told otherwise")
    ap.add_argument(setup.ANOTHER_DEVICE, action="store_true",
                    help="with --resume: go on on another device than the run's own (--serial, device.serial, or "
                         "the only one attached)")
    ap.add_argument("--confirm", action="store_true",
                    help="show each decided action (where it would tap, a marked screenshot) and wait for "
                         "y / n / e ACTION / q; answers are read one a line when stdin is not a terminal")
    ap.add_argument("--step", action="store_true", help="play one turn per Enter (q stops)")
    args = ap.parse_args(argv)
    made: Path | None = None
    where = Path("the log folder")
    point: ResumePoint | None = None
    try:
        cfg = load_config(find_config(args.config))
        where = cfg.logs.dir
        if args.serial:
            cfg.device.serial = args.serial
        if args.model:
            cfg.model.name = args.model
        if args.connect:
            cfg.device.connect = args.connect
        if args.max_turns is not None:
            cfg.run.max_turns = args.max_turns
        elif args.hours is not None or args.careers is not None:
            # Hours and careers mean hours and careers: the configured turn cap (500 by default, about an hour at
            # 6-9 s a turn) would end a night early and read as success. A cap given with them still applies.
            cfg.run.max_turns = 0
        if args.max_cost is not None:
            cfg.run.max_cost_usd = args.max_cost
        if args.careers is not None:
            cfg.run.max_careers = args.careers
        if args.hours is not None:
            cfg.run.max_hours = args.hours
        start_in: Path | None = None
        if args.resume is not None:
            folder = Path(args.resume) if args.resume else newest_run(cfg.logs.dir)
            try:
                point = open_point(folder)
            except NoCompletedTurn as exc:  # nothing to go on with: start over in that folder
                print(f"lluma run: {exc}; starting over", file=sys.stderr)
                start_in = folder
            if point is not None and point.checkpoint.env:
                raise ResumeError(demo_not_run(point.folder, cfg.logs.dir if not args.resume else None))
            if point is not None:
                point.another_device = args.device_changed
                flags = [k for k, v in (("device.serial", args.serial), ("device.connect", args.connect),
                                        ("model.name", args.model)) if v]
                kept = setup.carry(point, cfg, flags=flags)
                check_settings(point, cfg)
                if not os.environ.get(cfg.model.api_key_env):
                    raise ResumeError(setup.no_key(point, cfg))
                print(f"lluma run: resuming {point.folder} after turn {point.turn}, its last complete turn",
                      file=sys.stderr)
                if line := setup.said(point, kept):
                    print(f"lluma run: {line}", file=sys.stderr)
        if args.device_changed and args.resume is None:
            raise ResumeError(f"{setup.ANOTHER_DEVICE} goes with --resume: a new run plays on the device it is given")
        client = make_client(cfg.model)
        if point is not None:
            cfg.logs.dir = point.folder
        elif start_in is not None:
            cfg.logs.dir = start_in
        else:  # each run gets a new folder of its own (made exclusively: runs started in the same second differ)
            made = where = cfg.logs.dir = new_run_dir(cfg.logs.dir, "run")
        person = in_the_loop(Person(cfg.logs.dir), args.confirm, args.step) if args.confirm or args.step else None
        coordinator, close = build(cfg, client, resume=point, person=person)
    except Exception as exc:  # noqa: BLE001 - start_failed raises a bug again
        if made is not None:
            with contextlib.suppress(OSError):
                made.rmdir()  # only while still empty: a failed start leaves no empty run folder behind
        return start_failed("run", where, exc)
    with CtrlC() as ctrl_c:
        try:
            totals = ctrl_c.run(coordinator)
        finally:
            close()
        resumed = f", resumed from turn {point.turn}" if point else ""
        print(
            f"\n{totals.turns} turn{'' if totals.turns == 1 else 's'}{resumed}, {figures.usd(totals.cost_usd)} total, "
            f"cache hit "
            f"{figures.percent(totals.cache_hit_ratio)} "
            f"({totals.stop_reason}); logs in {cfg.logs.dir}"
        )
        if hint := how_to_go_on(cfg.logs.dir, command("run")):
            print(hint)
    code = exit_status(totals.stop_kind)
    if code:
        print(f"lluma run: {totals.stop_reason}", file=sys.stderr)
    return code
