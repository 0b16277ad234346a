"""A night in the simulator, end to end: two careers back to back through the game's hazards and the device's and
API's faults, a crash to the launcher among them. The run stops by itself after the careers (exit 0), never
pauses, puts no tap off target, starts the game again after the crash, writes a record per career that says what
the game's own record says, and the notify command hears of each career and of the stop."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.stop import StopKind, exit_status
from lluma_agent.loop.turn import RunTotals
from lluma_agent.runlog.turnlog import TurnLog, read_turns
from lluma_cli.demo import sim_agent
from lluma_cli.sim_check import taps_off_target

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=88)]  # reads frames with the OCR (pyproject: markers)

CRASH_FROM = 6  # from this turn on, the game crashes to the launcher once (besides what the hazards bring)


@pytest.mark.timeout(900)  # two careers through their results on OCR: 362 s at a load of 10 on 2 cores (issue 39)
def test_two_careers_through_a_night_of_hazards_and_faults(tmp_path: Path) -> None:
    events, hook, logs = tmp_path / "events.jsonl", tmp_path / "hook.py", tmp_path / "logs"
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read() + '\\n')\n", encoding="utf-8")
    overrides = {"LLUMA_NOTIFY__COMMAND": f"{shlex.quote(sys.executable)} {shlex.quote(str(hook))} "
                                          f"{shlex.quote(str(events))}",
                 "LLUMA_RUN__MAX_CAREERS": "2"}
    crashed: list[int] = []

    def watch(log: TurnLog, totals: RunTotals) -> None:
        if log.turn >= CRASH_FROM and not crashed and sim.game.hazard("app_crash"):  # not during an animation
            crashed.append(log.turn)

    with sim_agent(400, logs, seed=4, overrides=overrides, hazard_rate=0.05, fault_rate=0.02,
                   career_turns=2, watch=watch) as (sim, coordinator):
        totals = Coordinator.run(coordinator)
        game = sim.game
    assert totals.stop_kind == StopKind.MAX_CAREERS and exit_status(totals.stop_kind) == 0, totals.stop_reason
    turns = read_turns(logs)
    assert not [t.turn for t in turns if t.recovery is not None and t.recovery.rung == "pause"]
    assert taps_off_target(game, logs) == []
    # the crash (and any a hazard brought) is followed by a start of the game within a few turns
    starts = [t.turn for t in turns if t.game_start is not None and t.game_start.ok]
    assert crashed and any(crashed[0] < s <= crashed[0] + 3 for s in starts), (crashed, starts)
    assert totals.game_starts == len(starts) >= game.hazards_injected().by_kind["app_crash"]
    # a record per career, as the game itself records them
    records = [json.loads(p.read_text()) for p in sorted((logs / "careers").glob("career_*.json"))]
    ended = [r for r in records if r["complete"]]
    assert len(ended) == 2 and len(game.careers) >= 2
    for mine, truth in zip(ended, game.careers, strict=False):
        assert mine["stats"] == truth.stats and mine["skill_points"] == truth.skill_points
        assert mine["turns"] > 0 and mine["model_calls"] > 0 and mine["cost_usd"] > 0
    told = [json.loads(line) for line in events.read_text().splitlines() if line.strip()]
    kinds = [e["event"] for e in told]
    assert kinds.count("career_ended") == 2 and kinds[-1] == "run_stopped" and "game_restarted" in kinds
    assert [e["number"] for e in told if e["event"] == "career_ended"] == [1, 2]
