"""What each event choice did (issue 40): measured in the real turn loop on the fake phone, kept beside the map,
told when the event shows again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text

from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.navmap.events import ChoiceRecord, EventBook, EventRecord, effect, state_of
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.events import as_text as events_text
from lluma_cli.events import main as events_main
from lluma_cli.report.eventdata import read_book
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


# ---- two runs, one book ---------------------------------------------------------------------------------------------
def test_two_runs_sharing_one_book_keep_what_both_measured(tmp_path: Path) -> None:
    """Two runs on one memory folder write one event book, turn by turn in between each other (as the map's test):
    the book kept only the last writer's before; now each run's measured choice is kept, and each reads the other's."""
    quick = [*PLAY[:2], [call("pressButton", name=QUICK)], [call("pressButton", name="Training")]]
    a = _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4, logs="run-a")
    b = _loop(tmp_path, _phone(), ScriptedModel(quick), 4, logs="run-b")
    for _ in range(4):
        a.step()
        b.step()
    book = EventBook.model_validate_json((tmp_path / "memory.events.json").read_text())
    assert {c: r.times for c, r in book.events["Unforeseen Lunch"].choices.items()} == {FRIENDLY: 1, QUICK: 1}
    assert set(b.events.book.events["Unforeseen Lunch"].choices) == {FRIENDLY, QUICK}  # b reads what a measured


_WRITER = """
import sys
import time
from pathlib import Path
from lluma_agent.loop.eventbook import EventMemory
path, run, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
memory = EventMemory(path, run, True)
while not go.exists():
    time.sleep(0.005)
for i in range(int(sys.argv[4])):
    memory.book.record("Unforeseen Lunch", run, {"Speed": 1.0}, float(i))
    assert memory.save() == ""
"""


@pytest.mark.timeout(120)
def test_two_processes_writing_one_book_lose_no_entry(tmp_path: Path) -> None:
    """Two real processes (two runs) record and save at once, each after every entry: every entry is kept. Written
    whole without the lock and the journal, most of one run's were lost (the last writer's copy won)."""
    path, go, each = tmp_path / "memory.events.json", tmp_path / "go", 150
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), run, str(go), str(each)])
               for run in ("run-a", "run-b")]
    time.sleep(1.0)  # both have read the (empty) book
    go.touch()
    assert [w.wait(timeout=100) for w in writers] == [0, 0]
    book = read_book(path)
    assert {c: (r.times, r.sums) for c, r in book.events["Unforeseen Lunch"].choices.items()} == {
        "run-a": (each, {"Speed": float(each)}), "run-b": (each, {"Speed": float(each)})}


# ---- a damaged book -------------------------------------------------------------------------------------------------
GOOD = {"times": 2, "sums": {"Speed": 10.0}, "counts": {"Speed": 2}}


def _book(choice: dict[str, Any] | str) -> str:
    body = json.dumps(choice) if isinstance(choice, dict) else choice
    return f'{{"version": 1, "events": {{"Lunch": {{"choices": {{"Rest": {body}}}, "last_seen": 1.0}}}}}}'


@pytest.mark.parametrize(("body", "said"), [
    ({"times": 2, "sums": {}, "counts": {"Speed": 2}}, "Speed counted with no sum"),  # a KeyError in `lluma events`
    ({**GOOD, "sums": {"Speed": 10.0, "Guts": 3.0}}, "Guts summed with no count"),
    ({**GOOD, "counts": {"Speed": 3}}, "Speed counted more often than the choice's 2 time(s)"),
    ('{"times": 2, "sums": {"Speed": NaN}, "counts": {"Speed": 2}}', "NaN is no number JSON has"),
    ('{"times": 2, "sums": {"Speed": Infinity}, "counts": {"Speed": 2}}', "Infinity is no number JSON has"),
    ('{"times": 2, "sums": {"Speed": 1e999}, "counts": {"Speed": 2}}', "1e999 is too large a number"),
    ({**GOOD, "times": "2"}, "events.Lunch.choices.Rest.times: Input should be a valid integer"),
    ({**GOOD, "counts": {"Speed": True}}, "Input should be a valid integer"),
    ({**GOOD, "sums": {"Speed": "10"}}, "events.Lunch.choices.Rest.sums.Speed: Input should be a valid number"),
    ({**GOOD, "times": -1}, "greater than or equal to 0"),
])
def test_a_damaged_book_is_named_with_what_is_wrong(tmp_path: Path, capsys: Any, body: dict[str, Any] | str,
                                                    said: str) -> None:
    """`lluma events` says what is wrong in one line, exit 1 (before: a KeyError's traceback, or NaN printed as
    invalid JSON); a run sets the book aside, named and kept, and goes on with a new one."""
    path = tmp_path / "memory.events.json"
    path.write_text(_book(body))
    assert events_main(["--json", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"lluma events: {path}: ") and said in captured.err
    assert path.read_text() == _book(body)  # showing it never moves it
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4).run()
    first = TurnLog.model_validate_json((tmp_path / "logs" / "turn_000001.json").read_text())
    [told] = [e for e in first.errors if e.startswith("events: ")]
    assert said in told and "set aside as memory.events.damaged-" in told
    [kept] = tmp_path.glob("memory.events.damaged-*.json")
    assert kept.read_text() == _book(body)  # nothing lost
    assert read_book(path).events["Unforeseen Lunch"].choices[FRIENDLY].times == 1  # the run went on


@pytest.mark.timeout(20)  # a FIFO's read waits for a writer that never comes; /dev/zero never ends
@pytest.mark.parametrize(("make", "kind"), [(os.mkfifo, "a FIFO (named pipe)"),
                                            (lambda p: os.symlink("/dev/zero", p), "a device")])
def test_a_book_that_is_no_file_is_refused_at_once(tmp_path: Path, capsys: Any, make: Any, kind: str) -> None:
    """Before: "no event book" for both, as though nothing were there."""
    path = tmp_path / "memory.events.json"
    make(path)
    assert events_main([str(path)]) == 1
    assert capsys.readouterr().err == (f"lluma events: {path} is {kind}, not an event book file; the next run sets "
                                       "it aside and starts a new book\n")
    _loop(tmp_path, _phone(), ScriptedModel(PLAY), 4).run()
    first = TurnLog.model_validate_json((tmp_path / "logs" / "turn_000001.json").read_text())
    assert any(e.startswith(f"events: {path}: {kind}, not an event book file: set aside as ") for e in first.errors)
    assert read_book(path).events  # a new book, measured
