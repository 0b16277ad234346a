"""Vision benchmark: latency, accuracy, compact-JSON tokens, cache hit time.

  - latency p50/p90 per backend on 1080x1920 simulator frames and on the real screenshots
    (../shared/data/screens); every frame read cold (no cache);
  - recall/precision against ground truth: simulator truth (every tappable element) and the
    real screenshots' labels (labels list only the buttons that must be found: recall only);
  - tokens of the compact JSON for a 20-button screen against the verbose per-button form of the
    original harness (name, full_label, bounds, metadata dict, region);
  - time of a cache hit (unchanged screen);
  - per labelled source folder (screens, screens2, ...; lluma_sim.labelled.screens.labelled_sources) and for
    each labelled screen rescaled to 0.4x, 0.75x and 1.5x: labelled buttons found as buttons, reachable
    as a button or a read text line ("tappable": pressButton taps both), scrollbar states right,
    detected/labelled buttons, p50 ms; and a leave-one-source-out figure for the tuned threshold
    (the confidence from which a candidate is reported as a button): chosen on the other sources,
    scored on the held-out one;
  - screen identity (bench/screen_identity.py; `screen_identity` in --json): the hand groups of the
    labelled screens (same group -> one id, other groups -> other ids) per source, held out, per scale,
    and the simulator's screens in the plain and hard styles.

`claude` and `hybrid` run against the Messages API stand-in (lluma_sim.api.server, loopback HTTP,
scripted answers grounded on the OCR ids) - there is no network here. Their latency is OCR + one
local round trip, not Claude's; their accuracy is the stand-in's, not Claude's.

    python bench/vision.py [--frames 40] [--backends ocr,claude,hybrid] [--scales 1,0.4,0.75,1.5] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from screen_identity import format_report, real_report, sim_report  # noqa: E402  (bench/ is this script's folder)

from lluma_sim.labelled import buttons as lab  # noqa: E402
from lluma_sim.labelled import facts as fact_labels  # noqa: E402
from lluma_sim.labelled.screens import facts_path, labelled_sources, screens_dir  # noqa: E402
from lluma_vision.config import VisionConfig  # noqa: E402
from lluma_vision.facts.compact import compact, summarize  # noqa: E402
from lluma_vision.models import Box, Button, MenuState, Scrollbar, TextLine, VisionOutput  # noqa: E402
from lluma_vision.pipeline import Vision  # noqa: E402
from lluma_vision.pixels.menu import TabMemory  # noqa: E402
from lluma_vision.pixels.ocr import forget_reads  # noqa: E402

FLOORS = [0.0, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]  # tried on top of the shipped floor
SHIPPED_FLOOR = 0.0  # the reading reports every button it finds (the floor stage went when it chose 0.0: issue 38)


def demote(out: VisionOutput, floor: float) -> VisionOutput:
    """The reading with buttons below `floor` confidence reported as read text (still tappable by name)."""
    weak = [b for b in out.buttons if b.confidence < floor]
    if not weak:
        return out
    texts = out.texts + [TextLine(text=b.name.split("#")[0], bounds=b.bounds, confidence=b.confidence,
                                  rules=b.rules) for b in weak]
    return out.model_copy(update={"buttons": [b for b in out.buttons if b.confidence >= floor], "texts": texts})


SCREENS = screens_dir()
TAPPABLE = ("button", "tab", "choice")

try:
    from lluma_agent.context.tokens import estimate_text_tokens

    TOKENS_NOTE = "estimated with lluma_agent.context.tokens.estimate_text_tokens"
except ImportError:  # the shared estimator lives in another module; fall back to chars/3.5

    def estimate_text_tokens(text: str) -> int:
        return math.ceil(len(text) / 3.5)

    TOKENS_NOTE = "estimated as ceil(chars / 3.5)"


def progress(message: str) -> None:
    """Progress goes to stderr: stdout stays the report (or one JSON document with --json)."""
    print(f"bench/vision: {message}", file=sys.stderr, flush=True)


norm = lab.norm


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))] if s else float("nan")


# --- frames ---------------------------------------------------------------------------------------


def sim_frames(n: int, seed: int = 5) -> list[tuple[Image.Image, object]]:
    """Frames of a career played by a simple policy (every distinct screen kind shows up), plus truth."""
    from lluma_sim.game import SimGame

    g = SimGame(seed=seed, max_turns=6)
    frames: list[tuple[Image.Image, object]] = []
    visited_skills = visited_races = False
    target: str | None
    for _ in range(n * 3):
        img = g.capture()
        t = g.truth()
        frames.append((img, t))
        if len(frames) >= n:
            break
        taps = {e.name: e for e in t.elements if e.kind != "text" and e.enabled}
        if t.cinematic in ("loading", "cutscene"):
            continue
        if t.screen == "hub" and not visited_skills and "Skills" in taps:
            target, visited_skills = "Skills", True
        elif t.screen == "hub" and not visited_races and "Races" in taps:
            target, visited_races = "Races", True
        elif t.screen in ("skills", "races"):
            if t.scrollbar is not None and t.scrollbar.down:
                g.swipe(g.width * 0.5, g.height * 0.6, g.width * 0.5, g.height * 0.35)
                continue
            g.keyevent("KEYCODE_BACK")
            continue
        elif t.screen == "event":
            choices = [e.name for e in t.elements if e.kind == "choice"]
            target = choices[0] if choices else "Next"
        else:
            order = ["Career", "OK", "Borrow", "Start Career!", "Training", "Speed", "Next", "Auto-Select",
                     "Complete Career", "Finish", "To Home", "Rest"]
            target = next((name for name in order if name in taps), None)
        if target and target in taps:
            g.tap(*taps[target].box.center)
    return frames


def real_frames() -> list[tuple[str, Image.Image, dict[str, Any]]]:
    labels_file = SCREENS / "labels.json"
    if not labels_file.is_file():
        return []
    labels = json.loads(labels_file.read_text())
    out = []
    for name in sorted(labels):
        with Image.open(SCREENS / name) as im:
            out.append((name, im.convert("RGB"), labels[name]))
    return out


# --- scoring --------------------------------------------------------------------------------------


def score_sim(out: VisionOutput, truth: Any) -> tuple[int, int, int, int]:
    """(tappable elements found, tappable elements, buttons that are real elements, buttons reported)."""
    want = [e for e in truth.elements if e.kind in TAPPABLE and e.enabled]
    found = sum(
        1 for e in want if any(norm(b.name) == norm(e.name) and e.box.contains(*b.bounds.center) for b in out.buttons)
    )
    names = {norm(e.name) for e in truth.elements if e.kind != "text"}
    right = sum(1 for b in out.buttons if norm(b.name) in names)
    return found, len(want), right, len(out.buttons)


def score_real(out: VisionOutput, label: dict[str, Any]) -> tuple[int, int]:
    sc = lab.score(out, label)
    return sc.found, sc.labels


# --- runs -----------------------------------------------------------------------------------------


def run_backend(backend: str, sims: list[Any], reals: list[Any], client: Any) -> dict[str, Any]:
    cfg = VisionConfig(backend=backend, cache_size=0)  # every frame read cold
    vision = Vision(cfg, client=client)
    progress(f"{backend}: loading OCR, then {len(sims)} simulator frames and {len(reals)} real screenshots")
    vision.analyze(sims[0][0] if sims else reals[0][1])  # load the OCR engine outside the timings
    res: dict[str, Any] = {"backend": backend, "outputs": []}
    lat, ui_lat, f = [], [], [0, 0, 0, 0]
    errors = 0
    for img, truth in sims:
        forget_reads()
        t0 = time.perf_counter()
        out = vision.analyze(img)
        lat.append((time.perf_counter() - t0) * 1000)
        if truth.cinematic == "none":
            ui_lat.append(lat[-1])
        f = [a + b for a, b in zip(f, score_sim(out, truth), strict=True)]
        errors += bool(out.errors)
        res["outputs"].append(out)
    res["sim"] = {
        "frames": len(sims), "p50_ms": round(statistics.median(lat), 1), "p90_ms": round(pct(lat, 0.9), 1),
        "ui_frames": len(ui_lat), "ui_p50_ms": round(statistics.median(ui_lat), 1) if ui_lat else None,
        "ui_p90_ms": round(pct(ui_lat, 0.9), 1) if ui_lat else None,
        "recall": round(f[0] / max(1, f[1]), 3), "precision": round(f[2] / max(1, f[3]), 3),
        "found": f"{f[0]}/{f[1]}", "vlm_errors": errors,
    }
    lat, hit, tot = [], 0, 0
    cin_ok = cin_n = sb_ok = sb_n = 0
    for _name, img, label in reals:
        forget_reads()
        t0 = time.perf_counter()
        out = vision.analyze(img)
        lat.append((time.perf_counter() - t0) * 1000)
        h, n = score_real(out, label)
        hit, tot = hit + h, tot + n
        if "cinematic" in label:
            cin_n += 1
            cin_ok += out.cinematic == label["cinematic"]
        if "scrollbar" in label:
            sb_n += 1
            want = label["scrollbar"]
            got = out.scrollbar
            sb_ok += (got is None) if want is None else (
                got is not None and ("up" not in want or (got.up, got.down) == (want["up"], want["down"])))
    if reals:
        res["real"] = {
            "frames": len(reals), "p50_ms": round(statistics.median(lat), 1), "p90_ms": round(pct(lat, 0.9), 1),
            "recall": round(hit / max(1, tot), 3), "found": f"{hit}/{tot}",
            "cinematic": f"{cin_ok}/{cin_n}", "scrollbar": f"{sb_ok}/{sb_n}",
        }
    return res


def _scaled_for_buttons(label: dict[str, Any]) -> bool:
    """Rescaled copies are scored for buttons only on screens with labelled buttons or a scrollbar state."""
    return bool(label.get("buttons") or "scrollbar" in label)


def read_sources(sources: list[Path], scales: list[float]) -> dict[str, Any]:
    """Every labelled screen of every source at every scale, read cold by the OCR backend.
    Returns {source: {scale: [(name, output, label, ms, scale)]}}; rescaled copies only of screens with
    labelled buttons, a scrollbar state or labelled facts (the cinematic frames have nothing to scale for)."""
    vision = Vision(VisionConfig(backend="ocr", cache_size=0))
    out: dict[str, Any] = {}
    for folder in sources:
        labels = lab.load(folder)
        facts = _facts(folder.name)
        out[folder.name] = {}
        for scale in scales:
            rows = []
            for name in sorted(labels):
                label = labels[name]
                if scale != 1.0 and not (_scaled_for_buttons(label) or fact_labels.has_facts(facts.get(name))):
                    continue
                img = lab.image(folder, name, scale)
                vision.memory = TabMemory()  # no tab bar remembered from the previous screen
                forget_reads()  # nor a line recognised on another screen (the same reading, but not cold's time)
                t0 = time.perf_counter()
                reading = vision.analyze(img)
                rows.append((name, reading, label, (time.perf_counter() - t0) * 1000, scale))
            out[folder.name][scale] = rows
    return out


def _facts(source: str) -> dict[str, Any]:
    return fact_labels.load(facts_path(source))


def fact_figures(rows: list[Any], labelled: dict[str, Any]) -> dict[str, Any]:
    """The facts scored as the real-screen tests score them (lluma_sim.labelled.facts)."""
    return fact_labels.score([(name, reading) for name, reading, *_ in rows], labelled).figures()


def source_figures(rows: list[Any], floor: float = 0.0) -> dict[str, Any]:
    rows = [r for r in rows if r[4] == 1.0 or _scaled_for_buttons(r[2])]
    total = lab.Score()
    for name, reading, label, _ms, scale in rows:
        total.add(lab.score(demote(reading, floor) if floor else reading, label, name, scale))
    fig = total.figures()
    fig["screens"] = len(rows)
    fig["p50_ms"] = round(statistics.median(r[3] for r in rows), 1) if rows else None
    fig["misses"] = total.misses
    fig["text_only"] = total.not_buttons
    return fig


def objective(fig: dict[str, Any]) -> float:
    """What the threshold is chosen for: labels met as buttons, as long as detected stays under 1.5x labelled."""
    return float(fig["recall"] + 0.5 * fig["tappable"] - (1.0 if fig["ratio"] > 1.5 else 0.0))


def loso(readings: dict[str, Any], floors: list[float]) -> dict[str, Any]:
    """Leave one source out: the button floor chosen on the other sources, scored on the held-out one."""
    res = {}
    names = list(readings)
    for held in names:
        train = [r for s in names if s != held for r in readings[s][1.0]]
        if not train:
            continue
        best = max(floors, key=lambda f: objective(source_figures(train, f)))
        fig = source_figures(readings[held][1.0], best)
        res[held] = {"floor": best, "found": fig["found"], "recall": fig["recall"], "tappable": fig["tappable"],
                     "ratio": fig["ratio"]}
    return res


def sources_report(scales: list[float]) -> dict[str, Any]:
    sources = labelled_sources()
    if not sources:
        return {}
    readings = read_sources(sources, scales)
    report: dict[str, Any] = {"sources": {}}
    for src, by_scale in readings.items():
        report["sources"][src] = {str(scale): source_figures(rows) for scale, rows in by_scale.items()}
        by = {str(scale): fact_figures(rows, _facts(src)) for scale, rows in by_scale.items()}
        report.setdefault("facts_by_scale", {})[src] = by
        if "1.0" in by:  # the 1x figures under the key they always had
            report.setdefault("facts", {})[src] = by["1.0"]
    if 1.0 in scales and len(readings) > 1:
        report["loso"] = {"shipped_floor": SHIPPED_FLOOR, "held_out": loso(readings, FLOORS)}
    if 1.0 in scales:
        report["screen_identity"] = {"real": real_report(
            {src: {scale: [(r[0], r[1]) for r in rows] for scale, rows in by.items()} for src, by in readings.items()})}
    return report


def twenty_button_screen() -> VisionOutput:
    names = ["Rest", "Training", "Skills", "Infirmary", "Recreation", "Races", "Enhance", "Story", "Home", "Race",
             "Scout", "Details", "Skip", "Quick", "Back", "Confirm", "Reset", "Learn", "Learn#2", "Menu"]
    buttons = [
        Button(name=n, meta="NEW" if i == 7 else "",
               region="menu" if 6 <= i <= 10 else "bottom" if i > 11 else "middle",
               bounds=Box(x0=40 + 50 * (i % 5), y0=300 + 70 * i, x1=300 + 50 * (i % 5), y1=360 + 70 * i),
               source="ocr", confidence=round(0.95 - 0.01 * i, 3))
        for i, n in enumerate(names)
    ]
    texts = [TextLine(text=t, bounds=Box(x0=60, y0=100 + 40 * i, x1=600, y1=136 + 40 * i))
             for i, t in enumerate(["Career", "Turn 5/24", "Energy 60/100", "Speed 120", "Stamina 95"])]
    return VisionOutput(width=1080, height=1920, buttons=buttons, texts=texts,
                        menu=MenuState(usable=True, selected="Home", tabs=names[6:11]),
                        scrollbar=Scrollbar(track=Box(x0=1000, y0=400, x1=1008, y1=1400),
                                            thumb=Box(x0=1000, y0=500, x1=1008, y1=800), up=True, down=True))


def tokens_report(outputs: list[VisionOutput]) -> dict[str, Any]:
    """Compact vs verbose tokens; `outputs` are the OCR backend's readings of the simulator frames."""
    from baseline_layout import verbose_vision_json  # bench/ is this script's own folder

    out = twenty_button_screen()
    comp, verb = compact(out).to_json(), verbose_vision_json(out)
    ct, vt = estimate_text_tokens(comp), estimate_text_tokens(verb)
    busiest = max(outputs, key=lambda o: len(o.buttons), default=out)
    sc, sv = estimate_text_tokens(compact(busiest).to_json()), estimate_text_tokens(verbose_vision_json(busiest))
    summaries = [estimate_text_tokens(summarize(o)) for o in outputs]
    return {
        "note": TOKENS_NOTE,
        "twenty_buttons": {"compact": ct, "verbose": vt, "ratio": round(ct / vt, 3)},
        "busiest_sim_frame": {"buttons": len(busiest.buttons), "compact": sc, "verbose": sv,
                              "ratio": round(sc / max(1, sv), 3)},
        "summary_tokens": {"median": statistics.median(summaries) if summaries else 0,
                           "max": max(summaries, default=0)},
    }


