"""Unit tests of the turn loop: the real Coordinator with a fake phone, fake vision and a scripted model
(no servers, no OCR). The end-to-end tests run the same loop on the simulator over adb and HTTP."""

from __future__ import annotations

import json
import threading
from typing import Any

from fakes import FakeClock, FakePhone, FakeScreen, ScriptedModel, bench_module, button, call, loop, model_error, text

from lluma_agent.runlog.turnlog import TurnLog
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.toolkit import Args, Outcome, Tool, ToolContext


def _phone() -> FakePhone:
    return FakePhone(
        {
            "home": FakeScreen(
                buttons=[button("Training", 100, 1300, 500, 1400), button("Rest", 600, 1300, 1000, 1400)],
                texts=[text("Summer Camp", 300, 600, 700, 660), text("Energy 80", 100, 200, 400, 250)],
                goes_to={"Training": "training", "Summer Camp": "camp"},
            ),
            "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900), button("Back", 40, 1750, 240, 1840)],
                                   goes_to={"Back": "home", "back": "home"}),
            "camp": FakeScreen(texts=[text("Camp starts in July", 100, 700, 900, 760)], goes_to={"back": "home"}),
        },
        start="home",
    )


def _current(request: dict[str, Any]) -> list[dict[str, Any]]:
    return request["messages"][-1]["content"]


def _results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in _current(request) if b["type"] == "tool_result"]


def _log(tmp_path, turn: int) -> TurnLog:
    return TurnLog.model_validate_json((tmp_path / "logs" / f"turn_{turn:06d}.json").read_text())


def test_a_press_taps_the_named_button_and_its_effect_arrives_next_turn(tmp_path):
    phone = _phone()
    model = ScriptedModel([[{"type": "text", "text": "Train."}, call("pressButton", name="Training")],
                           [call("back")], [call("confirm")]])
    totals = loop(tmp_path, phone, model, max_turns=3).run()
    assert totals.turns == 3 and totals.stop_reason == "max_turns (3) reached"
    assert phone.calls[:2] == [("tap", 300, 1350), ("tap", 140, 1795)]  # Training, then the visible Back button
    # the press answers in the second request, under the id history keeps (t1), and says what happened
    [press] = _results(model.requests[1])
    assert press["tool_use_id"] == "t1" and not press.get("is_error")
    assert press["content"].startswith("tapped 'Training' at (300,1350); screen changed (distance")
    assert _log(tmp_path, 1).action.effect.startswith("screen changed")  # filled in by turn 2
    # history keeps the compact line and the compact reply
    remembered = json.dumps(model.requests[2]["messages"][:-1])
    assert "pressed Training: changed" in remembered and '"id": "t1"' in remembered
    # confirm on a screen without OK taps nothing and says why, listing the buttons
    log3 = _log(tmp_path, 3)
    assert log3.action is None and any(e.startswith("action: no confirming button") for e in log3.errors)


def test_a_read_text_can_be_pressed_and_the_result_says_so(tmp_path):
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="summer camp")], [call("back")]])
    loop(tmp_path, phone, model, max_turns=2).run()
    assert phone.calls[0] == ("tap", 500, 630)
    [press] = _results(model.requests[1])
    assert press["content"].startswith("tapped text 'Summer Camp' at (500,630); screen changed")
    assert _log(tmp_path, 1).action.target == "Summer Camp"


