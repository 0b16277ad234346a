"""Long runs: what knowledge costs per turn, what a break does to the cache on resume, how fast history search is.

(a) Knowledge: `--turns` demo turns (default 100) with knowledge on and off, same seed. The stand-in's policy
    decides from the <vision> reading only, so both runs play the same turns and the difference is the hints:
    request tokens per turn (the decision's input: uncached + cache write + cache read), $ per turn (every call),
    turns with matched entries and the hints' tokens (the agent's estimate).
(b) Resume: a demo of `--resume-turns` turns (default 12) stops; the stand-in stays up (as the API does) and its
    clock is moved forward by the break (10 s, 10 minutes; ShiftedClock, so the cache's TTL sees the break
    without waiting it out); the run is resumed from its checkpoint for one turn. Printed: the share of the first
    resumed turn's input read from cache, beside the last turn before the break.
(c) Search: `history_index.search` p50/p90 over a `--fts-turns` (5,000) turn database made of (a)'s real turn
    logs, renumbered; a fixed set of queries, each run `--fts-runs` times.

    .venv/bin/python bench/long_runs.py [--turns 100] [--resume-turns 12] [--fts-turns 5000] [--seed 11] [--json]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lluma_agent.context.tokens import estimate_text_tokens  # noqa: E402
from lluma_agent.loop.resume import open_point  # noqa: E402
from lluma_agent.runlog import index as history_index  # noqa: E402
from lluma_agent.runlog.turnlog import TurnLog, read_turn, read_turns, search_row  # noqa: E402
from lluma_cli.demo import DemoState, agent_on, run_demo, sim_environment  # noqa: E402
from lluma_sim.api.cache import ShiftedClock  # noqa: E402

BREAKS_S = (10.0, 600.0)
QUERIES = ("Training", "Rest", '"Fail 12%"', "energy AND low", "skill*", "Race OR Rest", "OK NOT Cancel",
           "changed", "Speed Stamina", "memory")


def progress(line: str) -> None:
    print(f"bench/long_runs: {line}", file=sys.stderr, flush=True)


def knowledge_run(enabled: bool, turns: int, seed: int, where: Path) -> dict[str, Any]:
    progress(f"{turns} demo turns, knowledge {'on' if enabled else 'off'}...")
    s = run_demo(turns, where, seed=seed, quiet=True,
                 overrides={"LLUMA_KNOWLEDGE__ENABLED": "true" if enabled else "false"})
    logs = [log for log in read_turns(where) if log.response is not None]
    n = max(1, len(logs))
    hints = [estimate_text_tokens(note) for log in logs for note in log.notes if note.startswith("<knowledge>")]
    return {
        "turns": s.turns,
        "score": s.score,
        "request_tokens_per_turn": round(sum(log.usage.total_input_tokens for log in logs) / n, 1),
        "uncached_tokens_per_turn": round(sum(log.usage.input_tokens for log in logs) / n, 1),
        "cache_write_tokens_per_turn": round(sum(log.usage.cache_creation_input_tokens for log in logs) / n, 1),
        "cache_read_tokens_per_turn": round(sum(log.usage.cache_read_input_tokens for log in logs) / n, 1),
        "output_tokens_per_turn": round(sum(log.usage.output_tokens for log in logs) / n, 1),
        "cost_per_turn_usd": s.cost_per_turn_usd,
        "cache_hit_ratio": s.cache_hit_ratio,
        "turns_with_knowledge": sum(1 for log in logs if log.knowledge),
        "knowledge_entries_per_turn": round(sum(len(log.knowledge) for log in logs) / n, 2),
        "knowledge_tokens_per_turn": round(sum(hints) / n, 1),  # the agent's estimate of the <knowledge> notes
    }


def _share(log: TurnLog) -> float:
    total = log.usage.total_input_tokens
    return round(log.usage.cache_read_input_tokens / total, 4) if total else 0.0


def resume_after(break_s: float, turns: int, seed: int, where: Path) -> dict[str, Any]:
    progress(f"{turns} demo turns, a break of {break_s:g} s, one resumed turn...")
    clock = ShiftedClock()
    with sim_environment(turns, where, seed, clock=clock) as sim:
        with agent_on(sim) as coordinator:
            coordinator.run()
        clock.advance(break_s)
        point = open_point(where)
        sim.game.restore(DemoState.of(point).game)  # as `lluma demo --resume` does (here it is the same game)
        sim.cfg.run.max_turns = 1
        with agent_on(sim, resume=point) as coordinator:
            coordinator.run()
    before = read_turn(where / f"turn_{point.turn:06d}.json")
    first = read_turn(where / f"turn_{point.turn + 1:06d}.json")
    return {
        "break_s": break_s,
        "resumed_from_turn": point.turn,
        "cache_read_share_first_turn": _share(first),
        "cache_read_share_before_break": _share(before),
        "first_turn_cache_read_tokens": first.usage.cache_read_input_tokens,
        "first_turn_cache_write_tokens": first.usage.cache_creation_input_tokens,
        "first_turn_cost_usd": round(first.cost.turn_usd, 6),
        "cost_before_break_usd": round(before.cost.turn_usd, 6),
    }


def fts(source: Path, turns: int, runs: int, where: Path) -> dict[str, Any]:
    progress(f"a {turns}-turn search index from {source.name}'s turn logs, {len(QUERIES)} queries x {runs}...")
    rows = [search_row(log) for log in read_turns(source)]
    db_path = where / "turns.sqlite"
    db = sqlite3.connect(db_path)
    history_index.ensure(db)
    for turn in range(1, turns + 1):
        history_index.index(db, (turn, *rows[(turn - 1) % len(rows)][1:]))
    db.commit()
    times: list[float] = []
    hits: dict[str, int] = {}
    for query in QUERIES:
        for _ in range(runs):
            started = time.perf_counter()
            found = history_index.search(db, query, 10)
            times.append((time.perf_counter() - started) * 1000)
        hits[query] = len(found)
    db.close()
    cuts = statistics.quantiles(times, n=10)
    return {"turns": turns, "queries": len(QUERIES), "runs_per_query": runs,
            "p50_ms": round(statistics.median(times), 3), "p90_ms": round(cuts[8], 3),
            "db_bytes": db_path.stat().st_size, "hits": hits}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=100, help="demo turns with knowledge on and off (default 100)")
    ap.add_argument("--resume-turns", type=int, default=12, help="turns before each break (default 12)")
    ap.add_argument("--fts-turns", type=int, default=5000, help="turns in the search database (default 5,000)")
    ap.add_argument("--fts-runs", type=int, default=20, help="runs of each query (default 20)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lluma-long-") as tmp:
        root = Path(tmp)
        on = knowledge_run(True, args.turns, args.seed, root / "knowledge-on")
        off = knowledge_run(False, args.turns, args.seed, root / "knowledge-off")
        breaks = [resume_after(b, args.resume_turns, args.seed, root / f"break-{b:g}") for b in BREAKS_S]
        (root / "fts").mkdir()
        search = fts(root / "knowledge-on", args.fts_turns, args.fts_runs, root / "fts")
    out = {"turns": args.turns, "knowledge_on": on, "knowledge_off": off, "resume": breaks, "fts": search}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"(a) {args.turns} demo turns, seed {args.seed}: knowledge on / off")
    for key in ("request_tokens_per_turn", "cache_read_tokens_per_turn", "cache_write_tokens_per_turn",
                "output_tokens_per_turn", "cost_per_turn_usd", "turns_with_knowledge", "knowledge_tokens_per_turn",
                "score"):
        print(f"    {key:<28} {on[key]:>12} {off[key]:>12}")
    print(f"(b) resume after a break, {args.resume_turns} turns first")
    for b in breaks:
        print(f"    break {b['break_s']:>5g} s: first resumed turn reads {100 * b['cache_read_share_first_turn']:.1f}% "
              f"of its input from cache (last turn before: {100 * b['cache_read_share_before_break']:.1f}%), "
              f"${b['first_turn_cost_usd']:.6f} (before: ${b['cost_before_break_usd']:.6f})")
    print(f"(c) search over {search['turns']:,} turns ({search['db_bytes'] / 1e6:.1f} MB): "
          f"p50 {search['p50_ms']:.2f} ms, "
          f"p90 {search['p90_ms']:.2f} ms ({search['queries']} queries x {search['runs_per_query']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
