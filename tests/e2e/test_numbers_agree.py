"""Numbers that agree (issue 22): the live line, `lluma logs`, `lluma stats` and the demo summary say the run's cost
and cache hit the same way, from the same figures; active time leaves breaks and a person's answers out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lluma_agent.runlog import figures
from lluma_agent.runlog import stats as run_stats
from lluma_agent.runlog.turnlog import CostLog, ResponseLog, Timings, TurnLog, read_turns
from lluma_cli import demo, stats
from lluma_cli import logs as logs_cli
from lluma_facts import Usage

USD = r"\$[0-9.]+"
PCT = r"[0-9.]+%"


def _one(pattern: str, text: str) -> tuple[str, ...]:
    found = re.findall(pattern, text, re.M)
    assert len(found) == 1, (pattern, text)
    return found[0]


def test_live_line_logs_stats_and_summary_agree_on_cost_and_cache_hit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "demo"
    assert demo.main(["--turns", "4", "--logs", str(folder), "--truth-vision"]) == 0
    shown = capsys.readouterr().out
    live = [line for line in shown.splitlines() if line.startswith("turn ")]
    assert len(live) == 4
    live_cost, live_hit = _one(rf"run: ({USD}) · cache hit ({PCT})$", live[-1])
    summary_cost = _one(rf"^  cost: ({USD}) total", shown)
    summary_hit = _one(rf"^  cache hit: ({PCT}) of input tokens", shown)

    assert logs_cli.main([str(folder)]) == 0
    listing = capsys.readouterr().out
    logs_cost, logs_hit = _one(rf"^run total \(4 turn\(s\)\): .* · ({USD}) · cache hit ({PCT})$", listing)
    row = next(line for line in listing.splitlines() if line.split()[:1] == ["4"])  # turn 4's row (a career's
    # line may follow the total)
    last_row_run_usd = re.findall(r"\$[\d.]+", row)[1]  # the $run column of turn 4

    assert stats.main([str(folder)]) == 0
    text = capsys.readouterr().out
    stats_cost = _one(rf"^cost: ({USD}) total", text)
    stats_hit = _one(rf"^cache hit: ({PCT}) of input tokens", text)

    assert live_cost == logs_cost == last_row_run_usd == stats_cost == summary_cost
    assert live_hit == logs_hit == stats_hit == summary_hit
    # The turn's own tokens on the live line are the listing's columns for that turn.
    # The live line's career turn is the one the screens showed (the turn's own tokens are `lluma logs`' columns:
    # the live line fits 120 columns with the career's turn and goal instead, issue 53).
    shown = [(t.turn, v["Turn"]) for t in read_turns(folder) if t.vision and (v := t.vision.seen_by_model.get(
        "values", {})).get("Turn")]
    assert shown, "no turn of the demo showed the career's turn"
    for n, career_turn in shown:
        assert live[n - 1].startswith(f"turn {n:>4} | {career_turn} "), (career_turn, live[n - 1])


def test_the_demo_summary_rounds_the_cache_hit_once() -> None:
    """94.948% is 94.9%, as `lluma stats` says, not 95.0% (the JSON's ratio is rounded to 4 places first)."""
    u = Usage(input_tokens=5052, cache_read_input_tokens=94948)
    assert figures.percent(u.cache_hit_ratio) == "94.9%"
    s = demo.DemoSummary.model_construct(uncached_input_tokens=5052, cache_read_tokens=94948, cache_write_tokens=0,
                                        output_tokens=0, cache_hit_ratio=round(u.cache_hit_ratio, 4))
    assert figures.percent(s.cache_hit_ratio) == "95.0%"  # what the summary used to print
    assert figures.percent(s.usage().cache_hit_ratio) == "94.9%"


def _turn(n: int, started_at: float, total_s: float, person_s: float = 0.0) -> TurnLog:
    return TurnLog(turn=n, started_at=started_at, model="claude-haiku-4-5", response=ResponseLog(),
                   usage=Usage(input_tokens=10, output_tokens=1), cost=CostLog(turn_usd=0.001),
                   timings=Timings(total_s=total_s, person_s=person_s))


def test_active_time_leaves_out_a_resume_break_and_a_persons_answers() -> None:
    # Two turns, a one-hour break (the run was resumed), two more; a person took 20 s to answer on turn 3.
    turns = [_turn(1, 1000.0, 5.0), _turn(2, 1005.0, 5.0), _turn(3, 4610.0, 25.0, person_s=20.0),
             _turn(4, 4635.0, 5.0)]
    s = run_stats.compute(turns)
    assert s.wall_s == pytest.approx(3640.0)
    assert s.active_s == pytest.approx(20.0) and s.person_wait_s == pytest.approx(20.0)
    text = run_stats.format_stats(s)
    assert "20 s active (the turns themselves, 20 s waiting for a person), 3640 s wall time" in text
