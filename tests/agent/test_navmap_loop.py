"""The screen map in the real turn loop, on the fake phone: recording, the <map> line, goTo, routine passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from fakes import FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text
from PIL import Image

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.gated import InTheLoop, Verdict
from lluma_agent.navmap import ScreenMap, Transition, load_map, save_map
from lluma_agent.runlog.turnlog import TurnLog
from lluma_agent.tools.registry import default_tools
from lluma_vision.facts.screen import identify
from lluma_vision.phash import phash

TITLE = (40, 40, 300, 100)  # a title in the header band: the screen's identity and name


def _phone(start: str, races_go_to: str = "races", next_goes_to: str = "hub") -> FakePhone:
    return FakePhone({
        "hub": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400), button("Races", 600, 1300, 1000, 1400)],
                          texts=[text("Hub", *TITLE)], goes_to={"Training": "training", "Races": races_go_to}),
        "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900), button("Back", 40, 1750, 240, 1840)],
                               texts=[text("Training", *TITLE)], goes_to={"Back": "hub", "Speed": "result"}),
        "result": FakeScreen(buttons=[button("Next", 400, 1600, 700, 1700)], texts=[text("Result", *TITLE)],
                             goes_to={"Next": next_goes_to}),
        "races": FakeScreen(buttons=[button("Race", 400, 1600, 700, 1700), button("Back", 40, 1750, 240, 1840)],
                            texts=[text("Races", *TITLE)], goes_to={"Back": "hub", "back": "hub"}),
        "learn": FakeScreen(buttons=[button("OK", 400, 1600, 700, 1700), button("Cancel", 40, 1600, 340, 1700)],
                            texts=[text("Learn Skills", *TITLE)], goes_to={"OK": "hub", "Cancel": "hub"}),
    }, start=start)


def _ids(phone: FakePhone) -> dict[str, str]:
    vision = FakeVision(phone)
    return {name: identify(vision.analyze(phone.images[name], phone.hashes[name])).id for name in phone.screens}


def _seed(tmp: Path, phone: FakePhone, *edges: Edge, times: int = 3) -> None:
    """A map file beside the memory folder, as earlier runs left it: each edge taken `times` times."""
    ids, m = _ids(phone), ScreenMap()
    for name in phone.screens:
        m.see(ids[name], name.capitalize() if name != "learn" else "Learn Skills", 0.0)
    for _ in range(times):
        for src, action, dst, tool, args in edges:
            m.record(ids[src], action, ids[dst], 1.0, 0.0, tool=tool, args=args)
    save_map(tmp / "memory.map.json", m)


Edge = tuple[str, str, str, str, dict[str, str]]
NEXT: Edge = ("result", "pressButton:Next", "hub", "pressButton", {"name": "Next"})
BACK: Edge = ("training", "back", "hub", "back", {})
RACES: Edge = ("hub", "pressButton:Races", "races", "pressButton", {"name": "Races"})


def _edge(tmp: Path, phone: FakePhone, src: str, action: str, dst: str) -> Transition:
    ids = _ids(phone)
    edge = load_map(tmp / "memory.map.json").edge(ids[src], action, ids[dst])
    assert edge is not None
    return edge


def _loop(tmp: Path, phone: FakePhone, model: ScriptedModel, turns: int, logs: str = "logs",
          person: InTheLoop | None = None, app: bool = False, **settings: Any) -> Coordinator:
    return loop(tmp, phone, model, logs=logs, settings=settings, person=person, app=app, max_turns=turns)


def _log(tmp: Path, turn: int) -> TurnLog:
    return TurnLog.model_validate_json((tmp / "logs" / f"turn_{turn:06d}.json").read_text())


def _texts(request: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in request["messages"][-1]["content"] if b["type"] == "text")


def _results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in request["messages"][-1]["content"] if b["type"] == "tool_result"]


# ---- recording and where you are ---------------------------------------------------------------------------
def test_each_turn_records_where_its_action_led_and_the_next_turn_says_where_it_is(tmp_path: Path) -> None:
    phone = _phone("hub")
    model = ScriptedModel([[call("pressButton", name="Training")], [call("back")], [call("pressButton", name="Races")]])
    _loop(tmp_path, phone, model, 3).run()
    ids = _ids(phone)
    m = load_map(tmp_path / "memory.map.json")  # beside the memory folder, not in it
    assert not list((tmp_path / "memory").glob("*.map.json"))
    edges = {(t.src, t.action, t.dst): t.count for t in m.transitions}
    assert edges == {(ids["hub"], "pressButton:Training", ids["training"]): 1,
                     (ids["training"], "back", ids["hub"]): 1}
    assert m.pending is not None and m.pending.action == "pressButton:Races"  # the last press: a resume completes it
    # the <map> line, current turn only: the third turn is on the hub again and knows one way out
    assert "<map>screen: Hub; ways out: none known yet</map>" in _texts(model.requests[0])
    assert "<map>screen: Training; ways out: none known yet</map>" in _texts(model.requests[1])
    assert "<map>screen: Hub; ways out: Training -> Training</map>" in _texts(model.requests[2])
    assert "<map>" not in json.dumps(model.requests[2]["messages"][:-1])  # past turns keep their compact form


def test_the_map_line_names_screens_a_walk_reaches_beyond_one_press(tmp_path: Path) -> None:
    """Training -> Speed -> Result -> Next -> Hub known: on the training screen the Result is one press away (a way
    out), the Hub two (a goTo place)."""
    phone = _phone("training")
    _seed(tmp_path, phone, ("training", "pressButton:Speed", "result", "pressButton", {"name": "Speed"}), NEXT)
    model = ScriptedModel([[call("pressButton", name="Speed")]])
    _loop(tmp_path, phone, model, 1, loop__autopilot=False).run()
    assert "<map>screen: Training; ways out: Speed -> Result; goTo: Hub</map>" in _texts(model.requests[0])


def test_the_map_is_kept_across_runs(tmp_path: Path) -> None:
    phone = _phone("hub")
    _loop(tmp_path, phone, ScriptedModel([[call("pressButton", name="Training")], [call("back")]]), 2).run()
    model = ScriptedModel([[call("pressButton", name="Training")]])
    _loop(tmp_path, phone, model, 1, logs="logs2").run()
    assert "ways out: Training -> Training" in _texts(model.requests[0])


def test_a_resumed_sitting_completes_the_pending_action_and_another_run_does_not(tmp_path: Path) -> None:
    phone = _phone("hub")
    _loop(tmp_path, phone, ScriptedModel([[call("pressButton", name="Training")]]), 1).run()
    first = load_map(tmp_path / "memory.map.json")
    assert first.pending is not None and first.pending.action == "pressButton:Training" and not first.transitions
    _loop(tmp_path, phone, ScriptedModel([[call("back")]]), 1).run()  # the same run folder: a resumed sitting
    assert _edge(tmp_path, phone, "hub", "pressButton:Training", "training").count == 1
    _loop(tmp_path, phone, ScriptedModel([[call("back")]]), 1, logs="other").run()  # another run: no outcome
    ids = _ids(phone)
    assert load_map(tmp_path / "memory.map.json").edge(ids["training"], "back", ids["hub"]) is None


def test_map_disabled_adds_nothing(tmp_path: Path) -> None:
    phone = _phone("result")
    _seed(tmp_path, phone, NEXT)
    before = (tmp_path / "memory.map.json").read_bytes()
    model = ScriptedModel([[call("pressButton", name="Next")], [call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2, map__enabled=False).run()
    assert len(model.requests) == 2 and totals.routine_passes == 0  # no pass: the model played both turns
    assert all("goTo" not in [t["name"] for t in r["tools"]] for r in model.requests)
    assert "<map>" not in json.dumps(model.requests) and "screen map" not in json.dumps(model.requests[0]["system"])
    assert (tmp_path / "memory.map.json").read_bytes() == before  # neither read into a turn nor written
    assert [t["name"] for t in model.requests[0]["tools"]] == [t["name"] for t in default_tools().definitions()]


# ---- goTo --------------------------------------------------------------------------------------------------
def test_goto_walks_the_known_path_checking_each_step(tmp_path: Path) -> None:
    phone = _phone("training")
    _seed(tmp_path, phone, BACK, RACES)
    model = ScriptedModel([[call("goTo", screen="races")], [call("back")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert phone.calls[:2] == [("tap", 140, 1795), ("tap", 800, 1350)]  # Back on training, then Races on the hub
    assert "goTo" in [t["name"] for t in model.requests[0]["tools"]]
    assert "# The screen map" in json.dumps(model.requests[0]["system"])
    log = _log(tmp_path, 1)
    assert log.action is not None and (log.action.tool, log.action.target) == ("goTo", "Races")
    assert [(s.step, s.of, s.action, s.expected, s.reached, s.ok) for s in log.navigation] == [
        (1, 2, "back", "Hub", "Hub", True), (2, 2, "pressButton:Races", "Races", "Races", True)]
    assert [s.point for s in log.navigation] == [[140, 1795], [800, 1350]]
    assert [s.element for s in log.navigation] == ["Back", "Races"]
    [result] = _results(model.requests[1])
    assert result["content"].startswith("goTo(Races): walked 2 step(s) (back -> Hub; Races -> Races); you are on Races")
    assert totals.goto_calls == 1
    assert _edge(tmp_path, phone, "hub", "pressButton:Races", "races").count == 4


def test_goto_stops_at_a_surprise_and_says_where_it_is(tmp_path: Path) -> None:
    phone = _phone("training", races_go_to="result")  # the game changed: Races now leads to a result screen
    _seed(tmp_path, phone, BACK, RACES)
    model = ScriptedModel([[call("goTo", screen="Races")], [call("pressButton", name="Next")]])
    _loop(tmp_path, phone, model, 2).run()
    log = _log(tmp_path, 1)
    assert [(s.step, s.ok, s.reached) for s in log.navigation] == [(1, True, "Hub"), (2, False, "Result")]
    [result] = _results(model.requests[1])
    assert "stopped at step 2 of 2 (a surprise" in result["content"] and "; you are on Result;" in result["content"]
    assert _edge(tmp_path, phone, "hub", "pressButton:Races", "races").fails == 1
    assert _edge(tmp_path, phone, "hub", "pressButton:Races", "result").count == 1


def test_goto_to_an_unknown_screen_lists_the_known_ones(tmp_path: Path) -> None:
    phone = _phone("training")
    _seed(tmp_path, phone, BACK)
    model = ScriptedModel([[call("goTo", screen="Shop")], [call("back")]])
    _loop(tmp_path, phone, model, 2).run()
    [result] = _results(model.requests[1])
    assert result["is_error"] and result["content"].startswith("no screen 'Shop' on the map; known screens: ")
    assert "Hub" in result["content"] and phone.calls[0] == ("tap", 140, 1795)  # nothing tapped until turn 2


def test_a_person_in_the_loop_sees_each_step_of_a_goto(tmp_path: Path) -> None:
    phone = _phone("training")
    _seed(tmp_path, phone, BACK, RACES)
    asked: list[str] = []

    def gate(turn: int, planned: Any, frame: Any, problem: str) -> Verdict:
        asked.append(planned.label)
        return Verdict(answer="yes")

    coordinator = _loop(tmp_path, phone, ScriptedModel([[call("goTo", screen="Races")]]), 1,
                        person=InTheLoop(gate=gate))
    coordinator.run()
    assert asked == ["goTo(Races)", "pressButton(Races)"] and len(phone.calls) == 2


def test_a_goto_step_a_person_vetoes_is_not_sent_and_the_walk_stops_there(tmp_path: Path) -> None:
    phone = _phone("training")
    _seed(tmp_path, phone, BACK, RACES)
    answers = iter(["yes", "no"])
    model = ScriptedModel([[call("goTo", screen="Races")], [call("pressButton", name="Training")]])
    coordinator = _loop(tmp_path, phone, model, 2,
                        person=InTheLoop(gate=lambda *a: Verdict(answer=next(answers, "yes"))))
    coordinator.run()
    assert phone.calls[0] == ("tap", 140, 1795) and ("tap", 800, 1350) not in phone.calls  # Back, never Races
    log = _log(tmp_path, 1)
    assert [(s.step, s.ok) for s in log.navigation] == [(1, True), (2, False)]
    assert log.navigation[1].point is None and "vetoed pressButton(Races)" in log.navigation[1].note
    assert log.person == "vetoed pressButton(Races)"
    [result] = _results(model.requests[1])
    assert "stopped at step 2 of 2 (not sent (vetoed pressButton(Races))" in result["content"]


def test_step_mode_asks_before_each_later_step_of_a_goto(tmp_path: Path) -> None:
    phone = _phone("training")
    _seed(tmp_path, phone, BACK, RACES)
    asked: list[tuple[int, str]] = []
    coordinator = _loop(tmp_path, phone, ScriptedModel([[call("goTo", screen="Races")]]), 1, person=InTheLoop(
        before_step=lambda turn, what: asked.append((turn, what)) is None and False))  # q: stop
    coordinator.run()
    assert asked == [(1, "goTo(Races) step 2 of 2: Races")]
    assert phone.calls == [("tap", 140, 1795)] and coordinator.stop_requested  # nothing after the person's q


def test_a_goto_step_is_not_sent_on_a_screen_that_moved_since_it_was_read(tmp_path: Path) -> None:
    """The stale-frame check of every input: the hub read, then the game moved on before step 2 went out."""
    phone = _phone("training")
    _seed(tmp_path, phone, BACK, RACES)
    hub_captures = 0
    real = phone.capture

    def capture() -> Any:  # the hub settles in two captures; the third (the check before step 2) finds a result
        nonlocal hub_captures
        hub_captures += phone.screen == "hub"
        if hub_captures == 3:
            phone.screen = "result"
        return real()

    phone.capture = capture  # type: ignore[method-assign]
    model = ScriptedModel([[call("goTo", screen="Races")], [call("pressButton", name="Next")]])
    _loop(tmp_path, phone, model, 2).run()
    assert phone.calls[0] == ("tap", 140, 1795) and ("tap", 800, 1350) not in phone.calls
    log = _log(tmp_path, 1)
    assert "the screen changed while you were deciding" in log.navigation[-1].note
    assert any("the screen changed while you were deciding" in e for e in log.errors)  # the log says what was sent


def _spending(start: str) -> FakePhone:
    """The Rest confirm and a confirm with the same title and buttons whose body spends an alarm clock."""
    phone = _resting(start)
    rest = phone.screens["rest"]
    rest.texts[0] = text("Confirm", 430, 700, 650, 760)
    phone.screens["spend"] = FakeScreen(buttons=list(rest.buttons),
                                        texts=[text("Confirm", 430, 700, 650, 760),
                                               text("Use 1 Alarm Clock to try again?", 230, 800, 850, 850)],
                                        goes_to={"OK": "result", "Cancel": "result"})
    rng = np.random.default_rng(11)
    phone.images["spend"] = Image.fromarray(rng.integers(0, 255, (192, 108, 3), dtype=np.uint8))
    phone.hashes["spend"] = phash(phone.images["spend"])
    phone.screens["result"].goes_to["Next"] = "spend"
    return phone


def test_a_spend_dialog_that_shares_its_title_with_an_approved_confirm_is_never_passed(tmp_path: Path) -> None:
    phone = _spending("hub")
    ids = _ids(phone)
    assert ids["spend"] != ids["rest"]  # a dialog's body is part of its identity: a spend is never a rest
    # the map trusts both confirms' OK (taken before); the model approved the rest, the alarm clock is its choice
    _seed(tmp_path, phone, REST_OK_RESULT, ("spend", "pressButton:OK", "result", "pressButton", {"name": "OK"}),
          NEXT, times=3)
    model = ScriptedModel([[call("pressButton", name="Rest")], [call("pressButton", name="Cancel")]])
    totals = _loop(tmp_path, phone, model, 4).run()
    # turn 1 Rest (model), 2 its OK (routine), 3 the result's Next (routine), 4 the spend: the model's
    assert totals.routine_passes == 2 and len(model.requests) == 2
    assert _log(tmp_path, 4).routine is None and _log(tmp_path, 4).action is not None
    assert _log(tmp_path, 4).action.target == "Cancel"  # type: ignore[union-attr]


def test_a_routine_screen_whose_body_shows_a_spend_is_the_models(tmp_path: Path) -> None:
    phone = _phone("result")
    phone.screens["result"].texts.append(text("Exchange 50 Carats for 1 Clock", 200, 900, 880, 950))
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Next")]])
    totals = _loop(tmp_path, phone, model, 1).run()
    assert totals.routine_passes == 0 and len(model.requests) == 1


def _goto_races_with(tmp: Path, screen: str, line: str) -> tuple[FakePhone, ScriptedModel]:
    """goTo(Races) from the training screen (Back, then Races on the hub), `line` shown on `screen`."""
    phone = _phone("training")
    phone.screens[screen].texts.append(text(line, 200, 900, 880, 950))
    _seed(tmp, phone, BACK, RACES)
    model = ScriptedModel([[call("goTo", screen="Races")], [call("back")]])
    _loop(tmp, phone, model, 2).run()
    return phone, model


def test_goto_never_walks_on_through_a_screen_that_may_spend(tmp_path: Path) -> None:
    phone, model = _goto_races_with(tmp_path, "hub", "Use 1 Alarm Clock")
    assert phone.calls[0] == ("tap", 140, 1795) and ("tap", 800, 1350) not in phone.calls
    [result] = _results(model.requests[1])
    assert "the screen may spend something (it asks to spend: 'Use 1 Alarm Clock' (1, Alarm Clock))" in result[
        "content"]


def test_goto_does_not_start_on_a_screen_that_may_spend(tmp_path: Path) -> None:
    phone, model = _goto_races_with(tmp_path, "training", "Spend 30 TP")
    [result] = _results(model.requests[1])
    assert result["is_error"] and "goTo never presses on a screen that may spend something" in result["content"]
    assert _log(tmp_path, 1).action is None and len(phone.calls) == 1  # only turn 2's back was sent


def test_a_routine_pass_whose_input_was_never_answered_holds_the_next_input(tmp_path: Path) -> None:
    """The tap of a routine pass runs late on the phone: the model's next input must wait for it and then see the
    screen moved, never land a second tap on what the late one opened."""
    import threading

    phone = _phone("result")
    _seed(tmp_path, phone, NEXT)
    tap = phone.tap

    def late_tap(box: Any) -> tuple[int, int]:
        before = phone.screen
        try:
            return tap(box)
        finally:
            after, phone.screen = phone.screen, before  # the phone acts on it 0.3 s after the agent gave up
            threading.Timer(0.3, lambda: setattr(phone, "screen", after)).start()

    phone.tap = late_tap  # type: ignore[method-assign]
    phone.unconfirmed = True
    model = ScriptedModel([[call("pressButton", name="Next")]])
    coordinator = _loop(tmp_path, phone, model, 2)
    coordinator.actor.quiet_s = 0.6  # two command timeouts, shortened for the test
    coordinator.run()
    assert _log(tmp_path, 1).routine is not None and _log(tmp_path, 1).action.outcome == "unknown"  # type: ignore
    assert phone.calls == [("tap", 550, 1650)]  # the model's Next (turn 2) waited, saw the hub, sent nothing
    assert any("the screen changed while you were deciding" in e for e in _log(tmp_path, 2).errors)


# ---- routine passes ----------------------------------------------------------------------------------------
def test_a_routine_screen_is_passed_without_a_model_call_and_the_next_turn_is_told(tmp_path: Path) -> None:
    phone = _phone("result")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert len(model.requests) == 1 and totals.routine_passes == 1
    assert phone.calls[0] == ("tap", 550, 1650)
    first = _log(tmp_path, 1)
    assert first.routine is not None and (first.routine.action, first.routine.expected) == ("pressButton:Next", "Hub")
    assert first.action is not None and not first.action.forced and first.response is None
    told = _texts(model.requests[0])
    assert "[passed without asking: Next on Result -> Hub]" in told and "NOTE:" not in told


def test_autopilot_off_asks_the_model(tmp_path: Path) -> None:
    phone = _phone("result")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Next")], [call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2, loop__autopilot=False).run()
    assert len(model.requests) == 2 and totals.routine_passes == 0


def test_a_screen_that_spends_is_never_passed(tmp_path: Path) -> None:
    phone = _phone("learn")
    _seed(tmp_path, phone, ("learn", "pressButton:OK", "hub", "pressButton", {"name": "OK"}))
    model = ScriptedModel([[call("pressButton", name="OK")]])
    totals = _loop(tmp_path, phone, model, 1).run()
    assert len(model.requests) == 1 and totals.routine_passes == 0


def test_a_pass_that_goes_elsewhere_marks_the_edge_and_hands_over(tmp_path: Path) -> None:
    phone = _phone("result", next_goes_to="training")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("back")]])
    _loop(tmp_path, phone, model, 2).run()
    assert len(model.requests) == 1  # turn 2, on the training screen, is the model's
    assert ("[passed without asking: Next on Result -> Training (the map expected Hub; the next turn is yours)]"
            in _texts(model.requests[0]))
    assert _edge(tmp_path, phone, "result", "pressButton:Next", "hub").fails == 1


def test_a_notice_with_one_ok_after_a_pass_that_went_elsewhere_is_still_dismissed(tmp_path: Path) -> None:
    """The title led to a login bonus this morning, not where it led before: the hold hands the next decision to
    the model, but a notice whose one button is OK is passed at first sight as ever (it offers nothing to decide)."""
    said = text("Day 3 of 7 Carats x 50 received!", 100, 900, 980, 960)
    bonus = FakeScreen(buttons=[button("OK", 400, 1600, 700, 1700)], texts=[text("Login Bonus", *TITLE), said],
                       goes_to={"OK": "hub"})
    phone = FakePhone({**_phone("result", next_goes_to="bonus").screens, "bonus": bonus}, start="result")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    _loop(tmp_path, phone, model, 3).run()
    assert len(model.requests) == 1  # turn 3, on the hub
    told = _texts(model.requests[0])
    assert "Next on Result -> Login Bonus (the map expected Hub; the next turn is yours); OK on Login Bonus -> Hub" \
        in told


def test_a_story_page_after_a_pass_that_went_elsewhere_is_still_moved_on(tmp_path: Path) -> None:
    """Continue Career resumed an event's story, not the hub it led to before: a story page without choices offers
    nothing to decide, so the map's advance passes it despite the hold."""
    line = "She stretches and looks at the track."
    story = FakeScreen(buttons=[button("Skip", 800, 1750, 1000, 1840)],
                       texts=[text("Event", *TITLE), text(line, 100, 1400, 980, 1460)], goes_to={line: "hub"},
                       cinematic="dialogue")
    phone = FakePhone({**_phone("result", next_goes_to="story").screens, "story": story}, start="result")
    _seed(tmp_path, phone, NEXT, ("story", "advanceDialogue", "story", "advanceDialogue", {}))
    model = ScriptedModel([[call("pressButton", name="Training")]])
    _loop(tmp_path, phone, model, 3).run()
    first, second = _log(tmp_path, 1), _log(tmp_path, 2)
    assert first.routine is not None and second.routine is not None  # the story page passed despite the hold
    assert second.routine.action == "advanceDialogue" and len(model.requests) == 1  # the hub after it is the model's


