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

`--players [NAMES]` (default all: ocr,truth,raised,random) plays instead each player on the same seeded careers
(`--seeds`, one night of `--careers` careers a seed): `ocr` is LLuMa as shipped (survey, plans, map), `truth` the
same harness and stand-in reading the game's truth as a perfect OCR would (lluma_sim.truth_vision: the ceiling),
`raised` and `random` floors (lluma_sim.api.floors). `--json`: `players` (per player rating_mean, rank,
careers_completed, goals_met, goals_total, failed_trainings, model_calls_per_game_turn, cost_per_career, and the
per-seed figures), `parity` (ocr's mean rating over truth's) and `check` (issue 52's: random misses a goal or rates
under 0.6 of truth on every seed; truth completes every career at a mean rating of 8,000 or more; ocr completes every
career at parity 0.95 or more with at most 1.5 model calls a game turn).

    .venv/bin/python bench/careers.py [--careers 2] [--career-turns 78] [--seed 11] [--parallel] [--json]
        [--keep DIR] [--only with|without] [--players [ocr,truth,raised,random]] [--seeds 11,23]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from navigation import screen_name, without_and_with  # noqa: E402  (bench/ is this script's own folder)
from unattended import add_night_arguments, agree, night, play_kept  # noqa: E402

from lluma_agent.atomic import atomic_write_text  # noqa: E402
from lluma_agent.runlog.logread import load_run, turn_calls  # noqa: E402
from lluma_agent.runlog.turnlog import TurnLog  # noqa: E402
from lluma_sim.api.floors import Floor  # noqa: E402
from lluma_sim.game.numbers import rank  # noqa: E402

CAREERS = 2  # two real-length careers a variant: both variants fit a sitting on a shared machine
TARGET_CALLS = 1.5  # the done-check: model calls per game turn with the survey and plans
EVENTS_AT_LEAST = 0.35  # ...on careers that show events with choices at least this often (the issue: 35% of turns)
WITHOUT = {"LLUMA_SURVEY__ENABLED": "false", "LLUMA_PLANS__ENABLED": "false"}
# Issue 52's players, and its check on them
PLAYERS = ("ocr", "truth", "raised", "random")
FLOOR_SETTINGS = {"LLUMA_SURVEY__ENABLED": "false"}  # a floor chooses on arrival: no survey raises the other tiles
SEEDS = (11, 23)
TRUTH_RATING = 8000  # truth completes every career at this mean rating or more (B+)
PARITY = 0.95  # ocr's mean rating over truth's
RANDOM_SHARE = 0.6  # random rates under this share of truth's on a seed (or misses a goal there)


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


def play(label: str, args: argparse.Namespace, where: Path, overrides: dict[str, str] | None = None,
         **player: Any) -> dict[str, Any]:
    """One night of the bench's careers; `player`: night()'s truth_vision and policy (the players' bench)."""
    r = night(args.careers, args.career_turns, args.hazards, args.faults, args.seed, where, overrides, label, **player)
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
        "ratings": [int(c.get("rating", 0)) for c in games],
        "failed_trainings": sum(int(c.get("failed_trainings", 0)) for c in games),
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


def player_night(name: str, args: argparse.Namespace, seed: int, where: Path) -> dict[str, Any]:
    """One player's night on one seed."""
    at = argparse.Namespace(**{**vars(args), "seed": seed})
    label = f"{name} (seed {seed})"
    if name == "ocr":
        r = play(label, at, where)
    elif name == "truth":
        r = play(label, at, where, truth_vision=True)
    else:
        r = play(label, at, where, FLOOR_SETTINGS, truth_vision=True, policy=Floor(name))  # type: ignore[arg-type]
    # each night's figures as it ends, beside its folder: a bench stopped early keeps the nights it played
    atomic_write_text(where.parent / f"{where.name}.json", json.dumps(r))
    return r


