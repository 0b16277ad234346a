"""The screen map proved by numbers: the same seeded careers with the map and without it, in one process.

Plays `--careers` careers (default 3) of `--career-turns` game turns (default 12) with the unattended bench's
wiring (hard screens, the game's hazards and the device's and API's faults at its rates), three ways:
`without_map` (map.enabled false: every turn asks the model, the requests as before the map), `with_map` (the map
learned from nothing as the careers go), and `with_learned_map` (starting with the map `with_map` left, for
`--learned-careers` careers, default 1: the gain on a first career). `--parallel` plays the first two at once on
two threads of this process (about half the wall time on a busy machine).

Prints per run the model calls, cost, wall time and turns per career, careers completed, taps off target, goTo
walks and routine passes with how many went wrong, and which screens still asked the model; then the done-check:
with the map, model calls per career at most 60% of without, as many careers completed, no tap off target.
`--json` prints the same as one object (`without_map`, `with_map`, `with_learned_map`, `ratio`, `learned_ratio`,
`check`).

    .venv/bin/python bench/navigation.py [--careers 3] [--career-turns 12] [--seed 11] [--parallel] [--json]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from unattended import add_night_arguments, night, play_kept  # noqa: E402  (bench/ is this script's own folder)

from lluma_agent.config import LoopConfig  # noqa: E402
from lluma_agent.loop.navigate import kept_for_model  # noqa: E402
from lluma_agent.navmap import map_path_for  # noqa: E402
from lluma_agent.runlog.logread import load_run, turn_calls  # noqa: E402
from lluma_agent.runlog.turnlog import TurnLog  # noqa: E402
from lluma_agent.tools.spending import SpendGate  # noqa: E402
from lluma_vision.facts.screen import identify  # noqa: E402
from lluma_vision.models import VisionOutput  # noqa: E402

CAREER_TURNS = 12  # short careers: three variants of a night must fit a sitting on a shared machine
TARGET_RATIO = 0.6  # the done-check: with the map, at most 60% of the model calls per career
ASKING_SHOWN = 8  # screens listed under "still asked the model"
MAP_OFF = {"LLUMA_MAP__ENABLED": "false"}
GATE = SpendGate(LoopConfig())  # the shipped spend gate (never_autopilot words, the reading's screen.spends)


def screen_name(log: TurnLog) -> str:
    """The turn's screen by its identity's name (recomputed from the logged reading, as old logs allow)."""
    if log.vision is None or not log.vision.full:
        return "(no reading)" if not log.waited else "(waited)"
    try:
        return identify(VisionOutput.model_validate(log.vision.full)).name
    except ValueError:
        return "(unreadable reading)"


def _bare(label: str) -> str:
    """A map label without the id it carries when two screens share a name (`Event [3fa2]` -> `Event`)."""
    return label.split(" [", 1)[0]


def navigation(turns: list[TurnLog]) -> dict[str, Any]:
    """goTo walks and routine passes as the turn logs record them, with those that went wrong: a walk that stopped
    on a surprise (a step reached another screen than the map expected), a routine pass whose next reading was not
    the screen it led to every time before; and the screens whose turns still asked the model."""
    walks = [t.navigation for t in turns if t.navigation]
    ordered = sorted(turns, key=lambda t: t.turn)
    following = {a.turn: b for a, b in zip(ordered, ordered[1:], strict=False)}
    passes = [t for t in ordered if t.routine is not None]
    wrong = [t.turn for t in passes if t.routine is not None and t.routine.expected and t.turn in following
             and screen_name(following[t.turn]) != _bare(t.routine.expected)]
    asking: Counter[str] = Counter(screen_name(t) for t in turns if any(c.kind == "decision" for c in turn_calls(t)))
    calls = sum(len(turn_calls(t)) for t in turns)
    kept = sum(len(turn_calls(t)) for t in turns if kept_turn(t))
    return {
        "goto_calls": len(walks),
        "goto_steps": sum(len(w) for w in walks),
        "goto_wrong": sum(1 for w in walks if any(s.reached and s.reached != s.expected for s in w)),
        "routine_passes": len(passes),
        "routine_wrong": len(wrong),
        "routine_wrong_turns": wrong,
        "model_calls_by_screen": dict(asking.most_common(ASKING_SHOWN)),
        # the calls of turns whose screen the reading keeps for the model (a choice, a spend, other worded buttons),
        # whatever a map knows: no map passes them, so with_map's calls cannot fall below these
        "model_calls_kept": kept,
        "kept_share": round(kept / calls, 3) if calls else 0.0,
    }


def kept_turn(log: TurnLog) -> bool:
    """Whether the turn's screen, with the action taken there, is the model's by the reading alone
    (lluma_agent.loop.navigate.kept_for_model)."""
    if log.vision is None or not log.vision.full or log.action is None:
        return False
    try:
        out = VisionOutput.model_validate(log.vision.full)
    except ValueError:
        return False
    return bool(kept_for_model(out, log.action.tool, log.action.target, GATE))


def per_career(careers: list[dict[str, Any]]) -> dict[str, float]:
    """Means over the completed careers (over every career when none completed)."""
    done = [c for c in careers if c["complete"]] or careers

    def mean(key: str) -> float:
        return round(statistics.fmean(c[key] for c in done), 4) if done else 0.0

    return {"model_calls_per_career": mean("model_calls"), "cost_per_career_usd": mean("cost_usd"),
            "wall_s_per_career": mean("wall_s"), "turns_per_career": mean("turns")}


def play(label: str, args: argparse.Namespace, where: Path, overrides: dict[str, str] | None = None,
         start_map: Path | None = None) -> dict[str, Any]:
    """One run of the careers into `where`; `start_map`: the map file it begins with (a copy)."""
    if start_map is not None:
        target = map_path_for(where / "memory")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(start_map, target)
    r = night(args.careers, args.career_turns, args.hazards, args.faults, args.seed, where, overrides, label)
    turns = load_run(where).turns if r["turns"] else []
    first = r["per_career"][0]["model_calls"] if r["per_career"] else 0
    return {**per_career(r["per_career"]), "careers_completed": r["careers_completed"],
            "taps_off_target": r["taps_off_target"], "first_career_model_calls": first,
            "model_calls": sum(c["model_calls"] for c in r["per_career"]), "turns": r["turns"],
            "cost_usd": r["cost_usd"], "wall_s": r["wall_s"], "stop_reason": r["stop_reason"],
            **navigation(turns), "per_career": r["per_career"]}


def without_and_with(run: Callable[..., dict[str, Any]], args: argparse.Namespace, tmp: Path, labels: tuple[str, str],
                     off: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """`run` without the feature (`off`, into tmp/without) and with it (tmp/with); at once on two threads of this
    process with `--parallel` (the OCR engine's work runs outside the GIL). bench/careers.py plays its pair so too."""
    if args.parallel:
        with ThreadPoolExecutor(max_workers=2) as pool:
            running = pool.submit(run, labels[0], args, tmp / "without", off)
            with_it = run(labels[1], args, tmp / "with")
            return running.result(), with_it
    return run(labels[0], args, tmp / "without", off), run(labels[1], args, tmp / "with")


def bench(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    without, with_map = without_and_with(play, args, tmp, ("without map", "with map"), MAP_OFF)
    learned_from = map_path_for(tmp / "with" / "memory")
    again = argparse.Namespace(**{**vars(args), "careers": args.learned_careers})
    learned = play("with learned map", again, tmp / "learned", start_map=learned_from) if learned_from.is_file() \
        else None

    def ratio(a: dict[str, Any]) -> float:
        base = without["model_calls_per_career"]
        return round(a["model_calls_per_career"] / base, 3) if base else 0.0

    check = {"ratio_at_most": TARGET_RATIO, "ratio": ratio(with_map),
             "careers_as_many": with_map["careers_completed"] >= without["careers_completed"],
             "no_tap_off_target": with_map["taps_off_target"] == 0}
    check["holds"] = check["ratio"] <= TARGET_RATIO and check["careers_as_many"] and check["no_tap_off_target"]
    return {"careers": args.careers, "career_turns": args.career_turns, "seed": args.seed, "hazards": args.hazards,
            "faults": args.faults, "parallel": args.parallel, "learned_careers": args.learned_careers,
            "without_map": without, "with_map": with_map, "with_learned_map": learned, "ratio": ratio(with_map),
            "learned_ratio": ratio(learned) if learned else None, "check": check}


def table(r: dict[str, Any]) -> str:
    runs = [(k, r[k]) for k in ("without_map", "with_map", "with_learned_map") if r[k] is not None]
    lines = [
        f"{r['careers']} careers of {r['career_turns']} game turns, seed {r['seed']}, hazards {r['hazards']:g} per "
        f"input, faults {r['faults']:g} per turn (hard screens)",
        "",
        "| run | careers completed | model calls / career | first career | cost / career | wall / career | "
        "turns / career | taps off target | goTo calls (steps, wrong) | routine passes (wrong) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(f"| {name} | {x['careers_completed']} | {x['model_calls_per_career']:.1f} | "
          f"{x['first_career_model_calls']} | ${x['cost_per_career_usd']:.4f} | {x['wall_s_per_career']:.0f} s | "
          f"{x['turns_per_career']:.1f} | {x['taps_off_target']} | {x['goto_calls']} ({x['goto_steps']}, "
          f"{x['goto_wrong']}) | {x['routine_passes']} ({x['routine_wrong']}) |" for name, x in runs),
        "",
        f"model calls per career with the map: {r['ratio']:.0%} of without"
        + (f"; starting with the learned map: {r['learned_ratio']:.0%}" if r["learned_ratio"] is not None else ""),
    ]
    w = r["without_map"]
    lines.append(f"calls on screens the reading keeps for the model (choices, spends, other worded buttons), "
                 f"without the map: {w['model_calls_kept']} of {w['model_calls']} ({w['kept_share']:.0%}): "
                 f"no map passes those")
    for name, x in runs:
        asked = ", ".join(f"{k} {n}" for k, n in x["model_calls_by_screen"].items()) or "none"
        lines.append(f"still asked the model ({name}), turns by screen: {asked}")
    c = r["check"]
    lines.append(f"done-check {'HOLDS' if c['holds'] else 'FAILS'}: ratio {c['ratio']:.0%} (at most "
                 f"{c['ratio_at_most']:.0%}), as many careers completed: {'yes' if c['careers_as_many'] else 'no'}, "
                 f"no tap off target: {'yes' if c['no_tap_off_target'] else 'no'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_night_arguments(ap, career_turns=CAREER_TURNS)
    ap.add_argument("--learned-careers", type=int, default=1,
                    help="careers the run with the learned map plays (its first career is the gain)")
    ap.add_argument("--parallel", action="store_true",
                    help="play without and with the map at once, on two threads of this process (wall times are "
                         "then each other's company)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="play into this folder and keep the runs' logs and maps (default: a temporary folder)")
    args = ap.parse_args(argv)
    return play_kept(args, bench, table, "navigation")


if __name__ == "__main__":
    sys.exit(main())
