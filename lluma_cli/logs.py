"""`lluma logs [DIR] [--turn N] [--tail K] [--json]`: read a log folder without opening JSON by hand.

The listing is one line per turn (screen, action and its effect, tokens, cost, errors); `--turn N`
prints one turn in full: what the model saw, what it said and called, what happened, what it cost.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from lluma_agent.runlog import figures
from lluma_agent.runlog.logread import (
    action_label,
    add_dir_argument,
    call_line,
    clip,
    effect_words,
    open_run,
    screen_label,
    turn_calls,
)
from lluma_agent.runlog.requestlog import load_request, request_path
from lluma_agent.runlog.stats import RunStats, compute
from lluma_agent.runlog.turnlog import TurnLog

SCREEN_W = 38
ACTION_W = 42


def row(log: TurnLog) -> dict[str, Any]:
    """The listing's fields for one turn (also the --json form)."""
    u = log.usage
    return {
        "turn": log.turn,
        "started_at": log.started_at,
        "screen": screen_label(log),
        "action": action_label(log),
        "effect": log.action.effect if log.action else "",
        "input_tokens": u.input_tokens,
        "cache_read": u.cache_read_input_tokens,
        "cache_write": u.cache_creation_input_tokens,
        "output_tokens": u.output_tokens,
        "turn_usd": log.cost.turn_usd,
        "run_usd": log.cost.run_usd,
        "stuck": log.stuck.level,
        "errors": log.errors,
        # Added with issue 22: the turn's tokens over every call it made (the keys above are the decision's),
        # what its turn_usd covers; the run's cache hit so far; what a person did.
        "turn_tokens": dict(zip(("uncached", "cache_write", "cache_read", "out"),
                                figures.columns(figures.turn_usage(log)), strict=True)),
        "run_cache_hit_ratio": log.cost.run_cache_hit_ratio,
        "person": log.person,
        "memory_edited_by_person": sorted({m.name for m in log.memory_changes if m.by == "person"}),
        "calls": [{"kind": c.kind, "model": c.model, "input_tokens": c.usage.total_input_tokens,
                   "output_tokens": c.usage.output_tokens, "cost_usd": c.cost_usd} for c in turn_calls(log)],
    }


def notes(log: TurnLog) -> list[str]:
    """The listing's notes column: stuck, errors, what a person did (an answer under --confirm, a memory edit)."""
    out = []
    if log.stuck.level != "ok":
        out.append(f"stuck:{log.stuck.level}")
    if log.person:
        out.append(f"person: {log.person}")
    edited = sorted({m.name for m in log.memory_changes if m.by == "person"})
    if edited:
        out.append(f"memory edited by a person: {', '.join(edited)}")
    if log.errors:
        out.append(f"{len(log.errors)} error(s): {clip(log.errors[0], 60)}")
    return out


def format_listing(logs: list[TurnLog], run: RunStats | None = None) -> str:
    """One line per turn: its tokens over every call it made and its dollars ($turn), the run's dollars so far
    ($run); `run` adds the run's total line, the same figures as `lluma stats`."""
    cols = [f"{c:>{len(c) if len(c) > 6 else 6}}" for c in figures.COLUMNS]
    head = f"{'turn':>5}  {'screen':<{SCREEN_W}}  {'action -> effect':<{ACTION_W}}  {' '.join(cols)}  " \
           f"{'$turn':>9}  {'$run':>9}  notes"
    lines = [head]
    for log in logs:
        r = row(log)
        act = r["action"] + (f" -> {effect_words(r['effect'])}" if r["effect"] else "")
        nums = " ".join(f"{n:>{len(c)}}" for c, n in zip(cols, figures.columns(figures.turn_usage(log)), strict=True))
        lines.append(
            f"{log.turn:>5}  {clip(r['screen'], SCREEN_W):<{SCREEN_W}}  {clip(act or '-', ACTION_W):<{ACTION_W}}  "
            f"{nums}  {figures.usd(r['turn_usd']):>9}  {figures.usd(r['run_usd']):>9}  {'; '.join(notes(log))}".rstrip()
        )
    if run is not None:
        lines.append(f"run total ({run.turns} turn(s)): {figures.tokens(run.usage())} · {figures.usd(run.cost_usd)} · "
                     f"cache hit {figures.percent(run.cache_hit_ratio)}")
    return "\n".join(lines)


def _block(title: str, body: str) -> list[str]:
    if not body.strip():
        return []
    return [f"{title}:", textwrap.indent(body.rstrip(), "  ")]


