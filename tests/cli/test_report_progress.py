"""The report's game-progress charts and its Careers table say the same (issue 39): a career's dashed line stands at
the turn its row starts on, the x axis is spaced by turn, and only the trainee's stats are plotted (not what the
result screens after a career's Finish print)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lluma_agent.runlog import logread
from lluma_agent.runlog.stats import compute
from lluma_agent.runlog.turnlog import ActionLog, CostLog, ResponseLog, Timings, TurnLog, TurnLogger, VisionLog
from lluma_cli.report import page
from lluma_facts import Usage

HOME = {"buttons": [{"name": "Career"}, {"name": "Home"}]}
SUMMARY = {"buttons": [{"name": "Complete Career"}], "values": {"Speed": "300", "Wit": "250"}}
CONFIRM = {"texts": ["Complete this career?"], "buttons": [{"name": "Cancel"}, {"name": "Finish"}]}
RESULTS = {"texts": ["Career Results", "Rating 812"], "buttons": [{"name": "Next"}], "values": {"Speed": "300"}}
SPARKS = {"texts": ["Sparks Acquired", "Speed 2"], "buttons": [{"name": "OK"}], "values": {"Speed": "2"}}
END = {"texts": ["Career Complete", "Score 812"], "buttons": [{"name": "To Home"}]}


def hub(speed: int) -> dict[str, Any]:
    return {"buttons": [{"name": "Rest"}, {"name": "Training"}], "gauges": {"Energy": 0.5},
            "values": {"Speed": str(speed), "Wit": "111", "Skill Pts": "140"}}


def turn(n: int, view: dict[str, Any], press: str | None = None) -> TurnLog:
    return TurnLog(
        turn=n, action=ActionLog(tool="pressButton", target=press) if press else None,
        started_at=1000.0 + 10 * n, model="claude-haiku-5-5", response=ResponseLog(),
        usage=Usage(input_tokens=100, output_tokens=10), cost=CostLog(turn_usd=0.001), timings=Timings(total_s=2.0),
        vision=VisionLog(seen_by_model=view, summary=""),
    )


# Career 1 plays turns 2-4, finishes on 5, shows its results on 6-7 and "Career Complete" on 8; career 2 starts on
# turn 9 (home, the set-up) and is played from 12; nothing is read on turns 13-19, then turn 20.
RUN = [turn(1, HOME), turn(2, hub(100)), turn(3, hub(110)), turn(4, SUMMARY, "Complete Career"),
       turn(5, CONFIRM, "Finish"), turn(6, RESULTS, "Next"), turn(7, SPARKS, "OK"), turn(8, END, "To Home"),
       turn(9, HOME, "Career"), turn(10, HOME), turn(11, HOME), turn(12, hub(80)),
       *(turn(n, HOME) for n in range(13, 20)), turn(20, hub(95))]


def _stats_chart(tmp_path: Path) -> tuple[str, str]:
    logger = TurnLogger(tmp_path)
    try:
        for t in RUN:
            logger.write(t)
    finally:
        logger.close()
    html = page.render(logread.load_run(tmp_path), thumb=0)
    table = html.split("<h2>Careers</h2>")[1].split("</table>")[0]
    chart = html.split("Stats (as the screens read them)", 1)[1].split("</svg>")[0]
    return table, chart


def _points(chart: str, stat: str) -> dict[int, float]:
    """Each plotted point of `stat`: its turn (from its tooltip) to its x."""
    return {int(turn): float(x) for x, turn in re.findall(
        rf'<circle cx="([\d.]+)" cy="[\d.]+" r="2.5" fill="#[0-9a-f]+"><title>turn (\d+): {stat} ', chart)}


def test_the_chart_draws_each_career_from_the_turn_its_table_row_starts(tmp_path: Path) -> None:
    table, chart = _stats_chart(tmp_path)
    careers = compute(RUN, folder="x").careers
    assert [(c.first_turn, c.last_turn) for c in careers] == [(1, 8), (9, 20)]
    assert "(9–20)" in table  # the table's row for career 2
    speed = _points(chart, "Speed")
    slot = (speed[3] - speed[2])
    starts = {label: float(x) for x, label in re.findall(
        r'<line x1="([\d.]+)"[^>]*stroke-dasharray="4 3"/><text [^>]*>(career \d)</text>', chart)}
    assert starts.keys() == {"career 1", "career 2"}
    assert abs(starts["career 2"] - (speed[2] + (9 - 2) * slot)) < 0.2  # at turn 9, as the table says
    assert abs(starts["career 1"] - (speed[2] - slot)) < 0.2  # at turn 1


def test_the_stats_chart_is_spaced_by_turn_and_plots_the_trainees_stats_only(tmp_path: Path) -> None:
    _, chart = _stats_chart(tmp_path)
    speed = _points(chart, "Speed")
    assert sorted(speed) == [2, 3, 4, 12, 20]  # not the result screens' (6: 300 again, 7: Sparks' "Speed 2")
    assert "Speed 2<" not in chart
    slot = speed[3] - speed[2]
    assert slot > 0 and abs((speed[20] - speed[12]) - 8 * slot) < 0.2  # eight turns apart, not one reading


def test_the_progress_charts_run_on_the_game_turns_the_screens_showed() -> None:
    """Issue 53: a career's progress is its game turns. Agent turns 2-4 read game turn 1, 5-6 game turn 2 (a survey,
    an event), 7 game turn 4 (3 never read): three slots, the last reading of each, a gap where nothing was read;
    the next career starts again at its game turn 1 behind a dashed line."""
    from lluma_cli.report.progress import readings
    from lluma_cli.report.progress_charts import progress_charts

    def at(n: int, game_turn: int, speed: int) -> TurnLog:
        view = hub(speed)
        return turn(n, {**view, "values": {**view["values"], "Turn": f"{game_turn}/78"}})

    run = [turn(1, HOME), at(2, 1, 100), at(3, 1, 101), at(4, 1, 102), at(5, 2, 110), at(6, 2, 111), at(7, 4, 130),
           turn(8, SUMMARY, "Complete Career"), turn(9, CONFIRM, "Finish"), turn(10, END, "To Home"),
           turn(11, HOME, "Career"), at(12, 1, 90)]
    read = readings(run)
    assert [(r.career, r.game_turn) for r in read][:6] == [(1, 1), (1, 1), (1, 1), (1, 2), (1, 2), (1, 4)]
    html = progress_charts(read, compute(run).careers)
    assert "Stats (as the screens read them) by game turn" in html
    stats = html.split("</svg>")[0]
    speed = re.findall(r"<title>turn (\d+): Speed (\d+)</title>", stats)
    # the last reading of each game turn (game turn 4 ends on the career summary, Speed 300); game turn 3 a gap
    assert speed == [("1", "102"), ("2", "111"), ("4", "300"), ("1", "90")]
    assert "career 2" in stats  # the dashed line where the next career's game turn 1 begins
