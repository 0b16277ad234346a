"""Plans the coordinator carries out (issue 40, item 3), in the real turn loop on the fake phone: a procedure from the
knowledge package walked step by step with one model call, each step checked; a surprise stops it and the model is
told where it is; the model's own procedures are validated (a bad one is one clear error, nothing sent); a screen
that may spend is never pressed; `runPlan` is counted."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fakes import FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text

from lluma_agent.loop.plans import PlanError, built_in, expand, parse
from lluma_agent.navmap import ScreenMap, save_map
from lluma_agent.runlog.turnlog import TurnLog
from lluma_vision.facts.screen import identify

TITLE = (40, 40, 300, 100)


def _phone(rest_opens: str = "rest", hub_extra: list[str] | None = None) -> FakePhone:
    return FakePhone({
        "hub": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400), button("Rest", 600, 1300, 1000, 1400)],
                          texts=[text("Career", *TITLE), *(text(t, 100, 600, 900, 660) for t in hub_extra or [])],
                          goes_to={"Training": "training", "Rest": rest_opens}),
        "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900), button("Back", 40, 1750, 240, 1840)],
                               texts=[text("Training", *TITLE)], goes_to={"Back": "hub", "Speed": "hub2"}),
        "rest": FakeScreen(buttons=[button("OK", 600, 1600, 900, 1700), button("Cancel", 100, 1600, 400, 1700)],
                           texts=[text("Rest", *TITLE), text("Rest for this turn?", 100, 900, 900, 960)],
                           goes_to={"OK": "hub2", "Cancel": "hub"}),
        "hub2": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], texts=[text("Day Two", *TITLE)]),
        "menu": FakeScreen(buttons=[button("Close", 400, 1600, 700, 1700)], texts=[text("Menu", *TITLE)],
                           goes_to={"Close": "hub"}),
    }, start="training")


def _seed(tmp: Path, phone: FakePhone, back: bool = True) -> None:
    """The map as earlier runs left it: Back from Training to the hub (unless not `back`), the hub's Training."""
    vision = FakeVision(phone)
    ids = {n: identify(vision.analyze(phone.images[n], phone.hashes[n])) for n in phone.screens}
    m = ScreenMap()
    for i in ids.values():
        m.see(i.id, i.name, 0.0)
    for _ in range(3 if back else 0):
        m.record(ids["training"].id, "pressButton:Back", ids["hub"].id, 1.0, 0.0, tool="pressButton",
                 args={"name": "Back"})
    for _ in range(3):
        m.record(ids["hub"].id, "pressButton:Training", ids["training"].id, 1.0, 0.0, tool="pressButton",
                 args={"name": "Training"})
    save_map(tmp / "memory.map.json", m)


def _log(tmp: Path, turn: int) -> TurnLog:
    return TurnLog.model_validate_json((tmp / "logs" / f"turn_{turn:06d}.json").read_text())