def _pretty_json(text: str) -> str:
    """One top-level key per line and one list item per line: readable, still close to what was sent."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return json.dumps(data, ensure_ascii=False)
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            lines.append(f"{key}:")
            lines += [f"  {json.dumps(v, ensure_ascii=False)}" for v in value]
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def format_turn(log: TurnLog, folder: Path) -> str:
    """One turn in full, in the order it happened."""
    t = log.timings
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(log.started_at))
    out = [
        f"Turn {log.turn}  {when}  model {log.model}",
        f"timings: capture {t.capture_s:.2f}s, settle {t.settle_s:.2f}s, vision {t.vision_s:.2f}s, "
        f"model {t.model_s:.2f}s, action {t.action_s:.2f}s, total {t.total_s:.2f}s",
    ]
    f = log.frame
    if f.path:
        shot = folder / f.path
        kept = "" if shot.exists() else " (no longer kept)"
        settled = "settled" if f.settled else "NOT settled"
        out.append(f"frame: {shot}{kept}, {f.width}x{f.height}, phash {f.phash}, {settled} after "
                   f"{f.settle_captures} capture(s), cinematic {f.cinematic}")
    if log.waited:
        out.append(f"waited: {log.waited} (no model call)")
    if log.vision:
        v = log.vision
        out.append(f"screen: {v.summary}  [vision {v.backend or '?'}{', cached' if v.cached else ''}]")
        seen = json.dumps(v.seen_by_model, ensure_ascii=False)
        out += _block("what the model saw (compact vision JSON)", _pretty_json(seen))
    if log.tool_results:
        res = [f"{'ERROR ' if r.is_error else ''}{r.name}: {r.content}" for r in log.tool_results]
        out += _block("tool results sent this turn (answers to the previous turn)", "\n".join(res))
    out += _block("notes given to the model this turn", "\n".join(log.notes))
    if log.context:
        secs = ", ".join(f"{s.name} {s.tokens}{' |bp' if s.breakpoint else ''}" for s in log.context)
        out.append(f"context (estimated tokens, |bp = cache breakpoint): {secs}")
    if log.history_fold:
        out += _block("history fold", log.history_fold)
    if log.response:
        r = log.response
        out += _block("thinking", r.thinking)
        out += _block("text", r.text)
        calls = [f"{c.name} {json.dumps(c.input, ensure_ascii=False)}" for c in r.tool_calls]
        out += _block("tool calls", "\n".join(calls))
        out.append(f"stop reason: {r.stop_reason}")
        if r.retries:
            out += _block("retries", "\n".join(json.dumps(x.model_dump(), ensure_ascii=False) for x in r.retries))
    a = log.action
    if a:
        where = (f" at {tuple(a.point)}" if a.point else f" swipe {a.swipe}" if a.swipe
                 else f" key {a.key}" if a.key else "")
        out.append(f"action: {action_label(log)}{where} -> {a.effect}")
    else:
        out.append("action: none")
    u, c = log.usage, log.cost
    out.append(
        f"usage: decision uncached {u.input_tokens}, cache write {u.cache_creation_input_tokens}, cache read "
        f"{u.cache_read_input_tokens}, out {u.output_tokens}; this turn (every call): "
        f"{figures.tokens(figures.turn_usage(log))}, {figures.usd(c.turn_usd)}; run so far: "
        f"{figures.usd(c.run_usd)}, cache hit {figures.percent(c.run_cache_hit_ratio)} (this turn's decision "
        f"{figures.percent(c.cache_hit_ratio)}); "
        f"past-turn tokens {log.past_turn_tokens}"
    )
    out += _block("calls (each billed to this turn)", "\n".join(call_line(c) for c in turn_calls(log)))
    for m in log.memory_changes:
        flag = f", DROPS {len(m.dropped_person_lines)} line(s) a person wrote" if m.dropped_person_lines else ""
        out += _block(f"memory {m.op} {m.name} by {m.by} ({m.tokens_after} tokens after{flag})", m.diff or "(no diff)")
    s = log.stuck
    if s.level != "ok":
        out.append(f"stuck: {s.level} (unchanged {s.unchanged_streak}, loop {s.loop_streak}): {s.reason}")
    out += _block("errors", "\n".join(f"- {e}" for e in log.errors))
    return "\n".join(out)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma logs", description=__doc__.splitlines()[0])
    add_dir_argument(ap)
    ap.add_argument("--turn", type=int, help="print this turn in full")
    ap.add_argument("--request", action="store_true",
                    help="with --turn N: the request that turn sent, exactly as sent (screenshot bytes left out)")
    ap.add_argument("--tail", type=int, metavar="K", help="only the last K turns")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    args = ap.parse_args(argv)
    if args.request and args.turn is None:
        ap.error("--request needs --turn N")
    if args.tail is not None and args.tail < 1:
        ap.error("--tail needs a positive number of turns")
    run = open_run(args.dir, "lluma logs")
    if run is None:
        return 1
    if args.turn is not None:
        log = next((t for t in run.turns if t.turn == args.turn), None)
        if log is None:
            first, last = run.turns[0].turn, run.turns[-1].turn
            print(f"lluma logs: no turn {args.turn} in {run.folder} (turns {first}..{last})", file=sys.stderr)
            return 1
        if args.request:
            request = load_request(run.folder, args.turn)
            if request is None:
                print(f"lluma logs: turn {args.turn} sent no request ({request_path(run.folder, args.turn)} "
                      "is missing: no model call that turn, or the run predates request logs)", file=sys.stderr)
                return 1
            print(json.dumps(request, indent=2, ensure_ascii=False))
            return 0
        print(log.model_dump_json(indent=2) if args.json else format_turn(log, run.folder))
        return 0
    logs = run.turns[-args.tail :] if args.tail else run.turns
    if args.json:
        print(json.dumps([row(t) for t in logs], indent=2, ensure_ascii=False))
        return 0
    shown = f", last {len(logs)} shown" if len(logs) < len(run.turns) else ""
    print(f"{run.folder}: {len(run.turns)} turn(s){shown}")
    print(format_listing(logs, compute(run.turns, str(run.folder), run.stop_reason)))
    return 0