def test_memory_tools_run_at_once_and_only_one_input_action_runs(tmp_path):
    phone = _phone()
    model = ScriptedModel([
        [call("createMemoryFile", name="plan.md", content="train speed"), call("pressButton", name="Training"),
         call("pressButton", name="Rest"), call("deleteMemoryFile", name="missing.md")],
        [call("back")],
    ])
    loop(tmp_path, phone, model, max_turns=2).run()
    assert (tmp_path / "memory" / "plan.md").read_text() == "train speed"
    assert phone.calls == [("tap", 300, 1350), ("tap", 140, 1795)]  # Training, then Back: Rest was not pressed
    results = {r["tool_use_id"]: r for r in _results(model.requests[1])}
    assert results["t1"]["content"].startswith("create plan.md: ok")
    assert results["t1c"] == {"type": "tool_result", "tool_use_id": "t1c", "is_error": True,
                              "content": "not executed: only one input action per turn"}
    assert results["t1d"]["is_error"] is True
    first = _log(tmp_path, 1)
    assert [(c.op, c.name) for c in first.memory_changes] == [("create", "plan.md")]
    assert any(e.startswith("memory: ") for e in first.errors)
    # The memory snapshot in system waits for the next fold (append-only); the write is in the kept tool call.
    assert "plan.md" not in json.dumps(model.requests[1]["system"])
    assert "train speed" in json.dumps(model.requests[1]["messages"])
    # ... and says so: "(no memory files yet)" is dated, and the same text in both requests (the prefix stays cached)
    systems = [json.dumps(r["system"]) for r in model.requests[:2]]
    assert "(a snapshot taken at turn 1, refreshed when old turns are folded" in systems[0]
    assert "no memory files yet" in systems[0] and systems[0] == systems[1]


def test_an_unknown_name_taps_nothing_and_repeats_lead_to_a_warning_then_a_pause(tmp_path):
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Gacha")]] * 4)
    coordinator = loop(tmp_path, phone, model, max_turns=10, stuck_after=2, stuck_force_after=8, stuck_pause_after=4)
    coordinator.cfg.recovery.max_cycles = 0  # no ladder: the pause comes at stuck_pause_after (test_recovery.py)
    totals = coordinator.run()
    assert phone.calls == []
    [refused] = _results(model.requests[1])
    assert refused["is_error"] and "no button or text named 'Gacha'" in refused["content"]
    assert "'Training'" in refused["content"] and "'Summer Camp'" in refused["content"]
    assert "STUCK WARNING" in json.dumps(_current(model.requests[2]))
    # the fifth turn is the pause: no model call, the run says why
    assert len(model.requests) == 4 and totals.stop_reason.startswith("paused: stuck")
    assert _log(tmp_path, 5).errors[-1].endswith("no model call this turn")


def test_when_stuck_the_coordinator_forces_another_kind_of_action(tmp_path):
    phone = _phone()
    phone.screens["home"].goes_to.pop("Training")  # pressing Training now changes nothing
    model = ScriptedModel([[call("pressButton", name="Training")]] * 3)
    loop(tmp_path, phone, model, max_turns=3, stuck_after=1, stuck_force_after=2, stuck_pause_after=9).run()
    forced = _log(tmp_path, 3).action
    assert forced is not None and forced.forced and forced.tool == "back" and phone.calls[-1] == ("back",)
    assert any("the coordinator ran back instead of your action" in e for e in _log(tmp_path, 3).errors)


def test_a_failed_model_call_ends_the_turn_and_results_wait_for_the_next_request(tmp_path):
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Training")], model_error(), [call("back")]])
    coordinator = loop(tmp_path, phone, model, max_turns=9)
    coordinator.step()
    failed = coordinator.step()
    assert failed.errors == ["model: API error 529: overloaded"] and failed.response is not None
    assert failed.action is None and failed.tool_results[0].tool_use_id == "t1"
    coordinator.step()
    assert _results(model.requests[2])[0]["tool_use_id"] == "t1"  # delivered once the model answers


def test_three_failed_model_calls_end_the_run(tmp_path):
    model = ScriptedModel([model_error(), model_error(), model_error()])
    totals = loop(tmp_path, _phone(), model, max_turns=9).run()
    assert totals.stop_reason.startswith("3 model calls in a row failed with non-retryable errors")
    assert totals.turns == 3  # failed turns count toward max_turns


