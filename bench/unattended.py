"""A night in the simulator: several careers back to back with the game's hazards and the device's and API's faults.

Plays `--careers` careers (default 3) of `--career-turns` game turns (default 78, the real URA Finale career) with
the demo's wiring, hazards at `--hazards` per input (default 0.05) and faults at `--faults` per turn (default 0.02),
in this process, and prints: careers completed (the agent's records beside the game's own count), why the run
stopped (kind and exit status), hazards and faults by kind, recoveries by rung, game starts, stuck episodes (runs
of turns the stuck detector flagged: how many, median and longest), taps off target, whether the agent's career
records say what the game's do (`records_agree`), and per career: turns, model calls, cost and wall time. `--json`
prints the same as one object for scripts.

    .venv/bin/python bench/unattended.py [--careers 3] [--career-turns 78] [--hazards 0.05] [--faults 0.02]
                                         [--seed 11] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lluma_agent.loop.stop import exit_status  # noqa: E402
from lluma_agent.runlog.logread import load_run  # noqa: E402
from lluma_agent.runlog.turnlog import TurnLog  # noqa: E402
from lluma_cli.demo import DemoSummary, run_demo  # noqa: E402
from lluma_cli.errors import career_length  # noqa: E402

HAZARDS = 0.05  # game hazards per input: a night's worth (crashes, dialogs, resets), as the unattended test plays
FAULTS = 0.02  # device and API faults per turn


def stuck_episodes(turns: list[TurnLog]) -> list[int]:
    """Lengths, in turns, of each run of consecutive turns the stuck detector flagged (any level above ok)."""
    runs: list[int] = []
    streak = 0
    for t in sorted(turns, key=lambda t: t.turn):
        if t.stuck.level != "ok":
            streak += 1
        elif streak:
            runs.append(streak)
            streak = 0
    return runs + ([streak] if streak else [])


def night(careers: int, career_turns: int, hazards: float, faults: float, seed: int, where: Path,
          overrides: dict[str, str] | None = None, label: str = "unattended", truth_vision: bool = False,
          policy: Any = None) -> dict[str, Any]:
    """Play the night into `where` and sum it up; `overrides` are extra LLUMA_* settings (bench/navigation.py turns
    the screen map off with them); `truth_vision` and `policy` (the stand-in's player) as in run_demo (bench/careers.py
    plays its players so)."""
    print(f"{label}: {careers} careers of {career_turns} game turns, hazards {hazards:g}, faults {faults:g}, "
          f"seed {seed} ...", file=sys.stderr, flush=True)
    start = time.monotonic()
    s: DemoSummary = run_demo(0, where, seed=seed, quiet=True, careers=careers, fault_rate=faults,
                              hazard_rate=hazards, career_turns=career_turns, overrides=overrides,
                              truth_vision=truth_vision, policy=policy)
    wall = time.monotonic() - start
    episodes = stuck_episodes(load_run(where).turns) if s.turns else []
    return {
        "careers_asked": careers,
        "career_turns": career_turns,
        "careers_completed": s.careers_completed,
        "careers_recorded": s.careers_recorded,
        "turns": s.turns,
        "stop_reason": s.stop_reason,
        "stop_kind": s.stop_kind,
        "exit_status": exit_status(s.stop_kind),
        "hazards_injected": s.hazards_injected.model_dump(),
        "faults_injected": s.faults_injected.model_dump(),
        "recoveries": s.recoveries,
        "game_starts": s.game_starts,
        "stuck_episodes": {"count": len(episodes), "median_turns": statistics.median(episodes) if episodes else 0,
                           "longest_turns": max(episodes, default=0)},
        "taps_off_target": s.taps_off_target,
        "spends_without_model": s.spends_without_model,
        "game_turn": s.game_turn,
        "cost_usd": s.cost_usd,
        "wall_s": round(wall, 1),
        "turns_per_hour": round(s.turns / wall * 3600, 1) if wall else 0.0,
        "per_career": [{"number": c.number, "complete": c.complete, "turns": c.turns, "model_calls": c.model_calls,
                        "cost_usd": c.cost_usd, "wall_s": c.wall_s, "stats": c.stats} for c in s.careers],
        "game_careers": [c.model_dump(mode="json") for c in s.game_careers],
        # the agent's record of each completed career says what the game's does (None: none completed)
        "records_agree": s.records_agree,
    }


def agree(flag: bool | None) -> str:
    return "no career completed" if flag is None else "yes" if flag else "NO"


def table(r: dict[str, Any]) -> str:
    def counts(d: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "none"

    ep = r["stuck_episodes"]
    lines = [
        f"careers completed: {r['careers_completed']} of {r['careers_asked']} (the agent recorded "
        f"{r['careers_recorded']}); {r['career_turns']} game turns each",
        f"stopped: {r['stop_reason']} (kind {r['stop_kind']}, exit {r['exit_status']}) after {r['turns']} turns, "
        f"{r['wall_s']:.0f} s ({r['turns_per_hour']:.0f} turns/hour), ${r['cost_usd']:.4f}",
        f"hazards: {r['hazards_injected']['total']} ({counts(r['hazards_injected']['by_kind'])})",
        f"faults: {r['faults_injected']['total']} ({counts(r['faults_injected']['by_kind'])})",
        f"recoveries: {counts(r['recoveries'])}; game starts: {r['game_starts']}",
        f"stuck episodes: {ep['count']} (median {ep['median_turns']} turns, longest {ep['longest_turns']})",
        f"taps off target: {r['taps_off_target']}",
        f"records agree (the agent's career records = the game's): {agree(r['records_agree'])}",
        "",
        "| career | complete | turns | model calls | cost | wall |",
        "| --- | --- | --- | --- | --- | --- |",
        *(f"| {c['number']} | {'yes' if c['complete'] else 'no'} | {c['turns']} | {c['model_calls']} | "
          f"${c['cost_usd']:.4f} | {c['wall_s']:.0f} s |" for c in r["per_career"]),
    ]
    return "\n".join(lines)


def add_night_arguments(ap: argparse.ArgumentParser, careers: int = 3, career_turns: int = 78) -> None:
    """A night's settings, shared with the benches that play nights (bench/navigation.py)."""
    ap.add_argument("--careers", type=int, default=careers)
    ap.add_argument("--career-turns", type=career_length, default=career_turns,
                    help="game turns per career (78: the real URA Finale one)")
    ap.add_argument("--hazards", type=float, default=HAZARDS, help="game hazards per input")
    ap.add_argument("--faults", type=float, default=FAULTS, help="device and API faults per turn")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", action="store_true")


def play_kept(args: argparse.Namespace, bench: Callable[[argparse.Namespace, Path], dict[str, Any]],
              table: Callable[[dict[str, Any]], str], name: str) -> int:
    """The tail of a bench that plays runs into a folder (bench/careers.py, bench/navigation.py): into `--keep` when
    given (a new or empty folder: the runs would mix with what is there; exit 2 otherwise), else a temporary one;
    the result printed as JSON or as the bench's table."""
    if args.keep is not None:
        if args.keep.exists() and (not args.keep.is_dir() or any(args.keep.iterdir())):
            print(f"bench/{name}.py: --keep {args.keep}: not an empty folder (the runs would mix with what is there); "
                  "name a new one", file=sys.stderr)
            return 2
        args.keep.mkdir(parents=True, exist_ok=True)
        result = bench(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix=f"lluma-{name}-") as tmp:
            result = bench(args, Path(tmp))
    print(json.dumps(result) if args.json else table(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_night_arguments(ap)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lluma-night-") as tmp:
        result = night(args.careers, args.career_turns, args.hazards, args.faults, args.seed, Path(tmp) / "run")
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
