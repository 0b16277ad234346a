"""The demo's ground-truth checks: the taps the simulated phone received against the turn logs."""

from __future__ import annotations

from pathlib import Path

from lluma_agent.runlog.logread import LogDirError, load_run
from lluma_sim.game import SimGame
from lluma_sim.taps import MeantTap, OffTarget, off_target

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
            continue  # a resumed demo's phone received only this sitting's taps
        a = log.action
        if log.navigation:  # a goTo: each step's tap, meant for its element (the action names the screen)
            taps += [MeantTap(x=s.point[0], y=s.point[1], target=s.element) for s in log.navigation if s.point]
        elif a is not None and a.point and not a.swipe:
            target = "" if a.target in NO_ELEMENT else a.target
            taps.append(MeantTap(x=a.point[0], y=a.point[1], target=target))
    return taps


def taps_off_target(game: SimGame, logs_dir: Path, after_turn: int = 0) -> list[OffTarget]:
    return off_target(list(game.taps), meant_taps(logs_dir, after_turn))
