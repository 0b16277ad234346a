"""`lluma fleet --ray` (issue 56): the same two simulated phones played through Ray, each device's agent an actor on
the node that declares it (`adb:sim-0` on the head, `adb:sim-1` on a second node), both nodes real (a GCS and a
raylet each) on 127.0.0.1, started once for the module; the second node dies mid-run and comes back, and its
device goes on from its checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from fleet_stand_ins import await_turn, first_steps, stand_ins

from lluma_agent.runlog.turnlog import read_turns

pytestmark = pytest.mark.cost(seconds=100)  # measured: 84-100 s (the nodes up in about 9 s)

SERIALS = ["sim-0", "sim-1"]
NODES = Path(__file__).parents[2] / "bench" / "ray_nodes.py"  # the bench starts the same two nodes
LOSE_NODE_AFTER_TURN = 3  # the second node dies once sim-1 has checkpointed this turn


class Nodes:
    """tests/ray_nodes.py: the two nodes, told what to do one line at a time."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        assert proc.stdout is not None
        self.out: IO[str] = proc.stdout
        self.address = self.out.readline().split()[1]

    def tell(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        assert self.out.readline().strip() == "ok"


@pytest.fixture(scope="module")
def nodes() -> Iterator[Nodes]:
    proc = subprocess.Popen([sys.executable, str(NODES)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield Nodes(proc)
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def played(nodes: Nodes, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    home = tmp_path_factory.mktemp("ray-fleet")
    fleet = home / "fleet"
    with stand_ins() as env:
        # a driver on this machine finds its node at 127.0.0.1, as the nodes were started (tests/ray_nodes.py)
        env = {**env, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
        proc = subprocess.Popen([sys.executable, "-m", "lluma_cli", "fleet", "--devices", ",".join(SERIALS),
                                 "--careers", "1", "--dir", str(fleet), "--ray", nodes.address, "--json"], cwd=home,
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            lost_at = await_turn(proc, [fleet / "devices" / "sim-1"], LOSE_NODE_AFTER_TURN, within=150)
            nodes.tell("remove")
            time.sleep(2)
            nodes.tell("add")
            out, err = proc.communicate(timeout=240)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert out, err[-3000:]
    yield {"fleet": fleet, "code": proc.returncode, "summary": json.loads(out), "err": err, "lost_at": lost_at}


def test_two_phones_play_through_ray_each_on_the_node_that_holds_it(played: dict[str, Any]) -> None:
    s = played["summary"]
    assert played["code"] == 0, played["err"]
    assert s["engine"] == "ray" and [d["serial"] for d in s["devices"]] == SERIALS
    for d in s["devices"]:
        assert (d["careers_completed"], d["stop_kind"], d["gone"]) == (1, "max_careers", ""), d
        assert d["turns"] == len(read_turns(Path(d["run_dir"])))
    nodes = [d["node"] for d in s["devices"]]
    assert all(n.startswith("127.0.0.1/") for n in nodes) and nodes[0] != nodes[1]  # placed by adb:SERIAL
    assert s["careers_completed"] == 2 and s["turns"] == sum(d["turns"] for d in s["devices"])
    assert first_steps(played["fleet"]) == [2]  # one map, written from two nodes


def test_a_lost_node_is_reported_and_its_device_goes_on_from_its_checkpoint(played: dict[str, Any]) -> None:
    by = {d["serial"]: d for d in played["summary"]["devices"]}
    assert "sim-1: its node 127.0.0.1/" in played["err"] and "is lost" in played["err"], played["err"][-2000:]
    assert by["sim-1"]["restarts"] == 0  # a node lost is not the agent's failure: no restart is used up
    turns = [t.turn for t in read_turns(played["fleet"] / "devices" / "sim-1")]
    assert turns == list(range(1, by["sim-1"]["turns"] + 1)) and turns[-1] > played["lost_at"]
