"""bench/careers.py, smoke: its two runs wired as issue 40 asks (the survey and plans off, then on, the same seeded
careers), what it reads of the turn logs (training decisions and those made with every tile in view, plans, events
with history) and of the game's records (goals met), the figures per game turn and the done-check. The nights are
bench/unattended.py's (played by tests/e2e/test_unattended.py); here a stand-in night writes the logs one would."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lluma_agent.runlog.turnlog import (
    PlanLog,
    PlanStepLog,
    ResponseLog,
    RoutineLog,
    SurveyLog,
    SurveyRow,
    TurnLog,
    TurnLogger,
    VisionLog,
)
from lluma_facts import Usage
from lluma_vision.models import Box, Button, TextLine, VisionOutput

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
careers = importlib.import_module("careers")
ROW = ["Speed", "Stamina", "Power", "Guts", "Wit"]
EVENT = VisionOutput(width=1080, height=1920, texts=[TextLine(text="Event", bounds=Box(x0=40, y0=40, x1=300, y1=100))],
                     buttons=[Button(name=c, bounds=Box(x0=60, y0=y, x1=1020, y1=y + 120)) for c, y in (
                         ("Why not take this chance to try something new?", 800),
                         ("Guess you'll have to think of something quickly.", 960))])  # read as "Event (choices)"


def write_night(where: Path, on: bool) -> None:
    """Without: four training decisions, none with the tiles in view. With: two, each after a full survey, a plan
    that went to its end and one stopped on a surprise, an event with its history shown."""
    logger, asked, usage = TurnLogger(where), ResponseLog(text="..."), Usage(input_tokens=10, output_tokens=5)

    def turn(n: int, **kw: Any) -> TurnLog:
        full = EVENT.model_dump(mode="json") if kw.get("summary") == "Event (choices)" else {}
        return TurnLog(turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5", response=asked, usage=usage,
                       vision=VisionLog(seen_by_model={}, summary=kw.pop("summary", "Training"), full=full), **kw)

    if not on:
        turns = [turn(n, decided_on_options=True) for n in range(1, 5)]
    else:
        full = SurveyLog(screen="Training", options=ROW, complete=True,
                         rows=[SurveyRow(option=o, line=f"{o}: gains {o} +10") for o in ROW])
        steps = [PlanStepLog(step=1, action="goto Career: back", ok=True), PlanStepLog(step=2, action="press Rest")]
        turns = [turn(1, decided_on_options=True, survey=full), turn(2, decided_on_options=True, survey=full),
                 turn(3, plan=PlanLog(name="rest", steps=steps, done=True)),
                 turn(4, plan=PlanLog(name="rest", steps=steps[:1], surprise=True)),
                 turn(5, summary="Event (choices)", notes=["<events>Lunch, what each choice did before ...</events>"])]
        standing = RoutineLog(screen="Event (choices)", action="pressButton:Eat up.",
                              why="your standing choice for 'Lunch' (event_choices.yaml)")
        turns += [turn(n, summary="Event (choices)", routine=standing).model_copy(update={"response": None,
                                                                                          "usage": Usage()})
                  for n in (6, 7, 8)]  # the same event answered by the model's standing choice: no call
    for t in turns:
        logger.write(t)
    logger.close()


@pytest.fixture
def nights(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    asked: list[dict[str, Any]] = []

    def night(n: int, career_turns: int, hazards: float, faults: float, seed: int, where: Path,
              overrides: dict[str, str] | None = None, label: str = "") -> dict[str, Any]:
        asked.append({"label": label, "careers": n, "career_turns": career_turns, "overrides": overrides or {},
                      "seed": seed})
        on = not overrides
        write_night(where, on)
        goals = [{"text": "Run in Junior Make Debut", "met": True}, {"text": "Earn 10000 fans", "met": on}]
        games = [{"number": k, "turns": 10, "goals": goals, "ended": "complete", "score": 300 if on else 200}
                 for k in range(1, n + 1)]
        return {"turns": 5 if on else 4, "careers_completed": n, "taps_off_target": 0, "spends_without_model": 0,
                "cost_usd": 0.02 * n, "wall_s": 100.0 * n, "stop_reason": "max careers", "game_careers": games,
                "game_turn": 10, "records_agree": True if on else False}

    monkeypatch.setattr(careers, "night", night)
    return asked


def test_the_same_careers_without_and_with_the_survey_and_plans(nights: list[dict[str, Any]],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert careers.main(["--careers", "1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert [n["label"] for n in nights] == ["without (map only)", "with (survey and plans)"]
    assert nights[0]["overrides"] == {"LLUMA_SURVEY__ENABLED": "false", "LLUMA_PLANS__ENABLED": "false"}
    assert not nights[1]["overrides"] and {n["career_turns"] for n in nights} == {78}  # the real length
    assert {n["seed"] for n in nights} == {11}
    for key in ("with", "without"):  # the interface scripts read
        assert {"careers", "model_calls_per_game_turn", "training_decisions", "training_full_view",
                "spends_without_model", "goals_met", "goals_total", "cost_per_career"} <= set(r[key])
    w, wo = r["with"], r["without"]
    assert (w["training_decisions"], w["training_full_view"]) == (2, 2)
    assert (wo["training_decisions"], wo["training_full_view"]) == (4, 0)
    assert w["plans"] == {"run": 2, "steps": 3, "surprises": 1} and w["events_with_history"] == 1
    # events with choices on 4 of 10 game turns: one the model answered, three its standing choice did
    assert w["event_choices_per_game_turn"] == 0.4 and w["standing_choices"] == 3
    assert w["model_calls_per_game_turn"] == 0.5 and wo["model_calls_per_game_turn"] == 0.4  # 5 and 4 calls, 10 turns
    assert (w["goals_met"], w["goals_total"], wo["goals_met"]) == (2, 2, 1)
    assert r["check"]["holds"] is True and r["check"]["events_as_often"] is True
    assert (w["records_agree"], wo["records_agree"]) == (True, False)  # the night's word, passed on as it said


def test_the_check_fails_when_a_training_decision_lacked_the_full_view(nights: list[dict[str, Any]],
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    real = careers.decisions

    def partial(turns: list[TurnLog]) -> dict[str, Any]:
        d = real(turns)
        return {**d, "training_full_view": max(0, d["training_full_view"] - 1)}

    monkeypatch.setattr(careers, "decisions", partial)
    assert careers.main(["--careers", "1"]) == 0
    out = capsys.readouterr().out
    assert "done-check FAILS" in out and "every training decision with all tiles in view: no" in out
    assert "| with (survey, plans) | 1 (complete) | 10 |" in out
    assert "records agree (the agent's career records = the game's): without (map only) NO, with (survey, plans) yes" \
        in out


# per career, by the player's night; random's on seed 11 (its goals all met there)
RATINGS = {"ocr": 8200, "truth": 8400, "raised": 5000, "random": 3000, "random 11": 4000}


@pytest.fixture
def players_nights(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each player's night: its careers rated as RATINGS says; random misses a goal on seed 23 only."""
    asked: list[dict[str, Any]] = []

    def night(n: int, career_turns: int, hazards: float, faults: float, seed: int, where: Path,
              overrides: dict[str, str] | None = None, label: str = "", truth_vision: bool = False,
              policy: Any = None) -> dict[str, Any]:
        name = label.split(" ")[0]
        asked.append({"label": label, "seed": seed, "overrides": overrides or {}, "truth_vision": truth_vision,
                      "policy": policy})
        write_night(where, on=True)
        missed = name == "random" and seed == 23
        goals = [{"text": "Run in Junior Make Debut", "met": True}, {"text": "Earn 10000 fans", "met": not missed}]
        rating = RATINGS["random 11"] if name == "random" and seed == 11 else RATINGS[name]
        games = [{"number": k, "turns": 10, "goals": goals, "ended": "goal_missed" if missed else "complete",
                  "rating": rating, "failed_trainings": 1} for k in range(1, n + 1)]
        # the night counts a career a missed goal ended as one that ended, as the demo does
        return {"turns": 5, "careers_completed": n, "taps_off_target": 0, "spends_without_model": 0,
                "cost_usd": 0.02 * n, "wall_s": 100.0 * n, "stop_reason": "max careers", "game_careers": games,
                "game_turn": 10, "records_agree": True}

    monkeypatch.setattr(careers, "night", night)
    return asked


