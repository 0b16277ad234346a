"""The screen map: recording, trusted edges, shortest paths, finding a screen, and its file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lluma_agent.navmap import MapError, ScreenMap, load_map, map_path_for, open_map, save_map
from lluma_agent.navmap.actions import key_of, readable
from lluma_agent.runlog.turnlog import ActionLog
from lluma_vision.models import Box, Button, VisionOutput


def _walked(*edges: tuple[str, str, str], times: int = 2) -> ScreenMap:
    m = ScreenMap()
    for sid in {s for e in edges for s in (e[0], e[2])}:
        m.see(sid, sid.capitalize(), 0.0)
    for _ in range(times):
        for src, action, dst in edges:
            m.record(src, action, dst, 1.0, 0.0)
    return m


def test_record_counts_time_and_streaks() -> None:
    m = ScreenMap()
    m.record("hub", "pressButton:Training", "training", 1.5, 10.0, tool="pressButton", args={"name": "Training"})
    m.record("hub", "pressButton:Training", "training", 2.5, 20.0)
    edge = m.edge("hub", "pressButton:Training", "training")
    assert edge is not None
    assert (edge.count, edge.streak, edge.seconds_total, edge.mean_seconds, edge.last_seen) == (2, 2, 4.0, 2.0, 20.0)
    assert (edge.tool, edge.args) == ("pressButton", {"name": "Training"})
    # the same action led elsewhere once: the streak starts over, and the expected edge counts a failure
    m.record("hub", "pressButton:Training", "popup", 1.0, 30.0, expected="training")
    assert (edge.streak, edge.fails) == (0, 1)
    assert m.rate(edge) == pytest.approx(2 / 3)


def test_a_dialog_that_came_over_a_screen_is_an_interruption_not_a_way_out() -> None:
    """Next on the scenario screen leads to the trainee screen; once, Android's not-responding dialog came first and
    Wait dismissed it onto the trainee screen: the step counts where it led, the dialog as an interruption."""
    m = _walked(("scenario", "pressButton:Next", "trainee"), times=1)
    m.record("trainee", "back", "scenario", 1.0, 0.0)
    m.record("scenario", "pressButton:Next", "anr", 2.0, 5.0)
    m.record("anr", "pressButton:Wait", "trainee", 1.0, 6.0)
    assert [(t.action, t.dst, t.count, t.streak) for t in m.ways_out("scenario")] == [
        ("pressButton:Next", "trainee", 2, 2)]  # as if no dialog had come: its streak goes on
    assert m.edge("scenario", "pressButton:Next", "anr") is None
    assert [(i.screen, i.over, i.action, i.way_out, i.count) for i in m.interruptions] == [
        ("anr", "scenario", "pressButton:Next", "pressButton:Wait", 1)]
    assert [t.action for t in m.ways_out("anr")] == ["pressButton:Wait"]  # the dialog's own way out is kept
    # known now: after an action with a usual outcome it is no way out, wherever dismissing it went (a crash)
    m.record("hub", "pressButton:Races", "races", 1.0, 7.0)
    m.record("races", "back", "hub", 1.0, 7.5)
    m.record("hub", "pressButton:Races", "anr", 1.0, 8.0)
    m.record("anr", "pressButton:Close app", "launcher", 1.0, 9.0)
    assert [(t.dst, t.count) for t in m.ways_out("hub")] == [("races", 1)] and m.interrupts("anr")
    assert {(i.over, i.count) for i in m.interruptions} == {("scenario", 1), ("hub", 1)}


def test_an_outcome_among_several_is_no_proof_of_an_interruption() -> None:
    """Tap to Start leads home or to Continue Career as the game stands; Continue Career's Resume then leads to the
    hub, where Tap to Start has led once too (after a reset): no interruption, every step a way out as it came."""
    m = ScreenMap()
    for dst in ("home", "continue", "hub", "home"):
        m.record("title", "tap:Tap to Start", dst, 1.0, 0.0)
        m.record(dst, "back", "title", 1.0, 0.0)
    m.record("title", "tap:Tap to Start", "continue", 1.0, 1.0)
    m.record("continue", "pressButton:Resume", "hub", 1.0, 2.0)
    assert m.interruptions == [] and m.edge("title", "tap:Tap to Start", "continue").count == 2


def test_a_dialog_an_action_opens_stays_its_way_out() -> None:
    """The near miss: Rest opens its confirm dialog, whose OK leads on to a screen Rest never led to itself."""
    m = ScreenMap()
    for _ in range(2):
        m.record("hub", "pressButton:Rest", "rest?", 1.0, 0.0)
        m.record("rest?", "pressButton:OK", "event", 1.0, 0.0)
        m.record("event", "pressButton:Next", "hub", 1.0, 0.0)
    assert [(t.action, t.dst, t.count) for t in m.ways_out("hub")] == [("pressButton:Rest", "rest?", 2)]
    assert m.interruptions == []


def test_self_loops_are_kept_but_never_walked() -> None:
    m = _walked(("list", "scrollDown", "list"), ("list", "back", "hub"))
    assert m.edge("list", "scrollDown", "list") is not None
    assert [t.action for t in m.ways_out("list")] == ["back"]
    assert m.path("list", "list") == []


def test_path_is_the_fewest_reliable_steps() -> None:
    m = _walked(
        ("result", "pressButton:Next", "hub"),
        ("hub", "pressButton:Races", "races"),
        ("hub", "pressButton:Training", "training"),
        ("training", "back", "hub"),
        ("races", "back", "hub"),
        ("training", "pressButton:Speed", "result"),
    )
    path = m.path("training", "races")
    assert path is not None and [(t.src, t.action, t.dst) for t in path] == [
        ("training", "back", "hub"), ("hub", "pressButton:Races", "races")]
    assert m.path("races", "nowhere") is None
    assert m.path("training", "races", usable=lambda t: t.action != "pressButton:Races") is None


def test_path_skips_edges_seen_too_rarely_or_unreliable() -> None:
    m = _walked(("a", "pressButton:Go", "b"), times=1)
    assert m.path("a", "b", min_uses=2) is None  # one use: not yet trusted when two are asked for
    assert m.path("a", "b") is not None
    m = _walked(("a", "pressButton:Go", "b"), times=3)
    for _ in range(3):
        m.record("a", "pressButton:Go", "c", 1.0, 0.0)  # half the time it leads elsewhere
    assert m.path("a", "b") is None
    assert m.path("a", "b", min_rate=0.5) is not None


def test_routine_needs_the_same_action_and_result_in_a_row() -> None:
    m = _walked(("result", "pressButton:Next", "hub"), times=3)
    way = m.routine("result", streak=3)
    assert way is not None and (way.action, way.expected, way.uses) == ("pressButton:Next", "hub", 3)
    assert m.routine("result", streak=4) is None
    m.record("result", "pressButton:Next", "popup", 1.0, 0.0)  # a surprise: the streak starts over
    assert m.routine("result", streak=2) is None
    m = _walked(("hub", "pressButton:Rest", "hub2"), ("hub", "pressButton:Training", "training"), times=5)
    assert m.routine("hub", streak=2) is None  # two actions taken in turn here
    m = _walked(("list", "scrollDown", "list"), times=5)
    assert m.routine("list", streak=1) is None  # a self-loop is no way out
    assert m.routine("nowhere", streak=1) is None


def test_a_story_is_routine_whatever_page_comes_next() -> None:
    m = _walked(("story", "advanceDialogue", "story"), ("story", "advanceDialogue", "event a"), times=1)
    assert m.routine("story", streak=3) is None  # taken twice
    m.record("story", "advanceDialogue", "event b", 1.0, 0.0)
    way = m.routine("story", streak=3)
    assert way is not None and (way.action, way.expected, way.uses) == ("advanceDialogue", None, 3)
    m.record("story", "tap:Join in", "event c", 1.0, 0.0)  # a choice read as text, picked once
    assert m.routine("story", streak=3) is None
    for _ in range(3):
        m.record("story", "advanceDialogue", "story", 1.0, 0.0)
    assert m.routine("story", streak=3) is not None  # the last three were the story again


def test_a_confirm_the_model_asked_for_is_routine_wherever_it_leads() -> None:
    """Rest -> "Rest" (Cancel / OK): OK closes the dialog; the game decides what comes (an event, the hub)."""
    m = _walked(("rest", "pressButton:OK", "hub"), ("rest", "pressButton:OK", "event"), times=1)
    assert m.routine("rest", streak=2) is None  # two results: not routine as a screen
    way = m.routine("rest", streak=2, closing=True)
    assert way is not None and (way.action, way.expected) == ("pressButton:OK", None)
    m.record("rest", "pressButton:Cancel", "hub", 1.0, 0.0)
    assert m.routine("rest", streak=2, closing=True) is None  # the model cancelled last time
    m = _walked(("rest", "pressButton:OK", "hub"), ("rest", "pressButton:OK", "rest"), times=1)
    assert m.routine("rest", streak=2, closing=True) is None  # its last OK left the dialog where it was
    m.record("rest", "pressButton:OK", "event", 1.0, 0.0)
    assert m.routine("rest", streak=2, closing=True) is not None  # an OK that did nothing once (a fault) is past


def test_find_by_id_or_name() -> None:
    m = ScreenMap()
    m.see("a1", "Career", 0.0)
    m.see("b2", "Career event", 0.0)
    m.see("b2", "Career event", 0.0)
    m.see("c3", "Race List", 0.0)
    assert m.find("a1") == "a1"
    assert m.find("career") == "a1"
    assert m.find("race list") == "c3"
    assert m.find("RaceList") == "c3"
    assert m.find("event") == "b2"
    assert m.find("nothing like it") is None
    assert m.find("  ") is None


def test_label_names_a_screen_and_tells_apart_shared_names() -> None:
    m = ScreenMap()
    m.see("a1", "screen", 0.0)
    m.see("b2", "screen", 0.0)
    m.see("c3", "Career", 0.0)
    assert m.label("c3") == "Career"
    assert m.label("a1") == "screen [a1]"


def test_action_keys() -> None:
    out = VisionOutput(width=100, height=100, buttons=[
        Button(name="Next", bounds=Box(x0=0, y0=0, x1=10, y1=10), confidence=0.9)])
    assert key_of(ActionLog(tool="pressButton", target="Next"), out) == ("pressButton:Next", "pressButton",
                                                                          {"name": "Next"})
    assert key_of(ActionLog(tool="confirm", target="Next"), out).key == "pressButton:Next"  # type: ignore[union-attr]
    assert key_of(ActionLog(tool="pressButton", target="Tap to Start"), out).key == "tap:Tap to Start"  # type: ignore[union-attr]
    assert key_of(ActionLog(tool="back", target="back key"), out) == ("back", "back", {})
    assert key_of(ActionLog(tool="safeTap", target="a safe area"), out) is None
    assert [readable(k) for k in ("pressButton:Next", "tap:Tap to Start", "back")] == ["Next", "'Tap to Start'", "back"]


# ---- the file -----------------------------------------------------------------------------------------------
def test_map_path_is_beside_the_memory_folder(tmp_path: Path) -> None:
    assert map_path_for(tmp_path / "memory") == tmp_path / "memory.map.json"
    assert map_path_for(tmp_path / "memory/") == tmp_path / "memory.map.json"
    assert map_path_for(Path("memory")) == Path("memory.map.json")
    assert map_path_for(tmp_path / "memory").parent != tmp_path / "memory"


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    m = _walked(("a", "pressButton:Go", "b"))
    path = tmp_path / "memory.map.json"
    save_map(path, m)
    assert load_map(path) == m
    assert load_map(tmp_path / "none.map.json") == ScreenMap()
    assert [p.name for p in tmp_path.iterdir()] == ["memory.map.json"]  # no temp file left


def test_a_crash_mid_write_leaves_the_old_map(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "memory.map.json"
    old = _walked(("a", "pressButton:Go", "b"))
    save_map(path, old)

    def crash(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError):
        save_map(path, _walked(("a", "back", "c")))
    monkeypatch.undo()
    assert load_map(path) == old
    assert [p.name for p in tmp_path.iterdir()] == ["memory.map.json"]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"screens": 3}', b'{"version": 99}', b"\xff\xfe"])
def test_a_damaged_map_is_a_clear_error_and_is_set_aside(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "memory.map.json"
    path.write_bytes(content)
    with pytest.raises(MapError, match="memory.map.json"):
        load_map(path)
    fresh, note = open_map(path)
    assert fresh == ScreenMap()
    assert "set aside as memory.map.damaged-" in note
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("memory.map.damaged-")]
    assert len(kept) == 1 and kept[0].read_bytes() == content  # nothing lost
    assert not path.exists()


def test_the_file_is_readable_json(tmp_path: Path) -> None:
    path = tmp_path / "memory.map.json"
    save_map(path, _walked(("a", "pressButton:Go", "b")))
    raw = json.loads(path.read_text())
    assert set(raw) >= {"screens", "transitions"}
    first = raw["transitions"][0]
    assert {k: first[k] for k in ("src", "action", "dst", "count")} == {"src": "a", "action": "pressButton:Go",
                                                                        "dst": "b", "count": 2}


@pytest.mark.timeout(20)  # a FIFO read waits for a writer that never comes: the run's start hung
@pytest.mark.parametrize("kind", ["a FIFO (named pipe)", "a folder"])
def test_a_map_path_that_is_not_a_file_is_refused_at_once_and_set_aside(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "memory.map.json"
    if kind == "a folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(MapError, match=re.escape(f"memory.map.json: {kind}, not a screen map file")):
        load_map(path)
    fresh, note = open_map(path)
    assert fresh == ScreenMap() and "set aside as memory.map.damaged-" in note and not path.exists()
    save_map(path, fresh)  # the new map takes its place
    assert load_map(path) == ScreenMap()