def cache_report(frame: Image.Image) -> dict[str, Any]:
    vision = Vision(VisionConfig(backend="ocr"))
    vision.analyze(frame)
    times = []
    for _ in range(30):
        t0 = time.perf_counter()
        out = vision.analyze(frame)
        times.append((time.perf_counter() - t0) * 1000)
        assert out.cached
    return {"hit_p50_ms": round(statistics.median(times), 2), "hit_p90_ms": round(pct(times, 0.9), 2),
            "size": f"{frame.width}x{frame.height}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=36, help="simulator frames per backend")
    ap.add_argument("--backends", default="ocr,claude,hybrid")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--scales", default="1,0.4,0.75,1.5", help="rescalings of the labelled screens ('' = none)")
    ap.add_argument("--misses", action="store_true", help="list every labelled fact not met, per source and scale")
    ap.add_argument("--sim", action=argparse.BooleanOptionalAction, default=True,
                    help="also run the simulator frames and the backends (--no-sim: labelled sources only)")
    args = ap.parse_args(argv)
    scales = [float(v) for v in args.scales.split(",") if v.strip()]
    if not args.sim:
        by_source = sources_report(scales)
        print(json.dumps(by_source, indent=1) if args.json else format_sources(by_source, args.misses))
        return 0

    progress(f"playing the simulator for {args.frames} frames")
    sims = sim_frames(args.frames)
    reals = real_frames()
    if not reals:
        progress(f"no screenshots: {SCREENS} has no labels.json (set LLUMA_SCREENS_DIR); real-screen figures skipped")
    report: dict[str, Any] = {"backends": [], "cache": cache_report(sims[0][0])}
    ocr_outputs: list[VisionOutput] = []
    for backend in args.backends.split(","):
        if backend == "ocr":
            res = run_backend("ocr", sims, reals, None)
            ocr_outputs = res["outputs"]
        else:
            from lluma_sim.api.server import ApiServer

            with ApiServer() as api:
                res = run_backend(backend, sims, reals, api.client())
            res["note"] = "Messages API stand-in over loopback (no network): not Claude's latency or accuracy"
        del res["outputs"]
        report["backends"].append(res)
    report["tokens"] = tokens_report(ocr_outputs)
    if scales:
        report.update(sources_report(scales))
    progress("screen identity on the simulator's screens (plain and hard styles)")
    report.setdefault("screen_identity", {})["sim"] = sim_report(Vision(VisionConfig(backend="ocr", cache_size=0)))

    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"vision benchmark - {len(sims)} simulator frames (1080x1920), {len(reals)} real screenshots, cold reads")
    print(f"{'backend':<8} {'sim p50':>8} {'p90':>7} {'recall':>7} {'prec':>6} | {'real p50':>8} {'p90':>7} "
          f"{'recall':>7} {'cinem':>6} {'scroll':>6}")
    for r in report["backends"]:
        s, rr = r["sim"], r.get("real")
        real = (f"{rr['p50_ms']:>6.0f}ms {rr['p90_ms']:>5.0f}ms {rr['recall']:>7.1%} {rr['cinematic']:>6} "
                f"{rr['scrollbar']:>6}") if rr else "no screenshots"
        print(f"{r['backend']:<8} {s['p50_ms']:>6.0f}ms {s['p90_ms']:>5.0f}ms {s['recall']:>7.1%} "
              f"{s['precision']:>6.1%} | {real}")
        if s["ui_frames"]:
            print(f"         sim UI frames only ({s['ui_frames']}, no loading/cutscene): p50 {s['ui_p50_ms']:.0f}ms, "
                  f"p90 {s['ui_p90_ms']:.0f}ms")
        if "note" in r:
            print(f"         ({r['note']})")
    t = report["tokens"]
    print(f"compact JSON, 20-button screen: {t['twenty_buttons']['compact']} tokens vs verbose "
          f"{t['twenty_buttons']['verbose']} = {t['twenty_buttons']['ratio']:.0%} (target <= 30%; {t['note']})")
    b = t["busiest_sim_frame"]
    print(f"busiest simulator frame ({b['buttons']} buttons): compact {b['compact']} vs verbose {b['verbose']} "
          f"= {b['ratio']:.0%}")
    print(f"past-turn summary: median {t['summary_tokens']['median']} tokens, max {t['summary_tokens']['max']} "
          "(target <= 60)")
    c = report["cache"]
    print(f"cache hit ({c['size']}): p50 {c['hit_p50_ms']} ms, p90 {c['hit_p90_ms']} ms (target < 5 ms)")
    if scales:
        print(format_sources(report, args.misses))
    else:
        print(format_report(report["screen_identity"]))
    return 0


