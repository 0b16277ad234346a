"""Decide at the game's grain, proved by numbers: the same seeded careers with the survey and plans and without them
(the map only), in one process.

Plays `--careers` careers (default 2) of `--career-turns` game turns (default 78, the real length) with the
unattended bench's wiring (hard screens, the game's hazards and the device's and API's faults at its rates), two
ways: `without` (survey.enabled and plans.enabled false: the map alone, the model asked screen by screen) and `with`
(both on). Prints per run: model calls and agent turns per game turn, cost and wall time per career, goals met and
the score, the training decisions and how many were made with every tile in view, plans run with their steps and
surprises, events met with history, events with choices per game turn, presses that spent something without the
model's choice, and whether the agent's career records say what the game's do (`records_agree`); then the
done-check: with, at most 1.5 model calls per game turn, every training decision with all tiles in view, goals met
at least as often as without, no spend without the model in either run, events with choices on at least 35% of game
turns (answered by the model or by its standing choice, event_choices.yaml).
`--json` prints the same as one object (`with`, `without`, `check`).

`--keep DIR` keeps both runs' folders (turn logs, maps) in a new or empty folder; `--only with` plays one variant (a
quick look, no check). The table ends with the model's decision calls by screen name, the figure that says where
the next cut is.

    .venv/bin/python bench/careers.py [--careers 2] [--career-turns 78] [--seed 11] [--parallel] [--json]
        [--keep DIR] [--only with|without]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from navigation import screen_name, without_and_with  # noqa: E402  (bench/ is this script's own folder)
from unattended import add_night_arguments, agree, night, play_kept  # noqa: E402

from lluma_agent.runlog.logread import load_run, turn_calls  # noqa: E402
from lluma_agent.runlog.turnlog import TurnLog  # noqa: E402

CAREERS = 2  # two real-length careers a variant: both variants fit a sitting on a shared machine
TARGET_CALLS = 1.5  # the done-check: model calls per game turn with the survey and plans
EVENTS_AT_LEAST = 0.35  # ...on careers that show events with choices at least this often (the issue: 35% of turns)
WITHOUT = {"LLUMA_SURVEY__ENABLED": "false", "LLUMA_PLANS__ENABLED": "false"}


def decisions(turns: list[TurnLog]) -> dict[str, Any]:
    """What the turn logs say of the decisions: training choices (and those made with every tile read), surveys,
    plans, events (with choices, and with what each choice did before shown)."""
    plans = [t.plan for t in turns if t.plan is not None]
    event_choices = [t for t in turns if t.response is not None and any("<events>" in n for n in t.notes)]
    # an event's choices answered: by the model, or by its standing choice (event_choices.yaml) without a call
    choice_turns = [t for t in turns if "(choices)" in screen_name(t) and (
        t.response is not None or (t.routine is not None and bool(t.routine.why)))]
    return {
        "training_decisions": sum(t.decided_on_options for t in turns),
        "training_full_view": sum(t.decided_on_options and t.survey is not None and t.survey.complete for t in turns),
        "surveys": sum(t.survey is not None for t in turns),
        "plans": {"run": len(plans), "steps": sum(len(p.steps) for p in plans),
                  "surprises": sum(p.surprise for p in plans)},
        "events_with_history": len(event_choices),
        "event_choice_turns": len(choice_turns),
        "standing_choices": sum(t.routine is not None and bool(t.routine.why) for t in turns),
        "model_calls": sum(1 for t in turns for c in turn_calls(t) if c.kind == "decision"),
        "calls_by_screen": dict(Counter(screen_name(t) for t in turns for c in turn_calls(t)
                                        if c.kind == "decision").most_common()),
    }


def play(label: str, args: argparse.Namespace, where: Path, overrides: dict[str, str] | None = None
         ) -> dict[str, Any]:
    r = night(args.careers, args.career_turns, args.hazards, args.faults, args.seed, where, overrides, label)
    turns = load_run(where).turns if r["turns"] else []
    d = decisions(turns)
    games = r["game_careers"]
    game_turns = sum(int(c.get("turns", 0)) for c in games) or max(1, r.get("game_turn", 0))
    goals = [g for c in games for g in c.get("goals", [])]
    n = max(1, len(games))
    return {
        "careers": len(games),
        "careers_completed": r["careers_completed"],
        "game_turns": game_turns,
        "turns": r["turns"],
        "model_calls": d["model_calls"],
        "model_calls_per_game_turn": round(d["model_calls"] / game_turns, 3),
        "agent_turns_per_game_turn": round(r["turns"] / game_turns, 3),
        "cost_per_career": round(r["cost_usd"] / n, 4),
        "wall_s_per_career": round(r["wall_s"] / n, 1),
        "goals_met": sum(1 for g in goals if g.get("met")),
        "goals_total": len(goals),
        "ended": [c.get("ended", "complete") for c in games],
        "score_mean": round(statistics.fmean(c.get("score", 0) for c in games), 1) if games else 0.0,
        "training_decisions": d["training_decisions"],
        "training_full_view": d["training_full_view"],
        "surveys": d["surveys"],
        "plans": d["plans"],
        "events_with_history": d["events_with_history"],
        "event_choices_per_game_turn": round(d["event_choice_turns"] / game_turns, 3),
        "standing_choices": d["standing_choices"],
        "spends_without_model": r.get("spends_without_model", 0),
        "taps_off_target": r["taps_off_target"],
        "stop_reason": r["stop_reason"],
        "records_agree": r["records_agree"],
        "calls_by_screen": d["calls_by_screen"],
    }


def bench(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    head = {"careers": args.careers, "career_turns": args.career_turns, "seed": args.seed, "hazards": args.hazards,
            "faults": args.faults, "parallel": args.parallel}
    if args.only:  # one variant, no check
        one = play(args.only, args, tmp / args.only, WITHOUT if args.only == "without" else None)
        return {**head, args.only: one, "check": None}
    without, with_ = without_and_with(play, args, tmp, ("without (map only)", "with (survey and plans)"), WITHOUT)

    def share(x: dict[str, Any]) -> float:
        return x["goals_met"] / x["goals_total"] if x["goals_total"] else 0.0

    check = {
        "calls_per_game_turn_at_most": TARGET_CALLS,
        "calls_per_game_turn": with_["model_calls_per_game_turn"],
        "every_training_decision_full_view": with_["training_full_view"] == with_["training_decisions"] > 0,
        "goals_as_often": share(with_) >= share(without),
        "no_spend_without_model": with_["spends_without_model"] == 0 == without["spends_without_model"],
        "events_at_least": EVENTS_AT_LEAST,
        "events_as_often": with_["event_choices_per_game_turn"] >= EVENTS_AT_LEAST,
    }
    check["holds"] = (check["calls_per_game_turn"] <= TARGET_CALLS and check["every_training_decision_full_view"]
                      and check["goals_as_often"] and check["no_spend_without_model"] and check["events_as_often"])
    return {**head, "with": with_, "without": without, "check": check}


def table(r: dict[str, Any]) -> str:
    runs = [(name, r[key]) for name, key in (("without (map only)", "without"), ("with (survey, plans)", "with"))
            if r.get(key) is not None]
    lines = [
        f"{r['careers']} careers of {r['career_turns']} game turns, seed {r['seed']}, hazards {r['hazards']:g} per "
        f"input, faults {r['faults']:g} per turn (hard screens)",
        "",
        "| run | careers (ended) | game turns | model calls / game turn | agent turns / game turn | cost / career | "
        "wall / career | goals met | score | training decisions (all tiles in view) | plans (steps, surprises) | "
        "events with history | event choices / game turn (standing) | spends without the model | taps off target |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(f"| {name} | {x['careers']} ({', '.join(x['ended']) or '-'}) | {x['game_turns']} | "
          f"{x['model_calls_per_game_turn']:.2f} | {x['agent_turns_per_game_turn']:.2f} | "
          f"${x['cost_per_career']:.4f} | "
          f"{x['wall_s_per_career']:.0f} s | {x['goals_met']}/{x['goals_total']} | {x['score_mean']:.0f} | "
          f"{x['training_decisions']} ({x['training_full_view']}) | {x['plans']['run']} ({x['plans']['steps']}, "
          f"{x['plans']['surprises']}) | {x['events_with_history']} | {x['event_choices_per_game_turn']:.2f} "
          f"({x['standing_choices']}) | "
          f"{x['spends_without_model']} | {x['taps_off_target']} |" for name, x in runs),
    ]
    lines += ["", "records agree (the agent's career records = the game's): " +
              ", ".join(f"{name} {agree(x['records_agree'])}" for name, x in runs)]
    screens = sorted({s for _, x in runs for s in x["calls_by_screen"]},
                     key=lambda s: -max(x["calls_by_screen"].get(s, 0) for _, x in runs))
    lines += ["", "model decision calls by screen:", "", f"| screen | {' | '.join(n for n, _ in runs)} |",
              f"| --- |{' --- |' * len(runs)}",
              *(f"| {s} | {' | '.join(str(x['calls_by_screen'].get(s, 0)) for _, x in runs)} |" for s in screens)]
    c = r["check"]
    if c is None:
        return "\n".join(lines)
    lines.append(f"done-check {'HOLDS' if c['holds'] else 'FAILS'}: model calls per game turn "
                 f"{c['calls_per_game_turn']:.2f} (at most {c['calls_per_game_turn_at_most']}), every training "
                 f"decision with all tiles in view: {'yes' if c['every_training_decision_full_view'] else 'no'}, "
                 f"goals met as often: {'yes' if c['goals_as_often'] else 'no'}, no spend without the model: "
                 f"{'yes' if c['no_spend_without_model'] else 'no'}, events with choices on at least "
                 f"{c['events_at_least']:.0%} of game turns: {'yes' if c['events_as_often'] else 'no'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_night_arguments(ap, careers=CAREERS)
    ap.add_argument("--parallel", action="store_true",
                    help="play without and with at once, on two threads of this process")
    ap.add_argument("--keep", type=Path, help="keep the runs' folders (turn logs, maps) in this folder")
    ap.add_argument("--only", choices=("with", "without"), help="play one variant only (no check)")
    args = ap.parse_args(argv)
    return play_kept(args, bench, table, "careers")


if __name__ == "__main__":
    sys.exit(main())