def test_the_players_play_the_same_seeds_and_are_rated(players_nights: list[dict[str, Any]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert careers.main(["--players", "--seeds", "11,23", "--careers", "1", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert [(n["label"], n["seed"]) for n in players_nights] == [
        (f"{p} (seed {s})", s) for p in ("ocr", "truth", "raised", "random") for s in (11, 23)]
    by = {n["label"]: n for n in players_nights}
    assert not by["ocr (seed 11)"]["truth_vision"] and by["truth (seed 11)"]["truth_vision"]
    assert not by["ocr (seed 11)"]["overrides"] and not by["truth (seed 11)"]["overrides"]  # LLuMa as shipped
    floor = by["raised (seed 23)"]
    assert floor["policy"].kind == "raised" and floor["overrides"] == {"LLUMA_SURVEY__ENABLED": "false"}
    p = r["players"]
    assert {"rating_mean", "rank", "careers_completed", "goals_met", "goals_total", "failed_trainings",
            "model_calls_per_game_turn", "cost_per_career"} <= set(p["ocr"])
    assert (p["truth"]["rating_mean"], p["truth"]["rank"], p["random"]["rating_mean"]) == (8400, "B+", 3500)
    assert (p["random"]["goals_met"], p["random"]["goals_total"], p["random"]["careers_completed"]) == (3, 4, 1)
    assert p["ocr"]["model_calls_per_game_turn"] == 0.5 and p["ocr"]["failed_trainings"] == 2
    assert r["parity"] == round(8200 / 8400, 3)
    c = r["check"]  # random: rated 4000 of 8400 on seed 11 (under 0.6), missed a goal on 23: floored on both
    assert c["random_floored_every_seed"] and c["holds"]


def test_the_players_check_fails_below_parity_or_a_floor_that_holds_its_own(
        players_nights: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(RATINGS, "ocr", 7000)
    monkeypatch.setitem(RATINGS, "random 11", 6000)  # over 0.6 of truth's 8,400, every goal met
    assert careers.main(["--players", "--seeds", "11", "--careers", "1"]) == 0
    out = capsys.readouterr().out
    assert "parity (ocr's mean rating over truth's): 0.833" in out
    assert "check FAILS: random floored on every seed: no" in out  # seed 11: 6000 of 8400, every goal met
    assert "| truth | 8,400 | B+ | 11: 8,400 | 1/1 | 2/2 | 1 |" in out


def test_players_are_named_from_the_four() -> None:
    with pytest.raises(SystemExit):
        careers.main(["--players", "ocr,perfect"])
