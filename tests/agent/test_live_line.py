"""The live line names what happened: a dialog by its title, an error by its kind, a loading waited out."""

from __future__ import annotations

from lluma_agent.loop.app import live_line
from lluma_agent.loop.turn import RunTotals
from lluma_agent.runlog.turnlog import FrameInfo, TurnLog, VisionLog

ANR = {"id": "aca2ab22a4", "name": "Umamusume isn't responding", "kind": "title"}


def log(**kw: object) -> TurnLog:
    return TurnLog(turn=5, started_at=0.0, model="claude-haiku-5-5", **kw)  # type: ignore[arg-type]


def seen(summary: str, screen: dict[str, str] | None = None) -> VisionLog:
    return VisionLog(seen_by_model={}, summary=summary, full={"screen": screen} if screen else {})


def test_a_dialog_over_the_game_is_named_by_its_title() -> None:
    line = live_line(log(vision=seen("buttons: Close app, Wait", ANR)), RunTotals())
    assert "| Umamusume isn't responding " in line
    # a loading screen's or a nameless screen's identity says no more than what was read: not repeated
    line = live_line(log(vision=seen("loading", {"id": "1", "name": "loading", "kind": "cinematic"})), RunTotals())
    assert "| loading " in line and "loading · loading" not in line


def test_an_error_is_named_by_its_kind_not_counted() -> None:
    errors = ["model: refused (not something I can help with); nothing done this turn", "vision: OCR failed"]
    line = live_line(log(errors=errors), RunTotals())
    assert "error(s)" not in line
    assert "| model error: refused (not something I can help with); nothing done this turn (+1 more)" in line
    assert "| device error: offline" in live_line(log(errors=["device: offline"]), RunTotals())


def test_a_long_loading_shows_on_the_line_waited_out_or_still_up() -> None:
    waited = log(vision=seen("buttons: Next"), waited="loading (4 waits)")
    assert "| loading: 4 captures waited" in live_line(waited, RunTotals())
    still = log(vision=seen("loading"), waited="loading (8 waits)", frame=FrameInfo(cinematic="loading"))
    assert "| loading: still up after 8 captures" in live_line(still, RunTotals())


def test_the_line_fits_120_columns_with_the_careers_turn_and_goal() -> None:
    """The career's clock and goal as its screens last showed them; whatever happened besides goes on continuation
    lines, none wider than 120 columns and none starting like a turn's line."""
    from lluma_agent.runlog.careers import CareerNow

    now = CareerNow(turn="12/78", date="Junior Year Late Jun", goal="Run in Junior Make Debut")
    busy = log(vision=seen("buttons: Training, Rest, Recreation, Races, Skills, Infirmary " * 3), errors=[
        "model: overloaded_error after 5 retries over 300 s; the API is busy " * 2, "vision: OCR failed"],
        guard=["refused pressButton(Use 1 Alarm Clock) on a screen that spends"] * 3, person="approved pressButton(X)")
    lines = live_line(busy, RunTotals(cost_usd=12.3456), now).splitlines()
    assert lines[0].startswith("turn    5 | 12/78 Run in Junior… | ") and len(lines) > 2
    assert lines[0].endswith("run: $12.3456 · cache hit 0.0%")
    assert all(len(line) <= 120 for line in lines) and not any(line.startswith("turn ") for line in lines[1:])
    assert "model error: overloaded_error" in " ".join(lines) and "guard: refused" in " ".join(lines)
    assert live_line(log(), RunTotals()).startswith("turn    5 | -                    | ")
