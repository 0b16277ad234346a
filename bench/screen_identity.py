"""Screen identity figures for bench/vision.py (issue 30 item 1).

- the hand groups of the labelled real screens (bench/labels/screen_groups.json: group -> ["source/file"]):
  same-group pairs that share an id, different-group pairs with different ids, per source and over all;
- held out: the identity's thresholds (lluma_vision.facts.screen.Knobs) chosen on one source's pairs, scored on the
  other's (and the reverse);
- per scale: each rescaled screen's id against its 1x id, and the pair figures at that scale;
- the simulator: frames of a short career (lluma_sim.tour: the truth says which screen), plain and hard styles;
  frames of one screen must share an id across turns, scroll positions and styles, other screens must not.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from lluma_vision.facts.screen import KNOBS, Knobs, identify
from lluma_vision.models import VisionOutput

GROUPS_FILE = Path(__file__).resolve().parent / "labels" / "screen_groups.json"
# the grid the held-out choice runs over: each knob at, below and above its shipped value
GRID = {"header_band": (0.04, 0.06, 0.08), "centred": (0.03, 0.05, 0.08), "min_confidence": (0.0, 0.3, 0.5, 0.7)}
SIM_RUNS = (("plain", 1, 0), ("hard", 1, 1), ("hard", 0, 0))  # style, seed, HARD_VARIANTS index (hard only)


def load_groups(path: Path = GROUPS_FILE) -> dict[str, str]:
    """"source/file" -> its group's name."""
    groups: dict[str, list[str]] = json.loads(path.read_text())
    return {f: g for g, files in groups.items() for f in files}


def pair_figures(ids: dict[str, str], group_of: dict[str, str]) -> dict[str, Any]:
    """Same-group pairs sharing an id and different-group pairs apart, over the keys of `ids` that have a group."""
    keys = sorted(k for k in ids if k in group_of)
    same = same_ok = diff = diff_ok = 0
    splits, merges = [], []
    for a, b in itertools.combinations(keys, 2):
        if group_of[a] == group_of[b]:
            same += 1
            same_ok += ids[a] == ids[b]
            if ids[a] != ids[b]:
                splits.append(f"{a} | {b}")
        else:
            diff += 1
            diff_ok += ids[a] != ids[b]
            if ids[a] == ids[b]:
                merges.append(f"{a} | {b}")
    return {"screens": len(keys), "same_pairs": same, "same_agree": same_ok, "diff_pairs": diff, "diff_apart": diff_ok,
            "same_rate": round(same_ok / same, 4) if same else None,
            "diff_rate": round(diff_ok / diff, 4) if diff else None, "splits": splits, "merges": merges}


def _objective(fig: dict[str, Any]) -> float:
    """Both kinds of pair count alike; a source with no same-group pair is judged on its separation alone."""
    rates: list[float] = [r for r in (fig["same_rate"], fig["diff_rate"]) if r is not None]
    return sum(rates) / len(rates) if rates else 0.0


def _knob_grid() -> Iterable[Knobs]:
    for values in itertools.product(*GRID.values()):
        yield replace(KNOBS, **dict(zip(GRID, values, strict=True)))


def _distance(k: Knobs) -> float:
    """Ties go to the knobs nearest the shipped ones."""
    return float(sum(abs(getattr(k, n) - getattr(KNOBS, n)) for n in GRID))


def held_out(by_source: dict[str, dict[str, VisionOutput]], group_of: dict[str, str]) -> dict[str, Any]:
    """For each source: the knobs chosen on the other sources' pairs, scored on this one's."""
    out: dict[str, Any] = {}
    for held in by_source:
        train = {k: v for s, outs in by_source.items() if s != held for k, v in outs.items()}
        if not train:
            continue
        best = max(_knob_grid(), key=lambda k: (_objective(pair_figures(
            {n: identify(o, k).id for n, o in train.items()}, group_of)), -_distance(k)))
        fig = pair_figures({n: identify(o, best).id for n, o in by_source[held].items()}, group_of)
        shipped = pair_figures({n: identify(o).id for n, o in by_source[held].items()}, group_of)
        out[held] = {"knobs": {n: getattr(best, n) for n in GRID}, **_rates(fig),
                     "shipped": _rates(shipped)}
    return out


def _rates(fig: dict[str, Any]) -> dict[str, Any]:
    return {k: fig[k] for k in ("same_agree", "same_pairs", "diff_apart", "diff_pairs", "same_rate", "diff_rate")}


