"""Vision on real game screenshots (../shared/data/screens, labels.json; README there has the match rules).

Held-back screenshots are checked with the same figures, so nothing here may depend on file names:
LLUMA_SCREENS_DIR points the tests at another labelled folder.
"""

from __future__ import annotations

import json

import pytest
from PIL import Image
from real_reads import cold_read, warm

from lluma_sim.labelled import buttons as lab
from lluma_sim.labelled.screens import labelled_sources, screens_dir
from lluma_vision.models import VisionOutput

SCREENS = screens_dir()
LABELS_FILE = SCREENS / "labels.json"
# reading every labelled screen takes a minute on an idle machine; a shared, loaded one needs the margin
pytestmark = [pytest.mark.cost(seconds=140), pytest.mark.ocr,
              pytest.mark.skipif(not LABELS_FILE.is_file(), reason=f"no labelled screenshots in {SCREENS}"),
              pytest.mark.timeout(1200)]
LABELS: dict = json.loads(LABELS_FILE.read_text()) if LABELS_FILE.is_file() else {}


norm = lab.norm


@pytest.fixture(scope="module")
def readings() -> dict[str, VisionOutput]:
    """Every labelled screenshot read cold with the offline backend (nothing remembered from another)."""
    warm((SCREENS, name) for name in sorted(LABELS))
    return {name: cold_read(SCREENS, name) for name in sorted(LABELS)}


def test_button_recall_at_least_95_percent(readings: dict[str, VisionOutput]) -> None:
    total = lab.Score()
    for name, label in LABELS.items():
        total.add(lab.score(readings[name], label, name))
    misses = total.misses + total.not_buttons
    print(f"button recall {total.found}/{total.labels}; misses: {misses}")
    assert total.labels > 0
    assert total.found / total.labels >= 0.95, misses


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


# Floors per labelled source, from bench/vision.py (aggregate rates, a few points under the measured
# figure; not per-screen expectations). A source without an entry is held to the weakest floor.
FLOORS = {  # source folder: (found as buttons, reachable as button or text, detected/labelled at most)
    "screens": (0.95, 0.95, 2.6),
    "screens2": (0.87, 0.94, 1.9),
}


@pytest.mark.parametrize("folder", labelled_sources(), ids=lambda p: p.name)
def test_every_source_meets_its_floor(folder) -> None:
    labels = lab.load(folder)
    total = lab.Score()
    warm((folder, name) for name in sorted(labels) if labels[name].get("buttons"))
    for name in sorted(labels):
        if labels[name].get("buttons"):
            total.add(lab.score(cold_read(folder, name), labels[name], name))
    weakest = (min(f[0] for f in FLOORS.values()), min(f[1] for f in FLOORS.values()),
               max(f[2] for f in FLOORS.values()))
    found, tappable, ratio = FLOORS.get(folder.name, weakest)
    fig = total.figures()
    print(folder.name, fig, total.misses)
    assert total.labels > 0
    assert fig["recall"] >= found, total.misses + total.not_buttons
    assert fig["tappable"] >= tappable, total.misses
    assert fig["ratio"] <= ratio
