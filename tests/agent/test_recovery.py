"""Left alone with the game: the recovery ladder, the game as an app, the guard and the notify command, on the real
Coordinator with a fake phone whose shell answers `dumpsys window`, `monkey` and `am force-stop` as Android does."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from fakes import FakeClock, FakePhone, FakeScreen, ScriptedModel, button, call, loop, text

from lluma_agent.config import NotifyConfig
from lluma_agent.context.stuck import StuckDetector
from lluma_agent.loop import checkpoint
from lluma_agent.loop.app import tell_the_end
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.stop import StopKind, exit_status
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.claude import ModelReply
from lluma_agent.notify import Notifier
from lluma_agent.runlog.stats import compute
from lluma_agent.runlog.turnlog import read_turns
from lluma_facts import Usage

PKG = "com.cygames.umamusume"
ACT = "jp.co.cygames.umamusume_activity.UmamusumeActivity"


class AppPhone(FakePhone):
    """A FakePhone whose game is an app: stopped, it shows the launcher; started, its title screen."""

    def __init__(self, screens: dict[str, FakeScreen], start: str, installed: bool = True) -> None:
        title = FakeScreen(texts=[text("TAP TO START", 350, 1500, 730, 1560)], goes_to={"TAP TO START": start})
        screens = {**screens, "launcher": FakeScreen(texts=[text("Uma Musume", 400, 900, 680, 960)]), "title": title}
        super().__init__(screens, start)
        self.running, self.installed, self.shell_calls = True, installed, []

    def shell(self, command: str, what: str = "shell") -> tuple[str, str, int | None]:
        self.shell_calls.append(command)
        words = command.split()
        if words[:2] == ["dumpsys", "window"]:
            who = f"{PKG}/{ACT}" if self.running else "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
            return f"  mCurrentFocus=Window{{2785a60 u0 {who}}}\n  mCurrentFocus=null\n", "", 0
        if words[0] == "monkey":
            if not self.installed:
                return "", "** No activities found to run, monkey aborted.\n", 0
            self.running, self.screen = True, "title"
            return "Events injected: 1\n", "", 0
        if words[:2] == ["am", "force-stop"]:
            self.running, self.screen = False, "launcher"
        return "", "", 0


def _phone(installed: bool = True, **more: FakeScreen) -> AppPhone:
    return AppPhone({**more,
        "home": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400), button("Shop", 600, 1300, 1000, 1400)],
                           goes_to={"Shop": "shop"}),
        "shop": FakeScreen(buttons=[button("Purchase Carats", 100, 800, 980, 900), button("Back", 40, 1750, 240, 1840)],
                           goes_to={"Back": "home", "back": "home"}),
    }, start="home", installed=installed)


def _loop(tmp_path: Path, phone: AppPhone, model: ScriptedModel, notify: str | None = None,
          notifier_run: str | None = None, **run: Any) -> Coordinator:
    """The loop on a phone whose game is an app; `notify`: notify.command (its notifier names the run
    `notifier_run`, default the run folder's name)."""
    c = loop(tmp_path, phone, model, app=True, settings={"recovery__wait_s": 0, "notify__command": notify},
             notifier=Notifier(NotifyConfig(command=notify), run=notifier_run) if notifier_run else None, **run)
    return c


def _hook(tmp_path: Path) -> tuple[str, Path]:
    out = tmp_path / "events.jsonl"
    script = tmp_path / "hook.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n", encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(out))}", out