def real_report(readings: dict[str, dict[float, list[tuple[str, VisionOutput]]]]) -> dict[str, Any]:
    """`readings`: {source: {scale: [(file, output)]}}, as bench/vision.py's read_sources gives them."""
    group_of = load_groups()
    at1 = {src: {f"{src}/{name}": out for name, out in by.get(1.0, [])} for src, by in readings.items()}
    ids1 = {k: identify(o).id for outs in at1.values() for k, o in outs.items()}
    report: dict[str, Any] = {"groups": len(set(group_of.values())), "grouped_screens": len(group_of),
                              "all": pair_figures(ids1, group_of)}
    report["sources"] = {src: pair_figures({k: ids1[k] for k in outs}, group_of) for src, outs in at1.items()}
    if len(at1) > 1:
        report["held_out"] = held_out(at1, group_of)
    scales: dict[str, Any] = {}
    for scale in sorted({s for by in readings.values() for s in by} - {1.0}):
        ids = {f"{src}/{name}": identify(out).id for src, by in readings.items() for name, out in by.get(scale, [])}
        kept = [k for k in ids if k in ids1]
        scales[str(scale)] = {"screens": len(kept), "same_as_1x": sum(ids[k] == ids1[k] for k in kept),
                              "changed": sorted(k for k in kept if ids[k] != ids1[k]),
                              **_rates(pair_figures(ids, group_of))}
    report["scales"] = scales
    return report


def sim_report(vision: Any, turns: int = 4) -> dict[str, Any]:
    """The simulator's screens read by `vision` (a fresh tab memory each frame), per run and over all runs."""
    from lluma_sim.game.game import HARD_VARIANTS
    from lluma_sim.tour import tour
    from lluma_vision.pixels.menu import TabMemory

    ids: dict[str, str] = {}
    key_of: dict[str, str] = {}
    runs: dict[str, Any] = {}
    for style, seed, variant in SIM_RUNS:
        size = HARD_VARIANTS[variant] if style == "hard" else {}
        run = f"{style}-{seed}-{size.get('width', 1080)}x{size.get('height', 1920)}"
        run_ids: dict[str, str] = {}
        for i, frame in enumerate(tour(seed=seed, style=style, turns=turns, **size)):
            vision.memory = TabMemory()
            name = f"{run}/{i:02d}"
            run_ids[name] = identify(vision.analyze(frame.image)).id
            key_of[name] = frame.key
        runs[run] = pair_figures(run_ids, key_of)
        ids.update(run_ids)
    return {"runs": runs, "all": pair_figures(ids, key_of), "screens": sorted(set(key_of.values()))}


def format_report(report: dict[str, Any]) -> str:
    rows = ["screen identity (bench/labels/screen_groups.json hand groups; pairs: same group -> one id, "
            "different groups -> different ids)"]

    def line(label: str, f: dict[str, Any]) -> str:
        same = f"{f['same_agree']}/{f['same_pairs']}" + (f" ({f['same_rate']:.1%})" if f["same_rate"] is not None
                                                           else "")
        diff = f"{f['diff_apart']}/{f['diff_pairs']}" + (f" ({f['diff_rate']:.1%})" if f["diff_rate"] is not None
                                                           else "")
        return f"  {label:<26} same-group agree {same:<18} different-group apart {diff}"

    real = report.get("real")
    if real:
        rows.append(line(f"all ({real['grouped_screens']} screens)", real["all"]))
        rows += [line(src, f) for src, f in real["sources"].items()]
        for src, f in real.get("held_out", {}).items():
            knobs = ", ".join(f"{k}={v}" for k, v in f["knobs"].items())
            rows.append(line(f"held out {src}", f) + f"  [{knobs}]")
        for scale, f in real["scales"].items():
            rows.append(line(f"scale {scale}", f) + f"  same id as 1x {f['same_as_1x']}/{f['screens']}")
        rows += [f"  split: {s}" for s in real["all"]["splits"]] + [f"  merged: {m}" for m in real["all"]["merges"]]
    sim = report.get("sim")
    if sim:
        rows += [line(f"sim {run}", f) for run, f in sim["runs"].items()]
        rows.append(line("sim, all runs", sim["all"]))
        rows += [f"  sim split: {s}" for s in sim["all"]["splits"][:10]]
        rows += [f"  sim merged: {m}" for m in sim["all"]["merges"][:10]]
    return "\n".join(rows)
