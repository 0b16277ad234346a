"""A career that ends on a missed goal says so the same way on every surface (issue 53): the demo's summary, its
`--json`, `lluma stats` (text and JSON) and the report, all from the one record the careers' fold keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_cli import stats
from lluma_cli.demo import DemoSummary, in_words
from lluma_cli.demo import main as demo_main
from lluma_cli.report import page as report

pytestmark = pytest.mark.cost(seconds=40)  # worker seconds in a full suite (conftest: slowest modules first)

# A short career whose goal the stand-in player misses (the game's own record says so first; since the stand-in
# weighs a survey (stop 58) its 24-turn careers on seeds 1-6 meet every goal, and since NUMBERS §5's events its
# 12-turn ones on seeds 1-12 and 8- and 10-turn ones on seeds 1-4 do): 7 turns, its fan goal on the turn after
# Kikuka Sho, with no turn between to race for fans.
MISSED = ["--careers", "1", "--career-turns", "7", "--seed", "1", "--truth-vision"]


def test_a_missed_goal_reads_the_same_in_the_summary_json_stats_and_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "demo"
    assert demo_main([*MISSED, "--logs", str(folder), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    truth = out["game_careers"][0]
    assert truth["ended"] == "goal_missed", "the seed no longer misses a goal: choose another for MISSED"
    mine = out["careers"][0]
    # (its goal list is not compared: the summary's goal lines fall past vision.max_texts there; see the stop's note)
    assert (mine["ended"], mine["game_turns"], mine["fans"]) == ("goal_missed", truth["turns"], truth["fans"])
    said = f"goal missed at game turn {truth['turns']}"
    assert f"career 1 ({said})" in in_words(DemoSummary.model_validate(out))
    assert stats.main([str(folder)]) == 0
    text = capsys.readouterr().out
    assert f"career 1 ({said})" in text and "1 ended on a missed goal" in text and "going on" not in text
    assert stats.main([str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["careers"][0]["ended"] == "goal_missed"
    assert report.main([str(folder)]) == 0
    capsys.readouterr()
    assert f"<td>{said}: <a href=" in (folder / "report.html").read_text(encoding="utf-8")
