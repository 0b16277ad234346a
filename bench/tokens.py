"""Token and cost benchmark: the real loop on the simulated game, per model and vision backend.

For each cell of {claude-haiku-4-5, claude-haiku-5-5} x {ocr, hybrid} it plays --turns turns twice, and once more
without the screenshot (`context.screenshots: 0`) unless --screenshots says otherwise:

  cached    the layout of docs/ARCHITECTURE.md (breakpoints after system and memory, rolling history,
            verbatim turns where a reply holds thinking)
  baseline  the original harness's layout (full vision JSON and memory in every past user message,
            no cache_control, sliding window)

Every run plays the simulated game (same seed) through the adb stand-in against the Messages API
stand-in, which bills each call the way the API does with its own token count (not the agent's
estimator). Every call a turn makes is in its cost: the decision, the VLM reading (hybrid), a fold's
summary, the count_tokens preflight. Printed per cell: $/turn at turns 10/20/50/100, the cache-read share
of input tokens from turn 10 on, the median tokens a past turn adds to history (record plus kept reply),
the cost ratio to the baseline at turn 100 (or at the last turn both reached, with each run's stop reason),
and the agent's input-token estimate against the billed count (median relative error).

    python bench/tokens.py [--turns 100] [--models claude-haiku-4-5,claude-haiku-5-5] [--vision ocr,hybrid]
                           [--screenshots 1,0] [--jobs 2] [--no-baseline] [--json] [--verbose]

`--json` keeps the keys of earlier versions (`cached`, `baseline`, `cost_ratio_at_100`: the first model
with ocr) and adds `matrix` (each cell: `cached`, `baseline`, and `cached_no_screenshot` when measured).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from baseline_layout import BaselineLayout  # bench/ is this script's own folder

from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import run_demo

CHECKPOINTS = (10, 20, 50, 100)
MODELS = ("claude-haiku-4-5", "claude-haiku-5-5")
VISION = ("ocr", "hybrid")


def run(layout: str, turns: int, model: str, root: Path, vision: str = "ocr", screenshots: int = 1) -> dict[str, Any]:
    logs_dir = root / f"{model}-{vision}-{layout}-{screenshots}"
    print(f"bench/tokens: playing {turns} turns, {model} / {vision} / {layout} / screenshots {screenshots}...",
          file=sys.stderr, flush=True)
    summary = run_demo(
        turns, logs_dir, seed=11, quiet=True,
        layout=BaselineLayout() if layout == "baseline" else None,
        overrides={"LLUMA_MODEL__NAME": model,
                   "LLUMA_VISION__BACKEND": vision, "LLUMA_VISION__VLM_MODEL": model,
                   "LLUMA_CONTEXT__SCREENSHOTS": str(screenshots)},
    )
    logs = [log for log in read_turns(logs_dir) if log.response is not None]
    per_turn: list[dict[str, Any]] = []
    for log in logs:
        u = log.usage
        estimate = sum(s.tokens for s in log.context)
        billed = u.total_input_tokens
        per_turn.append(
            {
                "turn": log.turn,
                "uncached": u.input_tokens,
                "cache_write": u.cache_creation_input_tokens,
                "cache_read": u.cache_read_input_tokens,
                "output": u.output_tokens,
                "cost_usd": log.cost.turn_usd,
                "side_calls": [c.kind for c in log.side_calls],
                "cache_hit_ratio": round(u.cache_hit_ratio, 4),
                "past_turn_tokens": log.past_turn_tokens,
                "past_reply_tokens": log.past_reply_tokens,
                "estimated_input": estimate,
                "billed_input": billed,
            }
        )
    from_10 = [t for t in per_turn if t["turn"] >= 10]
    read = sum(t["cache_read"] for t in from_10)
    total = sum(t["uncached"] + t["cache_write"] + t["cache_read"] for t in from_10)
    at = {n: per_turn[n - 1] for n in CHECKPOINTS if n <= len(per_turn)}
    last = per_turn[-1] if per_turn else {}
    errors = [(t["estimated_input"] - t["billed_input"]) / t["billed_input"] for t in per_turn if t["billed_input"]]
    return {
        "layout": layout,
        "model": model,
        "vision": vision,
        "screenshots": screenshots,
        "turns": len(per_turn),
        "stop_reason": summary.stop_reason,
        "score": summary.score,
        "cost_usd": summary.cost_usd,
        "cost_per_turn_usd": summary.cost_per_turn_usd,
        "cost_per_turn_usd_at_100": at.get(100, last).get("cost_usd"),
        "cost_per_turn_usd_at": {str(n): row["cost_usd"] for n, row in at.items()},
        "cache_read_ratio_from_10": round(read / total, 4) if total else 0.0,
        "past_turn_tokens_median": _median(per_turn, "past_turn_tokens"),
        "past_reply_tokens_median": _median(per_turn, "past_reply_tokens"),
        "past_turn_with_reply_median": statistics.median(
            t["past_turn_tokens"] + t["past_reply_tokens"] for t in per_turn) if per_turn else 0,
        # The agent's estimate against what the stand-in billed (its own count): signed median, median |error|.
        "estimate_error_median": round(statistics.median(errors), 4) if errors else None,
        "estimate_abs_error_median": round(statistics.median(abs(e) for e in errors), 4) if errors else None,
        "checkpoints": {str(n): row for n, row in at.items()},
        "per_turn": per_turn,
    }


def _median(rows: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in rows) if rows else 0


def _row(t: dict[str, Any]) -> str:
    side = f"  +{','.join(t['side_calls'])}" if t.get("side_calls") else ""
    return (
        f"    turn {t['turn']:>3}: uncached {t['uncached']:>6}  write {t['cache_write']:>6}  read {t['cache_read']:>6}"
        f"  out {t['output']:>4}  ${t['cost_usd']:.5f}  hit {100 * t['cache_hit_ratio']:5.1f}%"
        f"  past turn {t['past_turn_tokens']:>4} + reply {t['past_reply_tokens']:>3}"
        f"  est/billed {t['estimated_input']}/{t['billed_input']}{side}"
    )


def _cell(args: tuple[str, int, str, str, str, int]) -> dict[str, Any]:
    layout, turns, model, vision, root, screenshots = args
    return run(layout, turns, model, Path(root), vision, screenshots)


def _ratio(cached: dict[str, Any], baseline: dict[str, Any] | None) -> float | None:
    if baseline is None:
        return None
    c, b = cached["cost_per_turn_usd_at_100"], baseline["cost_per_turn_usd_at_100"]
    return round(c / b, 4) if c is not None and b else None


def _common(cached: dict[str, Any], baseline: dict[str, Any] | None) -> tuple[int | None, float | None]:
    """The last turn both runs reached, and the cost ratio there (a run may stop early: see its stop_reason)."""
    if baseline is None or not cached["turns"] or not baseline["turns"]:
        return None, None
    n = min(cached["turns"], baseline["turns"])
    c, b = cached["per_turn"][n - 1]["cost_usd"], baseline["per_turn"][n - 1]["cost_usd"]
    return n, (round(c / b, 4) if b else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated model ids")
    ap.add_argument("--model", default=None, help="one model only (same as --models MODEL)")
    ap.add_argument("--vision", default=",".join(VISION), help="comma-separated vision backends (ocr, hybrid)")
    ap.add_argument("--screenshots", default="1,0", help="screenshots per decision to measure (1 = with, 0 = without)")
    ap.add_argument("--jobs", type=int, default=2, help="runs in parallel (separate processes)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the baseline runs (no ratio)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--verbose", action="store_true", help="print every turn, not only the checkpoints")
    args = ap.parse_args()
    models = [args.model] if args.model else [m for m in args.models.split(",") if m]
    visions = [v for v in args.vision.split(",") if v]
    layouts = ["cached"] if args.no_baseline else ["cached", "baseline"]
    shots = [int(s) for s in args.screenshots.split(",") if s]
    with tempfile.TemporaryDirectory(prefix="lluma-bench-") as tmp:
        # The baseline runs with the screenshot (the original harness sent one); each cached cell once per setting.
        jobs = [(layout, args.turns, m, v, tmp, n) for m in models for v in visions for layout in layouts
                for n in (shots if layout == "cached" else shots[:1])]
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(_cell, jobs))
    runs = {(r["model"], r["vision"], r["layout"], r["screenshots"]): r for r in results}
    matrix: dict[str, dict[str, dict[str, Any]]] = {}
    for m in models:
        for v in visions:
            cached, baseline = runs[(m, v, "cached", shots[0])], runs.get((m, v, "baseline", shots[0]))
            cached["cost_ratio_to_baseline"] = _ratio(cached, baseline)
            cached["compared_at_turn"], cached["cost_ratio_at_last_common_turn"] = _common(cached, baseline)
            cell: dict[str, Any] = {"cached": cached, "baseline": baseline}
            if 0 in shots[1:]:
                cell["cached_no_screenshot"] = runs[(m, v, "cached", 0)]
            matrix.setdefault(m, {})[v] = cell
    first = matrix[models[0]].get("ocr") or next(iter(matrix[models[0]].values()))
    if args.json:
        if not args.verbose:
            for r in results:
                r.pop("per_turn")
        print(json.dumps({"cached": first["cached"], "baseline": first["baseline"],
                          "cost_ratio_at_100": first["cached"]["cost_ratio_to_baseline"], "matrix": matrix}))
        return 0
    for m in models:
        for v in visions:
            cell = matrix[m][v]
            shown: list[dict[str, Any] | None] = [cell["cached"], cell.get("cached_no_screenshot"), cell["baseline"]]
            for one in shown:
                if one is None:
                    continue
                print(f"{m} / {v} / {one['layout']} / screenshots {one['screenshots']}: {one['turns']} turns, "
                      f"${one['cost_usd']:.4f} total (${one['cost_per_turn_usd']:.5f}/turn), "
                      f"game score {one['score']}; stopped: {one['stop_reason']}")
                for t in one["per_turn"] if args.verbose else one["checkpoints"].values():
                    print(_row(t))
            c = cell["cached"]
            ratio = c["cost_ratio_to_baseline"]
            err, abs_err = 100 * (c["estimate_error_median"] or 0), 100 * (c["estimate_abs_error_median"] or 0)
            print(f"  cache reads from turn 10: {100 * c['cache_read_ratio_from_10']:.1f}%; past turn + kept reply: "
                  f"median {c['past_turn_with_reply_median']} tokens; estimate vs billed: median {err:+.1f}% "
                  f"(|error| {abs_err:.1f}%)"
                  + (f"; cost at turn {c['compared_at_turn']} (the last both reached) = "
                     f"{100 * c['cost_ratio_at_last_common_turn']:.1f}% of the baseline"
                     if c.get("cost_ratio_at_last_common_turn") is not None else ""))
    print("\n| model | vision | screenshot | $/turn at 10 / 20 / 50 / 100 | mean $/turn | cache reads from 10 "
          "| past turn + reply | vs baseline | estimate vs billed |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for m in models:
        for v in visions:
            for key in ("cached", "cached_no_screenshot", "baseline"):
                c = matrix[m][v].get(key)
                if c is None:
                    continue
                at = " / ".join(f"${c['cost_per_turn_usd_at'][str(n)]:.5f}" if str(n) in c["cost_per_turn_usd_at"]
                                else "-" for n in CHECKPOINTS)
                ratio = c.get("cost_ratio_at_last_common_turn")
                vs = "-" if ratio is None else f"{100 * ratio:.1f}% at T{c['compared_at_turn']}"
                name = f"{v} (baseline)" if key == "baseline" else v
                print(f"| {m} | {name} | {'yes' if c['screenshots'] else 'no'} "
                      f"| {at} | ${c['cost_per_turn_usd']:.5f} | {100 * c['cache_read_ratio_from_10']:.1f}% | "
                      f"{c['past_turn_with_reply_median']} | {vs} | {100 * (c['estimate_error_median'] or 0):+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
