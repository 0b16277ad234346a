"""Careers from the turn logs: where each ended, what it came to, its record on disk, and run.max_careers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lluma_agent.loop.careers import CareerTracker
from lluma_agent.loop.turn import RunTotals
from lluma_agent.runlog.careers import CareerBook, career_line, career_state, careers_of
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.stats import compute, format_stats
from lluma_agent.runlog.turnlog import ActionLog, CostLog, ResponseLog, Timings, TurnLog, VisionLog
from lluma_facts import Usage

HUB = {"buttons": [{"name": "Rest"}, {"name": "Training"}],
       "values": {"Speed": "120 /1200", "Stamina": "98", "Power": "101", "Guts": "90", "Wit": "111 /1200",
                  "Skill Pts": "140"}}
END = {"texts": ["Career Complete", "Score 812"], "buttons": [{"name": "Finish"}]}
HOME = {"buttons": [{"name": "Career"}, {"name": "Home"}]}


def turn(n: int, view: dict[str, Any] | None, cost: float = 0.001, press: str | None = None) -> TurnLog:
    return TurnLog(
        turn=n, action=ActionLog(tool="pressButton", target=press) if press else None,
        started_at=1000.0 + 10 * n, model="claude-haiku-5-5",
        response=ResponseLog(), usage=Usage(input_tokens=100, output_tokens=10),
        cost=CostLog(turn_usd=cost), timings=Timings(total_s=2.0),
        vision=VisionLog(seen_by_model=view, summary="") if view is not None else None,
    )


def hub(speed: int) -> dict[str, Any]:
    return {**HUB, "values": {**HUB["values"], "Speed": f"{speed} /1200"}}


def test_a_career_ends_on_its_end_screen_with_the_last_stats_read() -> None:
    turns = [turn(1, HOME), turn(2, hub(120)), turn(3, None), turn(4, hub(180)), turn(5, END), turn(6, END),
             turn(7, HOME), turn(8, hub(95))]
    careers = careers_of(turns)
    first, second = careers
    assert (first.number, first.complete, first.first_turn, first.last_turn, first.turns) == (1, True, 1, 5, 5)
    assert first.stats == {"Speed": 180, "Stamina": 98, "Power": 101, "Guts": 90, "Wit": 111}
    assert first.skill_points == 140
    assert first.model_calls == 5 and round(first.cost_usd, 6) == 0.005
    assert first.wall_s == 42.0  # turn 1's start (1010) to turn 5's end (1050 + 2)
    # The end screen seen again (turn 6) does not end a second career: the next one has shown no stats yet.
    assert (second.number, second.complete, second.first_turn, second.last_turn) == (2, False, 6, 8)
    assert second.stats["Speed"] == 95


def test_an_end_screen_before_any_stats_is_not_a_career_this_run_played() -> None:
    assert careers_of([turn(1, END), turn(2, HOME)]) == []


def test_races_entered_and_won_are_the_result_screens_seen() -> None:
    result = {"texts": ["Race Result", "Spring Cup", "1st", "Skill Points +60"], "buttons": [{"name": "Next"}]}
    lost = {"texts": ["Race Result", "Derby", "4th"], "buttons": [{"name": "Next"}]}
    c = careers_of([turn(1, hub(100)), turn(2, result), turn(3, result), turn(4, hub(100)), turn(5, lost),
                    turn(6, END)])[0]
    assert (c.races_entered, c.races_won) == (2, 1)  # one result screen over two turns is one race


def test_the_tracker_writes_each_record_tells_the_notifier_and_counts(tmp_path: Path) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    tracker = CareerTracker(RunFolder.at(tmp_path), notify=lambda e, d: events.append((e, d)))
    for t in [turn(1, hub(100)), turn(2, END), turn(3, HOME), turn(4, hub(50))]:
        tracker(t, RunTotals())
    assert tracker.ended == 1
    record = json.loads((tmp_path / "careers" / "career_001.json").read_text())
    assert record["complete"] and record["stats"]["Speed"] == 100 and record["turns"] == 2
    assert [e for e, _ in events] == ["career_ended"] and events[0][1]["number"] == 1
    going = tracker.close()  # the run stops during career 2: its record says so
    assert going is not None and not going.complete
    assert not json.loads((tmp_path / "careers" / "career_002.json").read_text())["complete"]


def test_a_resumed_tracker_counts_this_sitting_and_writes_lost_records_again(tmp_path: Path) -> None:
    tracker = CareerTracker(RunFolder.at(tmp_path))
    tracker.replay([turn(1, hub(100)), turn(2, END)])
    assert tracker.ended == 0 and (tmp_path / "careers" / "career_001.json").is_file()
    for t in [turn(3, hub(70)), turn(4, END)]:
        tracker(t, RunTotals())
    assert tracker.ended == 1 and json.loads((tmp_path / "careers" / "career_002.json").read_text())["number"] == 2


def test_stats_list_the_careers() -> None:
    s = compute([turn(1, hub(100)), turn(2, END), turn(3, hub(70))], folder="x")
    assert [(c.number, c.complete) for c in s.careers] == [(1, True), (2, False)]
    text = format_stats(s)
    assert "careers: 1 complete, 1 going on" in text and "career 1 (complete): turns 1-2" in text
    assert json.loads(s.model_dump_json())["careers"][0]["turns"] == 2


def test_the_book_reads_a_view_it_cannot_parse_as_nothing() -> None:
    book = CareerBook()
    assert book.add(turn(1, {"values": "not a dict"})) is None
    assert book.careers() == []


def test_logs_and_the_report_show_the_careers(tmp_path: Path) -> None:
    from lluma_agent.runlog import logread
    from lluma_agent.runlog.turnlog import TurnLogger
    from lluma_cli.logs import format_listing
    from lluma_cli.report import page

    logger = TurnLogger(tmp_path)
    try:
        for t in [turn(1, hub(100)), turn(2, END), turn(3, hub(70))]:
            logger.write(t)
    finally:
        logger.close()
    run = logread.load_run(tmp_path)
    listing = format_listing(run.turns, compute(run.turns))
    assert "career 1 (complete): turns 1-2, 2 turns" in listing and "career 2 (going on)" in listing
    html = page.render(run, thumb=0)
    table = html.split("<h2>Careers</h2>")[1].split("</table>")[0]
    assert table.count("<tr>") == 3  # the head and one row per career
    assert '<a href="#t2">turn 2</a>' in table and "going on" in table and "<td>100</td>" in table


CONFIRM = {"texts": ["Complete this career?"], "buttons": [{"name": "Cancel"}, {"name": "Finish"}]}
SUMMARY = {"buttons": [{"name": "Complete Career"}], "values": {"Speed": "300", "Wit": "250"}}
RESULTS = {"texts": ["Career Results"], "buttons": [{"name": "OK"}], "values": {"Speed": "300", "Wit": "250"}}


def test_finish_on_the_complete_career_confirm_ends_it_though_a_reset_hides_the_end_screen() -> None:
    reset = {"texts": ["Date Changed"], "buttons": [{"name": "OK"}]}
    turns = [turn(1, hub(100)), turn(2, SUMMARY, press="Complete Career"), turn(3, CONFIRM, press="Finish"),
             turn(4, reset), turn(5, HOME), turn(6, hub(80))]
    first, second = careers_of(turns)
    assert first.complete and first.last_turn == 3 and first.stats["Speed"] == 300
    assert not second.complete and second.first_turn == 4


SPARKS = {"texts": ["Sparks Acquired", "Speed 2", "Turf 1"], "buttons": [{"name": "OK"}], "values": {"Speed": "2"}}


def test_the_result_screens_after_the_finish_are_the_careers_own_and_it_ends_on_career_complete() -> None:
    """The game's results and its "Career Complete" belong to the career they end (issue 39): its turns, calls and
    cost; what they print is not the trainee's stats; the next career starts on the turn after."""
    turns = [turn(1, hub(100)), turn(2, SUMMARY, press="Complete Career"), turn(3, CONFIRM, press="Finish"),
             turn(4, RESULTS), turn(5, SPARKS), turn(6, END, press="To Home"), turn(7, HOME), turn(8, hub(80))]
    first, second = careers_of(turns)
    assert (first.complete, first.first_turn, first.last_turn, first.turns) == (True, 1, 6, 6)
    assert first.model_calls == 6 and round(first.cost_usd, 6) == 0.006 and first.wall_s == 52.0
    assert first.stats == {"Speed": 300, "Stamina": 98, "Power": 101, "Guts": 90, "Wit": 250}  # not Sparks' 2
    assert (second.number, second.complete, second.first_turn, second.turns) == (2, False, 7, 2)
    book = CareerBook()
    for t in turns:
        book.add(t)
    assert book.trainee_turns == [1, 2, 3, 8]  # the screens read as the trainee's: not the results


