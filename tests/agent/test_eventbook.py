"""What each event choice did (issue 40): measured in the real turn loop on the fake phone, kept beside the map,
told when the event shows again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fakes import FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.navmap.events import ChoiceRecord, EventBook, EventRecord, effect, state_of
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.events import as_text as events_text
from lluma_cli.events import main as events_main
from lluma_cli.report.page import main as report_main
from lluma_vision.models import Box, CaptionedValue, Gauge

TITLE = (40, 40, 300, 100)
FRIENDLY = "Why not take this chance to try something new?"
QUICK = "Guess you'll have to think of something quickly."


def _value(caption: str, value: str, kind: str = "value") -> CaptionedValue:
    return CaptionedValue(caption=caption, value=value, kind=kind,  # type: ignore[arg-type]
                          bounds=Box(x0=40, y0=1500, x1=200, y1=1560))


def _state(speed: int, points: int, energy: float, mood: str) -> dict[str, Any]:
    return {"values": [_value("Speed", f"{speed}/1200"), _value("Skill Pts", str(points))],
            "gauges": [Gauge(label="Energy", fill=energy, bounds=Box(x0=300, y0=120, x1=700, y1=150))], "mood": mood}


def _phone(start: str = "hub") -> FakePhone:
    """Hub -> Training -> Speed (a training that previews Speed +10) -> an event with two choices -> the hub."""
    event = dict(buttons=[button(FRIENDLY, 60, 800, 1020, 920), button(QUICK, 60, 960, 1020, 1080)],
                 texts=[text("Career", *TITLE), text("Support Card Event", 60, 240, 500, 280),
                        text("Unforeseen Lunch", 60, 300, 500, 350)],
                 gauges=[Gauge(label="Energy", fill=0.6, bounds=Box(x0=300, y0=120, x1=700, y1=150))], mood="GOOD")
    return FakePhone({
        "hub": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], texts=[text("Hub", *TITLE)],
                          goes_to={"Training": "training"}, **_state(100, 50, 0.8, "GOOD")),
        "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900)], texts=[text("Training", *TITLE)],
                               goes_to={"Speed": "event"},
                               values=[_value("Speed", "100/1200"), _value("Speed", "+10", "gain")]),
        "event": FakeScreen(goes_to={FRIENDLY: "after", QUICK: "hub"}, **event),  # type: ignore[arg-type]
        "after": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], texts=[text("Hub", *TITLE)],
                            goes_to={"Training": "training"}, **_state(115, 50, 0.5, "GREAT")),
    }, start=start)


def _loop(tmp: Path, phone: FakePhone, model: ScriptedModel, turns: int, logs: str = "logs", memory: str = "memory",
          **settings: Any) -> Coordinator:
    return loop(tmp, phone, model, logs=logs, memory=memory, settings=settings, max_turns=turns)


def _texts(request: dict[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in request["messages"][-1]["content"] if b["type"] == "text")


PLAY = [[call("pressButton", name="Training")], [call("pressButton", name="Speed")],
        [call("pressButton", name=FRIENDLY)], [call("pressButton", name="Training")]]


def test_a_choices_effect_is_measured_without_the_trainings_gains_and_kept_beside_the_map(tmp_path: Path) -> None:
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4).run()
    book = EventBook.model_validate_json((tmp_path / "memory.events.json").read_text())
    [(event, record)] = book.events.items()
    assert event == "Unforeseen Lunch" and list(record.choices) == [FRIENDLY]
    # Speed 100 + the training's previewed +10, then 115 after the event: +5; energy and mood from the event screen
    assert record.choices[FRIENDLY].means() == {"Speed": 5.0, "Skill Pts": 0.0, "Energy": -10.0, "Mood": 1.0}
    assert book.pending is None


def test_the_next_sighting_of_the_event_tells_the_model_what_each_choice_did(tmp_path: Path) -> None:
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4).run()
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    _loop(tmp_path, _phone("event"), model, 1, logs="logs2").run()
    told = _texts(model.requests[0])
    assert (f"<events>Unforeseen Lunch, what each choice did before (mean): '{FRIENDLY}' 1x: Speed +5, Energy -10, "
            "Mood +1</events>") in told


def test_an_event_the_book_does_not_know_adds_nothing_and_the_map_off_keeps_no_book(tmp_path: Path) -> None:
    model = ScriptedModel([[call("pressButton", name=QUICK)]])
    _loop(tmp_path, _phone("event"), model, 1).run()
    assert "<events>" not in json.dumps(model.requests)
    _loop(tmp_path / "off", _phone(), ScriptedModel(PLAY), 4, map__enabled=False).run()
    assert not (tmp_path / "off" / "memory.events.json").exists()


def test_a_damaged_book_is_set_aside_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / "memory.events.json").write_text("{not json")
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4).run()
    assert [p.name.split("-")[0] for p in tmp_path.glob("memory.events.damaged-*.json")] == ["memory.events.damaged"]
    first = TurnLog.model_validate_json((tmp_path / "logs" / "turn_000001.json").read_text())
    assert any(e.startswith("events: ") and "set aside as memory.events.damaged-" in e for e in first.errors)
    assert EventBook.model_validate_json((tmp_path / "memory.events.json").read_text()).events  # a new book


def test_the_state_and_its_change_read_from_a_reading() -> None:
    phone = _phone()
    read = FakeVision(phone).analyze(phone.images["hub"], phone.hashes["hub"])
    before = state_of(read)
    assert (before.stats, before.energy, before.mood) == ({"Speed": 100.0, "Skill Pts": 50.0}, 80.0, "GOOD")
    after = state_of(FakeVision(phone).analyze(phone.images["after"], phone.hashes["after"]))
    assert effect(before, after) == {"Speed": 15.0, "Skill Pts": 0.0, "Energy": -30.0, "Mood": 1}


def test_lluma_events_and_the_report_show_the_book(tmp_path: Path, capsys: Any) -> None:
    """A demo-like run folder (its memory inside it): `lluma events` and `lluma report` find the book beside it."""
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4, logs="run", memory="run/memory").run()
    assert events_main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "1 event(s), 1 choice(s) measured 1 time(s)" in out and "\nUnforeseen Lunch\n" in out
    assert f"  {FRIENDLY!r}  1x: Speed +5, Skill Pts +0, Energy -10, Mood +1" in out
    assert events_main(["--json", str(tmp_path / "run" / "memory.events.json")]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["events"]["Unforeseen Lunch"]["choices"][FRIENDLY] == {
        "times": 1, "means": {"Speed": 5.0, "Skill Pts": 0.0, "Energy": -10.0, "Mood": 1.0}}
    assert report_main([str(tmp_path / "run"), "-o", str(tmp_path / "r.html"), "--thumb", "0"]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "<h2>Event choices</h2>" in page and "Why not take this chance to try something new?" in page


def test_a_choice_that_did_nothing_is_said_so() -> None:
    """`lluma events` and the report: a choice whose every fact read the same after is "did nothing", not a row of
    +0 a person must read through; one whose outcome no reading showed says that."""
    book = EventBook()
    book.events["Quiet Afternoon"] = EventRecord(last_seen=1.0)
    book.events["Quiet Afternoon"].choices["Stay in"] = ChoiceRecord()
    book.events["Quiet Afternoon"].choices["Stay in"].add({"Speed": 0.0, "Energy": 0.0, "Mood": 0})
    book.events["Quiet Afternoon"].choices["Go out"] = ChoiceRecord(times=1)
    out = events_text(book, Path("memory.events.json"))
    assert "  'Stay in'  1x: did nothing: Speed, Energy, Mood read unchanged" in out and "+0" not in out
    assert "  'Go out'  1x: no outcome read (no fact showed before and after)" in out


def test_lluma_events_without_a_book_is_one_line_and_exit_1(tmp_path: Path, capsys: Any) -> None:
    assert events_main([str(tmp_path / "memory.events.json")]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("lluma events: no event book at ") and "\n" not in err