def summed(nights: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """A player's figures over its seeds' nights (and each night's, under `seeds`)."""
    x = list(nights.values())
    ratings = [r for n in x for r in n["ratings"]]
    mean = round(statistics.fmean(ratings)) if ratings else 0
    careers, game_turns = sum(n["careers"] for n in x), sum(n["game_turns"] for n in x)
    return {
        "rating_mean": mean, "rank": rank(mean), "careers": careers,
        # a career a missed goal ended is not completed (the night counts it as one that ended)
        "careers_completed": sum(e == "complete" for n in x for e in n["ended"]),
        "goals_met": sum(n["goals_met"] for n in x), "goals_total": sum(n["goals_total"] for n in x),
        "failed_trainings": sum(n["failed_trainings"] for n in x),
        "model_calls_per_game_turn": round(sum(n["model_calls"] for n in x) / max(1, game_turns), 3),
        "cost_per_career": round(sum(n["cost_per_career"] * n["careers"] for n in x) / max(1, careers), 4),
        "wall_s_per_career": round(sum(n["wall_s_per_career"] * n["careers"] for n in x) / max(1, careers), 1),
        "seeds": {str(seed): n for seed, n in nights.items()},
    }


def players_check(p: dict[str, dict[str, Any]], seeds: list[int], parity: float | None) -> dict[str, Any] | None:
    """Issue 52's check, where all four players played; None otherwise."""
    if not set(PLAYERS) <= set(p):
        return None
    truth, ocr, rnd = p["truth"], p["ocr"], p["random"]

    def floored(seed: int) -> bool:
        r, t = rnd["seeds"][str(seed)], truth["seeds"][str(seed)]
        low = statistics.fmean(r["ratings"] or [0]) < RANDOM_SHARE * statistics.fmean(t["ratings"] or [0])
        return bool(r["goals_met"] < r["goals_total"] or "goal_missed" in r["ended"] or low)

    def all_done(x: dict[str, Any]) -> bool:
        return bool(x["careers_completed"] == x["careers"] > 0)

    check = {
        "random_floored_every_seed": all(floored(s) for s in seeds),
        "truth_completes": all_done(truth), "truth_rating_at_least": TRUTH_RATING,
        "truth_rating": truth["rating_mean"],
        "ocr_completes": all_done(ocr), "parity_at_least": PARITY, "parity": parity,
        "calls_per_game_turn_at_most": TARGET_CALLS, "ocr_calls_per_game_turn": ocr["model_calls_per_game_turn"],
    }
    check["holds"] = (check["random_floored_every_seed"] and check["truth_completes"]
                      and truth["rating_mean"] >= TRUTH_RATING and check["ocr_completes"]
                      and parity is not None and parity >= PARITY and ocr["model_calls_per_game_turn"] <= TARGET_CALLS)
    return check


def players(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """Each named player on each seed; with --parallel the OCR player on a thread of its own beside the others (its
    work runs outside the GIL; the others are light)."""
    names = [n for n in PLAYERS if n in args.players]
    seeds = args.seeds

    def run(these: list[str]) -> dict[str, dict[int, dict[str, Any]]]:
        return {n: {s: player_night(n, args, s, tmp / f"{n}-{s}") for s in seeds} for n in these}

    if args.parallel and "ocr" in names and len(names) > 1:
        with ThreadPoolExecutor(max_workers=2) as pool:
            ocr = pool.submit(run, ["ocr"])
            rest = run([n for n in names if n != "ocr"])
            nights = {**ocr.result(), **rest}
    else:
        nights = run(names)
    p = {n: summed(nights[n]) for n in names}
    parity = round(p["ocr"]["rating_mean"] / p["truth"]["rating_mean"], 3) if {"ocr", "truth"} <= set(p) and \
        p["truth"]["rating_mean"] else None
    return {"careers": args.careers, "career_turns": args.career_turns, "seeds": seeds, "hazards": args.hazards,
            "faults": args.faults, "parallel": args.parallel, "players": p, "parity": parity,
            "check": players_check(p, seeds, parity)}


def players_table(r: dict[str, Any]) -> str:
    lines = [f"{r['careers']} career(s) a seed of {r['career_turns']} game turns, seeds "
             f"{', '.join(map(str, r['seeds']))}, hazards {r['hazards']:g} per input, faults {r['faults']:g} per "
             "turn (hard screens)", "",
             "| player | rating (mean) | rank | ratings by seed | careers completed | goals met | failed trainings | "
             "model calls / game turn | cost / career | wall / career |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, x in r["players"].items():
        by_seed = "; ".join(f"{s}: {', '.join(f'{v:,}' for v in n['ratings']) or '-'}" for s, n in x["seeds"].items())
        lines.append(f"| {name} | {x['rating_mean']:,} | {x['rank']} | {by_seed} | {x['careers_completed']}/"
                     f"{x['careers']} | {x['goals_met']}/{x['goals_total']} | {x['failed_trainings']} | "
                     f"{x['model_calls_per_game_turn']:.2f} | ${x['cost_per_career']:.4f} | "
                     f"{x['wall_s_per_career']:.0f} s |")
    if r["parity"] is not None:
        lines += ["", f"parity (ocr's mean rating over truth's): {r['parity']:.3f}"]
    c = r["check"]
    if c is not None:
        lines.append(f"check {'HOLDS' if c['holds'] else 'FAILS'}: random floored on every seed: "
                     f"{'yes' if c['random_floored_every_seed'] else 'no'}; truth completes: "
                     f"{'yes' if c['truth_completes'] else 'no'} at {c['truth_rating']:,} (at least "
                     f"{c['truth_rating_at_least']:,}); ocr completes: {'yes' if c['ocr_completes'] else 'no'} at "
                     f"parity {c['parity']} (at least {c['parity_at_least']}) with {c['ocr_calls_per_game_turn']:.2f} "
                     f"calls a game turn (at most {c['calls_per_game_turn_at_most']})")
    return "\n".join(lines)


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
    ap.add_argument("--players", type=names_of, nargs="?", const=list(PLAYERS), default=None, metavar="NAMES",
                    help=f"play these players instead (comma-separated; default all: {','.join(PLAYERS)})")
    ap.add_argument("--seeds", type=seeds_of, default=list(SEEDS), metavar="N,N",
                    help=f"the players' seeds, a night each (default {','.join(map(str, SEEDS))})")
    args = ap.parse_args(argv)
    run, show = (players, players_table) if args.players else (bench, table)
    return play_kept(args, run, show, "careers")


def names_of(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names or any(n not in PLAYERS for n in names):
        raise argparse.ArgumentTypeError(f"players are {', '.join(PLAYERS)}; got {text!r}")
    return names


def seeds_of(text: str) -> list[int]:
    try:
        seeds = [int(n) for n in text.split(",") if n.strip()]
    except ValueError:
        seeds = []
    if not seeds:
        raise argparse.ArgumentTypeError(f"seeds are whole numbers, comma-separated; got {text!r}")
    return seeds


if __name__ == "__main__":
    sys.exit(main())
