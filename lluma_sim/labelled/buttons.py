"""Scoring a reading against a labelled screenshot (the rules of shared/data/screens/README.md).

A label is met when a button whose name matches (case, spacing and punctuation aside) has its
centre inside the labelled box; it is reachable ("tappable") when a button or a read text line
does, because pressButton also taps text lines. Used by bench/vision.py and the real-screen tests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from lluma_vision.models import Box, VisionOutput


def norm(name: str) -> str:
    """Case, spacing and punctuation aside; '#2' suffixes are ours, not the label's."""
    return re.sub(r"[\W_]+", "", name.split("#")[0].casefold())


def _hit(name: str, box: list[int], candidates: list[tuple[str, Box]]) -> bool:
    x0, y0, x1, y1 = box
    want = norm(name)
    return any(norm(n) == want and x0 <= b.center[0] < x1 and y0 <= b.center[1] < y1 for n, b in candidates)


@dataclass
class Score:
    """Totals over one or more screens."""

    labels: int = 0
    found: int = 0  # as detected buttons
    tappable: int = 0  # as a button or a read text line
    detected: int = 0  # buttons reported on screens that have labelled buttons
    scroll_right: int = 0
    scroll_labels: int = 0
    misses: list[str] = field(default_factory=list)  # "screen: name" not reachable at all
    not_buttons: list[str] = field(default_factory=list)  # "screen: name" reachable only as text

    def add(self, other: Score) -> None:
        for k in ("labels", "found", "tappable", "detected", "scroll_right", "scroll_labels"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.misses += other.misses
        self.not_buttons += other.not_buttons

    def figures(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "found": f"{self.found}/{self.labels}",
            "recall": round(self.found / max(1, self.labels), 3),
            "tappable": round(self.tappable / max(1, self.labels), 3),
            "scrollbar": f"{self.scroll_right}/{self.scroll_labels}",
            "ratio": round(self.detected / max(1, self.labels), 2),
        }


def scrollbar_right(out: VisionOutput, want: dict[str, Any] | None) -> bool:
    got = out.scrollbar
    if want is None:
        return got is None
    if got is None:
        return False
    return "up" not in want or (got.up, got.down) == (want["up"], want["down"])


def score(out: VisionOutput, label: dict[str, Any], name: str = "", scale: float = 1.0) -> Score:
    """Score one reading; `scale` maps the label's boxes onto a rescaled copy of the screenshot."""
    s = Score()
    buttons = [(b.name, b.bounds) for b in out.buttons]
    texts = [(t.text, t.bounds) for t in out.texts]
    for want in label.get("buttons", []):
        box = [round(v * scale) for v in want["box"]]
        s.labels += 1
        if _hit(want["name"], box, buttons):
            s.found += 1
            s.tappable += 1
        elif _hit(want["name"], box, texts):
            s.tappable += 1
            s.not_buttons.append(f"{name}: {want['name']}")
        else:
            s.misses.append(f"{name}: {want['name']}")
    if s.labels:
        s.detected = len(out.buttons)
    if "scrollbar" in label:
        s.scroll_labels = 1
        s.scroll_right = int(scrollbar_right(out, label["scrollbar"]))
    return s


def load(folder: Path) -> dict[str, dict[str, Any]]:
    """labels.json of a folder ({} when there is none)."""
    f = folder / "labels.json"
    return json.loads(f.read_text()) if f.is_file() else {}


def image(folder: Path, name: str, scale: float = 1.0) -> Image.Image:
    """A labelled screenshot as RGB, optionally rescaled (area-averaged down, bicubic up)."""
    with Image.open(folder / name) as im:
        img = im.convert("RGB")
    if scale != 1.0:
        size = (max(1, round(img.width * scale)), max(1, round(img.height * scale)))
        img = img.resize(size, Image.Resampling.BOX if scale < 1 else Image.Resampling.BICUBIC)
    return img
