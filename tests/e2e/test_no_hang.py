"""Issue 39's hangs, on the simulated phone and the API stand-in over HTTP: a FIFO where the map file should be
does not block the start; a run whose API stand-in restarts mid-run (its thinking signatures no longer accepted)
goes on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lluma_agent.navmap import map_path_for
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli.demo import sim_agent


@pytest.mark.timeout(120)  # before: no turn in 90 s, the map's read waiting for a writer
def test_a_fifo_where_the_map_file_should_be_does_not_block_the_start(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    fifo = map_path_for(logs / "memory")
    logs.mkdir()
    os.mkfifo(fifo)
    with sim_agent(2, logs, seed=3) as (_, coordinator):
        totals = coordinator.run()
    assert totals.turns == 2
    first = read_turns(logs)[0]
    assert any(e.startswith(f"map: {fifo}: a FIFO (named pipe), not a screen map file: set aside as memory.map."
                            "damaged-") for e in first.errors), first.errors
    assert fifo.is_file()  # the new map took its place; the FIFO is kept, set aside
    assert [p for p in logs.iterdir() if p.name.startswith("memory.map.damaged-") and p.is_fifo()]
