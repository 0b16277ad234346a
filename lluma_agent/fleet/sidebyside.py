"""A fleet's devices side by side, for `lluma stats`, `lluma logs` and `lluma report` on a fleet's folder: each
device's run, and a table with one column per device and one for the fleet."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from lluma_agent.fleet.folder import FleetFolder
from lluma_agent.runlog import figures
from lluma_agent.runlog.logread import LogDirError, Run, clip, load_run
from lluma_agent.runlog.stats import RunStats, compute
from lluma_facts import Usage

Cell = Callable[[RunStats], str]


def _careers(s: RunStats) -> int:
    return sum(c.complete for c in s.careers)


def _per_turn(total: float, turns: int) -> str:
    return figures.usd(total / max(1, turns))


# (row, a device's cell, the fleet's cell from every device's stats)
ROWS: list[tuple[str, Cell, Callable[[list[RunStats]], str]]] = [
    ("turns", lambda s: str(s.turns), lambda a: str(sum(s.turns for s in a))),
    ("careers completed", lambda s: str(_careers(s)), lambda a: str(sum(map(_careers, a)))),
    ("cost", lambda s: figures.usd(s.cost_usd), lambda a: figures.usd(sum(s.cost_usd for s in a))),
    ("cost per turn", lambda s: _per_turn(s.cost_usd, s.turns),
     lambda a: _per_turn(sum(s.cost_usd for s in a), sum(s.turns for s in a))),
    ("cache hit", lambda s: figures.percent(s.cache_hit_ratio),
     lambda a: figures.percent(sum((s.usage() for s in a), Usage()).cache_hit_ratio)),
    ("model calls", lambda s: str(s.model_calls), lambda a: str(sum(s.model_calls for s in a))),
    ("latency p50", lambda s: f"{s.model_latency_p50_s:.2f} s", lambda a: ""),
    ("active time", lambda s: f"{s.active_s:.0f} s", lambda a: f"{max((s.active_s for s in a), default=0):.0f} s"),
    ("errors", lambda s: str(s.errors), lambda a: str(sum(s.errors for s in a))),
    ("game starts", lambda s: str(s.game_starts), lambda a: str(sum(s.game_starts for s in a))),
    ("goTo / routine", lambda s: f"{s.goto_calls} / {s.routine_passes}",
     lambda a: f"{sum(s.goto_calls for s in a)} / {sum(s.routine_passes for s in a)}"),
    ("stopped", lambda s: s.stop_reason or "-", lambda a: ""),
]
COLUMN_W = 24  # a device's column: "max_careers (1) ended" fits


def fleet_runs(folder: Path | None, prog: str) -> dict[str, Run] | None:
    """Each device's run when `folder` is a fleet's (a device with no turn yet is said and left out), else None."""
    if folder is None or not FleetFolder(folder).is_fleet():
        return None
    fleet = FleetFolder(folder)
    runs = {}
    for serial in fleet.spec().devices:
        try:
            runs[serial] = load_run(fleet.run_dir(serial))
        except LogDirError:
            print(f"{prog}: {serial} has played no turn yet ({fleet.run_dir(serial)})", file=sys.stderr)
    return runs


def all_stats(runs: dict[str, Run]) -> dict[str, RunStats]:
    return {serial: compute(r.turns, str(r.folder), r.stop_reason) for serial, r in runs.items()}


def stats_table(stats: dict[str, RunStats]) -> str:
    label_w = max(len(r[0]) for r in ROWS)
    head = f"{'':<{label_w}}  " + "  ".join(f"{clip(s, COLUMN_W):>{COLUMN_W}}" for s in [*stats, "fleet"])
    lines = [head]
    for label, cell, total in ROWS:
        cells = [cell(s) for s in stats.values()] + [total(list(stats.values()))]
        lines.append(f"{label:<{label_w}}  " + "  ".join(f"{clip(c, COLUMN_W):>{COLUMN_W}}" for c in cells))
    return "\n".join(lines)
