"""The procedures a fleet's models wrote, shared (issue 56): each device hands over only what it changed in its own
`procedures.yaml`, so every device's entries are kept and none writes back an older copy of another's; a device
plays another's procedure by name; a damaged fleet file is set aside and said, never silently replaced."""

from __future__ import annotations

import json
from pathlib import Path

from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop, text

from lluma_agent.loop.fleet_procedures import FILE, FleetProcedures
from lluma_agent.runlog.turnlog import read_turns

NAP = {"about": "Rest now.", "steps": [{"press": "Rest"}]}
DASH = {"about": "Train speed.", "steps": [{"press": "Speed"}]}


def test_each_device_hands_over_only_its_own_changes(tmp_path: Path) -> None:
    a, b = FleetProcedures(tmp_path, "sim-0"), FleetProcedures(tmp_path, "sim-1")
    assert a.share({"nap": NAP}) == ({}, "")
    assert b.share({"dash": DASH}) == ({"nap": NAP}, "")
    assert a.share({"nap": NAP}) == ({"dash": DASH}, "")
    newer = {**NAP, "about": "Rest, then train."}
    a.share({"nap": newer})
    assert b.share({"dash": DASH})[0] == {"nap": newer}  # b changed nothing: a's newer copy stays
    entries = json.loads((tmp_path / FILE).read_text())["procedures"]
    assert {n: e["by"] for n, e in entries.items()} == {"nap": "sim-0", "dash": "sim-1"}
    b.share({})  # b deleted its own: gone from the fleet; a's stays
    assert a.share({"nap": newer}) == ({}, "")
    assert list(json.loads((tmp_path / FILE).read_text())["procedures"]) == ["nap"]


def test_a_damaged_fleet_file_is_set_aside_and_said(tmp_path: Path) -> None:
    (tmp_path / FILE).write_text("{not json")
    others, told = FleetProcedures(tmp_path, "sim-0").share({"nap": NAP})
    assert others == {} and "cannot be read" in told and "set aside as procedures.damaged-" in told
    assert [p.name.split(".damaged-")[0] for p in tmp_path.glob("*.damaged-*")] == ["procedures"]
    assert list(json.loads((tmp_path / FILE).read_text())["procedures"]) == ["nap"]  # this device's is written


def _phone() -> FakePhone:
    hub = FakeScreen(buttons=[button("Rest", 100, 1500, 400, 1580), button("Training", 600, 1500, 900, 1580)],
                     texts=[text("Career", 100, 100, 900, 180)], goes_to={"Rest": "rest"})
    rest = FakeScreen(buttons=[button("OK", 400, 1500, 700, 1580)], texts=[text("Rest", 100, 100, 900, 180)],
                      goes_to={"OK": "hub"})
    return FakePhone({"hub": hub, "rest": rest}, start="hub")


def test_a_device_runs_the_procedure_another_device_wrote(tmp_path: Path) -> None:
    shared = {"memory__shared_dir": tmp_path / "shared"}
    (tmp_path / "mem-a").mkdir()
    (tmp_path / "mem-a" / "procedures.yaml").write_text("nap:\n  about: Rest now.\n  steps:\n    - press: Rest\n")
    loop(tmp_path, _phone(), ScriptedModel([[call("pressButton", name="Training")]]), logs="sim-0",
         memory="mem-a", settings=shared, max_turns=1).run()
    phone = _phone()
    model = ScriptedModel([[call("runPlan", name="nap")]])
    loop(tmp_path, phone, model, logs="sim-1", memory="mem-b", settings=shared, max_turns=1).run()
    plan = read_turns(tmp_path / "sim-1")[0].plan
    assert plan is not None and (plan.name, plan.done, [s.element for s in plan.steps]) == ("nap", True, ["Rest"])
    assert phone.calls[0] == ("tap", 250, 1540) and phone.screen == "rest"  # Rest pressed, on sim-1's phone
    entries = json.loads((tmp_path / "shared" / FILE).read_text())["procedures"]
    assert entries["nap"]["by"] == "sim-0" and not (tmp_path / "mem-b" / "procedures.yaml").exists()
