"""The fault schedule of `lluma demo --faults`: seeded, drawn from the whole matrix, injected as planned and
counted; and the received-tap log that gives `taps_off_target` its ground truth."""

from __future__ import annotations

import json
import time

import adbutils
import anthropic
import pytest

from lluma_agent.tools.registry import tool_definitions
from lluma_sim.adb.server import AdbServer
from lluma_sim.api.server import ApiServer
from lluma_sim.fault_plan import API_KINDS, DEVICE_KINDS, FaultInjector, FaultPlan, PlannedFault
from lluma_sim.game import SimGame
from lluma_sim.taps import MeantTap, off_target, spends_without_model

HAIKU = "claude-haiku-4-5"
SERIAL = "sim-0"


def test_plan_is_seeded_at_the_rate_and_covers_the_matrix() -> None:
    a, b = FaultPlan.make(0.05, seed=11, turns=200), FaultPlan.make(0.05, seed=11, turns=200)
    assert a == b and a != FaultPlan.make(0.05, seed=12, turns=200)
    assert 3 <= len(a.faults) <= 20  # 10 expected
    full = FaultPlan.make(1.0, seed=1, turns=600)
    assert len(full.faults) == 600
    assert set(full.by_kind()) == set(DEVICE_KINDS + API_KINDS) - {"invalid_vlm_json"}
    assert "invalid_vlm_json" in FaultPlan.make(1.0, seed=1, turns=600, vlm=True).by_kind()
    bursts = [f.seconds for f in full.faults if f.kind == "overloaded_burst"]
    assert bursts and max(bursts) <= 30 and min(bursts) >= 2
    assert FaultPlan.make(0.0, seed=1, turns=100).faults == []
    with pytest.raises(ValueError, match="between 0 and 1"):
        FaultPlan.make(1.5, seed=1, turns=10)


def _decide(client: anthropic.Anthropic, turn: int) -> int:
    """One agent turn's decision request; returns the HTTP status it got (0 for a client timeout)."""
    vision = {"buttons": [{"name": "Career"}], "texts": [f"turn {turn}"]}
    try:
        client.messages.create(
            model=HAIKU,
            max_tokens=300,
            tools=tool_definitions(),
            messages=[{"role": "user", "content": f"<vision>{json.dumps(vision)}</vision>"}],
        )
        return 200
    except anthropic.APIStatusError as err:
        return err.status_code
    except anthropic.APITimeoutError:
        return 0


def _device_turn(adb: AdbServer) -> None:
    """What a turn does to the phone: raw and PNG captures and a tap on empty space (errors are the point)."""
    for cmd in ("screencap", "screencap -p", "input tap 5 300"):
        try:
            adbutils.AdbClient(host="127.0.0.1", port=adb.port, socket_timeout=2).device(SERIAL).shell(
                cmd, encoding=None, timeout=0.3
            )
        except (adbutils.AdbError, OSError, adbutils.AdbTimeout):
            pass


def test_every_kind_is_injected_when_planned_and_counted_once() -> None:
    kinds = [k for k in DEVICE_KINDS + API_KINDS if k != "invalid_vlm_json"]
    seconds = {"overloaded_burst": 0.3, "timeout": 0.5, "slow_command": 0.6}
    seconds |= {"device_offline": 0.05, "device_removed": 0.05, "adb_restart": 0.05}
    plan = FaultPlan(
        rate=1.0,
        seed=0,
        faults=[PlannedFault(turn=i + 1, kind=k, seconds=seconds.get(k, 0)) for i, k in enumerate(kinds)],
    )
    game = SimGame(seed=1, width=270, height=480)
    with AdbServer() as adb:
        adb.add_device(SERIAL, game)
        injector = FaultInjector(plan, adb, SERIAL)
        with ApiServer(faults=injector) as api:
            client, impatient = api.client(timeout=5.0), api.client(timeout=0.3)
            statuses = []
            for turn in range(1, len(kinds) + 1):
                statuses.append(_decide(impatient if kinds[turn - 1] == "timeout" else client, turn))
                if kinds[turn - 1] == "overloaded_burst":
                    assert _decide(client, turn) == 529  # the retry of the same turn: still in the burst
                    time.sleep(0.35)
                    assert _decide(client, turn) == 200  # the burst is over
                _device_turn(adb)
                time.sleep(0.08)  # outages end
            injector.close()
            by_kind = injector.injected().by_kind
            assert by_kind == {k: 1 for k in kinds}, by_kind
            assert injector.injected().total == len(kinds)
            assert injector.overloaded_replies == 2
            status_of = dict(zip(kinds, statuses, strict=True))
            assert status_of["rate_limit"] == status_of["rate_limit_no_retry_after"] == 429
            assert (status_of["api_error"], status_of["overloaded_burst"], status_of["timeout"]) == (500, 529, 0)
            retry_after = [e for e in api.log if e.status == 429]
            assert len(retry_after) == 2
            replies = {e.fault: e.stop_reason for e in api.log if e.status == 200 and e.fault}
            assert replies["refusal"] == "refusal" and replies["max_tokens"] == "max_tokens"
            assert any(k.startswith("malformed_tool_input") for k in replies)
        assert SERIAL in adb.serials and game.taps  # the phone is back, the server serves again
        assert adbutils.AdbClient(host="127.0.0.1", port=adb.port).device(SERIAL).shell("echo ok") == "ok"
    slow = [t for t in game.taps if (t.x, t.y) == (5, 300)]
    assert len(slow) >= len(kinds) - 4  # taps during outages never arrive; the slow one still ran