def test_a_bad_frame_costs_a_turn_without_a_model_call(tmp_path):
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Training")], [call("back")]])
    coordinator = loop(tmp_path, phone, model, max_turns=9)
    coordinator.step()
    phone.fail_captures = 10**9  # settle gives up: no good frame at all
    blind = coordinator.step()
    assert blind.errors and blind.errors[0].startswith("device: no usable frame") and len(model.requests) == 1
    phone.fail_captures = 0
    coordinator.step()
    assert _results(model.requests[1])[0]["content"].startswith("tapped 'Training'")  # the effect waited


def test_nothing_is_sent_when_the_screen_moved_while_the_model_decided(tmp_path):
    phone = _phone()
    phone.on_capture = ["home", "home", "training"]  # two settle captures, then the pre-tap capture
    model = ScriptedModel([[call("pressButton", name="Rest")]])
    log = loop(tmp_path, phone, model, max_turns=1).step()
    assert phone.calls == [] and log.action is None
    assert "not executed: the screen changed while you were deciding" in log.errors[-1]


def test_a_bug_in_a_stage_is_a_logged_turn_error_and_three_in_a_row_end_the_run(tmp_path):
    model = ScriptedModel([])  # the loop asks for a reply that is not there: a bug in the stage
    coordinator = loop(tmp_path, _phone(), model, max_turns=9)
    first = coordinator.step()  # the run is not killed: the turn is logged with the error and where it was
    assert first.errors[-1].startswith("internal: AssertionError: ScriptedModel: no reply left")
    assert "fakes.py:" in first.errors[-1]
    log = _log(tmp_path, 1)
    assert log.vision is not None and log.vision.summary.startswith("buttons: Training, Rest")
    assert [s.name for s in log.context][:2] == ["tools", "system"]  # the request was built
    totals = coordinator.run()
    assert totals.stop_reason == "3 turns in a row hit an internal error (see their turn logs)"


def test_an_input_the_device_never_confirmed_is_logged_as_sent_and_told_as_unknown(tmp_path):
    phone = _phone()
    phone.unconfirmed = True  # the tap runs, its answer never comes
    model = ScriptedModel([[call("pressButton", name="Training")], [call("back")]])
    clock = FakeClock()  # the quiet wait below is 20 s of the run's clock, not of the suite's
    loop(tmp_path, phone, model, max_turns=2, clock=clock).run()
    assert 20.0 in clock.waits  # no input for twice the command timeout after one that may still run
    first = _log(tmp_path, 1)
    assert first.action is not None and first.action.outcome == "unknown" and first.action.point == [300, 1350]
    assert any(e.startswith("action: outcome unknown") and "may still run it" in e for e in first.errors)
    [result] = _results(model.requests[1])  # the next frame decides: it happened
    assert not result.get("is_error")
    assert result["content"].startswith("tapped 'Training' at (300,1350), but the device never confirmed it")
    assert "(outcome unknown until this screen); screen changed" in result["content"]
    assert phone.calls == [("tap", 300, 1350), ("tap", 140, 1795)]  # Training once (never resent), then Back


def test_a_crashing_tool_handler_is_an_error_result_not_a_dead_run(tmp_path):
    class Broken(Echo):
        name = "echo"

        def run(self, args: Args, ctx: ToolContext) -> Outcome:
            raise RecursionError("maximum recursion depth exceeded")

    tools = default_tools()
    tools.add(Broken())
    model = ScriptedModel([[call("echo", words="x"), call("pressButton", name="Training")], [call("back")]])
    totals = loop(tmp_path, _phone(), model, tools=tools, max_turns=2).run()
    assert totals.turns == 2
    results = _results(model.requests[1])
    assert results[0]["is_error"] and "internal error" in results[0]["content"]
    assert results[1]["content"].startswith("tapped 'Training'")  # the rest of the reply still ran
    assert any("internal error in echo: RecursionError" in e for e in _log(tmp_path, 1).errors)