def test_the_tracker_counts_a_career_on_its_career_complete_not_on_the_finish(tmp_path: Path) -> None:
    tracker = CareerTracker(RunFolder.at(tmp_path))
    for t in [turn(1, hub(100)), turn(2, CONFIRM, press="Finish"), turn(3, RESULTS), turn(4, SPARKS)]:
        tracker(t, RunTotals())
    assert tracker.ended == 0 and not (tmp_path / "careers").exists()  # the run goes on through the results
    tracker(turn(5, END, press="To Home"), RunTotals())
    assert tracker.ended == 1
    assert json.loads((tmp_path / "careers" / "career_001.json").read_text())["last_turn"] == 5


def test_a_run_stopped_during_the_results_records_the_career_complete() -> None:
    """The game completed the career on its Finish: a run stopped on the result screens does not call it going on."""
    [c] = careers_of([turn(1, hub(100)), turn(2, CONFIRM, press="Finish"), turn(3, SPARKS)])
    assert (c.complete, c.last_turn, c.stats["Speed"]) == (True, 3, 100)


def test_cancel_on_the_confirm_does_not_end_the_career() -> None:
    careers = careers_of([turn(1, hub(100)), turn(2, CONFIRM, press="Cancel"), turn(3, hub(101))])
    assert [(c.complete, c.stats["Speed"]) for c in careers] == [(False, 101)]