def format_sources(report: dict[str, Any], misses: bool = False) -> str:
    if not report.get("sources"):
        return "labelled sources: no screenshots (set LLUMA_SCREENS_DIR or LLUMA_SCREENS_DIRS)"
    rows = ["labelled screenshots, OCR backend, cold reads (found = as buttons; tappable = button or read text)",
            f"{'source':<10} {'scale':>5} {'screens':>7} {'found':>9} {'recall':>7} {'tappable':>8} "
            f"{'scroll':>6} {'det/lab':>7} {'p50':>7}"]
    for src, by_scale in report["sources"].items():
        for scale, f in by_scale.items():
            p50 = f"{f['p50_ms']:.0f}ms" if f["p50_ms"] is not None else "-"
            rows.append(f"{src:<10} {scale:>5} {f['screens']:>7} {f['found']:>9} {f['recall']:>7.1%} "
                        f"{f['tappable']:>8.1%} {f['scrollbar']:>6} {f['ratio']:>6.2f}x {p50:>7}")
    if "loso" in report:
        rows.append(f"leave one source out (button floor; shipped {report['loso']['shipped_floor']}):")
        for src, f in report["loso"]["held_out"].items():
            rows.append(f"  held out {src:<10} floor {f['floor']:<5} found {f['found']:>8} ({f['recall']:.1%}), "
                        f"tappable {f['tappable']:.1%}, det/lab {f['ratio']:.2f}x")
    if report.get("facts_by_scale"):
        rows.append("facts in the compact JSON (energy gauge within 0.1, values with their caption; exact: the caption"
                    " and nothing before it; decisions: the date, the goal and its status word for word, the raised"
                    " training, its cards, each row of a list):")
        for src, by_scale in report["facts_by_scale"].items():
            for scale, f in by_scale.items():
                rows.append(f"  {src:<10} {scale:>5} energy {f['energy_gauges']:>6}  values {f['values']:>7} "
                            f"(exact {f['values_exact']:>7}, doubtful {f['values_doubtful']})  mood {f['mood']:>6}  "
                            f"disabled {f['disabled']:>6} (+{f['disabled_false']} not labelled)  "
                            f"decisions {f['decisions']:>6}")
    if "screen_identity" in report:
        rows.append(format_report(report["screen_identity"]))
    if misses:
        rows.append("fact misses:")
        rows += [f"  {src} {scale}x {m}" for src, by_scale in report.get("facts_by_scale", {}).items()
                 for scale, f in by_scale.items() for m in f["misses"]]
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