def test_a_turn_log_that_cannot_be_written_loses_no_cost(tmp_path, monkeypatch):
    def script() -> ScriptedModel:
        return ScriptedModel([[call("pressButton", name="Training")], [call("back")]])

    written = loop(tmp_path / "ok", _phone(), script(), max_turns=1).run()
    coordinator = loop(tmp_path / "full", _phone(), script(), max_turns=2)

    def disk_full(log: TurnLog) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(coordinator.logger, "write", disk_full)
    totals = coordinator.run()  # the disk is full: the run ends after the turn (tests/agent/test_stop.py)
    assert totals.turns == 1 and totals.usage == written.usage and totals.cost_usd == written.cost_usd > 0


def test_a_device_without_frames_ends_the_run_only_after_the_outage_window(tmp_path):
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Training")]] + [[call("back")]] * 9)
    coordinator = loop(tmp_path, phone, model, max_turns=9)
    coordinator.cfg.device.outage_wait_s = 3600
    coordinator.step()
    phone.fail_captures = 10**9
    for _ in range(4):  # four blind turns: more than the old limit of three, well inside the window
        assert coordinator.step().errors[0].startswith("device: no usable frame")
    coordinator.cfg.device.outage_wait_s = 0
    totals = coordinator.run()
    assert totals.stop_reason.startswith("the device failed: no usable frame for") and len(model.requests) == 1


def test_the_baseline_layout_sends_no_cache_control_and_the_verbose_reading(tmp_path):
    model = ScriptedModel([[call("pressButton", name="Training")], [call("back")]])
    loop(tmp_path, _phone(), model, layout=bench_module("baseline_layout").BaselineLayout(), max_turns=2).run()
    sent = json.dumps(model.requests)
    assert "cache_control" not in sent and '\\"full_label\\": \\"Training\\"' in sent
    cached = ScriptedModel([[call("pressButton", name="Training")], [call("back")]])
    loop(tmp_path / "cached", _phone(), cached, max_turns=2).run()
    assert "cache_control" in json.dumps(cached.requests) and "full_label" not in json.dumps(cached.requests)


class EchoArgs(Args):
    words: str


class Echo(Tool):
    """A tool added in one place: it is offered to the model and answers in the next request."""

    name = "echo"
    description = "Say it back."
    args = EchoArgs

    def run(self, args: EchoArgs, ctx: ToolContext) -> Outcome:
        return Outcome(content=f"{args.words} (turn {ctx.turn}, {len(ctx.vision.buttons)} buttons)", short="echoed")


def test_a_tool_registered_in_one_place_is_offered_run_and_answered(tmp_path):
    tools = default_tools()
    tools.add(Echo())
    model = ScriptedModel([[call("echo", words="hello")], [call("echo", nope=1)], [call("back")]])
    loop(tmp_path, _phone(), model, tools=tools, max_turns=3).run()
    assert [t["name"] for t in model.requests[0]["tools"]][-1] == "echo"
    assert _results(model.requests[1])[0]["content"] == "hello (turn 1, 2 buttons)"
    bad = _results(model.requests[2])[-1]
    assert bad["is_error"] and "invalid input for echo" in bad["content"]
    assert "echoed" in json.dumps(model.requests[2]["messages"][:-1])  # the compact form in history


def test_after_an_unconfirmed_input_the_next_one_waits_for_it_to_land(tmp_path):
    phone = _phone()
    tap, late = phone.tap, [True]

    def slow_device_tap(box):
        before = phone.screen
        try:
            return tap(box)
        finally:
            if late:  # the first tap is acted on by the phone only 0.3 s after the agent gave up on it
                late.clear()
                after, phone.screen = phone.screen, before
                threading.Timer(0.3, lambda: setattr(phone, "screen", after)).start()

    phone.tap = slow_device_tap
    phone.unconfirmed = True
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="Rest")]])
    coordinator = loop(tmp_path, phone, model, max_turns=2)
    coordinator.actor.quiet_s = 0.4  # two command timeouts of 0.2 s
    coordinator.run()
    # Turn 2 decided on the home screen; the late tap then opened Training. Rest must not land there.
    assert phone.calls == [("tap", 300, 1350)]
    assert "not executed: the screen changed while you were deciding" in _log(tmp_path, 2).errors[-1]
