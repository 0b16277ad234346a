"""Probe: odd `guard.never_press` names. A pattern with no words in it, an empty name or a 10,000-character one is
a one-line error naming the key at start (it would guard nothing, silently); "OK" guards OK buttons, not every
label with "ok" inside a word; a long name still matches inside words OCR ran together; names in other scripts
guard too."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lluma_agent.config import ConfigError, GuardConfig, load_config
from lluma_agent.tools.actions import PlannedAction
from lluma_agent.tools.guard import Guard
from lluma_vision.models import Box, Button, TextLine, VisionOutput


def config(tmp_path: Path, names: list[str]) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"guard": {"never_press": names}}), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(path, env={})
    return str(err.value)


@pytest.mark.parametrize("name", ["(.*)", ".*", "", "  ", "[^]"])
def test_a_name_without_words_is_a_one_line_error(tmp_path: Path, name: str) -> None:
    line = config(tmp_path, ["Purchase Carats", name])
    assert "guard.never_press: entry 2" in line and "names no button" in line and "\n" not in line


def test_a_10000_character_name_is_a_short_one_line_error(tmp_path: Path) -> None:
    line = config(tmp_path, ["x" * 10_000])
    assert "guard.never_press: entry 1" in line and "10,000 characters long" in line
    assert "\n" not in line and len(line) < 400  # the entry is not echoed whole


def test_a_pattern_with_words_reads_as_its_words(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump({"guard": {"never_press": ["Purchase.*Carats", "OK"]}}), encoding="utf-8")
    assert load_config(path, env={}).guard.never_press == ["Purchase.*Carats", "OK"]


def tap(target: str, box: Box) -> PlannedAction:
    return PlannedAction(tool="pressButton", kind="tap", target=target, target_kind="button", box=box)


def screen(*buttons: str, texts: tuple[str, ...] = ()) -> tuple[VisionOutput, dict[str, Box]]:
    boxes = {name: Box(x0=100, y0=200 + 150 * i, x1=600, y1=300 + 150 * i) for i, name in enumerate(buttons)}
    lines = [TextLine(text=t, bounds=Box(x0=100, y0=1500 + 80 * i, x1=900, y1=1560 + 80 * i))
             for i, t in enumerate(texts)]
    return VisionOutput(width=1080, height=1920, buttons=[Button(name=n, bounds=b) for n, b in boxes.items()],
                        texts=lines), boxes


def test_ok_guards_ok_buttons_not_words_that_hold_ok() -> None:
    guard = Guard(GuardConfig(never_press=["OK"]))
    out, at = screen("OK", "OK!", "Skill Book", "Next", texts=("Look at the schedule",))
    assert guard.refuses(tap("OK", at["OK"]), out) == "OK" and guard.refuses(tap("OK!", at["OK!"]), out) == "OK"
    assert guard.refuses(tap("Skill Book", at["Skill Book"]), out) == ""  # before: refused ("ok" in "book")
    # before: "Look at ..." read as a guarded dialog's text, so its agreeing Next was refused too
    assert guard.refuses(tap("Next", at["Next"]), out) == ""


def test_a_long_name_matches_inside_words_run_together_and_other_scripts_guard_too() -> None:
    guard = Guard(GuardConfig(never_press=["Purchase Carats", "カラット購入"]))
    out, at = screen("PurchaseCarats>", "カラット購入する", "Purchase")
    assert guard.refuses(tap("PurchaseCarats>", at["PurchaseCarats>"]), out) == "Purchase Carats"
    jp = "カラット購入する"
    assert guard.refuses(tap(jp, at[jp]), out) == "カラット購入"  # before: it guarded nothing
    assert guard.refuses(tap("Purchase", at["Purchase"]), out) == ""
