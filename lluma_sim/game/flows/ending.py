"""A turn's end and the career's (FACTS): the next turn or its event, a missed goal ("Goal Not Reached": the career
ends early), the summary's "Complete Career", its confirm (Cancel / Finish), the result pages, home; the career's
record is the game's truth of it."""

from __future__ import annotations

import random

from lluma_sim.game import numbers
from lluma_sim.game.content import Event
from lluma_sim.game.flow import Play
from lluma_sim.game.flows import events
from lluma_sim.game.flows.training import deal
from lluma_sim.game.state import CareerData, CareerRecord, DialogState, GoalRecord


def end_turn(g: Play) -> None:
    c = g.live()
    event = next_turn(c, g.rng)
    if event is not None:
        events.show(g, event)
    elif c.ended:
        g.state.screen = "hub"
        goal_missed(g)
    elif c.over:
        g.state.finished = True
        g.play([("anim", "loading"), ("goto", "career_summary")])
    else:
        g.state.screen = "hub"


def next_turn(c: CareerData, rng: random.Random) -> Event | None:
    """Judge the goals due this turn, then advance the calendar; the event to show now, if one comes (NUMBERS §5:
    a fixed URA event, the Director's at a completed career's end, else one of the model's on its turns). A goal
    not met on its turn ends the career (`ended`)."""
    for i, (_, turn) in enumerate(c.goals()):
        if turn == c.turn and not c.goal_met(i):
            c.ended = "goal_missed"
            c.status = "The goal was not reached."
            return None
    c.turn += 1
    if c.over:
        return events.fixed(c)
    deal(c, rng)
    if (event := events.fixed(c)) is not None:
        return event
    return events.scheduled(c, rng) if events.due(c) else None


def goal_missed(g: Play) -> None:
    c = g.live()
    c.ended = "goal_missed"
    now = c.goal_now()
    g.state.dialog = DialogState(
        kind="goal_missed",
        title="Goal Not Reached",
        lines=("The goal was not reached:", now[1].text if now else "", "The career ends here."),
        buttons=(("OK", "green", ("career_over",)),),
    )


def career_over(g: Play) -> None:
    g.state.dialog, g.state.finished = None, True
    g.play([("anim", "loading"), ("goto", "career_summary")])


def complete_prompt(g: Play) -> None:
    g.state.dialog = DialogState(
        kind="confirm",
        title="Confirm",
        lines=("Complete this career?", "The results will be saved."),
        buttons=(("Cancel", "white", ("close",)), ("Finish", "green", ("complete",))),
    )


def complete(g: Play) -> None:
    """The career ends: its record is kept (the game's truth of it), then the result screens."""
    c = g.live()
    g.state.careers.append(CareerRecord(
        number=len(g.state.careers) + 1,
        turns=min(c.turn, c.max_turns),
        stats=dict(c.stats),
        skill_points=c.skill_points,
        skills_learned=len(c.learned),
        races_entered=c.races,
        races_won=c.wins,
        score=c.score(),
        goals=tuple(GoalRecord(text=x.text, met=c.goal_met(i)) for i, (x, _) in enumerate(c.goals())),
        ended=c.ended or "complete",
        fans=c.fans,
        rating=c.rating(),
        rank=numbers.rank(c.rating()),
        stats_total=sum(c.stats.values()),
        failed_trainings=c.failed,
    ))
    g.state.dialog, g.state.career_open, g.state.results_page = None, False, 0
    g.state.screen = "career_results"


def results_next(g: Play) -> None:
    if g.state.results_page == 0:
        g.state.results_page = 1
    else:
        g.state.screen = "career_end"


def finish(g: Play) -> None:
    g.state.screen, g.state.tab = "home", "Home"
