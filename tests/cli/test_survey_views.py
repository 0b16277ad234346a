"""A survey and a plan as a person reads them: `lluma logs`' notes column and the turn view (`lluma logs --turn N`,
the report) name each tile's line and frame, the commit, each plan step and its surprise."""

from __future__ import annotations

from lluma_agent.runlog.turnlog import PlanLog, PlanStepLog, SurveyLog, SurveyRow, TurnLog
from lluma_cli.logs import notes
from lluma_cli.report.turnview import navigation_lines

ROWS = [SurveyRow(option="Speed", line="Speed: gains Speed +12; failure 0%; energy 1.00 -> 0.80"),
        SurveyRow(option="Wit", line="Wit: gains Wit +9; failure 0%; energy not read", frame="screens/t_s2.jpg")]


def test_a_survey_and_its_commit_are_listed() -> None:
    log = TurnLog(turn=4, started_at=0.0, model="m", decided_on_options=True,
                  survey=SurveyLog(screen="Training", options=["Speed", "Wit"], rows=ROWS, complete=True,
                                   chosen="Speed", commit=[SurveyRow(option="Speed")],
                                   lead_in=SurveyRow(option="Training", line="opened from Career")))
    lines = navigation_lines(log)
    assert lines[0] == "survey: pressed Training (opened from Career) to open Training"
    assert "survey of Training: Wit: gains Wit +9; failure 0%; energy not read [screens/t_s2.jpg]" in lines
    assert lines[-1] == "survey: committed Speed"
    assert "survey: 2 of 2 read, chose Speed" in notes(log)


def test_a_plan_that_stopped_says_where() -> None:
    steps = [PlanStepLog(step=1, action="goto Career: Back", expected="Career", reached="Career", ok=True),
             PlanStepLog(step=2, action="press Rest", expected="Rest", reached="Menu", note="a surprise")]
    log = TurnLog(turn=5, started_at=0.0, model="m", plan=PlanLog(name="rest", steps=steps, surprise=True))
    assert navigation_lines(log) == ["runPlan rest: step 1, goto Career: Back -> reached Career",
                                     "runPlan rest: step 2, press Rest -> SURPRISE: expected Rest, reached Menu; "
                                     "a surprise"]
    assert "plan rest: 2 step(s) stopped" in notes(log)
