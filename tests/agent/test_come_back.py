"""A notice that says the game cannot be played yet (a maintenance): dismissed, waited out with a growing wait, the
title tried again, all without a model call and without the loop it makes counting as a stuck agent."""

from __future__ import annotations

from pathlib import Path

from fakes import FakeClock, FakePhone, FakeScreen, FakeVision, ScriptedModel, button, call, loop, text

from lluma_agent.navmap import ScreenMap, save_map
from lluma_agent.runlog.turnlog import TurnLog
from lluma_vision.facts.screen import identify

TITLE = (40, 40, 300, 100)


class UnderMaintenance(FakePhone):
    """The title's Tap to Start shows the maintenance notice until `over` taps, then the career."""

    def __init__(self, over: int) -> None:
        super().__init__({
            "title": FakeScreen(buttons=[button("Tap to Start", 300, 1500, 800, 1600)],
                                texts=[text("LLuMa Derby", *TITLE)], goes_to={"Tap to Start": "hub"}),
            "notice": FakeScreen(buttons=[button("OK", 400, 1200, 700, 1300)],
                                 texts=[text("Maintenance", *TITLE),
                                        text("The game is currently under maintenance.", 100, 800, 1000, 860),
                                        text("Please try again later.", 100, 880, 1000, 940)],
                                 goes_to={"OK": "title"}),
            "hub": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400), button("Rest", 600, 1300, 1000, 1400)],
                              texts=[text("Career", *TITLE)]),
        }, start="notice")
        self.over, self.taps = over, 0

    def tap(self, box):  # type: ignore[no-untyped-def]
        starts = self.screen == "title"
        point = super().tap(box)
        if starts:
            self.taps += 1
            if self.taps < self.over:
                self.screen = "notice"
        return point


def _seed(tmp: Path, phone: FakePhone) -> None:
    """An earlier run took the title's Tap to Start into the career three times: a routine way the map knows."""
    vision = FakeVision(phone)
    ids = {n: identify(vision.analyze(phone.images[n], phone.hashes[n])) for n in phone.screens}
    m = ScreenMap()
    for i in ids.values():
        m.see(i.id, i.name, 0.0)
    for _ in range(3):
        m.record(ids["title"].id, "pressButton:Tap to Start", ids["hub"].id, 1.0, 0.0, tool="pressButton",
                 args={"name": "Tap to Start"})
    save_map(tmp / "memory.map.json", m)


def test_a_maintenance_is_waited_out_with_no_model_call_and_no_stuck_ladder(tmp_path: Path) -> None:
    phone = UnderMaintenance(over=5)  # four more notices after the first
    _seed(tmp_path, phone)
    clock = FakeClock()
    model = ScriptedModel([[call("pressButton", name="Training")]])
    loop(tmp_path, phone, model, clock=clock, max_turns=11).run()
    logs = [TurnLog.model_validate_json(p.read_text()) for p in sorted((tmp_path / "logs").glob("turn_*.json"))]
    assert len(model.requests) == 1 and "Career" in str(model.requests[0]["messages"][-1]["content"])
    waited = [t.routine.waited_s for t in logs if t.routine is not None and t.routine.waited_s]
    assert waited == [2.0, 4.0, 8.0, 16.0, 32.0]  # loop.wait_s, doubling while the notice keeps coming back
    assert sum(clock.waits) >= sum(waited)  # waited on the run's clock
    assert all(t.stuck.level == "ok" for t in logs)
    assert phone.taps == 5  # the fifth try got in


def test_the_wait_stops_growing_at_its_cap(tmp_path: Path) -> None:
    phone = UnderMaintenance(over=9)
    _seed(tmp_path, phone)
    model = ScriptedModel([[call("pressButton", name="Training")]])
    loop(tmp_path, phone, model, clock=FakeClock(), max_turns=19, settings={"loop__come_back_max_s": 20.0}).run()
    logs = [TurnLog.model_validate_json(p.read_text()) for p in sorted((tmp_path / "logs").glob("turn_*.json"))]
    waited = [t.routine.waited_s for t in logs if t.routine is not None and t.routine.waited_s]
    assert waited == [2.0, 4.0, 8.0, 16.0, 20.0, 20.0, 20.0, 20.0, 20.0]
    # 18 passes in a row, more than loop.max_routine (12): each wait starts its count again; the hub is the model's
    assert [t.response is not None for t in logs] == [False] * 18 + [True] and len(model.requests) == 1
