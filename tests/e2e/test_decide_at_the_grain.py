"""Decide at the game's grain (issue 40), end to end: the real loop on the simulated phone over adb and the stand-in
over HTTP, the real reading. Every training decision is made on the survey's table with all five tiles raised and
read; after the first, the coordinator opens the training screen from the hub itself, so a game turn asks the model
once; the stand-in rests by `runPlan(rest)`; every tap the phone received is one the logs meant, and none spent."""

from __future__ import annotations

from pathlib import Path

import pytest

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import sim_agent
from lluma_cli.sim_check import spends_without_the_model, taps_off_target

pytestmark = pytest.mark.cost(seconds=34)  # worker seconds in a full suite (conftest: slowest modules first)

TURNS = 36  # the career's setup (7 turns), then about eight game turns with their events


@pytest.mark.timeout(2400)  # OCR on every frame and every raised tile: a loaded machine takes many minutes
def test_training_is_chosen_on_one_table_and_the_hub_does_not_ask(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    with sim_agent(TURNS, logs, seed=3, style="plain", truth_vision=True,
                   overrides={"LLUMA_MEMORY__DIR": str(tmp_path / "memory")}) as (sim, agent):
        totals = Coordinator.run(agent)
        game = sim.game
        off, spent = taps_off_target(game, logs), spends_without_the_model(game, logs)
    turns = read_turns(logs)
    decided = [t for t in turns if t.decided_on_options]
    assert len(decided) >= 4, [t.turn for t in decided]
    # every training choice on the table of all five tiles, each read while raised
    assert all(t.survey is not None and t.survey.complete and len(t.survey.rows) == 5 for t in decided)
    assert totals.full_view_decisions == totals.option_decisions == len(decided)
    # after the first survey the hub is not asked: the coordinator opens the training screen and the table says so
    opened = [t for t in decided if t.survey is not None and t.survey.lead_in is not None]
    assert opened and all(any("The coordinator opened Training from Career" in n for n in t.notes) for t in opened)
    # the tile chosen was trained: the commit's press, or the model's alone when it chose the raised one
    assert all(t.survey is not None and t.survey.chosen for t in decided)
    assert off == [] and spent == []
