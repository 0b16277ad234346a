"""`lluma stats`: run totals: tokens, cost, cache hit, latency, actions, errors."""

from __future__ import annotations

import argparse
import json

from lluma_agent.runlog.logread import add_dir_argument, open_run
from lluma_agent.runlog.stats import compute, format_stats
from lluma_cli import fleet_views
from lluma_cli.fleet_views import fleet_runs


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma stats", description=__doc__.splitlines()[0])
    add_dir_argument(ap)
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    if (fleet := fleet_runs(args.dir, "lluma stats")) is not None:  # a fleet's folder: its devices side by side
        return fleet_views.stats_main(args.dir, fleet, args.json)
    run = open_run(args.dir, "lluma stats")
    if run is None:
        return 1
    s = compute(run.turns, str(run.folder), run.stop_reason)
    print(json.dumps(s.model_dump(), indent=2) if args.json else format_stats(s))
    return 0
