"""bench/navigation.py, smoke: its three runs wired as the issue asks (the map off, on, and on from the first run's
map), and what it makes of the turn logs: goTo walks and routine passes with those that went wrong, the screens that
still asked the model, the ratio and the done-check. The nights themselves are bench/unattended.py's (played by
tests/e2e/test_unattended.py); here a stand-in night writes the turn logs a night would."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lluma_agent.navmap import ScreenMap, load_map, map_path_for, save_map
from lluma_agent.runlog.turnlog import (
    ActionLog,
    NavigationStep,
    ResponseLog,
    RoutineLog,
    TurnLog,
    TurnLogger,
    VisionLog,
)
from lluma_facts import Usage
from lluma_vision.models import Box, Button, TextLine, VisionOutput

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
navigation = importlib.import_module("navigation")


def reading(title: str, *buttons: str) -> VisionLog:
    """A logged reading: a title in the header, buttons low on the screen (what names a screen is its title)."""
    out = VisionOutput(width=1080, height=1920, texts=[TextLine(text=title, bounds=Box(x0=40, y0=30, x1=400, y1=90))],
                       buttons=[Button(name=b, bounds=Box(x0=100, y0=1500 + 100 * i, x1=400, y1=1580 + 100 * i))
                                for i, b in enumerate(buttons)])
    return VisionLog(seen_by_model={"buttons": [{"name": b} for b in buttons]}, summary=title,
                     full=out.model_dump(mode="json"))


def write_night(where: Path, with_map: bool) -> None:
    """Six turns: the model asked on three; with the map a goTo walk (one surprise) and two routine passes."""
    logger = TurnLogger(where)
    asked = ResponseLog(text="...")
    usage = Usage(input_tokens=10, output_tokens=5)
    turns = [TurnLog(turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5", response=asked, usage=usage,
                     vision=reading("Career", "Training", "Rest")) for n in (1, 2, 3)]
    if with_map:
        walk = [NavigationStep(target="Races", step=1, of=1, action="pressButton:Races", expected="Races",
                               reached="Tutorial", ok=False)]
        turns[1].navigation = walk
        turns += [TurnLog(turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5",
                          vision=reading("Rest", "Cancel", "OK"),
                          routine=RoutineLog(screen="Rest", action="pressButton:OK", expected="Career", uses=n - 1))
                  for n in (4, 5)]
    for t in turns:
        logger.write(t)
    logger.close()


@pytest.fixture
def nights(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """bench/unattended.py's night, stood in for: what each run was asked, and a night's summary back."""
    asked: list[dict[str, Any]] = []

    def night(careers: int, career_turns: int, hazards: float, faults: float, seed: int, where: Path,
              overrides: dict[str, str] | None = None, label: str = "") -> dict[str, Any]:
        map_file = map_path_for(where / "memory")
        asked.append({"label": label, "careers": careers, "overrides": overrides or {}, "hazards": hazards,
                      "faults": faults, "seed": seed, "started_with_map": map_file.is_file()})
        on = not overrides
        write_night(where, on)
        if on:
            m = load_map(map_file) if map_file.is_file() else ScreenMap()
            m.see("hub", "Career", 1.0)
            save_map(map_file, m)
        calls = 12 if on else 30
        per = [{"number": k, "complete": True, "turns": 40, "model_calls": calls - (2 if k == 1 and asked[-1][
            "started_with_map"] else 0), "cost_usd": 0.01, "wall_s": 60.0, "stats": {}} for k in range(1, careers + 1)]
        return {"turns": 6, "careers_completed": careers, "taps_off_target": 0, "cost_usd": 0.01 * careers,
                "wall_s": 60.0 * careers, "stop_reason": "max careers", "per_career": per}

    monkeypatch.setattr(navigation, "night", night)
    return asked


def test_three_runs_the_map_off_on_and_learned(nights: list[dict[str, Any]], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert navigation.main(["--careers", "2", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert [n["label"] for n in nights] == ["without map", "with map", "with learned map"]
    assert nights[0]["overrides"] == {"LLUMA_MAP__ENABLED": "false"} and not nights[1]["overrides"]
    assert not nights[1]["started_with_map"] and nights[2]["started_with_map"]  # the first run's map, copied
    assert nights[2]["careers"] == 1  # its first career is the gain
    assert {n["hazards"] for n in nights} == {0.05} and {n["faults"] for n in nights} == {0.02}  # the night's rates
    for key in ("with_map", "without_map", "with_learned_map"):
        assert {"model_calls_per_career", "careers_completed", "taps_off_target"} <= set(r[key])
    assert r["without_map"]["model_calls_per_career"] == 30 and r["with_map"]["model_calls_per_career"] == 12
    assert r["ratio"] == 0.4 and r["check"]["holds"] is True
    assert r["with_learned_map"]["first_career_model_calls"] == 10
    w = r["with_map"]
    assert (w["goto_calls"], w["goto_steps"], w["goto_wrong"]) == (1, 1, 1)  # the walk met a tutorial
    assert w["routine_passes"] == 2
    assert sum(w["model_calls_by_screen"].values()) == 3  # the three turns that asked


def test_the_table_says_whether_the_check_holds(nights: list[dict[str, Any]],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert navigation.main(["--careers", "1"]) == 0
    out = capsys.readouterr().out
    assert "| without_map | 1 | 30.0 |" in out and "| with_map | 1 | 12.0 |" in out
    assert "model calls per career with the map: 40% of without" in out
    assert "done-check HOLDS" in out


def test_a_routine_pass_is_wrong_when_the_next_screen_is_not_the_one_it_led_to() -> None:
    hub, tutorial = reading("Career", "Training", "Rest"), reading("Tutorial", "Close")
    came = [TurnLog(turn=2, started_at=1.0, model="m", vision=v) for v in (hub, tutorial)]
    names = [navigation.screen_name(t) for t in came]
    assert names[0] != names[1]
    passed = TurnLog(turn=1, started_at=0.0, model="m", vision=reading("Rest", "Cancel", "OK"),
                     routine=RoutineLog(screen="Rest", action="pressButton:OK", expected=f"{names[0]} [4d92]"))
    assert navigation.navigation([passed, came[0]])["routine_wrong"] == 0  # it led where it always had
    assert navigation.navigation([passed, came[1]])["routine_wrong"] == 1


def test_parallel_plays_the_first_two_at_once(nights: list[dict[str, Any]],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert navigation.main(["--careers", "1", "--parallel", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["parallel"] is True
    assert sorted(n["label"] for n in nights) == ["with learned map", "with map", "without map"]


def test_calls_on_screens_the_reading_keeps_for_the_model_are_counted() -> None:
    """The floor no map goes under: a call on the hub (Training beside Rest: a choice) is kept; one on a result
    screen whose only button is Next is not (a map may pass it)."""
    asked, usage = ResponseLog(text="..."), Usage(input_tokens=10, output_tokens=5)
    hub = TurnLog(turn=1, started_at=0.0, model="m", response=asked, usage=usage,
                  vision=reading("Career", "Training", "Rest"), action=ActionLog(tool="pressButton", target="Training"))
    result = TurnLog(turn=2, started_at=1.0, model="m", response=asked, usage=usage,
                     vision=reading("Race Result", "Next"), action=ActionLog(tool="pressButton", target="Next"))
    r = navigation.navigation([hub, result])
    assert (r["model_calls_kept"], r["kept_share"]) == (1, 0.5)


def test_keep_refuses_a_folder_that_holds_something(nights: list[dict[str, Any]], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.txt").write_text("an earlier run")
    assert navigation.main(["--careers", "1", "--keep", str(tmp_path)]) == 2
    assert "not an empty folder" in capsys.readouterr().err and not nights  # nothing played
    assert navigation.main(["--careers", "1", "--keep", str(tmp_path / "new"), "--json"]) == 0
    assert (tmp_path / "new" / "with").is_dir()
