"""Knob sweep: each module-level knob of `lluma_vision` tried at 0.5x-1.5x of its value on the labelled screens.

Every labelled screen of every source (lluma_sim.labelled.screens.labelled_sources) is read once per scale; the
detector's boxes and the recogniser's reads are kept by their pixels, so a candidate value re-runs only what it
changes (the stages after OCR, and OCR only on crops not read before). A knob is set where it is defined and where
it was imported by name; a knob read while modules load (a default argument, another constant made from it) is not
swept but named ("bound at import").

Each reading is scored with the vision bench's own metrics (lluma_sim.labelled: labelled buttons found as buttons
and as tappable, scrollbar states, cinematic labels, and the facts: energy, values, exact captions, moods, disabled,
decisions), per source and per scale. The score of a value is the sum of those hits, less the doubtful true values,
the disabled marks not labelled, and the buttons beyond 1.5x the labelled ones. The value is chosen on the sources
other than the held-out one (ties keep the shipped value) and its held-out score is reported; `flat` is the run of
multipliers around 1x whose score equals the shipped value's on every source and scale.

    python bench/knobs.py pixels/layout.py:MERGE_GAP ... [--ends-only] [--held-out screens] [--scales 1,0.75]
                          [--ocr-cache FILE] [--out FILE]

A knob costs two to six passes over the screens it is read on: 7 s a pass on an idle core, minutes on two shared ones.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import math
import pickle
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lluma_agent.atomic import atomic_write_bytes, atomic_write_text  # noqa: E402
from lluma_sim.labelled import buttons as lab  # noqa: E402
from lluma_sim.labelled import facts as fact_labels  # noqa: E402
from lluma_sim.labelled.screens import facts_path, labelled_sources  # noqa: E402
from lluma_vision.config import VisionConfig  # noqa: E402
from lluma_vision.models import VisionOutput  # noqa: E402
from lluma_vision.pipeline import Vision  # noqa: E402
from lluma_vision.pixels import ocr  # noqa: E402
from lluma_vision.pixels.menu import TabMemory  # noqa: E402

PACKAGE = REPO / "lluma_vision"
# not measured: the sweep's own grid, 0.5x-1.5x in quarter steps (a pass over the 64 screens at 1x takes 7 s with the
# OCR kept, so a finer grid for ~200 knobs would not fit an afternoon on two cores); an integer knob also tries its
# value +-1 (a count of 3 has no 0.9x)
MULTIPLIERS = (0.5, 0.75, 1.25, 1.5)
OVER_DETECTED = 1.5  # buttons beyond this many per labelled one count against a value (bench/vision.py's objective)
Value = float | int | tuple[float | int, ...]
Row = tuple[str, float, str, dict[str, Any]]  # (source, scale, screen, its label)
Key = tuple[str, float, str]  # (source, scale, screen)


def progress(message: str) -> None:
    print(f"bench/knobs: {message}", file=sys.stderr, flush=True)


# --- the knobs -------------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def _loads_at_import(tree: ast.Module, name: str) -> bool:
    """`name` read while the module loads: in another top-level statement, a default argument or a class body."""
    def reads(node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(node))

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            if any(reads(d) for d in defaults + node.decorator_list):
                return True
        elif isinstance(node, ast.ClassDef):
            if any(reads(s) for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))):
                return True
        elif not isinstance(node, (ast.Import, ast.ImportFrom)) and reads(node):
            return True
    return False


class Knob:
    """One knob: where it is defined, every module that holds it by name, and whether it can be set after loading."""

    def __init__(self, ref: str) -> None:
        file, _, self.name = ref.partition(":")
        self.ref = ref
        self.path = PACKAGE / file
        self.module = importlib.import_module(module_name(self.path))
        if not hasattr(self.module, self.name):
            raise SystemExit(f"bench/knobs: {ref}: no such knob")
        self.value: Value = getattr(self.module, self.name)
        self.holders = [self.module] + list(_importers(self.module.__name__, self.name))
        self.bound_at_import = any(_loads_at_import(_tree(m), self.name) for m in self.holders)
        self.readers = list(_readers(self.name, self.holders))

    def set(self, value: Value) -> None:
        for m in self.holders:
            setattr(m, self.name, value)

    def candidates(self) -> list[tuple[str, Value]]:
        """(how it is named, value) for each multiplier, the ends first, and for an integer its neighbours; each value
        once (an integer of 3 is 4 at 1.25x and 5 at 1.5x, rounded half up), never the shipped one."""
        out: dict[str, Value] = {}
        for m in sorted(MULTIPLIERS, key=lambda m: m not in (min(MULTIPLIERS), max(MULTIPLIERS))):
            out[f"{m:g}x"] = _scaled(self.value, m)
        if isinstance(self.value, int):
            out["-1"], out["+1"] = self.value - 1, self.value + 1
        seen: set[Any] = {self.value}
        return [(k, v) for k, v in out.items() if not (v in seen or seen.add(v))]  # type: ignore[func-returns-value]


def _scaled(value: Value, m: float) -> Value:
    if isinstance(value, tuple):
        return tuple(_scaled(v, m) for v in value)  # type: ignore[misc]
    return math.floor(value * m + 0.5) if isinstance(value, int) else round(value * m, 6)


_TREES: dict[str, ast.Module] = {}


def _tree(module: Any) -> ast.Module:
    if module.__name__ not in _TREES:
        _TREES[module.__name__] = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    return _TREES[module.__name__]


def _importers(source: str, name: str) -> Iterator[Any]:
    """The lluma_vision modules loaded that did `from <source> import name` (their own binding of the value)."""
    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith("lluma_vision") or mod.__name__ == source:
            continue
        for node in _tree(mod).body:
            if isinstance(node, ast.ImportFrom) and node.module == source and \
                    any(a.name == name and a.asname is None for a in node.names):
                yield mod


def _readers(name: str, holders: list[Any]) -> Iterator[tuple[str, int, int]]:
    """(file, first line, last line) of each function that may read the knob: one naming it in a module holding it,
    or naming `<module>.<name>` anywhere in lluma_vision."""
    for mod in [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("lluma_vision")]:
        held = mod in holders
        for fn in ast.walk(_tree(mod)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if any((held and isinstance(n, ast.Name) and n.id == name) or (isinstance(n, ast.Attribute)
                   and n.attr == name) for n in ast.walk(fn)):
                first = min([fn.lineno] + [d.lineno for d in getattr(fn, "decorator_list", [])])
                yield str(mod.__file__), first, fn.end_lineno or fn.lineno


def clear_caches() -> None:
    """Results kept by functools caches inside lluma_vision were made with the previous value."""
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("lluma_vision"):
            for v in list(vars(mod).values()):
                if callable(getattr(v, "cache_clear", None)):
                    v.cache_clear()


# --- reading the screens, OCR kept -----------------------------------------------------------------


def keep_detections(cache: Path | None) -> Callable[[], None]:
    """The detector's boxes kept by the pixels they were found on (the recogniser's reads are kept by ocr itself),
    loaded from `cache` when it exists; returns what saves them there (a pickle: a bench's own scratch file)."""
    engine = ocr.get_engine()
    detect: Callable[..., Any] = engine.text_det
    kept: dict[bytes, Any] = {}
    if cache is not None and cache.is_file():
        kept, ocr._READS._reads, ocr._REREADS._reads = pickle.loads(cache.read_bytes())

    def text_det(img: np.ndarray) -> Any:
        key = ocr.digest(img)
        if key not in kept:
            kept[key] = detect(img)
        return kept[key]

    engine.text_det = text_det
    ocr.READS_KEPT = 10 ** 6  # every crop of every screen stays read for the whole sweep

    def save() -> None:
        if cache is not None:
            atomic_write_bytes(cache, pickle.dumps((kept, ocr._READS._reads, ocr._REREADS._reads)))

    return save


# the pixel stages a knob of another module cannot change: kept per input for the knobs outside their modules
PURE_STAGES = {"find_icons": "icons", "find_gauges": "gauges", "scrollbar": "scrollbar"}


def _deps(module: str, seen: set[str] | None = None) -> set[str]:
    """`module` and the lluma_vision modules it imports, transitively."""
    seen = set() if seen is None else seen
    if module in seen or module not in sys.modules:
        return seen
    seen.add(module)
    for node in _tree(sys.modules[module]).body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lluma_vision."):
            _deps(node.module or "", seen)
    return seen


class StageMemo:
    """The pure pixel stages' results kept by their input (the frame's pixels, the OCR lines), reused while the knob
    swept lies outside the modules they run on."""

    def __init__(self) -> None:
        from lluma_vision.pipeline import reading

        self.reading = reading
        self.sweeping: set[str] = set()  # the modules holding the knob being swept
        for fn in PURE_STAGES:
            real = getattr(reading, fn)
            setattr(reading, fn, self._kept(real, _deps(real.__module__)))

    def _kept(self, real: Callable[..., Any], deps: set[str]) -> Callable[..., Any]:
        kept: dict[tuple[bytes, str, str], Any] = {}

        def stage(rgb: np.ndarray, *args: Any, **kwargs: Any) -> Any:
            if self.sweeping & deps:
                return real(rgb, *args, **kwargs)
            key = (ocr.digest(rgb), repr(args), repr(sorted(kwargs.items())))
            if key not in kept:
                kept[key] = real(rgb, *args, **kwargs)
            return copy.deepcopy(kept[key])  # the later stages may label what they are handed

        return stage


def screens(scales: list[float]) -> list[Row]:
    rows: list[Row] = []
    for folder in labelled_sources():
        labels, facts = lab.load(folder), fact_labels.load(facts_path(folder.name))
        for scale in scales:
            for name in sorted(labels):
                label = labels[name]
                scaled_for = label.get("buttons") or "scrollbar" in label or fact_labels.has_facts(facts.get(name))
                if scale == 1.0 or scaled_for:  # bench/vision.py's rows: rescaled copies only where they score
                    rows.append((folder.name, scale, name, label))
    return rows


class Screens:
    """The labelled screens as images, read again for each candidate value."""

    def __init__(self, scales: list[float]) -> None:
        self.memo = StageMemo()
        self.rows = screens(scales)
        folders = {f.name: f for f in labelled_sources()}
        self.images = {(s, sc, n): lab.image(folders[s], n, sc) for s, sc, n, _ in self.rows}
        self.facts = {s: fact_labels.load(facts_path(s)) for s in folders}
        self.vision = Vision(VisionConfig(backend="ocr", cache_size=0))
        self.shipped: dict[Key, VisionOutput] = {}
        self.called: dict[Key, set[tuple[str, int]]] = {}  # each screen's reading: the functions it ran

    def read(self, keys: set[Key] | None = None) -> dict[Key, VisionOutput]:
        """Every screen's reading; with `keys`, only those read again and the others' shipped readings."""
        clear_caches()
        out = dict(self.shipped)
        for key in self.images:
            if keys is None or key in keys:
                self.vision.memory = TabMemory()  # no tab bar remembered from the previous screen
                out[key] = self.vision.analyze(self.images[key])
        return out

    def read_shipped(self) -> dict[Key, VisionOutput]:
        """The shipped readings, noting which functions of lluma_vision each one ran (a profile hook: calls only)."""
        called: set[tuple[str, int]] = set()

        def hook(frame: Any, event: str, _arg: Any) -> None:
            if event == "call" and "lluma_vision" in frame.f_code.co_filename:
                called.add((frame.f_code.co_filename, frame.f_code.co_firstlineno))

        clear_caches()
        for key in self.images:
            called = set()
            self.vision.memory = TabMemory()
            sys.setprofile(hook)
            try:
                self.shipped[key] = self.vision.analyze(self.images[key])
            finally:
                sys.setprofile(None)
            self.called[key] = called
        return dict(self.shipped)

    def reading(self, knob: Knob) -> set[Key]:
        """The screens whose shipped reading ran a function that reads the knob: no other reading can change."""
        return {k for k, called in self.called.items() if any(
            file == f and lo <= line <= hi for f, line in called for file, lo, hi in knob.readers)}

    def score(self, readings: dict[tuple[str, float, str], VisionOutput]) -> dict[str, float]:
        """{source@scale: score} (see the module's doc)."""
        by: dict[str, tuple[lab.Score, list[tuple[str, VisionOutput]], int]] = {}
        for src, scale, name, label in self.rows:
            key = f"{src}@{scale:g}"
            total, facts, cin = by.setdefault(key, (lab.Score(), [], 0))
            reading = readings[(src, scale, name)]
            total.add(lab.score(reading, label, name, scale))
            facts.append((name, reading))
            by[key] = (total, facts, cin + int("cinematic" in label and reading.cinematic == label["cinematic"]))
        out = {}
        for key, (total, facts, cin) in by.items():
            f = fact_labels.score(facts, self.facts[key.partition("@")[0]])
            over = max(0.0, total.detected - OVER_DETECTED * total.labels)
            out[key] = (total.found + total.tappable + total.scroll_right + cin + f.gauges_read + f.values_read
                        + f.values_exact + f.moods_read + f.disabled_read + f.decisions_read - f.values_doubtful
                        - f.disabled_false - over)
        return out


# --- the sweep -------------------------------------------------------------------------------------


def as_json(reading: VisionOutput) -> str:
    return reading.model_dump_json(exclude={"elapsed_ms"})  # the reading, not its time


def sweep(knob: Knob, screens_: Screens, shipped: dict[str, float], shipped_json: dict[Any, str],
          ends_only: bool = False) -> dict[str, Any]:
    """The knob at each candidate value; the two ends first, and when both leave every reading as it was, the knob
    is flat over the range (a threshold that changes nothing at 0.5x and 1.5x changes nothing between)."""
    res: dict[str, Any] = {"knob": knob.ref, "value": knob.value, "tried": {}, "screens": len(shipped_json),
                           "shipped": shipped}
    if knob.bound_at_import:
        res["bound_at_import"] = True
        return res
    screens_.memo.sweeping = {m.__name__ for m in knob.holders}
    again = screens_.reading(knob)
    res["read_on"] = len(again)
    cands = knob.candidates()
    ends = [c for c in cands if c[0] in ("0.5x", "1.5x")]
    try:
        for n, (label, value) in enumerate(ends + [c for c in cands if c not in ends]):
            if n == len(ends) and all(t.get("identical") == len(shipped_json) for t in res["tried"].values()):
                res["ends_identical"] = True
                break
            if n == len(ends) and ends_only:
                break
            knob.set(value)
            try:
                readings = screens_.read(again)
            except Exception as e:  # a value the code cannot take (a negative size, a zero step) is a result too
                res["tried"][label] = {"value": value, "error": f"{type(e).__name__}: {e}"[:120]}
                continue
            same = sum(as_json(r) == shipped_json[k] for k, r in readings.items())
            res["tried"][label] = {"value": value, "score": screens_.score(readings), "identical": same}
    finally:
        knob.set(knob.value)
    return res


def _mult(label: str) -> float:
    """Where a tried value sits on the multiplier scale (an integer's -1/+1 just either side of 1x)."""
    return {"-1": 0.99, "+1": 1.01}.get(label) or float(label.rstrip("x"))


def _run(tried: list[tuple[str, float]], base: float) -> tuple[str, list[str]]:
    """The run of multipliers around 1x scoring as the shipped value, and the first value either side that does
    not (with its difference): ("0.75x-1.5x", ["0.5x -3"])."""
    lo = hi = 1.0
    edges: list[str] = []
    for side in ([t for t in reversed(tried) if _mult(t[0]) < 1], [t for t in tried if _mult(t[0]) > 1]):
        for label, score in side:
            if abs(score - base) > 1e-9:
                edges.append(f"{label} {score - base:+g}")
                break
            lo, hi = (min(lo, _mult(label)), hi) if _mult(label) < 1 else (lo, max(hi, _mult(label)))
    ends = f"{lo:g}x-{hi:g}x" if (lo, hi) != (1.0, 1.0) else "1x only"
    return ends.replace("0.99x", "-1").replace("1.01x", "+1"), edges


def summarise(res: dict[str, Any], held_out: str) -> str:
    """The knob's comment: "swept 0.5x-1.5x on 64 screens: screens2 flat 0.75x-1.5x (0.5x -3), held out screens flat
    0.5x-1.5x; kept 0.45" - the flat runs of the score on the sources it is chosen on and on the held-out one, and
    the value chosen (the shipped one unless another scores higher on the others)."""
    if res.get("bound_at_import"):
        return "bound at import: not swept (bench/knobs.py sets a knob after loading)"
    shipped: dict[str, float] = res["shipped"]
    tried = sorted(((k, t) for k, t in res["tried"].items() if "score" in t), key=lambda kv: _mult(kv[0]))
    errors = [k for k, t in res["tried"].items() if "error" in t]
    grid = "swept 0.5x-1.5x" if len(res["tried"]) > 2 else "tried 0.5x and 1.5x"
    head = f"{grid} on {res['screens']} screens ({res.get('read_on', res['screens'])} read it)"
    value = res["value"]
    if res.get("ends_identical"):
        return f"{head}: readings identical at 0.5x and 1.5x; kept {value}"
    sources = sorted({k.partition("@")[0] for k in shipped})
    train = [s for s in sources if s != held_out]

    def total(score: dict[str, float], names: list[str]) -> float:
        return sum(v for k, v in score.items() if k.partition("@")[0] in names)

    parts = []
    for names, how in ((train, "+".join(train)), ([held_out], f"held out {held_out}")):
        run, edges = _run([(k, total(t["score"], names)) for k, t in tried], total(shipped, names))
        parts.append(f"{how} flat {run}" + (f" ({', '.join(edges)})" if edges else ""))
    line = f"{head}: {', '.join(parts)}"
    if errors:
        line += f"; fails at {', '.join(errors)}"
    best = max(tried, key=lambda kv: total(kv[1]["score"], train), default=None)
    if best is not None and total(best[1]["score"], train) > total(shipped, train) + 1e-9:
        gain = total(best[1]["score"], [held_out]) - total(shipped, [held_out])
        line += f"; {best[0]} best on {'+'.join(train)}, held out {gain:+g}"
    return f"{line}; kept {value}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("knobs", nargs="*", help="file:NAME under lluma_vision (pixels/layout.py:MERGE_GAP)")
    ap.add_argument("--ocr-cache", type=Path, help="the OCR's boxes and reads kept here between runs (a pickle)")
    ap.add_argument("--scales", default="1,0.75", help="the labelled screens at these scales")
    ap.add_argument("--held-out", default="screens", help="the source scored apart (the value is chosen on the rest)")
    ap.add_argument("--ends-only", action="store_true", help="try 0.5x and 1.5x only (the grid when short of time)")
    ap.add_argument("--out", type=Path, help="JSON results, one entry per knob, written after each (resumed from)")
    args = ap.parse_args(argv)
    refs = args.knobs
    if not refs:
        ap.error("name the knobs (file:NAME under lluma_vision)")
    scales = [float(s) for s in args.scales.split(",") if s.strip()]
    knobs = [Knob(r) for r in refs]
    done: dict[str, Any] = json.loads(args.out.read_text()) if args.out and args.out.is_file() else {}
    save = keep_detections(args.ocr_cache)
    scr = Screens(scales)
    progress(f"{len(scr.rows)} readings ({', '.join(f'{s:g}x' for s in scales)}); reading the shipped values")
    t0 = time.perf_counter()
    readings = scr.read_shipped()
    shipped, shipped_json = scr.score(readings), {k: as_json(r) for k, r in readings.items()}
    save()
    progress(f"shipped values read in {time.perf_counter() - t0:.0f} s")
    for k in knobs:
        if k.ref in done:
            continue
        t = time.perf_counter()
        done[k.ref] = sweep(k, scr, shipped, shipped_json, args.ends_only)
        progress(f"{k.ref}: {summarise(done[k.ref], args.held_out)} [{time.perf_counter() - t:.0f} s]")
        if args.out:
            atomic_write_text(args.out, json.dumps(done, indent=1, default=list))
    save()
    for ref in refs:
        print(f"{ref}: {summarise(done[ref], args.held_out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
