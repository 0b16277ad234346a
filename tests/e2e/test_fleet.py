"""`lluma fleet` on one machine (issue 56): two simulated phones played at once, each to the end of a short
career, in two run folders with one shared map and the fleet's totals in `--json`; one device's agent killed
mid-run is started again from its checkpoint and finishes its career. The real path: `lluma sim phone` (two phones
behind one adb server) and `lluma sim api` as processes, `lluma fleet` as a person types it, each device's agent a
process of its own reading with the OCR."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_stand_ins import checkpointed, first_steps, lluma, stand_ins

from lluma_agent.runlog.turnlog import read_turns

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=90)]

SERIALS = ["sim-0", "sim-1"]
KILL_AFTER_TURN = 3  # sim-0's agent is killed once this turn is checkpointed (its career takes about 10)


@pytest.fixture(scope="module")
def env() -> Iterator[dict[str, str]]:
    with stand_ins() as found:
        yield found


def _workers(parent: int) -> dict[str, int]:
    """The fleet's device processes: serial -> pid."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            argv = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"lluma_agent.fleet.worker" in argv:
            found[argv[argv.index(b"lluma_agent.fleet.worker") + 2].decode()] = int(stat.parent.name)
    return found


@pytest.fixture(scope="module")
def played(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`lluma fleet --devices sim-0,sim-1 --careers 1 --json`, sim-0's agent killed (SIGKILL) after turn 3."""
    home = tmp_path_factory.mktemp("fleet")
    fleet = home / "fleet"
    proc = subprocess.Popen([sys.executable, "-m", "lluma_cli", "fleet", "--devices", ",".join(SERIALS), "--careers",
                             "1", "--dir", str(fleet), "--json"], cwd=home, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 150
        while checkpointed(fleet / "devices" / "sim-0") < KILL_AFTER_TURN:
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.1)
        killed_at = checkpointed(fleet / "devices" / "sim-0")
        os.kill(_workers(proc.pid)["sim-0"], signal.SIGKILL)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
    return {"fleet": fleet, "home": home, "code": proc.returncode, "summary": json.loads(out), "err": err,
            "killed_at": killed_at}


def test_two_phones_play_a_career_each_with_the_fleets_totals(played: dict[str, Any]) -> None:
    s, fleet = played["summary"], played["fleet"]
    assert played["code"] == 0, played["err"]
    assert [d["serial"] for d in s["devices"]] == SERIALS
    for d in s["devices"]:
        assert (d["careers_completed"], d["stop_kind"], d["gone"]) == (1, "max_careers", ""), d
        run = Path(d["run_dir"])
        assert run == fleet / "devices" / d["serial"]  # a run folder each
        record = json.loads((run / "careers" / "career_001.json").read_text())
        assert record["complete"] and d["turns"] == len(read_turns(run)) == record["last_turn"]
        assert d["node"] == os.uname().nodename
    assert s["careers_completed"] == 2 and s["turns"] == sum(d["turns"] for d in s["devices"])
    assert s["cost_usd"] == pytest.approx(sum(d["cost_usd"] for d in s["devices"]), abs=1e-5) and s["cost_usd"] > 0
    assert json.loads((fleet / "summary.json").read_text()) == s  # kept in the fleet's folder too


def test_one_map_holds_the_steps_of_both_phones(played: dict[str, Any]) -> None:
    fleet = played["fleet"]
    assert first_steps(fleet) == [2]  # each phone's first step, one map
    assert (fleet / "shared" / "memory.events.json").is_file()
    for serial in SERIALS:  # each its own memory folder, and no map of its own beside it
        assert (fleet / "devices" / serial / "memory").is_dir()
        assert not list((fleet / "devices" / serial).glob("*.map.json"))


def test_a_killed_agent_starts_again_from_its_checkpoint_and_finishes_its_career(played: dict[str, Any]) -> None:
    by = {d["serial"]: d for d in played["summary"]["devices"]}
    assert (by["sim-0"]["restarts"], by["sim-1"]["restarts"]) == (1, 0)
    assert ("sim-0: its agent died (killed by SIGKILL); started again from its checkpoint (restart 1 of 3)"
            in played["err"])
    turns = [t.turn for t in read_turns(played["fleet"] / "devices" / "sim-0")]
    assert turns == list(range(1, by["sim-0"]["turns"] + 1))  # one run, going on after the kill: no turn twice
    assert by["sim-0"]["turns"] > played["killed_at"]


def test_resuming_a_fleet_that_played_its_share_touches_no_device(played: dict[str, Any],
                                                                  env: dict[str, str]) -> None:
    fleet = played["fleet"]
    before = {s: len(read_turns(fleet / "devices" / s)) for s in SERIALS}
    again = lluma(played["home"], "fleet", "--resume", str(fleet), "--json", env=env, timeout=60)
    assert again.returncode == 0, again.stderr
    s = json.loads(again.stdout)
    assert [(d["serial"], d["careers_completed"]) for d in s["devices"]] == [(x, 1) for x in SERIALS]
    assert {x: len(read_turns(fleet / "devices" / x)) for x in SERIALS} == before


def test_a_fleet_without_devices_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    bare = lluma(tmp_path, "fleet", "--careers", "1", env=env, timeout=60)
    assert bare.returncode == 2 and bare.stderr.count("\n") == 1, bare.stderr
    assert bare.stderr.startswith("lluma fleet: no devices: give --devices SERIAL,SERIAL,...")


def test_stats_logs_and_report_show_the_devices_side_by_side(played: dict[str, Any], env: dict[str, str]) -> None:
    fleet, home = played["fleet"], played["home"]
    by = {d["serial"]: d for d in played["summary"]["devices"]}
    stats = lluma(home, "stats", str(fleet), env=env, timeout=60)
    assert stats.returncode == 0, stats.stderr
    head, turns, careers = stats.stdout.splitlines()[1:4]
    assert head.split() == [*SERIALS, "fleet"]
    assert turns.split() == ["turns", *(str(by[s]["turns"]) for s in SERIALS), str(played["summary"]["turns"])]
    assert careers.split()[-3:] == ["1", "1", "2"]
    as_json = json.loads(lluma(home, "stats", str(fleet), "--json", env=env, timeout=60).stdout)
    assert {s: as_json["devices"][s]["turns"] for s in SERIALS} == {s: by[s]["turns"] for s in SERIALS}

    logs = json.loads(lluma(home, "logs", str(fleet), "--json", env=env, timeout=60).stdout)
    assert sorted((r["device"], r["turn"]) for r in logs) == sorted(
        (s, t) for s in SERIALS for t in range(1, by[s]["turns"] + 1))
    assert [r["started_at"] for r in logs] == sorted(r["started_at"] for r in logs)  # as they were played
    one_turn = lluma(home, "logs", str(fleet), "--turn", "2", env=env, timeout=60)
    assert one_turn.returncode == 2 and one_turn.stderr.count("\n") == 1

    report = lluma(home, "report", str(fleet), "--thumb", "0", env=env, timeout=120)
    assert report.returncode == 0, report.stderr
    index = (fleet / "report.html").read_text()
    assert all(f'href="devices/{s}/report.html"' in index for s in SERIALS)
    assert all((fleet / "devices" / s / "report.html").is_file() for s in SERIALS)
