"""`lluma stats`: run totals: tokens, cost, cache hit, latency, actions, errors."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lluma_agent.fleet.folder import FleetFolder
from lluma_agent.fleet.sidebyside import ROWS, all_stats, fleet_runs, stats_table
from lluma_agent.runlog.logread import Run, add_dir_argument, open_run
from lluma_agent.runlog.stats import compute, format_stats


def fleet_stats(folder: Path, runs: dict[str, Run], as_json: bool) -> int:
    """A fleet's devices side by side: a column each and the fleet's (--json: each device's stats, the totals)."""
    stats = all_stats(runs)
    if as_json:
        totals = {label: total(list(stats.values())) for label, _, total in ROWS if total(list(stats.values()))}
        print(json.dumps({"fleet": str(FleetFolder(folder).root), "devices": {k: s.model_dump() for k, s in
                                                                              stats.items()}, "totals": totals},
                         indent=2))
    else:
        print(f"fleet: {FleetFolder(folder).root} ({len(stats)} device(s))")
        print(stats_table(stats))
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma stats", description=__doc__.splitlines()[0])
    add_dir_argument(ap)
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    if (fleet := fleet_runs(args.dir, "lluma stats")) is not None:  # a fleet's folder: its devices side by side
        return fleet_stats(args.dir, fleet, args.json)
    run = open_run(args.dir, "lluma stats")
    if run is None:
        return 1
    s = compute(run.turns, str(run.folder), run.stop_reason)
    print(json.dumps(s.model_dump(), indent=2) if args.json else format_stats(s))
    return 0
