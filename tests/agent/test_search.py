"""Searchable history: every turn written through TurnLogger lands in the run's FTS5 index; `lluma search`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from lluma_agent.memory.store import MemoryChange
from lluma_agent.model.calls import ToolCall, ToolResult
from lluma_agent.runlog import index as history_index
from lluma_agent.runlog.turnlog import ActionLog, ResponseLog, TurnLog, TurnLogger, VisionLog
from lluma_cli import search as search_cli


def _turn(n: int, screen: str, text: str, **kw) -> TurnLog:
    return TurnLog(
        turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5",
        vision=VisionLog(seen_by_model=json.dumps(kw.pop("seen", {"buttons": [{"name": "OK"}]})), summary=screen),
        response=ResponseLog(text=text, tool_calls=[ToolCall(id=f"t{n}", name="pressButton", input={"name": "OK"})]),
        action=ActionLog(tool="pressButton", target="OK"),
        **kw,
    )


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "logs" / "run-1"
    logger = TurnLogger(folder)
    logger.write(_turn(1, "buttons: Training, Rest | tab Home", "Energy is high, time for Training.",
                       seen={"texts": ["Energy 90/100", "Senior Year Early Jan"],
                             "buttons": [{"name": "Training"}, {"name": "Rest", "meta": "Energy +50"}]}))
    logger.write(_turn(2, "buttons: Speed, Stamina, Power", "Speed has the best gain.",
                       tool_results=[ToolResult(tool_use_id="t1", name="pressButton",
                                                content="tapped 'Training' at (540,1210)")],
                       memory_changes=[MemoryChange(name="plan.md", op="create", by="agent",
                                                    diff="+favour Wit when energy is low\n", tokens_after=8)]))
    logger.write(_turn(3, "dialogue | buttons: Skip", "An event: choose the stamina option."))
    logger.update_effect(3, "screen changed (distance 31)")
    logger.close()
    return folder


def _search(folder: Path, query: str, capsys: pytest.CaptureFixture[str], expect: int = 0) -> list[dict]:
    code = search_cli.main([query, str(folder), "--json"])
    out = capsys.readouterr()
    assert code == expect, out.err
    return json.loads(out.out) if expect == 0 else []


def test_every_part_of_a_turn_is_searchable(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert [h["turn"] for h in _search(run_dir, "gain", capsys)] == [2]  # reasoning
    assert [h["turn"] for h in _search(run_dir, '"Senior Year"', capsys)] == [1]  # text vision read
    assert [h["turn"] for h in _search(run_dir, "Wit", capsys)] == [2]  # a memory change
    assert [h["turn"] for h in _search(run_dir, "tapped", capsys)] == [2]  # a tool result
    assert [h["turn"] for h in _search(run_dir, "distance", capsys)] == [3]  # an effect filled in later
    assert [h["turn"] for h in _search(run_dir, "dialogue", capsys)] == [3]  # the screen summary
    assert {h["turn"] for h in _search(run_dir, "trained", capsys)} == {1, 2}  # stems: Training, tapped 'Training'


def test_hits_carry_turn_screen_action_and_a_snippet(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hits = _search(run_dir, "Training", capsys)
    assert hits and all(set(h) >= {"turn", "screen", "action", "snippet"} for h in hits)
    first = next(h for h in hits if h["turn"] == 1)
    assert first["screen"] == "buttons: Training, Rest | tab Home"
    assert first["action"] == "pressButton(OK)"
    assert "[Training]" in first["snippet"]
    # the log root works too: its newest run is searched
    assert _search(run_dir.parent, "Training", capsys) == hits


@pytest.mark.parametrize("query", ['"unclosed', "AND", "Fail 12%", "(", "NOT", "Learn#2"])
def test_text_fts_cannot_parse_is_searched_as_a_phrase_and_said(run_dir: Path, query: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A button name (`Learn#2`) or a caption (`Fail 12%`) is not FTS5 syntax: searched as one phrase, said once."""
    code = search_cli.main([query, str(run_dir), "--json"])
    captured = capsys.readouterr()
    assert code == 0 and isinstance(json.loads(captured.out), list)
    assert captured.err.startswith(f"lluma search: {query!r} is not FTS5 syntax; searched as the phrase")
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_a_button_name_with_a_hash_finds_its_turn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logger = TurnLogger(tmp_path)
    first = _turn(1, "buttons: Learn, Learn#2", "the second Learn button")
    first.action = ActionLog(tool="pressButton", target="Learn#2")
    logger.write(first)
    logger.write(_turn(2, "buttons: OK", "confirm"))
    logger.close()
    assert [h["turn"] for h in _search(tmp_path, "Learn#2", capsys)] == [1]


def test_an_older_run_without_an_index_is_indexed_from_its_logs(run_dir: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(run_dir / "turns.sqlite")
    db.execute(f"DROP TABLE {history_index.TABLE}")
    db.commit()
    db.close()
    assert [h["turn"] for h in _search(run_dir, "stamina option", capsys)] == [3]


def test_reindexing_a_turn_replaces_it(tmp_path: Path) -> None:
    logger = TurnLogger(tmp_path)
    for effect in ("pending", "screen unchanged (the action had no visible effect)"):
        log = _turn(1, "buttons: OK", "press OK")
        log.action.effect = effect  # type: ignore[union-attr]
        logger.write(log)
    assert [h.turn for h in history_index.search(logger.db, "OK")] == [1]
    assert history_index.search(logger.db, "pending") == []
    logger.close()


def test_the_agent_searches_its_history_with_a_tool(tmp_path: Path) -> None:
    from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop

    phone = FakePhone({
        "home": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], goes_to={"Training": "training"}),
        "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900), button("Back", 40, 1750, 240, 1840)],
                               goes_to={"Back": "home"}),
    }, start="home")
    model = ScriptedModel([
        [{"type": "text", "text": "Go to training."}, call("pressButton", name="Training")],
        [call("searchHistory", query="training", limit=3), call("searchHistory", query='"unclosed'), call("back")],
        [call("back")],
        [call("back")],
    ])
    coordinator = loop(tmp_path, phone, model, max_turns=4)
    coordinator.run()
    assert "searchHistory" in [t["name"] for t in model.requests[0]["tools"]]
    results = [b for b in model.requests[2]["messages"][-1]["content"] if b["type"] == "tool_result"]
    found, bad = results[0], results[1]
    assert found["content"].startswith("T1 | buttons: Training | pressButton(Training) | ")
    assert "[training]" in found["content"].lower() and not found.get("is_error")
    assert bad["is_error"] and "cannot search" in bad["content"]
    # later, history keeps one short line for the look-up, not the hits
    history = json.dumps(model.requests[3]["messages"][:-1])
    assert "search 'training': 1 hit(s) (T1)" in history and "T1 | buttons" not in history