def _events(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


def test_the_ladder_climbs_every_rung_then_starts_over_and_pauses_only_after_max_cycles(tmp_path: Path) -> None:
    phone = _phone()
    model = ScriptedModel([[call("pressButton", name="Training")]] * 40)  # Training leads nowhere: stuck
    c = _loop(tmp_path, phone, model, max_turns=60, stuck_after=2, stuck_force_after=3, stuck_pause_after=4)
    c.cfg.recovery.max_cycles = 2
    phone.screens["title"].goes_to["TAP TO START"] = "home"
    totals = c.run()
    logs = read_turns(tmp_path / "logs")
    rungs = [t.recovery.rung if t.recovery else "-" for t in logs]
    own = [r for r in rungs if r in ("back", "safe_tap", "restart", "wait", "over", "pause")]
    # restart shows the title screen: a change that ends the episode, so the ladder climbs from there again
    assert own[:3] == ["back", "safe_tap", "restart"], rungs
    assert "warn" in rungs and "force" in rungs and rungs.index("warn") < rungs.index("force") < rungs.index("back")
    assert totals.recoveries["restart"] >= 1 and totals.game_starts == totals.recoveries["restart"]
    restart = next(t for t in logs if t.recovery and t.recovery.rung == "restart")
    assert restart.game_start is not None and restart.game_start.ok and restart.response is None  # no model call
    assert restart.game_start.reason.startswith("recovery rung restart (")
    assert f"am force-stop {PKG}" in phone.shell_calls and f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1" in (
        phone.shell_calls)
    # every rung turn is the coordinator's own: no model call, said in the log
    for t in logs:
        if t.recovery and t.recovery.rung in ("back", "safe_tap", "restart", "wait"):
            assert t.response is None and t.stuck.level == "recover"
            assert any(e.endswith("no model call this turn") for e in t.errors)
    assert totals.stop_kind == StopKind.STUCK and exit_status(totals.stop_kind) == 3
    assert rungs[-1] == "pause" and logs[-1].stuck.level == "pause"
    assert "the recovery ladder was climbed in vain 2 time(s)" in totals.stop_reason
    assert rungs.count("over") == 1  # the first failed ladder started over; the second paused the run
    # the counts in RunTotals are the turn logs' counts, as `lluma stats` reads them
    stats = compute(logs)
    assert stats.recoveries == totals.recoveries and stats.game_starts == totals.game_starts


def test_a_rung_that_changes_the_screen_ends_the_episode(tmp_path: Path) -> None:
    phone = _phone()
    phone.screens["home"].goes_to["back"] = "shop"  # the back key gets the game moving
    model = ScriptedModel([[call("pressButton", name="Training")]] * 4 + [[call("pressButton", name="Back")]] * 2)
    c = _loop(tmp_path, phone, model, max_turns=7, stuck_after=2, stuck_force_after=9, stuck_pause_after=4)
    c.cfg.recovery.max_cycles, c.cfg.recovery.calm_turns = 1, 2
    totals = c.run()
    assert totals.stop_kind == StopKind.MAX_TURNS and totals.recoveries.get("back") == 1
    # two calm turns after the rung: the next episode climbs from the first rung
    assert "safe_tap" not in totals.recoveries and c.stuck.climbed == 0 and c.stuck.failed == []
    after = read_turns(tmp_path / "logs")[5]  # the turn after the back rung: the model is told what happened
    assert any("recovery rung back" in n and "screen changed" in n for n in after.notes)


def test_a_game_not_in_the_foreground_is_started_and_the_start_is_logged_and_told(tmp_path: Path) -> None:
    phone = _phone()
    command, out = _hook(tmp_path)
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="TAP TO START")],
                           [call("pressButton", name="Training")]])
    c = _loop(tmp_path, phone, model, notify=command, notifier_run="run-x", max_turns=3)
    c.step()
    phone.running, phone.screen = False, "launcher"  # the game crashed to the launcher
    second = c.step()
    assert second.game_start is not None and second.game_start.ok
    assert second.game_start.reason == ("not in the foreground (com.google.android.apps.nexuslauncher/"
                                        ".NexusLauncherActivity)")
    assert second.vision is not None and second.vision.seen_by_model["texts"] == ["TAP TO START"]  # the started game
    third = c.step()
    assert third.game_start is None and c.totals.game_starts == 1
    assert c.notifier.wait(10)
    [event] = _events(out)
    assert event["event"] == "game_restarted" and event["ok"] is True and event["turn"] == 2 and event["run"] == "run-x"


def test_a_start_that_fails_is_a_clear_line_and_the_run_goes_on(tmp_path: Path) -> None:
    phone = _phone(installed=False)
    phone.running, phone.screen = False, "launcher"
    model = ScriptedModel([[call("pressButton", name="Uma Musume")]] * 2)
    totals = _loop(tmp_path, phone, model, max_turns=2).run()
    first = read_turns(tmp_path / "logs")[0]
    assert first.game_start is not None and not first.game_start.ok
    assert f"game: could not start {PKG} (`monkey -p {PKG} -c android.intent.category.LAUNCHER 1`): ** No activities " \
           "found to run, monkey aborted." in first.errors
    assert first.response is not None  # the turn went on: the model saw the launcher
    assert totals.stop_kind == StopKind.MAX_TURNS and totals.game_starts == 0 and totals.game_start_failures == 2


