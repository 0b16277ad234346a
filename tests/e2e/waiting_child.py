"""A run on the fake phone that comes to a long wait, for tests/e2e/test_waits_interrupted.py to interrupt.

`python waiting_child.py FOLDER tp|ladder [resume]`: the Recover TP dialog's wait (guard.tp_wait_s, turn 2) or the
recovery ladder's top rung (recovery.wait_s, turn 10), 600 s each; `waiting` is written in FOLDER when a wait
begins, so the parent knows when to press Ctrl+C or send SIGKILL. With `resume` the run goes on from FOLDER's
checkpoint with waits of 0 s, as `lluma run --resume` does (open_point, set_aside, restore), on a phone showing
what the stopped run left. Ctrl+C is the real handler `lluma run` installs (CtrlC); the checkpoint is written by
the real Checkpointer; at the end run.json, and one JSON line on stdout.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from fakes import FakeScreen, ScriptedModel, button, call, text

from lluma_agent.loop.app import CtrlC
from lluma_agent.loop.checkpoint import Checkpointer
from lluma_agent.loop.resume import open_point, restore, set_aside
from lluma_agent.loop.stop import exit_status
from lluma_agent.loop.turn import RunTotals
from lluma_agent.runlog.turnlog import RunSummary, TurnLog
from lluma_facts.clock import Clock
from tests.agent.test_recovery import _loop, _phone

WAIT_S = 600.0


class Marked(Clock):
    """The system's clock, writing `waiting` in the folder when a wait begins (the parent's cue)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def sleep(self, seconds: float) -> None:
        (self.folder / "waiting").touch()
        time.sleep(seconds)


def main(folder: Path, mode: str, resume: bool) -> int:
    checkpoints: list[Checkpointer] = []  # as build() does: the coordinator's on_turn calls the hook made after it

    def on_turn(log: TurnLog, totals: RunTotals) -> None:
        for checkpoint in checkpoints:
            checkpoint(log, totals)

    if mode == "tp":
        phone = _phone(tp=FakeScreen(texts=[text("Recover TP", 380, 500, 700, 560)],
                                     buttons=[button("Cancel", 180, 1100, 480, 1200)], goes_to={"Cancel": "home"}))
        phone.screens["home"].goes_to["Training"] = "tp"  # turn 1 opens the dialog; turn 2 waits
        phone.screen = "tp" if resume else "home"  # the phone as the stopped run left it: the dialog still up
        model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="Shop")],
                               [call("back")]])
        c = _loop(folder, phone, model, clock=Marked(folder), on_turn=on_turn, max_turns=3)
    else:  # Training leads nowhere: warn, force, back, safe tap, restart, then the wait
        phone = _phone()
        phone.screens["title"].goes_to["TAP TO START"] = "home"
        phone.screen = "title" if resume else "home"  # the phone as the stopped run left it: the restart's title
        model = ScriptedModel([[call("pressButton", name="Training")]] * 12)
        c = _loop(folder, phone, model, clock=Marked(folder), on_turn=on_turn, max_turns=12, stuck_after=1,
                  stuck_force_after=2, stuck_pause_after=3)
    c.cfg.guard.tp_wait_s = c.cfg.recovery.wait_s = 0.0 if resume else WAIT_S
    checkpoints.append(Checkpointer(c, c.logger))
    if resume:  # two more turns
        point = open_point(folder / "logs")
        set_aside(point, c.logger)
        c.cfg.run.max_turns = 2
        restore(point, c)

    with CtrlC() as ctrl_c:
        totals = ctrl_c.run(c)
    c.logger.write_summary(RunSummary(stop_reason=totals.stop_reason, stop_kind=totals.stop_kind, turns=totals.turns,
                                      cost_usd=totals.cost_usd, ended_at=time.time()))
    c.logger.close()
    print(json.dumps({"stop_kind": str(totals.stop_kind), "turn": c.turn}), flush=True)
    return exit_status(totals.stop_kind)


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3:] == ["resume"]))
