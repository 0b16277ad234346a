"""A career's record, the game's and the agent's (issue 37 item 6): a demo career played to its end over real adb
and real HTTP records its goals, how it ended, its game turns, fans and skills learned in `lluma demo --json`'s
`game_careers` (the game's) and `careers` (the agent's, read from the screens), and the two say the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_cli.demo import main

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=56)]  # reads frames with the OCR


@pytest.mark.timeout(900)  # a 3-turn career and its setup and results: about 40 agent turns on OCR
def test_a_demo_careers_record_is_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--careers", "1", "--career-turns", "3", "--seed", "11", "--logs", str(tmp_path / "demo"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["careers_completed"] == 1, out["stop_reason"]
    truth, mine = out["game_careers"][0], next(c for c in out["careers"] if c["complete"])
    assert truth["goals"] and all({"text", "met"} <= set(g) for g in truth["goals"])
    assert truth["ended"] in ("complete", "goal_missed") and truth["turns"] >= 1
    assert [(g["text"], g["met"]) for g in mine["goals"]] == [(g["text"], g["met"]) for g in truth["goals"]]
    assert (mine["ended"], mine["game_turns"], mine["fans"], mine["skills_learned"]) == (
        truth["ended"], truth["turns"], truth["fans"], truth["skills_learned"])
    assert out["records_agree"] is True


@pytest.mark.timeout(300)
def test_a_demo_career_carries_the_games_rating(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 52 part 3: `game_careers` carries the career's rating as the game computes it (NUMBERS §7: the per-stat
    table, the skills learned, the unique skill), its rank band, the stat total, failed trainings and races won."""
    from lluma_sim.game import numbers
    from lluma_sim.game.content import SKILLS

    code = main(["--careers", "1", "--career-turns", "3", "--seed", "11", "--logs", str(tmp_path / "demo"), "--json",
                 "--truth-vision"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["careers_completed"] == 1, out["stop_reason"]
    truth = out["game_careers"][0]
    skills = sorted(SKILLS, key=lambda s: s.cost)[:truth["skills_learned"]]  # at least the cheapest ones' value
    stats = sum(numbers.stat_score(v) for v in truth["stats"].values()) + numbers.unique_skill(3, 3)
    assert stats + sum(s.rating for s in skills) <= truth["rating"] <= stats + sum(s.rating for s in SKILLS)
    assert truth["rank"] == numbers.rank(truth["rating"]) and truth["stats_total"] == sum(truth["stats"].values())
    assert 0 <= truth["races_won"] <= truth["races_entered"] and truth["failed_trainings"] >= 0
    assert {"score", "goals", "ended", "fans", "turns"} <= set(truth)  # the keys it had keep their meaning
    mine = next(c for c in out["careers"] if c["complete"])  # the agent's record, read off the results screen
    assert (mine["rating"], mine["rank"]) == (truth["rating"], truth["rank"])
