"""Look before choosing (issue 40, item 2), in the real turn loop on the fake phone: a training screen whose tiles
raise before they train (FACTS), surveyed with one model call, the chosen tile raised if needed and committed, each
press checked; a surprise, a spend, the guard and a person's stop end a survey; `survey.enabled: false` turns it off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fakes import FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text
from PIL import Image

from lluma_agent.device.protocol import Frame
from lluma_agent.loop.gated import InTheLoop
from lluma_agent.loop.survey import facts_line
from lluma_agent.loop.turn import Observation
from lluma_agent.navmap import ScreenMap, save_map
from lluma_agent.runlog.turnlog import FrameInfo, TurnLog
from lluma_vision.facts.screen import identify
from lluma_vision.models import Box, CaptionedValue, Gauge, Support, VisionOutput

TITLE = (40, 40, 300, 100)
TILES = {"Speed": 60, "Stamina": 255, "Power": 450, "Guts": 645, "Wit": 838}  # x0 of each tile (180 wide)
GAINS = {"Speed": 12, "Stamina": 11, "Power": 13, "Guts": 14, "Wit": 9}


def _training(raised: str, trains_to: str = "event", extra: list[str] | None = None,
              commits_at_once: str = "") -> FakeScreen:
    """The training screen with `raised` up: its pill over it, its gains over the stat row; a tap on another tile
    raises that one (`commits_at_once` trains at once instead: a screen the reading misjudged)."""
    x0 = TILES[raised]
    buttons = [button(name, x, 1298 if name == raised else 1326, x + 180, 1426 if name == raised else 1456)
               for name, x in TILES.items()] + [button("Back", 33, 1749, 321, 1858)]
    goes = {name: (trains_to if name in (raised, commits_at_once) else f"t_{name}") for name in TILES}
    return FakeScreen(
        buttons=buttons, texts=[text("Training", *TITLE), *(text(t, 100, 600, 900, 660) for t in extra or [])],
        goes_to={**goes, "Back": "hub"},
        values=[CaptionedValue(caption="Failure", value=f"{GAINS[raised] - 8}%", bounds=Box(x0=x0 + 14, y0=1216,
                                                                                          x1=x0 + 164, y1=1256)),
                CaptionedValue(caption=raised, value=f"+{GAINS[raised]}", kind="gain",
                               bounds=Box(x0=x0, y0=998, x1=x0 + 70, y1=1042))],
        gauges=[Gauge(label="Energy", fill=0.9, bounds=Box(x0=200, y0=200, x1=900, y1=230)),
                Gauge(label="Energy after", fill=0.7, bounds=Box(x0=200, y0=200, x1=900, y1=230))])


def _phone(first: str = "Speed", **kw: Any) -> FakePhone:
    screens = {f"t_{name}": _training(name, **kw) for name in TILES}
    # an event's page with a second button: not a screen passed at first sight (its Next is the model's here)
    screens["event"] = FakeScreen(buttons=[button("Next", 400, 1600, 700, 1700),
                                           button("Details", 400, 1400, 700, 1500)],
                                  texts=[text("Event", *TITLE)], goes_to={"Next": f"t_{first}"})
    screens["hub"] = FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], texts=[text("Hub", *TITLE)],
                                goes_to={"Training": f"t_{first}"})
    return FakePhone(screens, start=f"t_{first}")


def _log(tmp: Path, turn: int) -> TurnLog:
    return TurnLog.model_validate_json((tmp / "logs" / f"turn_{turn:06d}.json").read_text())


def _taps(phone: FakePhone) -> list[str]:
    """The tiles the phone received taps on, in order."""
    out = []
    for c in phone.calls:
        if c[0] == "tap":
            out.append(next((n for n, x in TILES.items() if x <= c[1] <= x + 180 and 1298 <= c[2] <= 1456),
                            f"({c[1]},{c[2]})"))
    return out


def _table(request: dict[str, Any]) -> str:
    return next(b["text"] for b in request["messages"][-1]["content"]
                if b["type"] == "text" and "<survey>" in b["text"])


def test_one_call_sees_every_tile_and_the_chosen_one_is_raised_and_trained(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Stamina")]])
    c = loop(tmp_path, phone, model, max_turns=1)
    c.run()
    assert len(model.requests) == 1
    table = _table(model.requests[0])
    for name, gain in GAINS.items():  # each tile's own facts, read while it was raised
        assert f"- {name}: gains {name} +{gain}; failure {gain - 8}%; energy 0.90 -> 0.70" in table
    # the survey raised the four others, the model's press raised Stamina again, the commit trained it
    assert _taps(phone) == ["Stamina", "Power", "Guts", "Wit", "Stamina", "Stamina"]
    assert phone.screen == "event"
    log = _log(tmp_path, 1)
    assert log.survey is not None and log.survey.complete and log.survey.chosen == "Stamina"
    assert [r.option for r in log.survey.rows] == list(TILES) and len(log.survey.commit) == 1
    assert all(r.frame for r in log.survey.rows[1:])  # each raised tile's frame kept beside the turn's
    assert all((tmp_path / "logs" / r.frame).is_file() for r in log.survey.rows[1:])
    assert log.decided_on_options and c.totals.surveys == 1 and c.totals.full_view_decisions == 1


def test_the_raised_tile_chosen_trains_with_the_models_press_alone(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Wit")]])  # the survey leaves Wit raised
    loop(tmp_path, phone, model, max_turns=1).run()
    assert _taps(phone) == ["Stamina", "Power", "Guts", "Wit", "Wit"] and phone.screen == "event"
    log = _log(tmp_path, 1)
    assert log.survey is not None and log.survey.chosen == "Wit" and log.survey.commit == []


def test_with_surveys_off_the_model_raises_and_trains_press_by_press(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Power")], [call("pressButton", name="Power")]])
    c = loop(tmp_path, phone, model, max_turns=2, settings={"survey__enabled": False})
    c.run()
    assert _taps(phone) == ["Power", "Power"] and phone.screen == "event"
    assert "<survey>" not in str(model.requests[0]["messages"][-1])
    assert c.totals.surveys == 0 and c.totals.option_decisions == 2 and c.totals.full_view_decisions == 0


def test_a_press_that_trains_instead_of_raising_stops_the_survey(tmp_path: Path) -> None:
    phone = _phone(commits_at_once="Power")  # Power commits at once: the reading was wrong about it
    model = ScriptedModel([[call("pressButton", name="Next")]])
    loop(tmp_path, phone, model, max_turns=1).run()
    assert _taps(phone)[:2] == ["Stamina", "Power"]
    log = _log(tmp_path, 1)
    assert log.survey is not None and not log.survey.complete
    assert "a surprise" in log.survey.rows[-1].note and log.survey.rows[-1].option == "Power"
    assert "the survey stopped at Power" in _table(model.requests[0])
    assert "Guts" not in _taps(phone)  # nothing pressed after the surprise but the model's own input


def test_a_screen_that_may_spend_is_never_surveyed(tmp_path: Path) -> None:
    phone = _phone(extra=["Use 1 Alarm Clock?"])
    model = ScriptedModel([[call("pressButton", name="Back")]])
    loop(tmp_path, phone, model, max_turns=1).run()
    log = _log(tmp_path, 1)
    assert log.survey is not None and not log.survey.complete and "may spend" in log.survey.rows[1].note
    assert not [t for t in _taps(phone) if t in TILES]  # no tile pressed: only the model's Back


def test_the_guard_refuses_a_survey_press_and_the_survey_stops_there(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Speed")]])
    loop(tmp_path, phone, model, max_turns=1, settings={"guard__never_press": ["Power"]}).run()
    log = _log(tmp_path, 1)
    assert log.survey is not None and log.survey.rows[2].option == "Power" and "not sent" in log.survey.rows[2].note
    assert "Power" not in _taps(phone) and any("Power" in g for g in log.guard)


def test_step_asks_before_each_survey_press_and_a_no_stops_the_run(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Speed")]])
    asked: list[str] = []

    def before_step(turn: int, what: str) -> bool:
        asked.append(what)
        return len(asked) < 2

    c = loop(tmp_path, phone, model, max_turns=3, person=InTheLoop(before_step=before_step))
    c.run()
    assert asked == ["survey: raise Stamina", "survey: raise Power"]
    assert _taps(phone)[:1] == ["Stamina"] and "Power" not in _taps(phone)
    assert c.totals.stop_reason == "stopped by user"


def test_on_the_hub_the_coordinator_opens_a_screen_it_surveyed_and_the_model_decides_once(tmp_path: Path) -> None:
    phone = _phone()
    phone.screen, phone.screens["event"].goes_to = "hub", {"Next": "hub"}  # the game turn ends on the hub
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="Stamina")],
                           [call("pressButton", name="Next")], [call("pressButton", name="Power")]])
    c = loop(tmp_path, phone, model, max_turns=4)
    c.run()
    assert len(model.requests) == 4
    # the first visit: the model pressed Training; the second: the coordinator did, then surveyed
    assert "<survey>" not in str(model.requests[0]["messages"][-1])
    table = _table(model.requests[3])
    assert "The coordinator opened Training from Hub" in table and "Hub offered: Training" in table
    log = _log(tmp_path, 4)
    assert log.survey is not None and log.survey.lead_in is not None and log.survey.lead_in.option == "Training"
    assert log.survey.complete and log.survey.chosen == "Power" and phone.screen == "event"
    assert c.totals.surveys == 2 and c.totals.full_view_decisions == 2


def test_a_model_that_goes_back_from_the_table_decides_on_the_hub(tmp_path: Path) -> None:
    phone = _phone()
    phone.screen, phone.screens["event"].goes_to = "hub", {"Next": "hub"}
    phone.screens["hub"].buttons.append(button("Rest", 600, 1300, 1000, 1400))  # a hub with a choice on it
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="Stamina")],
                           [call("pressButton", name="Next")], [call("back")], [call("pressButton", name="Training")]])
    loop(tmp_path, phone, model, max_turns=5).run()
    assert len(model.requests) == 5
    assert "<survey>" in str(model.requests[3]["messages"][-1])  # the hub opened the table once...
    assert "<survey>" not in str(model.requests[4]["messages"][-1])  # ...the model went back: the hub is its turn
    assert _log(tmp_path, 5).survey is None


def test_a_hazard_that_comes_over_a_survey_is_dismissed_as_before_and_the_next_turn_surveys_again(
        tmp_path: Path) -> None:
    """A connection error came over the hub and the event before, Retry chosen each time: when one comes over a
    survey's raise, the coordinator dismisses it as the model did (no call on it), and the next turn's survey shows
    every tile; one model call in the two turns."""
    screens = _phone(first="Speed").screens
    screens["t_Stamina"].goes_to["Power"] = "error"  # the survey's raise of Power meets a connection error
    screens["error"] = FakeScreen(
        buttons=[button("Title Screen", 140, 1000, 500, 1080), button("Retry", 580, 1000, 940, 1080)],
        texts=[text("Connection Error", 340, 700, 740, 760),
               text("A communication error occurred.", 240, 840, 840, 890)],
        goes_to={"Retry": "t_Power"})  # the raise went through once the connection came back
    phone = FakePhone(screens, start="t_Speed")
    vision = FakeVision(phone)
    ids = {n: identify(vision.analyze(phone.images[n], phone.hashes[n])).id for n in ("hub", "event", "error")}
    m = ScreenMap()
    for src in ("hub", "event"):  # seen over two screens, dismissed with Retry each time
        m.record(ids[src], "pressButton:Next", ids["error"], 1.0, 0.0, tool="pressButton", args={"name": "Next"})
        m.record(ids["error"], "pressButton:Retry", ids[src], 1.0, 0.0, tool="pressButton", args={"name": "Retry"})
    save_map(tmp_path / "memory.map.json", m)
    model = ScriptedModel([[call("pressButton", name="Guts")]])
    loop(tmp_path, phone, model, max_turns=2).run()
    first, second = _log(tmp_path, 1), _log(tmp_path, 2)
    assert first.survey is not None and not first.survey.complete and "a surprise" in first.survey.rows[-1].note
    assert first.response is None and first.routine is not None  # no model call on the hazard
    assert first.action is not None and first.action.target == "Retry"
    assert len(model.requests) == 1 and second.survey is not None and second.survey.complete
    assert "[passed without asking: Retry on Connection Error -> Training" in str(model.requests[0]["messages"][-1])
    assert phone.screen == "event"  # Guts raised and trained


def test_a_game_that_crashes_during_a_survey_is_started_again_without_a_model_call(tmp_path: Path) -> None:
    """A raise that crashed the game to the launcher: no model call on another app's screen; the next turn starts
    the game (its title leads back to the training screen) and surveys again."""
    from tests.agent.test_recovery import AppPhone

    class Crashing(AppPhone):
        def tap(self, box: Box) -> tuple[int, int]:
            point = super().tap(box)
            if self.screen == "launcher":  # once: the raise goes through after the start
                self.running, self.screens["t_Stamina"].goes_to["Power"] = False, "t_Power"
            return point

    screens = _phone(first="Speed").screens
    screens["t_Stamina"].goes_to["Power"] = "launcher"  # the game's process died on this raise
    phone = Crashing(screens, start="t_Speed")
    model = ScriptedModel([[call("pressButton", name="TAP TO START")], [call("pressButton", name="Guts")]])
    loop(tmp_path, phone, model, max_turns=3, app=True).run()
    first, second = _log(tmp_path, 1), _log(tmp_path, 2)
    assert first.response is None and any("the game left the foreground" in e for e in first.errors)
    assert second.game_start is not None and second.game_start.ok
    assert len(model.requests) == 2 and "<survey>" not in str(model.requests[0]["messages"][-1])
    assert phone.screen == "event"  # the third turn surveyed again and trained Guts


def _observed(supports: list[Support]) -> Observation:
    out = VisionOutput(width=1080, height=1920, supports=supports, values=[
        CaptionedValue(caption="Failure", value="4%", bounds=Box(x0=74, y0=1216, x1=224, y1=1256))])
    image = Image.new("RGB", (1080, 1920))
    return Observation(frame=Frame(image=image, taken_at=0.0, phash=""), out=out, info=FrameInfo())


def test_a_survey_row_counts_the_raised_options_cards() -> None:
    bar = Box(x0=900, y0=400, x1=1030, y1=418)
    cards = [Support(bond="MAX", hint=True, bounds=bar), Support(bond="blue", bounds=bar),
             Support(bond="orange", hint=True, bounds=bar)]
    assert facts_line("Speed", _observed(cards)).endswith("; cards 3 (1 MAX, 2 hint)")
    assert facts_line("Wit", _observed([Support(bond="green", bounds=bar)])).endswith("; cards 1")
    assert "cards" not in facts_line("Guts", _observed([]))  # none read: the row says nothing of cards