def test_invalid_vlm_json_waits_for_a_vlm_request() -> None:
    plan = FaultPlan(rate=1.0, seed=0, faults=[PlannedFault(turn=1, kind="invalid_vlm_json")])
    with AdbServer() as adb:
        adb.add_device(SERIAL, SimGame(seed=1, width=270, height=480))
        injector = FaultInjector(plan, adb, SERIAL)
        with ApiServer(faults=injector) as api:
            assert _decide(api.client(), 1) == 200  # the decision is untouched
            assert injector.injected().total == 0
            msg = api.client().messages.create(
                model=HAIKU,
                max_tokens=500,
                messages=[{"role": "user", "content": "<ocr>\n0\tCareer\t[10,10,90,30]\n</ocr>"}],
                extra_body={"output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}}},
            )
            with pytest.raises(json.JSONDecodeError):
                json.loads(msg.content[0].text)
            assert injector.injected().by_kind == {"invalid_vlm_json": 1}


def test_received_taps_carry_the_element_under_them_and_unlogged_or_missed_taps_are_off_target() -> None:
    g = SimGame(seed=0)
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
    while g.truth().screen != "hub":
        g.capture()
    g.taps.clear()
    rest = g.truth().element("Rest")
    assert rest is not None
    cx, cy = rest.box.center
    g.tap(cx, cy)  # opens the Rest dialog
    ok = g.truth().element("OK")
    assert ok is not None
    g.tap(ok.box.x0 - 40, ok.box.center[1])  # the agent meant OK but hit beside it (Cancel or the panel)
    g.tap(3, 3)  # a tap nobody logged
    assert [t.element for t in g.taps][:1] == ["Rest"] and g.taps[0].screen == "hub"
    meant = [MeantTap(x=cx, y=cy, target="Rest"), MeantTap(x=ok.box.x0 - 40, y=ok.box.center[1], target="OK")]
    bad = off_target(g.taps, meant)
    assert [(b.meant, b.tap.x) for b in bad] == [("OK", ok.box.x0 - 40), (None, 3)]
    assert off_target(g.taps[:1], meant[:1]) == []
    assert off_target(g.taps[:1], [MeantTap(x=cx, y=cy, target="Rests")]) == []  # an OCR misspelling is fine


def test_one_tap_off_the_logs_is_one_off_target_not_all_that_follow() -> None:
    """A tap no log records, on a point the logs hold much later (the same button another turn), is that one tap:
    the logged taps between still pair with what the phone received."""
    g = SimGame(seed=0)
    points = [(100 + 10 * k, 200) for k in range(12)]
    received = [(100.0 + 10 * 11, 200.0), *points]  # first an unlogged tap where the twelfth logged one lands
    for x, y in received:
        g.tap(x, y)
    meant = [MeantTap(x=x, y=y) for x, y in points]
    bad = off_target(g.taps, meant)
    assert [(b.meant, b.tap.x) for b in bad] == [(None, 210.0)]


def test_a_spending_tap_is_marked_and_counted_unless_a_model_decision_made_it() -> None:
    g = SimGame(seed=0, tp=20)
    g.state.tp_items = 1
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!", "Recover TP", "Use"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
    assert [t.spent for t in g.taps] == [""] * 8 + ["a TP item"]  # the game's word for what the Use spent
    use = g.taps[-1]
    logged = [MeantTap(x=t.x, y=t.y, target=t.element or "") for t in g.taps]
    assert spends_without_model(g.taps, logged) == []  # every tap the model's decision
    by_pass = [*logged[:-1], logged[-1].model_copy(update={"by_model": False})]
    assert spends_without_model(g.taps, by_pass) == [use]  # a routine pass or a goTo step spent it
    assert spends_without_model(g.taps, logged[:-1]) == [use]  # a spend no log records



def test_starting_a_new_career_spends_nothing_of_the_last_ones_coins() -> None:
    """The career before ended with shop coins unspent; Start Career! begins a new one: no coins were spent."""
    g = SimGame(seed=0)
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
    assert g.career is not None
    g.career.coins = 150  # races paid; nothing bought (a new career starts with fewer)
    g.state.career_open = False  # the career completed (its record kept), the next one set up from home
    g.state.screen, g.state.setup_step, g.state.legacy_set, g.state.friend_set = "setup", 3, True, True
    g.tap(*next(e for e in g.truth().elements if e.name == "Start Career!" and e.kind != "text").box.center)
    assert g.career.coins < 150 and [t.spent for t in g.taps][-1] == ""


QUICK = {
    "drop_mid_frame",
    "black_frame",
    "truncate_raw",
    "rate_limit",
    "api_error",
    "malformed_tool_input",
    "max_tokens",
}


@pytest.mark.ocr
def test_demo_with_faults_reports_what_fired_and_taps_off_target(tmp_path) -> None:
    from lluma_cli.demo import main, run_demo

    # a seed whose first turns draw only faults that take no waiting, so the run stays short
    seed = next(s for s in range(500) if {f.kind for f in FaultPlan.make(1.0, s, 3).faults} <= QUICK)
    planned = FaultPlan.make(1.0, seed, 3).by_kind()
    s = run_demo(3, tmp_path, seed=seed, quiet=True, fault_rate=1.0)
    assert s.turns == 3 and s.faults_injected.total >= 1
    assert set(s.faults_injected.by_kind) <= set(planned)
    assert s.taps_off_target == 0 and s.spends_without_model == 0
    with pytest.raises(SystemExit) as bad:
        main(["--faults", "2", "--turns", "1"])  # argparse: one line naming the problem, nothing run
    assert bad.value.code == 2
