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
    assert "| Umamusume isn't responding · buttons: Close app" in line
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
