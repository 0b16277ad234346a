"""Soak: a long demo with faults injected, to see what an unattended career survives.

Plays `--turns` demo turns (default 1,000) on the simulated phone and API stand-in with the seeded fault
schedule at `--faults` per turn (default 0.05), in this process, and prints: turns played, why the run
stopped (its kind and exit status), turns per hour, faults injected by kind (every one of them survived
when the run reached max turns), taps off target, resident memory at start, at turns 100, 500 and 1,000
(`--marks`) and at the end, and disk per turn (the run folder's bytes over its turns). A baseline run
without faults, of `--baseline-turns` turns in the same process, gives the turns-per-hour ratio.

    .venv/bin/python bench/soak.py [--turns 1000] [--faults 0.05] [--seed 11] [--baseline-turns 100] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lluma_agent.loop.stop import exit_status  # noqa: E402
from lluma_agent.loop.turn import RunTotals  # noqa: E402
from lluma_cli.demo import DemoSummary, run_demo  # noqa: E402


def rss_mb() -> float:
    """Resident set size of this process (Linux /proc), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def soak(turns: int, faults: float, seed: int, where: Path, marks: tuple[int, ...] = ()
         ) -> tuple[DemoSummary, float, int, dict[int, float]]:
    """One demo run; resident memory (MB) after each turn in `marks`."""
    print(f"soak: {turns} turns, {faults:g} faults per turn, seed {seed} ...", file=sys.stderr, flush=True)
    rss: dict[int, float] = {}

    def watch(log: object, totals: RunTotals) -> None:
        if totals.turns in marks:
            rss[totals.turns] = round(rss_mb(), 1)
            print(f"soak: turn {totals.turns}, RSS {rss[totals.turns]:.0f} MB", file=sys.stderr, flush=True)

    start = time.monotonic()
    summary = run_demo(turns, where, seed=seed, quiet=True, fault_rate=faults, watch=watch)
    return summary, time.monotonic() - start, folder_bytes(where), rss


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=1000)
    ap.add_argument("--faults", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--baseline-turns", type=int, default=100, help="turns of the fault-free baseline (0 = none)")
    ap.add_argument("--marks", default="100,500,1000", help="turns at which resident memory is read")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lluma-soak-") as tmp:
        rss_start = rss_mb()
        base_rate = None
        base_bytes = 0
        if args.baseline_turns:
            base, base_s, base_bytes, _ = soak(args.baseline_turns, 0.0, args.seed, Path(tmp) / "baseline")
            base_rate = base.turns / base_s * 3600
        marks = tuple(int(m) for m in args.marks.split(",") if m)
        s, seconds, log_bytes, rss = soak(args.turns, args.faults, args.seed, Path(tmp) / "soak", marks)
        rss_end = rss_mb()
    rate = s.turns / seconds * 3600
    out = {
        "turns": s.turns,
        "stop_reason": s.stop_reason,
        "stop_kind": s.stop_kind,
        "exit_status": exit_status(s.stop_kind),
        "seconds": round(seconds, 1),
        "turns_per_hour": round(rate),
        "baseline_turns_per_hour": round(base_rate) if base_rate else None,
        "ratio_to_baseline": round(rate / base_rate, 3) if base_rate else None,
        "faults_injected": s.faults_injected.model_dump(),
        "taps_off_target": s.taps_off_target,
        "rss_mb_start": round(rss_start, 1),
        "rss_mb_at_turn": {str(k): v for k, v in sorted(rss.items())},
        "rss_mb_end": round(rss_end, 1),
        "log_bytes_per_turn": round(log_bytes / max(1, s.turns)),
        "baseline_log_bytes_per_turn": round(base_bytes / max(1, args.baseline_turns)) if args.baseline_turns else None,
        "cost_per_turn_usd": s.cost_per_turn_usd,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"turns: {s.turns} ({s.stop_reason}) in {seconds:.0f} s: {rate:,.0f} turns/hour", end="")
    print(f" ({out['ratio_to_baseline']}x the fault-free baseline)" if base_rate else "")
    print(f"faults injected: {s.faults_injected.total}")
    for kind, n in sorted(s.faults_injected.by_kind.items()):
        print(f"  {kind:28s} {n}")
    print(f"taps off target: {s.taps_off_target}")
    at = ", ".join(f"{v:.0f} MB at turn {k}" for k, v in sorted(rss.items()))
    print(f"stopped: {s.stop_kind} (exit {out['exit_status']})")
    print(f"memory (RSS): {rss_start:.0f} MB at start, {at + ', ' if at else ''}{rss_end:.0f} MB at end")
    print(f"logs: {out['log_bytes_per_turn']:,} bytes per turn; ${s.cost_per_turn_usd:.5f} per turn")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