def test_a_game_that_cannot_be_started_ends_the_run_after_game_start_tries_told_once(tmp_path: Path) -> None:
    """The package is not installed: every start fails the same way. The run stops after game.start_tries of them
    in a row (its own stop kind, exit 1), the failed starts told to nobody, the stop told once; the last turn plays
    nothing (no model call on the launcher)."""
    phone = _phone(installed=False)
    phone.running, phone.screen = False, "launcher"
    command, out = _hook(tmp_path)
    model = ScriptedModel([[call("pressButton", name="Uma Musume")]] * 20)
    c = _loop(tmp_path, phone, model, notify=command, max_turns=20)
    totals = c.run()
    tell_the_end(c)
    assert totals.stop_kind == StopKind.GAME_START and exit_status(totals.stop_kind) == 1
    assert totals.turns == 3 == c.cfg.game.start_tries and totals.game_start_failures == 3
    assert totals.stop_reason == (f"the game could not be started 3 time(s) in a row (game.start_tries 3): {PKG} is "
                                  "not installed on the device (game.package names another client?)")
    assert len(model.requests) == 2  # the last turn made no model call
    assert [e["event"] for e in _events(out)] == ["run_stopped"] and _events(out)[0]["stop_kind"] == "game_start"


def test_a_start_that_works_between_failures_starts_the_count_again(tmp_path: Path) -> None:
    phone = _phone(installed=False)
    phone.running, phone.screen = False, "launcher"
    model = ScriptedModel([[call("pressButton", name="Uma Musume")]] * 10)
    c = _loop(tmp_path, phone, model, max_turns=6)
    for _ in range(2):
        c.step()
    phone.installed = True  # installed at last: the next start works, and the streak is over
    assert c.step().game_start.ok  # type: ignore[union-attr]
    phone.installed, phone.running, phone.screen = False, False, "launcher"
    assert c.run().stop_kind == StopKind.GAME_START and c.totals.turns == 6


def test_a_guarded_button_is_never_pressed_and_the_model_is_told(tmp_path: Path) -> None:
    phone = _phone()
    phone.screen = "shop"
    model = ScriptedModel([[call("pressButton", name="purchase carats")], [call("back")]])
    c = _loop(tmp_path, phone, model, max_turns=2)
    c.run()
    assert phone.calls == [("tap", 140, 1795)]  # only Back: the carats were never tapped
    refused = [b for b in model.requests[1]["messages"][-1]["content"] if b["type"] == "tool_result"][0]
    assert refused["is_error"] and "would press 'Purchase Carats'" in refused["content"]
    first = read_turns(tmp_path / "logs")[0]
    assert first.action is None
    assert first.guard == ["refused pressButton(Purchase Carats): 'Purchase Carats' is guarded"]


def test_a_tap_that_lands_on_a_guarded_button_is_refused_whatever_names_it(tmp_path: Path) -> None:
    phone = _phone()
    phone.screen = "shop"
    phone.screens["shop"].texts.append(text("Carats", 300, 820, 500, 880))  # a text line on the guarded button
    model = ScriptedModel([[call("pressButton", name="Carats")]])
    log = _loop(tmp_path, phone, model, max_turns=1).step()
    assert phone.calls == [] and log.guard and "'Purchase Carats' is guarded" in log.guard[0]


def test_session_error_ends_the_run_with_exit_1_and_tells_a_person(tmp_path: Path) -> None:
    phone = _phone(session=FakeScreen(texts=[text("Session Error", 350, 700, 730, 760)],
                                      buttons=[button("Title Screen", 340, 1100, 740, 1200)]))
    command, out = _hook(tmp_path)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    c = _loop(tmp_path, phone, model, notify=command, max_turns=5)
    phone.on_capture = ["home", "home", "home", "session"]  # after the first turn the game shows Session Error
    totals = c.run()
    tell_the_end(c)
    assert totals.stop_kind == StopKind.SESSION and exit_status(totals.stop_kind) == 1 and totals.turns == 2
    assert len(model.requests) == 1 and phone.calls == [("tap", 300, 1350)]  # Title Screen never pressed
    assert [e["event"] for e in _events(out)] == ["session_error", "run_stopped"]
    assert _events(out)[1]["stop_kind"] == "session" and _events(out)[1]["exit_status"] == 1