def test_the_listing_names_the_rung_the_start_and_the_guard() -> None:
    from lluma_agent.runlog.turnlog import GameStartLog, RecoveryLog
    from lluma_cli.logs import notes

    log = turn(1, HOME).model_copy(update={
        "recovery": RecoveryLog(rung="restart", reason="stuck"),
        "game_start": GameStartLog(reason="recovery rung restart", ok=True),
        "guard": ["refused pressButton(Purchase Carats)"]})
    assert notes(log)[:3] == ["recovery: restart", "game started", "guard: refused pressButton(Purchase Carats)"]


def test_a_full_disk_during_a_career_record_loses_nothing(tmp_path: Path, monkeypatch: Any) -> None:
    """Probe: the disk fills as a career's record is written (the write's flush to disk fails). The person is told
    the career ended all the same (the line and `career_ended`), the error is a disk error (the run stops after the
    turn: kind disk, one line naming the folder), nothing half written is left, and once there is room a resumed
    run writes the record from the turn logs."""
    import errno

    from lluma_agent import atomic
    from lluma_agent.loop.stop import disk_error

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    events: list[str] = []
    said: list[str] = []
    tracker = CareerTracker(RunFolder.at(tmp_path), notify=lambda e, d: events.append(e), say=said.append)
    turns = [turn(1, hub(100)), turn(2, END)]
    tracker(turns[0], RunTotals())
    try:
        tracker(turns[1], RunTotals())
    except OSError as exc:
        assert disk_error(exc)
    else:
        raise AssertionError("the full disk was not reported")
    assert events == ["career_ended"] and said and said[0].startswith("career 1 (complete)")  # before: neither
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / "careers" / "career_001.json").exists()
    monkeypatch.undo()  # room again: the run is resumed
    CareerTracker(RunFolder.at(tmp_path)).replay(turns)
    record = json.loads((tmp_path / "careers" / "career_001.json").read_text())
    assert record["complete"] and record["stats"]["Speed"] == 100


def test_plans_and_surveys_are_counted_per_career() -> None:
    from lluma_agent.runlog.turnlog import PlanLog, PlanStepLog, SurveyLog
    steps = [PlanStepLog(step=1, action="goto Career: Back", ok=True), PlanStepLog(step=2, action="press Rest")]
    turns = [turn(1, HOME), turn(2, hub(120)), turn(3, hub(130)), turn(4, END), turn(5, HOME), turn(6, hub(90))]
    turns[1].plan = PlanLog(name="rest", steps=steps, done=True)
    turns[2].plan = PlanLog(name="rest", steps=steps[:1], surprise=True)
    turns[2].survey = SurveyLog(screen="Training", options=["Speed", "Wit"])
    turns[5].plan = PlanLog(name="rest", steps=steps, done=True)
    first, second = careers_of(turns)
    assert first.plans.model_dump() == {"run": 2, "steps": 3, "surprises": 1} and first.surveys == 1
    assert second.plans.model_dump() == {"run": 1, "steps": 2, "surprises": 0} and second.surveys == 0


