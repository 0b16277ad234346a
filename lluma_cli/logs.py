"""`lluma logs [DIR] [--turn N] [--tail K] [--json]`: read a log folder without opening JSON by hand.

The listing is one line per turn (screen, action and its effect, tokens, cost, errors); `--turn N`
prints one turn in full: what the model saw, what it said and called, what happened, what it cost.
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from pathlib import Path
from typing import Any

from lluma_agent.fleet.sidebyside import fleet_runs
from lluma_agent.runlog import figures
from lluma_agent.runlog.careers import career_line
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import (
    LogDirError,
    Run,
    action_label,
    add_dir_argument,
    clip,
    effect_words,
    kept_label,
    open_run,
    resolve_dir,
    screen_label,
    turn_calls,
)
from lluma_agent.runlog.requestlog import load_request
from lluma_agent.runlog.stats import RunStats, compute
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.errors import one_line
from lluma_cli.report.turnview import TurnView, as_text

SCREEN_W = 38  # the table's columns, 120 in all (a display choice)
ACTION_W = 42  # as above


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
    """The listing's notes column: stuck and the recovery rung, a start of the game, what the guard refused, a goTo
    walk and a routine pass (the screen map), errors, what a person did (an answer under --confirm, a memory edit)."""
    out = []
    if log.stuck.level != "ok":
        out.append(f"stuck:{log.stuck.level}")
    if log.recovery is not None:
        out.append(f"recovery: {log.recovery.rung}")
    if log.game_start is not None:
        out.append("game started" if log.game_start.ok else "game start failed")
    out += [f"guard: {clip(g, 40)}" for g in log.guard]
    if log.navigation:  # the screen map walked without a model call per step
        last = log.navigation[-1]
        out.append(f"goTo {clip(last.target, 30)}: step {last.step} of {last.of}{'' if last.ok else ' stopped'}")
    if log.routine is not None:
        out.append(f"routine: {clip(log.routine.action, 40)} (no model call)")
    if log.plan is not None:  # a procedure carried out without a model call per step
        out.append(f"plan {clip(log.plan.name, 20)}: {len(log.plan.steps)} step(s)"
                   + ("" if log.plan.done else " stopped"))
    if (sv := log.survey) is not None:  # options raised and read before the decision
        read = sum(1 for r in sv.rows if r.line)
        out.append(f"survey: {read} of {len(sv.options)} read" + (f", chose {clip(sv.chosen, 20)}" if sv.chosen else "")
                   + ("" if sv.complete else " (stopped)"))
    if log.person:
        out.append(f"person: {log.person}")
    edited = sorted({m.name for m in log.memory_changes if m.by == "person"})
    if edited:
        out.append(f"memory edited by a person: {', '.join(edited)}")
    if kept := kept_label(log):
        out.append(f"memory: {kept}")
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
        lines += [career_line(c) for c in run.careers]
    return "\n".join(lines)


def format_turn(log: TurnLog, folder: Path) -> str:
    """One turn in full, in the order it happened (the text rendering of the report's turn view)."""
    return as_text(TurnView.of(log, folder))


def fleet_listing(runs: dict[str, Run], tail: int | None, as_json: bool) -> int:
    """Every device's turns in the order they started, the device in front."""
    width = max(map(len, runs), default=6)
    played = sorted(((log.started_at, serial, log) for serial, r in runs.items() for log in r.turns),
                    key=lambda x: (x[0], x[1]))
    played = played[-tail:] if tail else played
    if as_json:
        print(json.dumps([{"device": serial, **row(log)} for _, serial, log in played], indent=2,
                         ensure_ascii=False))
        return 0
    head = format_listing([]).splitlines()[0]
    print(f"{'device':<{width}}  {head}")
    for _, serial, log in played:
        print(f"{serial:<{width}}  {format_listing([log]).splitlines()[1]}")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma logs", description=__doc__.splitlines()[0])
    add_dir_argument(ap)
    ap.add_argument("--turn", type=int, help="print this turn in full")
    ap.add_argument("--request", action="store_true",
                    help="with --turn N: the request that turn sent, exactly as sent (screenshot bytes left out)")
    ap.add_argument("--tail", type=int, metavar="K", help="only the last K turns")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--path", action="store_true",
                    help="print only the run folder it reads (DIR, or the newest run under it), for a script")
    args = ap.parse_args(argv)
    if args.path:
        try:
            print(resolve_dir(args.dir)[0])
        except LogDirError as exc:
            print(f"lluma logs: {exc}", file=sys.stderr)
            return 1
        return 0
    if args.request and args.turn is None:
        ap.error("--request needs --turn N")
    if args.tail is not None and args.tail < 1:
        ap.error("--tail needs a positive number of turns")
    if (fleet := fleet_runs(args.dir, "lluma logs")) is not None:  # a fleet's folder: every device's turns
        if args.turn is not None:
            print(f"lluma logs: {args.dir} is a fleet's folder: give a device's, {args.dir}/devices/SERIAL, with "
                  "--turn", file=sys.stderr)
            return 2
        return fleet_listing(fleet, args.tail, args.json)
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
            try:
                request = load_request(run.folder, args.turn)
            except (OSError, EOFError, ValueError, zlib.error) as exc:  # cut short, empty, not gzip, not JSON
                print(f"lluma logs: cannot read {RunFolder.at(run.folder).request(args.turn)}: {one_line(exc)} "
                      "(the file is damaged)", file=sys.stderr)
                return 1
            if request is None:
                print(f"lluma logs: turn {args.turn} sent no request ({RunFolder.at(run.folder).request(args.turn)} "
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