def test_recover_tp_is_cancelled_and_waited_out_without_a_model_call(tmp_path: Path) -> None:
    phone = _phone(tp=FakeScreen(texts=[text("Recover TP", 380, 500, 700, 560)],
                                 buttons=[button("Use", 600, 1100, 900, 1200), button("Cancel", 180, 1100, 480, 1200)],
                                 goes_to={"Cancel": "home"}))
    phone.screen = "tp"
    model = ScriptedModel([[call("pressButton", name="Training")]])
    c = _loop(tmp_path, phone, model, max_turns=2)
    c.cfg.guard.tp_wait_s = 0.2
    first = c.step()
    assert phone.calls == [("tap", 330, 1150)] and first.response is None and len(model.requests) == 0
    assert first.guard and first.guard[0].startswith("cancelled 'Recover TP' and waited 0 s")
    assert first.timings.total_s >= 0.2
    c.step()
    assert len(model.requests) == 1  # the model plays on from home, told what the coordinator did
    assert "cancelled 'Recover TP'" in json.dumps(model.requests[0]["messages"][-1])


def test_the_checkpoint_keeps_the_ladder_where_it_was(tmp_path: Path) -> None:
    phone = _phone()
    c = _loop(tmp_path, phone, ScriptedModel([]), max_turns=1)
    c.stuck.climbed, c.stuck.failed = 2, [1_700_000_000.0]
    cp = checkpoint.Checkpoint.model_validate_json(checkpoint.capture(c).model_dump_json())
    fresh = _loop(tmp_path / "again", _phone(), ScriptedModel([]), max_turns=1)
    checkpoint.apply(fresh, cp)
    assert (fresh.stuck.climbed, fresh.stuck.failed) == (2, [1_700_000_000.0])


def test_failed_ladders_older_than_the_window_do_not_count() -> None:
    s = StuckDetector(1, 2, 3)
    s.climbed = 4
    assert s.climb(True, 2, 3600, now=10_000).rung == "over"
    s.climbed = 4
    assert s.climb(True, 2, 3600, now=10_000 + 3601).rung == "over"  # the first one fell out of the window
    s.climbed = 4
    climb = s.climb(True, 2, 3600, now=10_000 + 3602)
    assert climb.rung == "pause" and climb.failed == 2
    assert s.climb(False, 0, 3600, now=0).rung == "pause"  # max_cycles 0: no ladder


def test_stuck_again_soon_after_a_rung_goes_on_up_the_same_ladder() -> None:
    s = StuckDetector(1, 2, 3)
    assert s.climb(True, 3, 3600, now=0).rung == "back"
    s.settled(calm_turns=5)  # two calm turns, then stuck again
    s.settled(calm_turns=5)
    s.unsettled()
    assert s.climb(True, 3, 3600, now=0).rung == "safe_tap"
    for _ in range(5):
        s.settled(calm_turns=5)
    assert s.climb(True, 3, 3600, now=0).rung == "back"  # five calm turns: a new episode


def test_a_run_paused_by_the_ladder_resumes_with_a_fresh_ladder(tmp_path: Path) -> None:
    from lluma_agent.loop.resume import ResumePoint, restore

    phone = _phone()
    first = _loop(tmp_path, phone, ScriptedModel([[call("pressButton", name="Training")]] * 10), max_turns=30,
                  stuck_after=2, stuck_force_after=3, stuck_pause_after=4)
    first.cfg.recovery.max_cycles = 1
    assert first.run().stop_kind == StopKind.STUCK and len(first.stuck.failed) == 1
    cp = checkpoint.capture(first)
    first.logger.close()
    second = _loop(tmp_path, _phone(), ScriptedModel([[call("pressButton", name="Shop")]]), max_turns=1,
                   stuck_after=2, stuck_force_after=3, stuck_pause_after=4)
    second.cfg.recovery.max_cycles = 1
    restore(ResumePoint(tmp_path / "logs", cp), second)
    assert (second.stuck.climbed, second.stuck.failed, second.stuck.unchanged) == (0, [], 0)
    assert second.run().stop_kind == StopKind.MAX_TURNS  # played, not paused again at once


