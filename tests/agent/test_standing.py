"""Standing event choices (issue 40): the model's own answer to an event, kept in its memory file, pressed by the
coordinator when the event shows again, through the same gate as any routine pass, its outcome still measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop, text
from test_eventbook import FRIENDLY, QUICK, TITLE, _phone, _state

from lluma_agent.loop.standing import MEMORY_FILE, Standing, StandingError, parse
from lluma_agent.navmap.events import EventBook
from lluma_agent.runlog.turnlog import TurnLog

AFTER = [[call("pressButton", name="Training")]]


def _run(tmp: Path, rules: str | None, phone: FakePhone, model: ScriptedModel, turns: int = 2) -> None:
    (tmp / "memory").mkdir(parents=True, exist_ok=True)
    if rules is not None:
        (tmp / "memory" / MEMORY_FILE).write_text(rules)
    loop(tmp, phone, model, settings={}, max_turns=turns).run()


def _told(model: ScriptedModel, i: int = 0) -> str:
    return "\n".join(b.get("text", "") for b in model.requests[i]["messages"][-1]["content"] if b["type"] == "text")


def _turn(tmp: Path, n: int) -> TurnLog:
    return TurnLog.model_validate_json((tmp / "logs" / f"turn_{n:06d}.json").read_text())


def test_a_standing_choice_is_pressed_without_a_model_call_and_the_model_is_told(tmp_path: Path) -> None:
    phone = _phone("event")
    model = ScriptedModel(AFTER)
    _run(tmp_path, f'Unforeseen Lunch: "{FRIENDLY}"\n', phone, model)
    assert len(model.requests) == 1  # turn 1 passed the event; turn 2 (the hub after it) is the model's
    first = _turn(tmp_path, 1)
    assert first.routine is not None and first.routine.action == f"pressButton:{FRIENDLY}" and first.response is None
    told = _told(model)
    assert f"[passed without asking: {FRIENDLY} on " in told
    assert "(your standing choice for 'Unforeseen Lunch' (event_choices.yaml)) -> " in told
    assert phone.screen == "training"  # the event led to the hub after it, where the model pressed Training
    # the outcome is measured as a choice the model made by hand would be
    book = EventBook.model_validate_json((tmp_path / "memory.events.json").read_text())
    assert book.events["Unforeseen Lunch"].choices[FRIENDLY].times == 1


def test_an_energy_condition_answers_otherwise_below_it(tmp_path: Path) -> None:
    rules = f'Unforeseen Lunch:\n  choose: "{FRIENDLY}"\n  energy_below: 70\n  then: "{QUICK}"\n'
    phone = _phone("event")  # its energy gauge reads 60%
    _run(tmp_path, rules, phone, ScriptedModel(AFTER))
    assert _turn(tmp_path, 1).routine.action == f"pressButton:{QUICK}"  # type: ignore[union-attr]
    phone = _phone("event")
    _run(tmp_path / "high", rules.replace("70", "50"), phone, ScriptedModel(AFTER))
    assert _turn(tmp_path / "high", 1).routine.action == f"pressButton:{FRIENDLY}"  # type: ignore[union-attr]


def test_a_bad_file_is_one_clear_error_to_the_model_and_nothing_is_pressed_from_it(tmp_path: Path) -> None:
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    _run(tmp_path, "Unforeseen Lunch:\n  choose: x\n  energy_below: 40\n", _phone("event"), model, turns=1)
    assert len(model.requests) == 1 and _turn(tmp_path, 1).routine is None
    told = _told(model)
    assert ("memory file event_choices.yaml: 'Unforeseen Lunch': Value error, energy_below and then go together"
            in told and "no standing choice was used" in told)


def test_a_rule_whose_choice_is_not_on_the_screen_leaves_the_event_to_the_model(tmp_path: Path) -> None:
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    _run(tmp_path, 'Unforeseen Lunch: "Go home and sleep it off."\n', _phone("event"), model, turns=1)
    assert len(model.requests) == 1 and _turn(tmp_path, 1).routine is None
    assert "event_choices.yaml" not in _told(model)


SPENDS = "Use 1 Alarm Clock and try once more."


def test_a_standing_choice_on_a_screen_that_spends_is_the_models(tmp_path: Path) -> None:
    """The model wrote an answer that spends (or a person did): the coordinator never presses it alone."""
    event: dict[str, Any] = dict(buttons=[button(SPENDS, 60, 800, 1020, 920), button(QUICK, 60, 960, 1020, 1080)],
                                 texts=[text("Career", *TITLE), text("Unforeseen Lunch", 60, 300, 500, 350)])
    phone = FakePhone({"event": FakeScreen(goes_to={SPENDS: "spent", QUICK: "hub"}, **event),
                       "spent": FakeScreen(texts=[text("Spent", *TITLE)]),
                       "hub": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)],
                                         texts=[text("Hub", *TITLE)], **_state(100, 50, 0.8, "GOOD"))},
                      start="event")
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    _run(tmp_path, f'Unforeseen Lunch: "{SPENDS}"\n', phone, model, turns=1)
    assert len(model.requests) == 1 and _turn(tmp_path, 1).routine is None
    assert phone.screen == "hub"  # the model's press, not the rule's


def test_with_the_map_off_no_standing_choice_is_used(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / MEMORY_FILE).write_text(f'Unforeseen Lunch: "{FRIENDLY}"\n')
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    loop(tmp_path, _phone("event"), model, settings={"map__enabled": False}, max_turns=1).run()
    assert len(model.requests) == 1


@pytest.mark.parametrize(("text", "error"), [
    ("- a list\n", "must map event titles to a choice"),
    ("E: {choose: a, then: b}\n", "energy_below and then go together"),
    ("E: {choose: a, energy_below: 140, then: b}\n", "less than or equal to 100"),
    ("E: {choose: a, pick: b}\n", "Extra inputs are not permitted"),
    ("E: [unclosed\n", "is no YAML"),
])
def test_a_bad_file_says_what_is_wrong(text: str, error: str) -> None:
    with pytest.raises(StandingError, match=error.replace("(", r"\(")):
        parse(text)


def test_a_good_file_parses_plain_and_conditional_rules() -> None:
    rules = parse("A: one\nB: {choose: two, energy_below: 40, then: three}\n# a comment\n")
    assert rules == {"A": Standing(choose="one"),
                     "B": Standing(choose="two", energy_below=40, then="three")}
    assert rules["B"].pick(30) == "three" and rules["B"].pick(60) == "two" and rules["B"].pick(None) is None
    assert parse("") == {} and json.dumps(parse("# only a comment\n")) == "{}"