def _said(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def _pressed(phone: FakePhone) -> list[str]:
    names = {(b.bounds.center): b.name for s in phone.screens.values() for b in s.buttons}
    return [names.get((c[1], c[2]), "?") for c in phone.calls if c[0] == "tap"]


def test_rest_from_the_training_screen_is_one_call_and_three_checked_presses(tmp_path: Path) -> None:
    phone = _phone()
    _seed(tmp_path, phone)
    model = ScriptedModel([[call("runPlan", name="rest")], [call("pressButton", name="Training")]])
    c = loop(tmp_path, phone, model, max_turns=2)
    c.run()
    assert _pressed(phone) == ["Back", "Rest", "OK", "Training"]
    log = _log(tmp_path, 1)
    assert log.plan is not None and log.plan.done and not log.plan.surprise
    assert [s.action for s in log.plan.steps] == ["goto Career: Back", "press Rest", "press OK"]
    assert all(s.ok for s in log.plan.steps) and all(s.point for s in log.plan.steps)
    told = _said(model.requests[1])
    assert "runPlan(rest): done in 3 step(s)" in told and "you are on Day Two" in told
    assert (c.totals.plans_run, c.totals.plan_steps, c.totals.plan_surprises) == (1, 3, 0)


def test_a_way_back_the_map_does_not_know_yet_is_tried_once_and_checked(tmp_path: Path) -> None:
    phone = _phone()
    _seed(tmp_path, phone, back=False)  # the map knows the hub's Training, not the way back from it
    model = ScriptedModel([[call("runPlan", name="rest")], [call("pressButton", name="Training")]])
    loop(tmp_path, phone, model, max_turns=2).run()
    assert _pressed(phone) == ["Back", "Rest", "OK", "Training"]
    log = _log(tmp_path, 1)
    assert log.plan is not None and log.plan.done
    assert log.plan.steps[0].action == "goto Career: back (not on the map yet)" and log.plan.steps[0].ok
    assert log.plan.steps[0].element == "Back"  # the simulator's on-target check knows what it meant


def test_a_surprise_stops_the_plan_and_the_model_is_told_where_it_is(tmp_path: Path) -> None:
    phone = _phone(rest_opens="menu")  # the hub's Rest opens something else this time
    _seed(tmp_path, phone)
    model = ScriptedModel([[call("runPlan", name="rest")], [call("pressButton", name="Close")]])
    c = loop(tmp_path, phone, model, max_turns=2)
    c.run()
    assert _pressed(phone)[:2] == ["Back", "Rest"] and "OK" not in _pressed(phone)
    log = _log(tmp_path, 1)
    assert log.plan is not None and log.plan.surprise and "a surprise: Menu reached, Rest expected" in \
        log.plan.steps[-1].note
    told = _said(model.requests[1])
    assert "runPlan(rest): stopped at step 2" in told and "you are on Menu" in told
    assert c.totals.plan_surprises == 1


def test_a_known_dialog_over_a_step_is_passed_and_the_plan_goes_on(tmp_path: Path) -> None:
    """A connection error comes over the press of Rest: Retry (a night's known dialog) brings the game back to where
    it was, and the plan goes on from there, every press through the same gate."""
    error = FakeScreen(
        buttons=[button("Title Screen", 100, 1500, 400, 1580), button("Retry", 600, 1500, 900, 1580)],
        texts=[text("Connection Error", *TITLE), text("A communication error occurred.", 100, 900, 900, 960)],
        goes_to={"Retry": "rest", "Title Screen": "menu"})
    phone = FakePhone({**_phone(rest_opens="error").screens, "error": error}, start="training")
    _seed(tmp_path, phone)
    model = ScriptedModel([[call("runPlan", name="rest")], [call("pressButton", name="Training")]])
    c = loop(tmp_path, phone, model, max_turns=2)
    c.run()
    assert _pressed(phone) == ["Back", "Rest", "Retry", "OK", "Training"]
    log = _log(tmp_path, 1)
    assert log.plan is not None and log.plan.done and not log.plan.surprise
    rest, retry = log.plan.steps[1], log.plan.steps[2]
    assert (rest.action, rest.reached, rest.ok) == ("press Rest", "Connection Error", True)
    assert (retry.action, retry.reached, retry.ok, retry.note) == (
        "pass Connection Error: pressButton(Retry)", "Rest", True, "Connection Error came over step 2")
    assert retry.point is not None and retry.element == "Retry"  # the phone's tap is in the log, as every tap
    assert [s.action for s in log.plan.steps][3] == "press OK"
    assert "runPlan(rest): done in 4 step(s)" in _said(model.requests[1])


def _own_nap(tmp: Path, phone: FakePhone, steps: str, then: str) -> None:
    """The model's own procedure `nap` (`steps` as YAML) run from the training screen, then the model's `then`."""
    _seed(tmp, phone)
    (tmp / "memory").mkdir(exist_ok=True)
    (tmp / "memory" / "procedures.yaml").write_text(f"nap:\n  about: Back to the hub and rest.\n  steps:\n{steps}")
    model = ScriptedModel([[call("runPlan", name="nap")], [call("pressButton", name=then)]])
    loop(tmp, phone, model, max_turns=2).run()


def test_the_models_own_procedure_runs_and_a_bad_one_is_one_clear_error(tmp_path: Path) -> None:
    phone = _phone()
    _own_nap(tmp_path, phone, "    - goto: Career\n    - press: Rest\n      expect: Rest\n", "Cancel")
    assert _pressed(phone)[:2] == ["Back", "Rest"]
    assert _log(tmp_path, 1).plan is not None and _log(tmp_path, 1).plan.done  # type: ignore[union-attr]

    bad = tmp_path / "bad"
    phone2 = _phone()
    _seed(bad, phone2)
    (bad / "memory").mkdir(parents=True)
    (bad / "memory" / "procedures.yaml").write_text("nap:\n  about: x\n  steps:\n    - fly: Moon\n")
    model2 = ScriptedModel([[call("runPlan", name="nap")], [call("pressButton", name="Back")]])
    loop(bad, phone2, model2, max_turns=2).run()
    result = _said(model2.requests[1])
    assert "memory file procedures.yaml: procedure 'nap'" in result and "fly" in result
    assert _pressed(phone2) == ["Back"]  # nothing sent for the bad plan; the model's Back next turn


@pytest.mark.timeout(60)  # a FIFO's read waits for ever: the plan's turn hung
@pytest.mark.parametrize(("write", "said"), [
    (lambda p: p.write_text("nap: " + "[" * 3000 + "]" * 3000 + "\n"), "not YAML: nested more than 32 levels deep"),
    (lambda p: p.write_text("nap:\n  about: a nap\n  steps:\n    - press: Rest\n", encoding="utf-16"),
     "the file is UTF-16, not UTF-8; save it as UTF-8"),
    (lambda p: p.write_bytes(b"nap:\n  about: caf\xe9\n"), "the file is not UTF-8 (byte 0xe9 at position 17)"),
    (os.mkfifo, "a FIFO (named pipe), not a regular file"),
    (lambda p: p.write_text("rest:\n  about: mine\n  steps:\n    - press: Rest\n"),
     "rest is a built-in procedure's name"),
])
def test_a_bad_procedures_file_costs_only_its_own_procedures(tmp_path: Path, caplog: pytest.LogCaptureFixture,
                                                             write: Any, said: str) -> None:
    """Before: a deep nest was a RecursionError (3,000 lines of traceback a turn, the run ended), a file not UTF-8 an
    error naming no file, and any bad file refused every built-in plan. Now the built-in plans go on, the file is
    named once (its path, what is wrong: stderr and the turn log), left where it is for the model or a person to
    mend, and the model is told when it asks for a procedure."""
    phone = _phone()
    _seed(tmp_path, phone)
    (tmp_path / "memory").mkdir()
    path = tmp_path / "memory" / "procedures.yaml"
    write(path)
    model = ScriptedModel([[call("runPlan", name=n)] for n in ("rest", "nap", "rest")])
    loop(tmp_path, phone, model, max_turns=3).run()
    assert _pressed(phone)[:3] == ["Back", "Rest", "OK"]  # the built-in rest ran
    first = _log(tmp_path, 1)
    assert first.plan is not None and first.plan.done
    [told] = [e for e in first.errors if e.startswith("plans: ")]  # one line, naming the file and its fault
    assert told.startswith(f"plans: {path}: {said}") and "\n" not in told
    assert told.endswith("; its procedures are left out (the file stays), the built-in ones go on")
    assert not any(e.startswith("plans: ") for t in (2, 3) for e in _log(tmp_path, t).errors)  # said once
    assert [r.getMessage() for r in caplog.records if "procedures.yaml" in r.getMessage()] == [told]  # stderr too
    assert f"memory file procedures.yaml: {said}" in _said(model.requests[1])  # with the plan's account
    asked = _said(model.requests[2])  # its own procedure asked for: the file's fault, nothing sent
    assert "no procedure 'nap'" in asked and f"memory file procedures.yaml: {said}" in asked
    assert os.path.lexists(path) and not list(path.parent.glob("procedures.yaml?*"))  # left as it is


@pytest.mark.parametrize(("rest_opens", "pressed"), [("rest", ["Back", "Rest", "OK"]), ("hub2", ["Back", "Rest"])])
def test_a_confirm_the_game_may_not_show_is_pressed_only_if_shown(tmp_path: Path, rest_opens: str,
                                                                  pressed: list[str]) -> None:
    """`if_shown: true`: the Infirmary's and Recreation's OK (FACTS names no confirm for them) is pressed when a
    confirm shows and skipped when the game went straight on; the plan is done either way, no surprise."""
    phone = _phone(rest_opens=rest_opens)
    _own_nap(tmp_path, phone, "    - goto: Career\n    - press: Rest\n    - press: OK\n      if_shown: true\n",
             "Training")
    assert _pressed(phone) == [*pressed, "Training"]
    log = _log(tmp_path, 1).plan
    assert log is not None and log.done and not log.surprise


def test_a_plan_never_starts_on_a_screen_that_may_spend(tmp_path: Path) -> None:
    phone = _phone(hub_extra=["Use 1 Alarm Clock?"])
    phone.screen = "hub"
    _seed(tmp_path, phone)
    model = ScriptedModel([[call("runPlan", name="rest")], [call("pressButton", name="Training")]])
    loop(tmp_path, phone, model, max_turns=2).run()
    assert "never presses on a screen that may spend" in _said(model.requests[1])
    assert _pressed(phone) == ["Training"]


def test_the_built_in_procedures_load_and_expand() -> None:
    procs = built_in()
    assert {"rest", "recreation", "infirmary", "train", "race_day", "race", "skills", "go", "new_career"} <= set(procs)
    steps = expand(procs["skills"], {"skills": ["Corner Recovery", "Straightaway Adept"]})
    assert [s.press for s in steps if s.press] == ["Corner Recovery", "Straightaway Adept"]
    assert [s.choose for s in expand(procs["train"], {"stat": "Speed"}) if s.choose] == ["Speed"]
    with pytest.raises(PlanError, match="missing argument"):
        expand(procs["train"], {})
    with pytest.raises(PlanError, match="unknown argument"):
        expand(procs["rest"], {"stat": "Speed"})


@pytest.mark.parametrize(("text", "why"), [
    ("x:\n  about: a\n  steps: []\n", "at least 1"),
    ("x:\n  about: a\n  steps:\n    - goto: A\n      press: B\n", "exactly one of goto, press, choose"),
    ("x:\n  about: a\n  steps:\n    - press: '{who}'\n", "{who} is not an argument"),
    ("x:\n  about: a\n  steps:\n" + "    - press: A\n" * 13, "at most 12"),
    ("Bad Name:\n  about: a\n  steps:\n    - press: A\n", "not a procedure name"),
    ("- press: A\n", "must map procedure names"),
    ("x:\n  about: a\n  steps:\n    - goto: A\n      if_shown: true\n", "if_shown goes with a press"),
])
def test_a_procedure_written_wrong_is_refused_with_its_fault(text: str, why: str) -> None:
    with pytest.raises(PlanError, match=why.replace("{", r"\{").replace("}", r"\}")):
        parse(text, "memory file procedures.yaml")


def test_on_the_skill_list_a_plan_presses_the_buttons_the_model_named_and_nothing_of_its_own(tmp_path: Path) -> None:
    """The list's title "Learn" marks it as a screen that may spend (loop.never_autopilot): a plan presses there only
    the buttons the model named in its list argument (the "+" of each skill it chose); a step of the procedure's own
    (Confirm) stops it, and the model presses that itself."""
    steppers = [button(n, 900, y, 980, y + 80) for n, y in (("+", 400), ("+#2", 600), ("+#3", 800))]
    phone = FakePhone({"learn": FakeScreen(
        buttons=[*steppers, button("Confirm", 300, 1500, 700, 1600), button("Back", 40, 1750, 240, 1840)],
        texts=[text("Learn", *TITLE), text("Skill Points 300", 100, 200, 900, 260)])}, start="learn")
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "procedures.yaml").write_text(
        "mark_all:\n  about: Mark and confirm.\n  args: [skills]\n  steps:\n"
        "    - press: \"{item}\"\n      each: skills\n    - press: Confirm\n")
    model = ScriptedModel([[call("runPlan", name="skills", args={"skills": ["+#3", "+"]})],
                           [call("runPlan", name="mark_all", args={"skills": ["+#2"]})],
                           [call("pressButton", name="Confirm")]])
    loop(tmp_path, phone, model, max_turns=3).run()
    assert _pressed(phone) == ["+#3", "+", "+#2", "Confirm"]
    first, second = _log(tmp_path, 1).plan, _log(tmp_path, 2).plan
    assert first is not None and first.done and not first.surprise
    assert second is not None and not second.done and "may spend" in second.steps[-1].note
