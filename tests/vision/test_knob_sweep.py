"""bench/knobs.py, the sweep whose figures the knobs' comments carry (issue 55): which values it tries, which knobs it
must not claim to have swept (read while modules load), which functions can read a knob, and the comment it writes
from the scores. The sweep itself reads the labelled screens (minutes); here its parts run on small cases."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
knobs = importlib.import_module("knobs")


def test_the_values_tried_are_half_to_one_and_a_half_and_an_integers_neighbours() -> None:
    menu = knobs.Knob("pixels/menu.py:TAB_CHARS")  # 18
    assert menu.value == 18
    assert dict(menu.candidates()) == {"0.5x": 9, "0.75x": 14, "1.25x": 23, "1.5x": 27, "-1": 17, "+1": 19}
    pair = knobs.Knob("pixels/menu.py:SIZE_SPREAD")  # (0.75, 1.33): both ends scaled together
    assert dict(pair.candidates())["0.5x"] == (0.375, 0.665)
    small = knobs.Knob("buttons/rules/text.py:MIN_LETTERS")  # 2: 0.5x is 1, as is -1; each value tried once
    assert [v for _, v in small.candidates()] == [1, 3]
    three = knobs.Knob("buttons/rules/plate.py:CARD_TEXTS")  # 3: both ends tried first, 1.5x rounded half up
    assert three.candidates()[:2] == [("0.5x", 2), ("1.5x", 5)]


def test_a_knob_read_while_modules_load_is_not_swept() -> None:
    tree = ast.parse("A = 5\nB = 8 - A\nC = 1\ndef f(x=C): ...\nD = 2\nclass K:\n    d = D\nE = 3\ndef g(): return E\n")
    assert [n for n in "ABCDE" if knobs._loads_at_import(tree, n)] == ["A", "C", "D"]
    assert knobs.Knob("facts/reread.py:COLOUR_BITS").bound_at_import  # BIN_BITS = 8 - COLOUR_BITS
    assert not knobs.Knob("pixels/menu.py:TAB_CHARS").bound_at_import


def test_a_knob_is_set_wherever_it_was_imported_by_name() -> None:
    shrink = knobs.Knob("pixels/layout.py:BOX_SHRINK")
    assert {m.__name__ for m in shrink.holders} == {"lluma_vision.pixels.layout", "lluma_vision.pixels.plates"}
    plates = sys.modules["lluma_vision.pixels.plates"]
    try:
        shrink.set(0.3)
        assert plates.BOX_SHRINK == 0.3
    finally:
        shrink.set(shrink.value)
    assert plates.BOX_SHRINK == 0.15
    assert any(f.endswith("pixels/plates.py") for f, _, _ in shrink.readers)  # its functions there can read it


def _result(scores: dict[str, tuple[float, float]], **extra: Any) -> dict[str, Any]:
    """A sweep's result with (screens2, screens) scores per tried value; shipped scores 100 and 50."""
    return {"knob": "pixels/x.py:K", "value": 0.4, "screens": 64, "read_on": 60,
            "shipped": {"screens2@1": 100.0, "screens@1": 50.0},
            "tried": {k: {"value": 0, "score": {"screens2@1": a, "screens@1": b}} for k, (a, b) in scores.items()},
            **extra}


def test_the_comment_gives_the_flat_runs_on_the_others_and_the_held_out_source() -> None:
    res = _result({"0.5x": (97, 50), "0.75x": (100, 50), "1.25x": (100, 49), "1.5x": (100, 45)})
    assert knobs.summarise(res, "screens") == (
        "swept 0.5x-1.5x on 64 screens (60 read it): screens2 flat 0.75x-1.5x (0.5x -3), held out screens flat "
        "0.5x-1x (1.25x -1); kept 0.4")


def test_the_comment_names_a_better_value_on_the_others_with_its_held_out_figure_and_keeps_the_shipped() -> None:
    res = _result({"0.5x": (100, 50), "1.5x": (102, 48)})
    assert knobs.summarise(res, "screens") == (
        "tried 0.5x and 1.5x on 64 screens (60 read it): screens2 flat 0.5x-1x (1.5x +2), held out screens flat "
        "0.5x-1x (1.5x -2); 1.5x best on screens2, held out -2; kept 0.4")


def test_readings_unchanged_at_both_ends_say_so() -> None:
    res = _result({"0.5x": (100, 50), "1.5x": (100, 50)}, ends_identical=True)
    assert knobs.summarise(res, "screens") == (
        "tried 0.5x and 1.5x on 64 screens (60 read it): readings identical at 0.5x and 1.5x; kept 0.4")