def test_routine_passes_are_bounded(tmp_path: Path) -> None:
    """A screen that leads to itself by its one way out (a loop the map trusts) is not passed for ever."""
    phone = _phone("result", next_goes_to="result")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Next")]])
    totals = _loop(tmp_path, phone, model, 2, loop__max_routine=1).run()
    assert totals.routine_passes == 1 and len(model.requests) == 1


def _resting(start: str) -> FakePhone:
    """A hub whose Rest opens a confirm dialog (Cancel / OK), as the game's does."""
    phone = _phone(start)
    phone.screens["hub"].buttons.append(button("Rest", 100, 1500, 500, 1600))
    phone.screens["hub"].goes_to["Rest"] = "rest"
    phone.screens["rest"] = FakeScreen(
        buttons=[button("Cancel", 130, 1000, 520, 1100), button("OK", 560, 1000, 950, 1100)],
        texts=[text("Rest", 480, 700, 600, 760), text("Rest for this turn?", 320, 800, 760, 850)],
        goes_to={"OK": "result", "Cancel": "hub"})
    rng = np.random.default_rng(9)  # the fake phone's pictures: one more distinct noise image
    phone.images["rest"] = Image.fromarray(rng.integers(0, 255, (192, 108, 3), dtype=np.uint8))
    phone.hashes["rest"] = phash(phone.images["rest"])
    return phone