def test_a_career_record_says_its_goals_how_it_ended_its_turn_fans_and_skills() -> None:
    """Issue 37 item 6: the agent's record of what a career came to, read from its screens as the game prints it:
    the last "Turn N/M", the fans (a hub's caption or the summary's line), and on the summary its goals, each with
    its outcome, and the skills learned."""
    playing = {**HUB, "texts": ["Turn 33/78", "Place top 5 in Japanese Derby"], "values": {**HUB["values"],
                                                                                         "Fans": "4,100"}}
    missed = {"texts": ["Turn 34/78", "Goal Not Reached", "The goal was not reached:", "The career ends here."],
              "buttons": [{"name": "OK"}]}
    summary = {"texts": ["URA Finale", "The career ended early.", "Achieved: Run in Junior Make Debut",
                         "Missed: Place top 5 in Japanese Derby", "Not Run: Earn 3000 fans"],
               "values": {"Fans": "4,600", "Skills Learned": "2"}, "buttons": [{"name": "Complete Career"}]}
    c = careers_of([turn(1, playing), turn(2, missed), turn(3, summary), turn(4, END)])[0]
    assert c.complete and c.ended == "goal_missed" and c.game_turns == 34 and c.fans == 4600
    assert c.skills_learned == 2
    assert [(g.text, g.met) for g in c.goals] == [("Run in Junior Make Debut", True),
                                                  ("Place top 5 in Japanese Derby", False), ("Earn 3000 fans", False)]
    done = {**summary, "texts": ["Turn 78/78", "Fans 30,000", "Skills Learned 0",
                                 "Achieved: Run in Junior Make Debut"], "values": {}}
    c = careers_of([turn(1, playing), turn(2, done), turn(3, END)])[0]
    assert c.ended == "complete" and c.game_turns == 78 and [g.met for g in c.goals] == [True]
    going = careers_of([turn(1, playing)])[0]
    assert going.ended is None and going.game_turns == 33 and going.fans == 4100
    # the header read as a caption over its value, as the reading pairs "Turn" and "3/10" on the hard hub
    going = careers_of([turn(1, {**HUB, "values": {**HUB["values"], "Turn": "3/10"}})])[0]
    assert going.game_turns == 3


def test_the_end_screens_own_stats_are_the_careers_final_ones() -> None:
    """A summary whose stat row went unread: the "Career Complete" screen's figures are the record's."""
    end = {**END, "values": {"Speed": "111", "Stamina": "85", "Skill Pts": "180"}}
    [c] = careers_of([turn(1, hub(90)), turn(2, end)])
    assert c.complete and c.stats["Speed"] == 111 and c.stats["Stamina"] == 85 and c.skill_points == 180


def test_a_missed_goal_is_said_the_same_way_before_its_results_show() -> None:
    """Issue 53: the game said "Goal Not Reached" at turn 30 and the run stopped before the career's end screens:
    the record says the goal was missed there (not "going on"), and once they show it is complete with that end."""
    playing = {**HUB, "texts": ["Turn 30/78", "Earn 3000 fans"]}
    missed = {"texts": ["Turn 30/78", "Goal Not Reached", "The goal was not reached:", "The career ends here."],
              "buttons": [{"name": "OK"}]}
    stopped = careers_of([turn(1, playing), turn(2, missed)])[0]
    assert (stopped.complete, stopped.ended, stopped.game_turns) == (False, "goal_missed", 30)
    assert career_state(stopped) == "goal missed at game turn 30, results not seen yet"
    text = format_stats(compute([turn(1, playing), turn(2, missed)]))
    assert "careers: 0 complete, 1 ended on a missed goal" in text and "going on" not in text
    ended = careers_of([turn(1, playing), turn(2, missed), turn(3, END)])[0]
    assert ended.complete and career_state(ended) == "goal missed at game turn 30"


def test_a_race_run_inside_a_plan_is_counted() -> None:
    """runPlan(race_day) passes the race's result inside one turn: its step's screen and words count the race."""
    from lluma_agent.runlog.turnlog import PlanLog, PlanStepLog

    steps = [PlanStepLog(step=1, action="press Race Day", reached="Race List", ok=True),
             PlanStepLog(step=2, action="press View Results", reached="Race Result", ok=True,
                         said=["Race Result", "1st", "Junior Make Debut"]),
             PlanStepLog(step=3, action="press Next", reached="Race Rewards", ok=True)]
    raced = turn(2, hub(120))
    raced.plan = PlanLog(name="race_day", steps=steps, done=True)
    lost = turn(4, hub(130))
    lost.plan = PlanLog(name="race_day", steps=[steps[0], steps[1].model_copy(update={"said": ["Race Result", "6th"]}),
                                                steps[2]], done=True)
    c = careers_of([turn(1, hub(100)), raced, turn(3, hub(120)), lost])[0]
    assert (c.races_entered, c.races_won) == (2, 1)


def test_the_games_rating_and_rank_are_read_off_its_results_screen() -> None:
    """Issue 53: the report's Careers table shows each career's rating, as the game's "Career Results" prints it."""
    confirm = {"texts": ["Complete this career?"], "buttons": [{"name": "Cancel"}, {"name": "Finish"}]}
    results = {"texts": ["Career Results", "B+", "Rating 8,412"], "buttons": [{"name": "Next"}]}
    c = careers_of([turn(1, hub(100)), turn(2, confirm, press="Finish"), turn(3, results), turn(4, END)])[0]
    assert c.complete and (c.rating, c.rank) == (8412, "B+")
    assert "rating 8,412 (B+)" in career_line(c)
    going = careers_of([turn(1, hub(100))])[0]
    assert going.rating is None and "rating" not in career_line(going)
