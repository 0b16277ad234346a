"""Vision on simulator frames (1080x1920) against the simulator's ground truth."""

from __future__ import annotations

import re

import pytest

from lluma_sim import game
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=25)]  # reads frames with the OCR (pyproject: markers)

TAPPABLE = ("button", "tab", "choice")


def norm(name: str) -> str:
    return re.sub(r"[\W_]+", "", name.split("#")[0].casefold())


def _tap(g, name: str) -> None:
    hits = [e for e in g.truth().elements if e.name == name and e.kind != "text"]
    assert hits, f"{name!r} not on {g.truth().screen}"
    g.tap(*hits[0].box.center)


def tour(seed: int = 0) -> list[tuple[str, object, object]]:
    """(label, frame, truth) over every kind of screen, in the order a player meets them."""
    g = game.SimGame(seed=seed)
    frames = []

    def snap(label: str) -> None:
        img = g.capture()  # capture first: it advances a running animation, truth() then describes this frame
        frames.append((label, img, g.truth()))

    snap("home")
    _tap(g, "Menu")
    snap("home_dialog")  # a dialog over home: the tab bar blurred
    _tap(g, "Close")
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):  # the career setup
        _tap(g, name)
    for i in range(12):
        if g.truth().screen == "hub":
            break
        snap(f"intro{i}")
    snap("hub")
    _tap(g, "Training")
    snap("training")
    _tap(g, "Speed")
    for i in range(8):
        t = g.truth()
        if t.screen != "event" and t.cinematic not in ("loading", "cutscene"):
            break
        snap(f"event{i}")
        if t.screen == "event":
            _tap(g, "Next" if t.cinematic == "dialogue" else [e.name for e in t.elements if e.kind == "choice"][0])
    snap("hub2")
    _tap(g, "Skills")
    snap("skills_top")
    g.swipe(g.width * 0.5, g.height * 0.6, g.width * 0.5, g.height * 0.3)
    snap("skills_mid")
    for _ in range(6):
        g.swipe(g.width * 0.5, g.height * 0.6, g.width * 0.5, g.height * 0.3)
    snap("skills_end")
    g.keyevent("KEYCODE_BACK")
    _tap(g, "Races")
    snap("races")
    g.keyevent("KEYCODE_BACK")
    _tap(g, "Menu")
    snap("menu")
    return frames


@pytest.fixture(scope="module")
def readings() -> list[tuple[str, VisionOutput, object]]:
    vision = Vision(VisionConfig(backend="ocr"))  # one Vision, as in a run: tab memory and cache carry over
    return [(label, vision.analyze(img), truth) for label, img, truth in tour()]


def test_button_recall_with_tap_inside_the_truth_box(readings) -> None:
    total, misses = 0, []
    for label, out, truth in readings:
        for e in truth.elements:
            if e.kind not in TAPPABLE or not e.enabled:
                continue
            total += 1
            if not any(norm(b.name) == norm(e.name) and e.box.contains(*b.bounds.center) for b in out.buttons):
                misses.append(f"{label}: {e.name}")
    recall = 1 - len(misses) / total
    print(f"sim button recall {total - len(misses)}/{total} = {recall:.1%}; misses {misses}")
    assert recall >= 0.9, misses


def test_button_precision(readings) -> None:
    found = wrong = 0
    for _label, out, truth in readings:
        names = {norm(e.name) for e in truth.elements if e.kind != "text"}
        found += len(out.buttons)
        wrong += sum(1 for b in out.buttons if norm(b.name) not in names)
    print(f"sim button precision {found - wrong}/{found}")
    assert (found - wrong) / found >= 0.85


def test_cinematic_matches_truth(readings) -> None:
    bad = [(lab, out.cinematic, truth.cinematic) for lab, out, truth in readings if out.cinematic != truth.cinematic]
    assert not bad


def test_scrollbar_matches_truth(readings) -> None:
    for label, out, truth in readings:
        if truth.scrollbar is None:
            assert out.scrollbar is None, label
        else:
            assert out.scrollbar is not None, label
            assert (out.scrollbar.up, out.scrollbar.down) == (truth.scrollbar.up, truth.scrollbar.down), label
            assert truth.scrollbar.track.contains(*out.scrollbar.thumb.center), label


def test_tab_bar_state_matches_truth(readings) -> None:
    checked = 0
    for label, out, truth in readings:
        if truth.menu_usable is None:
            continue
        checked += 1
        assert out.menu is not None, label
        assert out.menu.usable == truth.menu_usable, label
        assert out.menu.selected == truth.selected_tab, label
    assert checked >= 2  # home (usable) and a dialog over it (blurred)
