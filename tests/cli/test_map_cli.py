"""`lluma map`: the screen map as a person reads it (text) and as a script reads it (--json), found from a run
folder, a memory folder or the file; a missing or damaged map is one line and exit 1, and the damaged file is left
where it is. `lluma report` draws the same map as a picture."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lluma_agent.navmap import ScreenMap, map_path_for, save_map
from lluma_agent.runlog import logread
from lluma_agent.runlog.turnlog import NavigationStep, RoutineLog, TurnLog, TurnLogger
from lluma_cli.main import main
from lluma_cli.report import page as report

# A career's main screens as a run walks them: (screen id, name), and the action that left each.
WALK = [("hub", "Career"), ("trn", "Training"), ("hub", "Career"), ("trn", "Training"), ("evt", "Event"),
        ("evt", "Event"), ("hub", "Career"), ("rcs", "Races"), ("res", "Race Result"), ("hub", "Career")]
ACTIONS = ["pressButton:Training", "pressButton:Speed", "pressButton:Training", "pressButton:Wit", "advanceDialogue",
           "pressButton:It looks great", "pressButton:Races", "pressButton:Race", "pressButton:Next"]


def walked() -> ScreenMap:
    m = ScreenMap()
    for i, (screen, name) in enumerate(WALK):
        m.see(screen, name, float(i))
        if i < len(ACTIONS):
            m.record(screen, ACTIONS[i], WALK[i + 1][0], seconds=2.0 + i, now=float(i))
    m.record("rcs", "pressButton:Race", "hub", seconds=1.0, now=21.0)
    m.record("rcs", "pressButton:Race", "res", seconds=4.0, now=22.0, expected="hub")  # expected the hub: a failure
    return m


@pytest.fixture
def demo_run(tmp_path: Path) -> Path:
    """A demo's run folder: its memory inside, the map beside the memory (as `lluma demo` keeps them)."""
    run = tmp_path / "demo-run"
    (run / "memory").mkdir(parents=True)
    (run / "run.json").write_text("{}", encoding="utf-8")
    save_map(map_path_for(run / "memory"), walked())
    return run


def test_text_lists_each_screen_with_its_ways_out(demo_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", str(demo_run)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{map_path_for(demo_run / 'memory')}: 5 screen(s), 9 way(s) out")
    # the most seen first, each with how often it was seen
    order = [m.group(1) for m in re.finditer(r"^(\w[\w ]*?)  seen", out, re.MULTILINE)]
    assert order == ["Career", "Event", "Training", "Race Result", "Races"]
    assert "\nCareer  seen 4\n" in out and "[hub]" not in out  # a person reads names, not ids
    assert re.search(r"pressButton:Training\s+-> Training  2 use\(s\), 3\.0 s on average", out)  # (2 + 4) / 2
    assert re.search(r"advanceDialogue\s+\(stays\)  1 use\(s\)", out)  # a page turned: the screen stayed
    assert re.search(r"pressButton:Race\s+-> Career  1 use\(s\), 1 failed", out)  # expected once and missed


def test_an_interruption_is_listed_apart_not_as_a_way_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Select Scenario's Next once met Android's not-responding dialog, Wait went on to the trainee screen: `lluma
    map` lists Next -> Select Trainee under Select Scenario and the dialog among the interruptions."""
    m = ScreenMap()
    for sid, name in (("scn", "Select Scenario"), ("trn", "Select Trainee"), ("anr", "Umamusume isn't responding")):
        m.see(sid, name, 0.0)
    for dst in ("trn", "scn"):
        m.record("scn" if dst == "trn" else "trn", "pressButton:Next" if dst == "trn" else "back", dst, 1.0, 0.0)
    m.record("scn", "pressButton:Next", "anr", 1.0, 1.0)
    m.record("anr", "pressButton:Wait", "trn", 1.0, 2.0)
    path = tmp_path / "memory.map.json"
    save_map(path, m)
    assert main(["map", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Select Scenario: Next -> Umamusume" not in out and "-> Umamusume isn't responding" not in out
    assert re.search(r"pressButton:Next\s+-> Select Trainee  2 use\(s\)", out)
    assert ("Interruptions (came over a screen after an action; dismissed, the game went on: no way out)\n"
            "  Umamusume isn't responding over Select Scenario after pressButton:Next: 1 time(s), dismissed by "
            "pressButton:Wait") in out
    assert main(["map", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not [t for t in data["transitions"] if t["src"] == "scn" and t["dst"] == "anr"]
    assert data["interruptions"] == [{"screen": "anr", "screen_name": "Umamusume isn't responding", "over": "scn",
                                      "over_name": "Select Scenario", "action": "pressButton:Next",
                                      "way_out": "pressButton:Wait", "count": 1}]


def test_two_screens_of_one_name_are_told_apart_by_their_ids(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    m = ScreenMap()
    for sid in ("c0ffee0001", "c0ffee0002"):  # a rest's Confirm and an Alarm Clock's: one title, two screens
        m.see(sid, "Confirm", 0.0)
    m.see("hub", "Career", 0.0)
    m.record("c0ffee0001", "pressButton:OK", "hub", 1.0, 0.0)
    save_map(tmp_path / "memory.map.json", m)
    assert main(["map", str(tmp_path / "memory.map.json")]) == 0
    out = capsys.readouterr().out
    assert "\nConfirm [c0ffee0001]  seen 1\n" in out and "\nConfirm [c0ffee0002]  seen 1\n" in out
    assert "\nCareer  seen 1\n" in out


def test_json_has_screens_and_transitions(demo_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", str(demo_run), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["map"] == str(map_path_for(demo_run / "memory"))
    assert data["screens"]["hub"] == {"name": "Career", "seen": 4, "ways_out": 2}
    assert set(data["screens"]) == {"hub", "trn", "evt", "rcs", "res"}
    race = [t for t in data["transitions"] if t["src"] == "rcs"]
    assert [(t["dst_name"], t["count"], t["fails"]) for t in race] == [("Race Result", 2, 0), ("Career", 1, 1)]
    first = data["transitions"][0]
    assert set(first) >= {"src", "src_name", "action", "dst", "dst_name", "count", "fails", "seconds_mean", "stays"}


def test_found_from_a_memory_folder_or_the_file(demo_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = map_path_for(demo_run / "memory")
    for where in (demo_run / "memory", file):
        assert main(["map", str(where), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["map"] == str(file)


def test_a_damaged_map_is_one_line_and_stays_where_it_is(demo_run: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    file = map_path_for(demo_run / "memory")
    file.write_text('{"screens": [1, 2', encoding="utf-8")  # a write cut off by a crash (not atomic elsewhere)
    assert main(["map", str(demo_run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(file) in err and "not a screen map" in err and "Traceback" not in err
    assert file.read_text(encoding="utf-8") == '{"screens": [1, 2'  # reading never moves or rewrites it


def test_no_map_says_where_it_looked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "memory").mkdir()
    assert main(["map", str(tmp_path / "memory")]) == 1
    assert f"no screen map at {map_path_for(tmp_path / 'memory')}" in capsys.readouterr().err
    assert main(["map", str(tmp_path / "nowhere")]) == 1
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.timeout(20)
def test_a_fifo_or_a_folder_is_named_for_what_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "no screen map at fifo.json.map.json" for both, as though each were a memory folder."""
    os.mkfifo(tmp_path / "fifo.json")
    assert main(["map", str(tmp_path / "fifo.json")]) == 1
    assert capsys.readouterr().err == (f"lluma map: {tmp_path / 'fifo.json'} is a FIFO (named pipe), not a screen map "
                                       "file, a run folder or a memory folder\n")
    (tmp_path / "folder.json").mkdir()
    assert main(["map", str(tmp_path / "folder.json")]) == 1
    assert capsys.readouterr().err == (f"lluma map: no screen map at {tmp_path / 'folder.json.map.json'}: "
                                       f"{tmp_path / 'folder.json'} is a folder, not a run folder; a memory folder's "
                                       "map is kept beside it under that name\n")
    os.mkfifo(tmp_path / "memory.map.json")  # where a memory folder's map is kept: never read (it would block)
    (tmp_path / "memory").mkdir()
    assert main(["map", str(tmp_path / "memory")]) == 1
    assert capsys.readouterr().err == (f"lluma map: {tmp_path / 'memory.map.json'} is a FIFO (named pipe), not a "
                                       "screen map file; the next run sets it aside and starts a new map\n")


