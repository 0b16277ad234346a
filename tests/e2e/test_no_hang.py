"""Issue 39's hangs, on the simulated phone and the API stand-in over HTTP: a FIFO where the map file should be
does not block the start; a run whose API stand-in restarts mid-run (its thinking signatures no longer accepted)
goes on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lluma_agent.loop.stop import StopKind
from lluma_agent.navmap import map_path_for
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import sim_agent
from lluma_sim.api.server import ApiServer


@pytest.mark.timeout(120)  # before: no turn in 90 s, the map's read waiting for a writer
def test_a_fifo_where_the_map_file_should_be_does_not_block_the_start(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    fifo = map_path_for(logs / "memory")
    logs.mkdir()
    os.mkfifo(fifo)
    with sim_agent(2, logs, seed=3, truth_vision=True) as (_, coordinator):
        totals = coordinator.run()
    assert totals.turns == 2
    first = read_turns(logs)[0]
    assert any(e.startswith(f"map: {fifo}: a FIFO (named pipe), not a screen map file: set aside as memory.map."
                            "damaged-") for e in first.errors), first.errors
    assert fifo.is_file()  # the new map took its place; the FIFO is kept, set aside
    assert [p for p in logs.iterdir() if p.name.startswith("memory.map.damaged-") and p.is_fifo()]


def test_a_run_whose_api_restarts_mid_run_goes_on(tmp_path: Path) -> None:
    """The stand-in is stopped and started again on its port, with a new signing key, as after a restart: the
    thinking kept in history is refused (400 "Invalid `signature` in `thinking` block"). Before, every later turn
    failed on it and three ended the run; now the history's thinking is dropped once and the run goes on."""
    logs = tmp_path / "logs"
    with sim_agent(6, logs, seed=7, truth_vision=True) as (sim, coordinator):
        for _ in range(3):
            assert not coordinator.step().errors
        policy, port = sim.api.policy, sim.api.port
        sim.api.stop()
        with ApiServer(port=port, policy=policy) as restarted:
            totals = coordinator.run()
            statuses = [e.status for e in restarted.log if e.endpoint == "messages"]
    assert totals.stop_kind == StopKind.MAX_TURNS and totals.turns == 6
    turns = read_turns(logs)
    assert all(not t.errors for t in turns), [t.errors for t in turns if t.errors]
    after = turns[3]  # the first turn after the restart: the refused call is its first retry, then it played on
    assert after.response is not None and after.action is not None
    assert [r.status for r in after.response.retries] == [400]
    assert "Invalid `signature` in `thinking` block" in after.response.retries[0].error
    asked = sum(t.response is not None for t in turns[3:])
    assert statuses == [400] + [200] * asked  # dropped once: no later request was refused
