"""The progress watch (loop/progress.py) on turn logs as the loop writes them: what moves the game's clock, what
does not, and a stretch that costs far more than the run's game turns do."""

from __future__ import annotations

from lluma_agent.config import RunConfig
from lluma_agent.loop.progress import MIN_GAME_TURNS, ProgressWatch
from lluma_agent.runlog.turnlog import CostLog, RoutineLog, TurnLog, VisionLog

HUB = ["Training", "Rest", "Races", "Skills"]  # the career hub's buttons (runlog/careers.py HUB)


def turn(n: int, date: str | None = None, game_turn: int | None = None, usd: float = 0.001,
         waited_s: float = 0.0, buttons: list[str] | None = None) -> TurnLog:
    view: dict[str, object] = {"buttons": [{"name": b} for b in (buttons if buttons is not None else HUB)]}
    if date:
        view["date"] = date
    if game_turn is not None:
        view["values"] = {"Turn": f"{game_turn}/78"}
    return TurnLog(turn=n, started_at=0.0, model="claude-haiku-5-5", cost=CostLog(turn_usd=usd),
                   vision=VisionLog(seen_by_model=view, summary=""),
                   routine=RoutineLog(screen="Maintenance", action="wait", waited_s=waited_s) if waited_s else None)


def test_screens_changing_are_not_progress_and_the_date_moving_is() -> None:
    w = ProgressWatch(RunConfig(progress_warn_after=3, progress_after=5), rungs=4)
    w.add(turn(1, "Junior Year Early Jan", 1))
    for n in range(2, 5):  # the hub, a list, back: the same date
        w.add(turn(n, "Junior Year Early Jan", 1, buttons=[*HUB, f"Other {n}"]))
    assert w.state().level == "warn" and w.state().turns == 3
    assert "still at game turn 1, Junior Year Early Jan" in w.state().reason
    w.add(turn(5, "Junior Year Early Jan", 1))
    w.add(turn(6, None, None, buttons=["Close"]))  # a dialog: nothing read, still no progress
    assert w.state().level == "climb"
    for _ in range(4):
        w.climbed()
    assert w.state().level == "stop"
    w.add(turn(7, "Junior Year Late Jan", 2))
    assert w.state().level == "ok" and w.state().turns == 0 and w.c.climbed == 0


def test_a_misread_turn_number_going_back_is_no_progress() -> None:
    w = ProgressWatch(RunConfig(progress_warn_after=2, progress_after=3), rungs=4)
    w.add(turn(1, "Classic Year Early Apr", 40))
    w.add(turn(2, None, 4))  # "40" read as "4"
    w.add(turn(3, None, 40))
    assert w.state().turns == 2 and w.state().level == "warn"


def test_waits_the_game_asked_for_are_not_counted() -> None:
    w = ProgressWatch(RunConfig(progress_warn_after=2, progress_after=3), rungs=4)
    w.add(turn(1, "Junior Year Early Jan", 1))
    for n in range(2, 30):
        w.add(turn(n, None, None, waited_s=60.0, buttons=["OK"]))
    assert w.state().level == "ok"


def test_a_stretch_far_dearer_than_the_runs_game_turns_climbs() -> None:
    w = ProgressWatch(RunConfig(progress_warn_after=30, progress_after=40, progress_cost_factor=10), rungs=4)
    n = 0
    for g in range(1, MIN_GAME_TURNS + 2):  # game turns at 3 turns and $0.003 each
        for _ in range(3):
            n += 1
            w.add(turn(n, f"day {g}", g))
    assert w.state().level == "ok"
    for _ in range(4):  # four more turns on the same day that cost 40 times a game turn's median
        n += 1
        w.add(turn(n, f"day {MIN_GAME_TURNS + 1}", MIN_GAME_TURNS + 1, usd=0.03))
    state = w.state()
    assert state.level == "climb" and state.turns == 2 + 4
    assert "times the run's median cost of a game turn" in state.reason
    off = ProgressWatch(RunConfig(progress_after=0), rungs=4)
    for k in range(100):
        off.add(turn(k, "same", 1))
    assert off.state().level == "ok"