def test_report_draws_the_map_as_a_picture(demo_run: Path) -> None:
    logger = TurnLogger(demo_run)
    logger.write(TurnLog(turn=1, started_at=1_760_000_000.0, model="claude-haiku-4-5"))
    logger.close()
    html = report.render(logread.load_run(demo_run))
    start = html.rindex("<svg", 0, html.index('aria-label="the screen map"'))
    svg = html[start: html.index("</svg>", start)]
    assert svg.count('<g class="screen">') == 5  # a box per screen
    assert "Career [hub]: seen 4" in svg  # its tooltip
    # an arrow per way out between two screens, weighted by use, its figures in its tooltip
    assert "Races --pressButton:Race--&gt; Career: 1 use(s), 1 failed" in svg
    widths = {float(w) for w in re.findall(r'stroke-width="([\d.]+)" stroke-opacity', svg)}
    assert len(widths) > 1
    assert "http" not in svg and "url(" not in svg  # nothing to fetch: it draws under the page's CSP


def test_goto_steps_and_routine_passes_show_in_the_turn_and_the_report(demo_run: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    logger = TurnLogger(demo_run)
    walk = [NavigationStep(target="Races", step=1, of=2, action="pressButton:Races", expected="Races",
                           reached="Races", ok=True, seconds=1.5),
            NavigationStep(target="Races", step=2, of=2, action="pressButton:Race", expected="Race List",
                           reached="Tutorial", ok=False, note="a surprise: the map expected Race List")]
    logger.write(TurnLog(turn=1, started_at=1_760_000_000.0, model="claude-haiku-4-5", navigation=walk))
    logger.write(TurnLog(turn=2, started_at=1_760_000_001.0, model="claude-haiku-4-5",
                         routine=RoutineLog(screen="Race Result", action="pressButton:Next", expected="Career",
                                            uses=4)))
    logger.close()
    assert main(["logs", str(demo_run), "--turn", "1"]) == 0
    out = capsys.readouterr().out
    assert "goTo Races: step 1 of 2, pressButton:Races -> reached Races (1.5 s)" in out
    assert "goTo Races: step 2 of 2, pressButton:Race -> SURPRISE: expected Race List, reached Tutorial" in out
    assert main(["logs", str(demo_run), "--turn", "2"]) == 0
    assert ("routine pass (no model call): pressButton:Next on Race Result, expecting Career; taken 4 time(s) "
            "before") in capsys.readouterr().out
    assert main(["logs", str(demo_run)]) == 0  # the listing's notes column
    listing = capsys.readouterr().out
    assert "goTo Races: step 2 of 2 stopped" in listing and "routine: pressButton:Next (no model call)" in listing
    html = report.render(logread.load_run(demo_run))
    assert '<span class="tag nav">goTo Races: stopped at step 2 of 2</span>' in html
    assert '<span class="tag routine">routine: pressButton:Next</span>' in html
    assert "<span>goTo walks</span><b>1</b><span>2 steps; 1 stopped on a surprise</span>" in html
    assert "<span>routine passes</span><b>1</b>" in html
