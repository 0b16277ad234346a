"""Token and cost benchmark: 100 turns of the real loop, twice in one process.

  cached    the layout of docs/ARCHITECTURE.md (breakpoints after system, memory, rolling history)
  baseline  the original harness's layout (full vision JSON and memory in every past user message,
            no cache_control, sliding window)

Both runs play the simulated game (same seed) through the adb stand-in, with OCR vision, against the
Messages API stand-in, which bills usage the way the API does (prefix caching emulated, token counts
from the shared estimator). Prices: claude-haiku-4-5 unless --model says otherwise.

    python bench/tokens.py [--turns 100] [--json] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from lluma_agent.turnlog import read_turns
from lluma_cli.demo import run_demo

CHECKPOINTS = (10, 50, 100)


def run(layout: str, turns: int, model: str, root: Path) -> dict:
    logs_dir = root / layout
    print(f"bench/tokens: playing {turns} turns with the {layout} layout...", file=sys.stderr, flush=True)
    summary = run_demo(
        turns, logs_dir, seed=11, quiet=True,
        overrides={"LLUMA_CONTEXT__LAYOUT": layout, "LLUMA_MODEL__NAME": model},
    )
    logs = [log for log in read_turns(logs_dir) if log.response is not None]
    per_turn = []
    for log in logs:
        u = log.usage
        per_turn.append(
            {
                "turn": log.turn,
                "uncached": u.input_tokens,
                "cache_write": u.cache_creation_input_tokens,
                "cache_read": u.cache_read_input_tokens,
                "output": u.output_tokens,
                "cost_usd": log.cost.turn_usd,
                "cache_hit_ratio": round(u.cache_hit_ratio, 4),
                "past_turn_tokens": log.past_turn_tokens,
                "past_reply_tokens": log.past_reply_tokens,
            }
        )
    from_10 = [t for t in per_turn if t["turn"] >= 10]
    read = sum(t["cache_read"] for t in from_10)
    total = sum(t["uncached"] + t["cache_write"] + t["cache_read"] for t in from_10)
    at = {n: per_turn[n - 1] for n in CHECKPOINTS if n <= len(per_turn)}
    last = per_turn[-1] if per_turn else {}
    return {
        "layout": layout,
        "turns": len(per_turn),
        "score": summary.score,
        "cost_usd": summary.cost_usd,
        "cost_per_turn_usd_at_100": at.get(100, last).get("cost_usd"),
        "cache_read_ratio_from_10": round(read / total, 4) if total else 0.0,
        "past_turn_tokens_median": _median(per_turn, "past_turn_tokens"),
        "past_reply_tokens_median": _median(per_turn, "past_reply_tokens"),
        "checkpoints": {str(n): row for n, row in at.items()},
        "per_turn": per_turn,
    }


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows) if rows else 0


def _row(t: dict) -> str:
    return (
        f"  turn {t['turn']:>3}: uncached {t['uncached']:>6}  write {t['cache_write']:>6}  read {t['cache_read']:>6}"
        f"  out {t['output']:>4}  ${t['cost_usd']:.5f}  hit {100 * t['cache_hit_ratio']:5.1f}%"
        f"  past turn {t['past_turn_tokens']:>4} + reply {t['past_reply_tokens']:>3}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--model", default="claude-haiku-4-5")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--verbose", action="store_true", help="print every turn, not only the checkpoints")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lluma-bench-") as tmp:
        cached = run("cached", args.turns, args.model, Path(tmp))
        baseline = run("baseline", args.turns, args.model, Path(tmp))
    c100, b100 = cached["cost_per_turn_usd_at_100"], baseline["cost_per_turn_usd_at_100"]
    ratio = round(c100 / b100, 4) if c100 is not None and b100 else None
    if args.json:
        for r in (cached, baseline):
            if not args.verbose:
                r.pop("per_turn")
        print(json.dumps({"cached": cached, "baseline": baseline, "cost_ratio_at_100": ratio}))
        return 0
    for r in (cached, baseline):
        print(f"{r['layout']}: {r['turns']} turns, ${r['cost_usd']:.4f} total, game score {r['score']}")
        for t in r["per_turn"] if args.verbose else r["checkpoints"].values():
            print(_row(t))
        print(
            f"  cache reads from turn 10 on: {100 * r['cache_read_ratio_from_10']:.1f}% of input tokens;"
            f" median past turn: {r['past_turn_tokens_median']} tokens, plus {r['past_reply_tokens_median']}"
            " for the kept reply (estimates)"
        )
    print(f"cost per turn at turn {min(args.turns, 100)}: cached ${c100:.5f} vs baseline ${b100:.5f} "
          f"= {100 * (ratio or 0):.1f}% of the baseline")
    print("targets: <= 15% of the baseline at turn 100; cache reads >= 85% from turn 10; past turns <= 60 tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