def test_the_live_line_shows_starts_rungs_and_the_guard(tmp_path: Path) -> None:
    from lluma_agent.loop.app import live_line
    from lluma_agent.loop.turn import RunTotals
    from lluma_agent.runlog.turnlog import GameStartLog, RecoveryLog, TurnLog

    log = TurnLog(turn=7, started_at=0.0, model="claude-haiku-5-5", recovery=RecoveryLog(rung="restart", reason="x"),
                  game_start=GameStartLog(reason="recovery rung restart (x)", ok=False,
                                          output="** No activities found to run, monkey aborted."),
                  guard=["refused pressButton(Purchase Carats): 'Purchase Carats' is guarded"])
    line = live_line(log, RunTotals())
    assert "| game start FAILED: ** No activities found to run, monkey aborted." in line
    echoes = "  bash arg: -p\n  bash arg: com.x\n"  # monkey echoes its arguments a line each, first
    echoed = live_line(log.model_copy(update={"game_start": GameStartLog(
        reason="x", ok=False, output=echoes + "** No activities found to run, monkey aborted.")}), RunTotals())
    assert "bash arg" not in echoed and echoed == line  # the echoes never reach the line (continuation lines: app.py)
    assert "| recovery: restart" in line and "| guard: refused pressButton(Purchase Carats)" in line


def test_agreeing_on_a_guarded_dialog_is_refused_and_the_way_out_is_not(tmp_path: Path) -> None:
    age = FakeScreen(texts=[text("Age Confirmation", 300, 500, 780, 560)],
                     buttons=[button("OK", 600, 1100, 900, 1200), button("Cancel", 180, 1100, 480, 1200)],
                     goes_to={"Cancel": "home"})
    phone = _phone(age=age)
    phone.screen = "age"
    model = ScriptedModel([[call("confirm")], [call("pressButton", name="Cancel")], [call("pressButton", name="Shop")]])
    c = _loop(tmp_path, phone, model, max_turns=3)
    first, second = c.step(), c.step()
    assert first.action is None and first.guard == ["refused confirm(OK): 'Age Confirmation' is guarded"]
    assert second.action is not None and second.action.target == "Cancel" and phone.calls == [("tap", 330, 1150)]


def test_a_long_wait_ends_at_a_persons_stop_and_at_max_hours(tmp_path: Path) -> None:
    tp = FakeScreen(texts=[text("Recover TP", 380, 500, 700, 560)], buttons=[button("Cancel", 180, 1100, 480, 1200)])
    class StopsAt30(FakeClock):  # a wait takes no time: the clock moves as the coordinator sleeps
        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            if self.at >= 30:
                c.request_stop()  # Ctrl+C half a minute into the ten-minute wait

    c = _loop(tmp_path, _phone(tp=tp), ScriptedModel([]), clock=StopsAt30(), max_turns=5)
    c.app.device.screen = "tp"  # type: ignore[union-attr]
    c.cfg.guard.tp_wait_s = 600
    log = c.step()
    assert log.guard == ["cancelled 'Recover TP' and waited 30 s for TP to come back"]
    clock2 = FakeClock()
    c2 = _loop(tmp_path / "hours", _phone(tp=tp), ScriptedModel([]), clock=clock2, max_turns=5, max_hours=0.5)
    c2.app.device.screen = "tp"  # type: ignore[union-attr]
    c2.cfg.guard.tp_wait_s = 3600
    totals = c2.run()
    assert totals.stop_kind == StopKind.MAX_HOURS and totals.turns == 1  # the hour's wait cut at half an hour
    assert clock2.at == 1800 and "waited 1800 s" in read_turns(tmp_path / "hours" / "logs")[0].guard[0]


class KilledPhone(AppPhone):
    """The game stopped from outside every few seconds: two looks of three find it gone again (whatever was on the
    screen), so the screens read vary (the title, home, a career screen) and no streak of one screen builds up."""

    def __init__(self) -> None:
        super().__init__({"home": FakeScreen(buttons=[button("Career", 100, 1300, 500, 1400)],
                                             texts=[text("Home", 40, 40, 300, 100)], goes_to={"Career": "scenario"}),
                          "scenario": FakeScreen(buttons=[button("Next", 400, 1600, 700, 1700)],
                                                 texts=[text("Select Scenario", 40, 40, 400, 100)],
                                                 goes_to={"Next": "home"})}, start="home")
        self.looks = 0

    def shell(self, command: str, what: str = "shell") -> tuple[str, str, int | None]:
        if command.split()[:2] == ["dumpsys", "window"]:
            self.looks += 1
            if self.looks % 3:
                self.running, self.screen = False, "launcher"
        return super().shell(command, what)


