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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet_stand_ins import await_turn, first_steps, lluma, stand_ins
from processes import all_gone

from lluma_agent.runlog.turnlog import read_turns

pytestmark = pytest.mark.cost(seconds=120)  # measured: 114 CPU-s (LLUMA_TEST_CPU) with the phones' truth reading

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
    hook = home / "hook.py"  # notify.command: every event appended to events.jsonl
    hook.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n")
    told = {**env, "LLUMA_NOTIFY__COMMAND": f"{sys.executable} {hook} {home / 'events.jsonl'}"}
    proc = subprocess.Popen([sys.executable, "-m", "lluma_cli", "fleet", "--devices", ",".join(SERIALS), "--careers",
                             "1", "--dir", str(fleet), "--json"], cwd=home, env=told, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        killed_at = await_turn(proc, [fleet / "devices" / "sim-0"], KILL_AFTER_TURN, within=150)
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
    live = played["err"].splitlines()  # the live view (stderr under --json): a line per device as it plays
    for serial in SERIALS:
        assert any(line.startswith(f"{serial} careers 0 | turn    1 |") for line in live), live[:6]


def test_one_notify_stream_names_each_event_s_device(played: dict[str, Any]) -> None:
    events = [json.loads(line) for line in (played["home"] / "events.jsonl").read_text().splitlines()]
    got = sorted((e["event"], e.get("device")) for e in events if e["event"] != "heartbeat")
    assert got == sorted([("career_ended", "sim-0"), ("career_ended", "sim-1"), ("device_restarted", "sim-0"),
                          ("run_stopped", "sim-0"), ("run_stopped", "sim-1")]), got
    assert {e["run"] for e in events} == {"fleet"}  # the fleet's stream, one for every device


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


def test_a_gone_device_is_reported_and_ctrl_c_stops_every_device_cleanly(env: dict[str, str], tmp_path: Path) -> None:
    """sim-9 is attached nowhere: reported, and the two phones play on until one Ctrl+C stops both after their
    turn, each run's stop written, no agent process left behind."""
    fleet = tmp_path / "fleet"
    proc = subprocess.Popen([sys.executable, "-m", "lluma_cli", "fleet", "--devices", "sim-0,sim-1,sim-9",
                             "--careers", "5", "--dir", str(fleet), "--json"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        await_turn(proc, [fleet / "devices" / s for s in SERIALS], 1, within=120)
        agents = _workers(proc.pid)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    s = json.loads(out)
    by = {d["serial"]: d for d in s["devices"]}
    assert by["sim-9"]["gone"].startswith("cannot start: ") and "sim-9" in by["sim-9"]["gone"]
    assert "sim-9: gone (cannot start: " in err and "the other devices go on" in err
    assert s["stop_reason"] == "stopped by user (Ctrl+C)" and proc.returncode == 1  # a device gone: not a clean night
    for serial in SERIALS:
        assert by[serial]["stop_kind"] == "person" and by[serial]["turns"] >= 1, by[serial]
        assert json.loads((fleet / "devices" / serial / "run.json").read_text())["stop_kind"] == "person"
    assert all_gone(list(agents.values()))

    # --resume goes on with every device from its checkpoint, here to a turn cap given with it
    cap = max(by[x]["turns"] for x in SERIALS) + 1
    again = lluma(tmp_path, "fleet", "--resume", str(fleet), "--max-turns", str(cap), "--json", env=env)
    s = json.loads(again.stdout)
    by = {d["serial"]: d for d in s["devices"]}
    assert by["sim-9"]["gone"] and again.returncode == 1  # still attached nowhere: said again
    for serial in SERIALS:
        assert (by[serial]["turns"], by[serial]["stop_kind"]) == (cap, "max_turns"), by[serial]
        assert [t.turn for t in read_turns(fleet / "devices" / serial)] == list(range(1, cap + 1))


def test_one_budget_for_the_whole_fleet(env: dict[str, str], tmp_path: Path) -> None:
    """--max-cost is the fleet's, all devices together: once their turns' dollars reach it, every device stops after
    the turn it is playing (a budget of each device's own would have let each spend it)."""
    budget = 0.0015  # a few turns of each phone ($0.0002-0.0004 a turn on the stand-in; a first, $0.0011)
    run = lluma(tmp_path, "fleet", "--devices", ",".join(SERIALS), "--careers", "5", "--max-cost", str(budget),
                "--dir", str(tmp_path / "fleet"), "--json", env=env, timeout=240)
    s = json.loads(run.stdout)
    assert run.returncode == 0, run.stderr
    assert s["stop_reason"] == f"the fleet's budget (${budget:.4f}) reached", s
    turns = {d: read_turns(tmp_path / "fleet" / "devices" / d) for d in SERIALS}
    spent: dict[str, float] = {}
    reached = None  # when the devices' dollars together first reached the budget
    for end, serial, run_usd in sorted((t.started_at + t.timings.total_s, d, t.cost.run_usd)
                                       for d, ts in turns.items() for t in ts):
        spent[serial] = run_usd
        if sum(spent.values()) >= budget:
            reached = end
            break
    assert reached is not None
    for serial, ts in turns.items():  # each stopped after the turn it was playing then: no device spent on alone
        assert len([t for t in ts if t.started_at > reached]) <= 1, serial
    assert s["cost_usd"] == pytest.approx(sum(ts[-1].cost.run_usd for ts in turns.values()), abs=1e-5)
