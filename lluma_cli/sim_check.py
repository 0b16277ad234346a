"""The demo's ground-truth checks: the taps the simulated phone received against the turn logs."""

from __future__ import annotations

from pathlib import Path

from lluma_agent.runlog.logread import LogDirError, load_run
from lluma_sim.game import SimGame
from lluma_sim.game.truth import ReceivedTap
from lluma_sim.taps import MeantTap, OffTarget, off_target, spends_without_model

NO_ELEMENT = {"dialogue box"}  # taps the agent aims at empty space, not at a named element


def meant_taps(logs_dir: Path, after_turn: int = 0) -> list[MeantTap]:
    """Every tap the turn logs record after `after_turn`, in order, with the element it was meant for."""
    try:
        turns = load_run(logs_dir).turns
    except LogDirError:
        return []
    taps = []
    for log in turns:
        if log.turn <= after_turn:
            continue  # a resumed demo's sitting: its taps are compared with this sitting's received ones
        a = log.action
        survey = log.survey
        if survey is not None:  # the options raised before the decision (and the press that opened their screen)
            taps += [MeantTap(x=r.point[0], y=r.point[1], target=r.element, by_model=False)
                     for r in [*([survey.lead_in] if survey.lead_in else []), *survey.rows] if r.point]
        if log.plan is not None:  # a runPlan: each press's tap (its first is the action, named for the plan)
            taps += [MeantTap(x=s.point[0], y=s.point[1], target=s.element, by_model=False)
                     for s in log.plan.steps if s.point]
        elif log.navigation:  # a goTo: each step's tap, meant for its element (the action names the screen)
            taps += [MeantTap(x=s.point[0], y=s.point[1], target=s.element, by_model=False)
                     for s in log.navigation if s.point]
        elif a is not None and a.point and not a.swipe:
            target = "" if a.target in NO_ELEMENT else a.target
            by_model = log.response is not None and log.routine is None and not a.forced
            taps.append(MeantTap(x=a.point[0], y=a.point[1], target=target, by_model=by_model))
        if survey is not None:  # the chosen option's commit, after the model's press raised it
            taps += [MeantTap(x=r.point[0], y=r.point[1], target=r.element, by_model=False)
                     for r in survey.commit if r.point]
    return taps


def taps_off_target(game: SimGame, logs_dir: Path, after_turn: int = 0, since: int = 0) -> list[OffTarget]:
    """The taps received from the `since`-th on (a resumed game holds the last sitting's too) against the turn logs
    after `after_turn`."""
    return off_target(game.taps[since:], meant_taps(logs_dir, after_turn))


def spends_without_the_model(game: SimGame, logs_dir: Path, after_turn: int = 0, since: int = 0) -> list[ReceivedTap]:
    """Taps the game says spent something that no model decision made (issue 40: none, ever)."""
    return spends_without_model(game.taps[since:], meant_taps(logs_dir, after_turn))