class Player:
    """A model that presses what the screen offers: the title's text, else the first button."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []

    def decide(self, request: dict[str, object]) -> ModelReply:
        self.requests.append(request)
        seen = json.dumps(request["messages"][-1])  # type: ignore[index]
        name = "TAP TO START" if "TAP TO START" in seen else "Career" if "Career" in seen else "Next"
        block = call("pressButton", name=name)
        return ModelReply(content=[block], text="", tool_calls=[ToolCall(id=block["id"], name=block["name"],
                                                                         input=block["input"])],
                          stop_reason="tool_use", usage=Usage(input_tokens=1000, output_tokens=50))

    def preflight(self, request: dict[str, object]) -> tuple[bool, str] | None:
        return None


def test_a_game_stopped_from_outside_again_and_again_ends_in_a_clear_stop_not_a_loop(tmp_path: Path) -> None:
    """Probe: the game is killed every few seconds for minutes. Each start succeeds and the screens read vary, so
    the stuck detector sees no streak of one screen and no A-B-A-B loop: before, the run started the game again on
    two turns of three until max_turns. The ladder counts the starts: recovery.max_starts of them within
    recovery.calm_turns turns is a ladder climbed in vain, and recovery.max_cycles of those pause the run (exit 3)."""
    c = _loop(tmp_path, KilledPhone(), Player(), max_turns=300)  # type: ignore[arg-type]
    totals = c.run()
    rc = c.cfg.recovery
    assert totals.stop_kind == StopKind.STUCK and exit_status(totals.stop_kind) == 3, totals.stop_reason
    assert f"the game kept stopping: started again {rc.max_starts} times within {rc.calm_turns} turns" \
        in totals.stop_reason
    assert totals.game_starts == rc.max_cycles * rc.max_starts and totals.turns < 100
    rungs = [log.recovery.rung for log in read_turns(tmp_path / "logs") if log.recovery is not None]
    assert rungs[-1] == "pause" and rungs.count("over") >= rc.max_cycles - 1


def test_the_forced_action_and_the_rungs_never_land_on_a_spends_button(tmp_path: Path) -> None:
    """A lost goal race's "Try Again" laid out as a client may lay it out (issue 51): its question high, Try Again
    stacked over Cancel in the band of the dialogue tap. Ungated, the forced dialogue tap steps off Cancel onto Try
    Again and spends the clock; through the spend gate (the reading says the screen spends an Alarm Clock) each
    forced action is the back key, each rung taps nothing near either button, and the clock is never spent."""
    try_again = button("Try Again", 90, 1180, 990, 1320)
    phone = _phone(try_again=FakeScreen(
        texts=[text("Try Again", 440, 700, 640, 760), text("Use 1 Alarm Clock to try again?", 200, 800, 880, 860),
               text("Alarm Clocks owned: 3", 300, 880, 780, 930)],
        buttons=[try_again, button("Cancel", 90, 1340, 990, 1470)],
        goes_to={"Try Again": "home", "Cancel": "home"}))  # Back does nothing on it
    phone.screen = "try_again"
    model = ScriptedModel([[call("back")]] * 12)
    c = _loop(tmp_path, phone, model, max_turns=8, stuck_after=1, stuck_force_after=2, stuck_pause_after=6)
    c.run()
    logs = read_turns(tmp_path / "logs")
    forced = [t for t in logs if t.recovery and t.recovery.rung == "force"]
    assert len(forced) >= 3 and all(t.action is not None and t.action.key == "KEYCODE_BACK" for t in forced)
    assert all(any(e.startswith("spend gate: refused advanceDialogue(dialogue box): not sent") and "'Try Again'" in e
                   for e in t.errors) and t.guard for t in forced), [t.errors for t in forced]
    assert {"back", "safe_tap"} <= {t.recovery.rung for t in logs if t.recovery}
    taps = [(x, y) for kind, *xy in phone.calls if kind == "tap" for x, y in [xy]]
    assert taps and not any(b.bounds.contains(x, y) for x, y in taps for b in phone.screens["try_again"].buttons)
    assert phone.screen == "try_again"  # never passed by a press of the coordinator's