REST_OK_HUB: Edge = ("rest", "pressButton:OK", "hub", "pressButton", {"name": "OK"})
REST_OK_RESULT: Edge = ("rest", "pressButton:OK", "result", "pressButton", {"name": "OK"})


def test_a_confirm_the_model_asked_for_is_passed_wherever_its_ok_led_before(tmp_path: Path) -> None:
    phone = _resting("hub")
    assert identify(FakeVision(phone).analyze(phone.images["rest"], phone.hashes["rest"])).kind == "dialog"
    _seed(tmp_path, phone, REST_OK_HUB, REST_OK_RESULT, times=1)  # OK led to two screens: no routine by the map
    model = ScriptedModel([[call("pressButton", name="Rest")], [call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 4).run()
    # the model rested; its confirm went alone, and the result's lone Next at first sight
    assert len(model.requests) == 2 and totals.routine_passes == 2
    assert _log(tmp_path, 2).routine is not None and phone.screen != "rest"
    assert "[passed without asking: OK on Rest -> Result; Next on Result -> Hub]" in _texts(model.requests[1])


def test_a_confirm_nobody_asked_for_is_the_models(tmp_path: Path) -> None:
    phone = _resting("rest")  # the dialog is there when the run starts: whose choice it confirms is unknown
    _seed(tmp_path, phone, REST_OK_HUB, REST_OK_RESULT, times=1)
    model = ScriptedModel([[call("pressButton", name="Cancel")]])
    totals = _loop(tmp_path, phone, model, 1).run()
    assert len(model.requests) == 1 and totals.routine_passes == 0


def test_a_screens_only_way_on_is_passed_wherever_it_led_before(tmp_path: Path) -> None:
    """A result screen with nothing but Next: the game decides what comes after it (an event, the hub)."""
    phone = _phone("result")
    _seed(tmp_path, phone, ("result", "pressButton:Next", "training", "pressButton", {"name": "Next"}), NEXT, times=1)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert totals.routine_passes == 1 and len(model.requests) == 1
    assert "[passed without asking: Next on Result -> Hub]" in _texts(model.requests[0])


def test_a_screen_with_another_way_on_needs_the_same_result_each_time(tmp_path: Path) -> None:
    phone = _phone("hub")
    _seed(tmp_path, phone, RACES, ("hub", "pressButton:Races", "training", "pressButton", {"name": "Races"}), times=1)
    model = ScriptedModel([[call("pressButton", name="Races")]])
    totals = _loop(tmp_path, phone, model, 1).run()
    assert totals.routine_passes == 0 and len(model.requests) == 1


# ---- interruptions --------------------------------------------------------------------------------------------
def test_a_dialog_that_came_over_a_routine_pass_is_an_interruption_and_the_pass_did_not_fail(tmp_path: Path) -> None:
    """The result's Next always led to the hub; once Android's not-responding dialog came first (the hazard comes
    after the input). Wait dismissed it onto the hub: the map keeps Next -> Hub as the result's one way out (no
    failure), and the dialog apart, as an interruption of the result screen."""
    anr = FakeScreen(buttons=[button("Close app", 100, 900, 980, 980), button("Wait", 100, 1000, 980, 1080)],
                     texts=[text("Game isn't responding", *TITLE)], goes_to={"Wait": "hub"})
    phone = FakePhone({**_phone("result", next_goes_to="anr").screens, "anr": anr}, start="result")
    _seed(tmp_path, phone, NEXT)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    _loop(tmp_path, phone, model, 3).run()
    assert _log(tmp_path, 1).routine is not None  # the result was passed on the map: the dialog came over it
    assert _log(tmp_path, 2).routine is not None  # a dialog a night brings, dismissed at first sight (Wait)
    assert len(model.requests) == 1 and phone.screen == "training"
    ids, m = _ids(phone), load_map(tmp_path / "memory.map.json")
    assert [(t.action, t.dst, t.count, t.fails) for t in m.ways_out(ids["result"])] == [
        ("pressButton:Next", ids["hub"], 4, 0)]
    assert [(i.screen, i.over, i.action, i.way_out, i.count) for i in m.interruptions] == [
        (ids["anr"], ids["result"], "pressButton:Next", "pressButton:Wait", 1)]


def _connection(start: str, title: str = "Server Notice") -> FakePhone:
    """A dialog over the game (Title Screen / Retry, as FACTS' connection error) that Retry dismisses onto the hub;
    by default one the known dialogs (lluma_knowledge/procedures/dialogs.yaml) do not name."""
    error = FakeScreen(buttons=[button("Title Screen", 140, 1000, 500, 1080), button("Retry", 580, 1000, 940, 1080)],
                       texts=[text(title, 340, 700, 740, 760),
                              text("A communication error occurred.", 240, 840, 840, 890)],
                       goes_to={"Retry": "hub"})
    return FakePhone({**_phone(start).screens, "error": error}, start=start)


RETRY_HUB: Edge = ("error", "pressButton:Retry", "hub", "pressButton", {"name": "Retry"})
RETRY_TRAINING: Edge = ("error", "pressButton:Retry", "training", "pressButton", {"name": "Retry"})


def test_a_dialog_that_comes_over_the_game_is_dismissed_as_the_model_did_before(tmp_path: Path) -> None:
    """A connection error seen over the hub and over the training screen, Retry chosen each time: it comes over the
    game, so Retry is passed without the model (its Title Screen is no choice the model made) wherever it leads."""
    phone = _connection("error")
    assert identify(FakeVision(phone).analyze(phone.images["error"], phone.hashes["error"])).kind == "dialog"
    _seed(tmp_path, phone, ("hub", "pressButton:Races", "error", "pressButton", {"name": "Races"}), RETRY_HUB,
          ("training", "pressButton:Speed", "error", "pressButton", {"name": "Speed"}), RETRY_TRAINING, times=1)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert totals.routine_passes == 1 and len(model.requests) == 1
    assert "[passed without asking: Retry on Server Notice -> Hub]" in _texts(model.requests[0])


def test_a_dialog_a_night_brings_is_dismissed_at_first_sight(tmp_path: Path) -> None:
    """A connection error (FACTS' title and Retry) on a map that never saw one: dismissed without the model."""
    phone = _connection("error", title="Connection Error")
    model = ScriptedModel([[call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert totals.routine_passes == 1 and len(model.requests) == 1 and _log(tmp_path, 1).response is None
    assert "[passed without asking: Retry on Connection Error -> Hub]" in _texts(model.requests[0])


def test_a_lone_next_is_pressed_at_first_sight_and_a_lone_other_button_is_the_models(tmp_path: Path) -> None:
    """FACTS: on an unknown screen the bots press only Next / OK / Close / Proceed. A result with nothing but Next
    goes without the model on an empty map; the same screen whose only button is Race is the model's."""
    phone = _phone("result")
    model = ScriptedModel([[call("pressButton", name="Training")]])
    totals = _loop(tmp_path, phone, model, 2).run()
    assert totals.routine_passes == 1 and len(model.requests) == 1 and phone.screen == "training"
    other = tmp_path / "other"
    phone = _phone("races")
    phone.screens["races"].buttons.pop()  # Race alone: a choice to make, whatever the map says
    model = ScriptedModel([[call("pressButton", name="Race")]])
    totals = _loop(other, phone, model, 1).run()
    assert totals.routine_passes == 0 and len(model.requests) == 1


def test_a_dialog_seen_over_one_screen_only_is_the_models(tmp_path: Path) -> None:
    """The same dialog known over the hub alone (a flow's own question, for all the map knows): the model chooses
    between its two buttons, however often it chose Retry."""
    phone = _connection("error")
    _seed(tmp_path, phone, ("hub", "pressButton:Races", "error", "pressButton", {"name": "Races"}), RETRY_HUB,
          times=3)
    model = ScriptedModel([[call("pressButton", name="Retry")]])
    totals = _loop(tmp_path, phone, model, 1).run()
    assert totals.routine_passes == 0 and len(model.requests) == 1


def test_a_dialog_after_three_different_presses_on_one_screen_comes_over_the_game(tmp_path: Path) -> None:
    """A data update comes whatever was pressed: seen over the training screen alone, after Speed, Stamina and
    Power, Retry chosen each time. It is a hazard (COMES_AFTER), passed without the model; after two different
    presses it is still the model's (a flow's dialog comes after one press: "Rest?" after Rest)."""
    after: list[Edge] = [("training", f"pressButton:{n}", "error", "pressButton", {"name": n})
                         for n in ("Speed", "Stamina", "Power")]
    for presses, passed in ((2, 0), (3, 1)):
        phone, folder = _connection("error"), tmp_path / str(presses)
        _seed(folder, phone, *after[:presses], RETRY_TRAINING, times=2)
        model = ScriptedModel([[call("pressButton", name="Retry")], [call("pressButton", name="Training")]])
        totals = _loop(folder, phone, model, 2).run()
        assert totals.routine_passes == passed, presses


def test_an_action_after_which_the_game_had_to_be_started_again_is_no_way_out(tmp_path: Path) -> None:
    """The game crashed after Training was pressed: the agent started it again and read its title. Training did not
    lead to the title; nothing is recorded for it."""
    from tests.agent.test_recovery import _phone as app_phone

    phone = app_phone()
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="TAP TO START")]])
    c = _loop(tmp_path, phone, model, 2, app=True)
    c.step()
    phone.running, phone.screen = False, "launcher"  # the game's process died
    second = c.step()
    assert second.game_start is not None and second.game_start.ok
    m = load_map(tmp_path / "memory.map.json")
    assert m.transitions == [] and m.arrival is None


# ---- two runs, one map ----------------------------------------------------------------------------------------
def test_two_runs_sharing_one_map_file_keep_what_both_learned(tmp_path: Path) -> None:
    """Two runs on one memory folder (two phones, one account's notes) write one map file, turn by turn in
    between each other: every step either run took is kept, counted once, and each run reads the other's."""
    one, two = _phone("hub"), _phone("hub")
    a = _loop(tmp_path, one, ScriptedModel([[call("pressButton", name="Training")], [call("back")]] * 3), 6,
              logs="run-a", loop__autopilot=False)
    b = _loop(tmp_path, two, ScriptedModel([[call("pressButton", name="Races")], [call("back")]] * 3), 6,
              logs="run-b", loop__autopilot=False)
    for _ in range(6):
        a.step()
        b.step()
    ids, m = _ids(one), load_map(tmp_path / "memory.map.json")
    counts = {(t.src, t.action, t.dst): t.count for t in m.transitions}
    assert counts == {(ids["hub"], "pressButton:Training", ids["training"]): 3,
                      (ids["training"], "back", ids["hub"]): 2,
                      (ids["hub"], "pressButton:Races", ids["races"]): 3, (ids["races"], "back", ids["hub"]): 2}
    assert m.screens[ids["hub"]].seen == 6  # three times each
    assert "goTo: Races</map>" in _texts(a.model.requests[-1])  # run a is told of what run b learned
