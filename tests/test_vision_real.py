"""Vision on real game screenshots (../shared/data/screens, labels.json; README there has the match rules).

Held-back screenshots are checked with the same figures, so nothing here may depend on file names:
LLUMA_SCREENS_DIR points the tests at another labelled folder.
"""

from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from lluma_sim.screens import screens_dir
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision

SCREENS = screens_dir()
LABELS_FILE = SCREENS / "labels.json"
pytestmark = pytest.mark.skipif(not LABELS_FILE.is_file(), reason=f"no labelled screenshots in {SCREENS}")
LABELS: dict = json.loads(LABELS_FILE.read_text()) if LABELS_FILE.is_file() else {}


def norm(name: str) -> str:
    """Case, spacing and punctuation aside (README's match rule); '#2' suffixes are ours, not the label's."""
    return re.sub(r"[\W_]+", "", name.split("#")[0].casefold())


@pytest.fixture(scope="module")
def readings() -> dict[str, VisionOutput]:
    """Every labelled screenshot read once with the offline backend (a fresh Vision each: no shared memory)."""
    out = {}
    for name in sorted(LABELS):
        with Image.open(SCREENS / name) as im:
            out[name] = Vision(VisionConfig(backend="ocr")).analyze(im.convert("RGB"))
    return out


def label_hit(out: VisionOutput, label: dict) -> bool:
    x0, y0, x1, y1 = label["box"]
    for b in out.buttons:
        cx, cy = b.bounds.center
        if norm(b.name) == norm(label["name"]) and x0 <= cx < x1 and y0 <= cy < y1:
            return True
    return False


def test_button_recall_at_least_95_percent(readings: dict[str, VisionOutput]) -> None:
    total, misses = 0, []
    for name, lab in LABELS.items():
        for want in lab.get("buttons", []):
            total += 1
            if not label_hit(readings[name], want):
                misses.append(f"{name}: {want['name']!r}")
    recall = 1 - len(misses) / max(1, total)
    print(f"button recall {total - len(misses)}/{total} = {recall:.1%}; misses: {misses}")
    assert total > 0
    assert recall >= 0.95, misses


def _with(key: str) -> list[str]:
    return [n for n, lab in sorted(LABELS.items()) if key in lab]


@pytest.mark.parametrize("name", _with("scrollbar"))
def test_scrollbar_state(readings: dict[str, VisionOutput], name: str) -> None:
    want = LABELS[name]["scrollbar"]
    got = readings[name].scrollbar
    if want is None:
        assert got is None, f"false scrollbar {got}"
        return
    assert got is not None, "scrollbar not found"
    if "up" in want:
        assert (got.up, got.down) == (want["up"], want["down"])
    assert got.thumb.y0 >= got.track.y0 and got.thumb.y1 <= got.track.y1


@pytest.mark.parametrize("name", _with("cinematic"))
def test_cinematic_kind(readings: dict[str, VisionOutput], name: str) -> None:
    assert readings[name].cinematic == LABELS[name]["cinematic"]


@pytest.mark.parametrize("name", _with("menu"))
def test_menu_state(readings: dict[str, VisionOutput], name: str) -> None:
    want, got = LABELS[name]["menu"], readings[name].menu
    assert got is not None, "tab bar not found"
    assert got.usable == want["usable"]
    if "selected" in want:
        assert norm(got.selected or "") == norm(want["selected"])


def test_bounds_are_inside_the_image(readings: dict[str, VisionOutput]) -> None:
    for name, out in readings.items():
        with Image.open(SCREENS / name) as im:
            assert (out.width, out.height) == im.size
        for b in out.buttons:
            assert 0 <= b.bounds.x0 < b.bounds.x1 <= out.width and 0 <= b.bounds.y0 < b.bounds.y1 <= out.height
        assert len({b.name for b in out.buttons}) == len(out.buttons), "button names must be unique"
