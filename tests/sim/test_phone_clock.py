"""The demo's one clock (lluma_sim.phone_clock): a wait of the agent's moves the simulated phone's clock by exactly
the seconds waited and takes none of the machine's, so a demo through a maintenance does not sleep for minutes and
a seed with the same inputs and waits plays the same."""

from __future__ import annotations

import time

from lluma_agent.loop.sitting import Sitting
from lluma_sim.game import SimGame
from lluma_sim.game import hazards as hz
from lluma_sim.phone_clock import PhoneClock
from tests.sim.test_game_app import press
from tests.sim.test_sim_game import names, settle, start_career


def under_maintenance() -> SimGame:
    g = SimGame(seed=1)
    start_career(g)
    g.hazard("maintenance")
    assert "Maintenance" in names(g.truth())
    return g


def test_waiting_out_a_maintenance_on_the_phone_clock_ends_it_without_sleeping() -> None:
    g = under_maintenance()
    clock = PhoneClock(g.idle)
    sitting = Sitting(clock, max_hours=0)
    started = time.monotonic()
    waited = sitting.sleep(hz.MAINTENANCE_S)
    assert time.monotonic() - started < 2.0  # none of the machine's six minutes
    assert waited >= hz.MAINTENANCE_S  # the run's clock says it waited them
    press(g, "OK")
    press(g, "Tap to Start")
    settle(g)
    assert g.truth().screen == "continue_career"  # over: a look after the wait gets in


def test_without_the_wait_the_notice_comes_back() -> None:
    g = under_maintenance()
    press(g, "OK")
    press(g, "Tap to Start")
    assert g.truth().screen == "maintenance"


def test_the_phone_moves_by_exactly_the_seconds_waited_and_tp_comes_back_on_them() -> None:
    a, b = SimGame(seed=3, tp=10), SimGame(seed=3, tp=10)
    for g in (a, b):
        Sitting(PhoneClock(g.idle), max_hours=0).sleep(hz.TP_EVERY_S * 2 + 7)
    assert a.state.clock_s == b.state.clock_s == hz.TP_EVERY_S * 2 + 7
    assert a.state.tp == b.state.tp == 12
    assert a.capture().tobytes() == b.capture().tobytes()


def test_a_wait_cut_by_run_max_hours_moves_the_phone_only_as_far_as_it_went() -> None:
    g = SimGame(seed=3)
    sitting = Sitting(PhoneClock(g.idle), max_hours=100 / 3600)  # the sitting may last 100 s
    sitting.sleep(hz.TP_EVERY_S)
    assert 99 < g.state.clock_s <= 100
