"""`lluma run`: play on a real phone or emulator with Claude."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from lluma_agent.app import CtrlC, build
from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.device import DeviceError
from lluma_agent.model import ModelError, make_client


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma run", description=__doc__)
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("--serial", help="device serial (overrides device.serial)")
    ap.add_argument("--connect", help="host:port to `adb connect` first, e.g. 127.0.0.1:5555")
    ap.add_argument("--max-turns", type=int, help="overrides run.max_turns")
    ap.add_argument("--max-cost", type=float, help="overrides run.max_cost_usd")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(find_config(args.config))
        if args.serial:
            cfg.device.serial = args.serial
        if args.connect:
            cfg.device.connect = args.connect
        if args.max_turns is not None:
            cfg.run.max_turns = args.max_turns
        if args.max_cost is not None:
            cfg.run.max_cost_usd = args.max_cost
        # Each run gets its own folder: a second run must never overwrite the first one's turn logs.
        cfg.logs.dir = cfg.logs.dir / time.strftime("run-%Y%m%d-%H%M%S")
        coordinator, close = build(cfg, make_client(cfg.model))
    except (ConfigError, ModelError, DeviceError) as exc:
        print(f"lluma run: {exc}", file=sys.stderr)
        return 2
    with CtrlC() as ctrl_c:
        try:
            totals = ctrl_c.run(coordinator)
        finally:
            close()
        print(
            f"\n{totals.turns} turns, ${totals.cost_usd:.4f}, cache hit {100 * totals.cache_hit_ratio:.0f}% "
            f"({totals.stop_reason}); logs in {cfg.logs.dir}"
        )
    return 0
