"""A career played to its end through the truth vision (issue 52): the perfect reader the careers bench measures
the OCR against. The survey's table carries every option's gains, failure and cards (the old truth reading read
none, and the player chose blind), the career completes with its goals met, and the game rates it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import run_demo

pytestmark = pytest.mark.cost(seconds=120)  # worker seconds in a full suite (conftest: slowest modules first)

CAREER_TURNS = 24  # a short career: the real calendar and goals, compressed (the bench plays the real 78)


def test_a_short_career_plays_to_its_end_with_every_option_read(tmp_path: Path) -> None:
    s = run_demo(0, tmp_path, seed=11, quiet=True, careers=1, career_turns=CAREER_TURNS, truth_vision=True)
    assert s.careers_completed == 1, s.stop_reason
    game = s.game_careers[0]
    assert game.ended == "complete" and game.turns == CAREER_TURNS
    assert game.goals and all(g.met for g in game.goals)
    assert game.rating > 0 and game.rank
    surveys = [t.survey for t in read_turns(tmp_path) if t.survey is not None and t.survey.rows]
    rows = [r for sv in surveys for r in sv.rows if r.option and r.line]
    assert len(surveys) >= CAREER_TURNS // 3 and rows
    assert all("gains none read" not in r.line and "failure not read" not in r.line for r in rows), rows[:3]
    assert any("cards" in r.line for r in rows)  # a support card read on some option
    assert {t.vision.backend for t in read_turns(tmp_path) if t.vision} == {"truth"}
