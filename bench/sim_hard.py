"""Taps on target on the simulator's hard screens (style="hard"), with today's offline vision.

For each hard variant (420x936, letterboxed 1080x2400, letterboxed 420x936, 1080x1920) and each hard
screen (home with the tab bar over content, the career hub's plate-less tiles, the training stat icon
row, the settings modal's toggle pairs), every tappable ground-truth element is looked up the way
`pressButton(name)` does first: a detected button of that name (duplicates "On", "On #2"... top to
bottom). A tap on its box centre is on target when it lies inside the truth box. "Reachable" also
counts a read text line of that name whose centre lies inside (issue 11: every read text is tappable).
The plain style's same screens are measured in the same process as the baseline.

    python bench/sim_hard.py [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lluma_sim.game import GroundTruth, SimGame  # noqa: E402
from lluma_sim.game.game import HARD_VARIANTS  # noqa: E402
from lluma_vision.config import VisionConfig  # noqa: E402
from lluma_vision.models import VisionOutput  # noqa: E402
from lluma_vision.pipeline import Vision  # noqa: E402

TAPPABLE = ("button", "tab", "choice", "icon")


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", re.sub(r"\s*#\d+$", "", s.lower()))


def _tap(g: SimGame, name: str) -> None:
    e = next(e for e in g.truth().elements if e.name == name and e.kind != "text")
    g.tap(*e.box.center)
    while g.truth().cinematic in ("loading", "cutscene"):
        g.capture()


SCREENS: dict[str, tuple[str, ...]] = {  # the taps that lead there from home
    "home": (),
    "hub": ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"),
    "training": ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!", "Training"),
    "settings": ("Menu",),
}


def score(truth: GroundTruth, out: VisionOutput) -> tuple[int, int, int]:
    """(tappable elements, on target as buttons, reachable as a button or a read text)."""
    elems = [e for e in truth.elements if e.kind in TAPPABLE and e.enabled]  # what a tap can work on
    on = reach = 0
    for e in elems:
        same = [b for b in out.buttons if _norm(b.name) == _norm(e.name)]
        same.sort(key=lambda b: (b.bounds.y0, b.bounds.x0))
        twins = sorted((x for x in elems if x.name == e.name), key=lambda x: (x.box.y0, x.box.x0))
        k = twins.index(e)
        hit = k < len(same) and e.box.contains(*same[k].bounds.center)
        texts = [t for t in out.texts if _norm(t.text) == _norm(e.name) and e.box.contains(*t.bounds.center)]
        on += hit
        reach += hit or bool(texts)
    return len(elems), on, reach


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    vision = Vision(VisionConfig(backend="ocr"))
    rows: list[dict[str, Any]] = []
    for style in ("plain", "hard"):
        for seed, variant in enumerate(HARD_VARIANTS):
            for screen, taps in SCREENS.items():
                g = SimGame(seed=seed, style=style, max_turns=6, **variant)
                for name in taps:
                    _tap(g, name)
                out = vision.analyze(g.capture())
                total, on, reach = score(g.truth(), out)
                size = f"{g.width}x{g.height}" + (f" letterbox {g.letterbox}" if g.letterbox else "")
                rows.append(
                    {
                        "style": style,
                        "screen": screen,
                        "size": size,
                        "tappable": total,
                        "on_target": on,
                        "reachable": reach,
                    }
                )
                print(
                    f"{style:5} {screen:8} {size:22} {on:2}/{total:2} on target, {reach:2} reachable",
                    file=sys.stderr,
                    flush=True,
                )
    summary: dict[str, dict[str, Any]] = {}
    for style in ("plain", "hard"):
        mine = [r for r in rows if r["style"] == style]
        total = sum(r["tappable"] for r in mine)
        summary[style] = {
            "tappable": total,
            "on_target": sum(r["on_target"] for r in mine),
            "reachable": sum(r["reachable"] for r in mine),
            "on_target_share": round(sum(r["on_target"] for r in mine) / max(1, total), 3),
            "by_screen": {
                s: f"{sum(r['on_target'] for r in mine if r['screen'] == s)}/"
                f"{sum(r['tappable'] for r in mine if r['screen'] == s)}"
                for s in SCREENS
            },
        }
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}))
    else:
        for style, s in summary.items():
            print(
                f"{style}: {s['on_target']}/{s['tappable']} taps on target ({100 * s['on_target_share']:.1f}%), "
                f"{s['reachable']} reachable; by screen {s['by_screen']}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
