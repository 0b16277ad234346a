"""Issue 32's hostile round, each probe a test: outputs written through a symlink or refused, with the user's
umask; a damaged or interrupted replay accounts for every turn and keeps what it finished; replay says what its
figure measures."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from lluma_agent.model.claude import Model
from lluma_agent.runlog.folder import RunFolder
from lluma_cli import demo, replay
from lluma_cli.report import page

pytestmark = pytest.mark.cost(seconds=33)  # worker seconds in a full suite (conftest: slowest modules first)


@pytest.fixture(scope="module")
def run6(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("hostile3") / "run"
    # all six turns are the model's: in a 35-turn career game turns 2-4 fall on odd calendar turns (3, 5, 7), so no
    # event (NUMBERS §5: even calendar turns; its pages are passed without a model call) comes before the seventh
    demo.run_demo(6, logs, seed=6, quiet=True, truth_vision=True, career_turns=35)
    return logs


def _copy(run: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    shutil.copytree(run, dest)
    return dest


# ---- data loss: outputs -------------------------------------------------------------------------------------
def test_report_onto_a_symlink_writes_through_it_and_keeps_the_link(run6: Path, tmp_path: Path) -> None:
    target = tmp_path / "shared" / "report.html"
    target.parent.mkdir()
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.html"
    link.symlink_to(target)
    assert page.main([str(run6), "-o", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>") or "<html" in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # an existing file keeps its mode


def test_a_new_report_gets_the_users_umask_not_0600(run6: Path, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        assert page.main([str(run6), "-o", str(tmp_path / "r.html")]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.html").stat().st_mode) == 0o644  # made to be shared


def test_the_timeline_gif_gets_the_same_mode_as_its_page(run6: Path, tmp_path: Path) -> None:
    """Issue 39: timeline.gif was written 0600 beside a 0644 page."""
    run = _copy(run6, tmp_path)
    old = os.umask(0o022)
    try:
        assert page.main([str(run), "--gif"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((run / "timeline.gif").stat().st_mode) == stat.S_IMODE((run / "report.html").stat().st_mode) \
        == 0o644


def test_report_onto_a_fifo_or_a_folder_is_refused_in_one_line(run6: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert page.main([str(run6), "-o", str(fifo)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"lluma report: cannot write {fifo}: not a regular file (refused: only a regular file is replaced)"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert page.main([str(run6), "-o", "/dev/null"]) == 1  # a device is never replaced (as root: /dev/full)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert "not a regular file" in capsys.readouterr().err


def test_vision_annotate_onto_a_symlink_writes_through_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    from lluma_cli import vision

    shot = tmp_path / "shot.png"
    Image.new("RGB", (360, 640), (240, 240, 240)).save(shot)
    target = tmp_path / "out.png"
    link = tmp_path / "link.png"
    link.symlink_to(target)
    assert vision.main([str(shot), "--annotate", str(link)]) == 0
    assert link.is_symlink() and target.is_file() and Image.open(target).size == (360, 640)
    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    assert vision.main([str(shot), "--annotate", str(fifo)]) == 1
    assert "not a regular file" in capsys.readouterr().err and stat.S_ISFIFO(os.stat(fifo).st_mode)


# ---- replay: damage, interruption, what it measures ---------------------------------------------------------
def _damage(run: Path) -> None:
    rf = RunFolder.at(run)
    rf.request(2).write_bytes(b"garbage, not gzip")  # a garbage request file
    text = rf.turn_log(3).read_text(encoding="utf-8")
    rf.turn_log(3).write_text(text[: len(text) // 2], encoding="utf-8")  # a turn log cut in half
    rf.screenshot(4).unlink()  # a deleted screenshot


def test_a_damaged_run_replays_every_other_turn_and_accounts_for_each(run6: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(run6, tmp_path)
    _damage(run)
    assert replay.main([str(run)]) == 0
    text = capsys.readouterr().out
    assert "skipped T2: its request file requests/turn_000002.json.gz cannot be read" in text
    assert "skipped T3: its turn log turn_000003.json cannot be read (torn or damaged" in text
    assert "skipped T4: its screenshot is no longer kept" in text
    assert replay.main([str(run), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chosen"] == 6 and len(out["turns"]) + len(out["skipped"]) == 6  # every turn accounted for
    assert sorted([t["turn"] for t in out["turns"]] + [int(s[1:s.index(":")]) for s in out["skipped"]]) == \
        [1, 2, 3, 4, 5, 6]
    # The same figures in text and JSON, over the same turns.
    assert f"agreement: {100 * out['agreement']:.2f}% of the {out['compared']} replayed turn(s)" in text
    assert f"{100 * out['agreement_of_chosen']:.2f}% of all 6 chosen, {out['not_replayed']} of them" in text


def test_request_files_deleted_empty_or_not_json_are_each_named(run6: Path, tmp_path: Path) -> None:
    import gzip

    run = _copy(run6, tmp_path)
    rf = RunFolder.at(run)
    rf.request(1).unlink()
    rf.request(2).write_bytes(b"")
    rf.request(3).write_bytes(gzip.compress(b"{not json"))
    whole = rf.request(4).read_bytes()
    rf.request(4).write_bytes(whole[: len(whole) // 2])
    r = replay.replay(run, turns="1-5")
    reasons = dict(s.split(": ", 1) for s in r.skipped)
    assert reasons["T1"] == "its request file requests/turn_000001.json.gz is missing"
    assert all(reasons[f"T{n}"].startswith(f"its request file requests/turn_00000{n}.json.gz cannot be read")
               for n in (2, 3, 4))
    assert [t.turn for t in r.turns] == [5] and r.chosen == 5


def test_a_missing_checkpoint_is_named_not_blamed_on_the_api(run6: Path, tmp_path: Path) -> None:
    run = _copy(run6, tmp_path)
    RunFolder.at(run).checkpoint.unlink()
    r = replay.replay(run, turns="2-3")
    assert r.thinking == "removed: the run's checkpoint.json is missing, so the key that signed it is unknown"
    assert r.not_replayed == 0


def test_stored_images_gone_are_sent_as_a_line_not_as_a_turn_error(run6: Path, tmp_path: Path) -> None:
    run = _copy(run6, tmp_path)
    shutil.rmtree(RunFolder.at(run).images)
    r = replay.replay(run, turns="3-6")
    assert not any(t.error for t in r.turns) and r.compared == 4


def test_replay_interrupted_by_ctrl_c_prints_the_turns_it_finished(run6: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    real = Model.decide
    calls = {"n": 0}

    def decide(self: Model, request: object) -> object:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, request)  # type: ignore[arg-type]

    monkeypatch.setattr(Model, "decide", decide)
    assert replay.main([str(run6)]) == 130
    text = capsys.readouterr().out
    assert "interrupted (Ctrl+C): 2 turn(s) finished before it are shown above" in text
    assert "skipped T3: not replayed: interrupted (Ctrl+C)" in text and "skipped T6: not replayed" in text
    assert "    1  " in text and "    2  " in text


def test_an_empty_selection_says_why(run6: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay.main([str(run6), "--turns", "40-50"]) == 1
    captured = capsys.readouterr()
    assert "no turn chosen: the run holds turns 1-6" in captured.out
    assert "lluma replay: no turn in --turns 40-50: the run holds turns 1-6" in captured.err


def test_replay_says_the_stand_in_measures_the_harness_and_refuses_an_unknown_model_first(
        run6: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay.main([str(run6), "--turns", "1-2"]) == 0
    assert "this figure measures the harness's, not the model's" in capsys.readouterr().out
    assert "the model's" in replay.measures("real", "claude-haiku-5-5")
    assert replay.main([str(run6), "--model", "claude-nonesuch"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "unknown model 'claude-nonesuch'" in captured.err


# ---- hangs: full-text queries --------------------------------------------------------------------------------
def test_a_query_of_2000_prefix_terms_ends_within_seconds_in_one_line(run6: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from lluma_cli import search

    assert search.main([" OR ".join(["a*"] * 2000), str(run6)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at most 300 are searched" in err[0]  # refused before any search: no time to measure
    assert search.main([" OR ".join(["a*"] * 40), str(run6)]) == 2
    assert "prefix* terms; at most 16" in capsys.readouterr().err
    assert search.main(["Rest\udcff", str(run6)]) == 2  # invalid UTF-8 from the command line
    assert capsys.readouterr().err.strip() == "lluma search: the search query is not valid UTF-8 text"


def test_the_models_search_tool_is_bounded_and_timed(run6: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    from lluma_agent.runlog import index
    from lluma_agent.tools.search import SearchArgs, SearchHistoryTool
    from lluma_agent.tools.toolkit import ToolFailed

    db = sqlite3.connect(RunFolder.at(run6).db)
    ctx = type("Ctx", (), {"search": staticmethod(lambda q, n: index.search(db, q, n))})()
    with pytest.raises(ToolFailed, match="at most 300"):
        SearchHistoryTool().run(SearchArgs(query=" OR ".join(["a*"] * 2000)), ctx)  # type: ignore[arg-type]
    monkeypatch.setattr(index, "SEARCH_TIMEOUT_S", 0.0)  # whatever slips through the bounds is stopped in time
    monkeypatch.setattr(index, "_PROGRESS_STEPS", 1)
    with pytest.raises(ToolFailed, match="was stopped"):
        SearchHistoryTool().run(SearchArgs(query="a* OR b*"), ctx)  # type: ignore[arg-type]


# ---- hangs and tracebacks at start: keys, URLs, prompts ----------------------------------------------------------
def test_a_key_with_a_carriage_return_is_refused_at_start_naming_its_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from lluma_agent.config import ModelConfig
    from lluma_agent.model.claude import ModelError, make_client
    from lluma_cli import run

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test\r")  # a key file with Windows line endings
    with pytest.raises(ModelError, match=r"ANTHROPIC_API_KEY holds a carriage return"):
        make_client(ModelConfig())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(tmp_path / "logs"))
    assert run.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ANTHROPIC_API_KEY holds a carriage return" in err[0]
    from lluma_agent.config import Config
    from lluma_cli.doctor import check_api_key

    said = check_api_key(Config())  # doctor agrees with run
    assert said.status == "fail" and said.detail.startswith("ANTHROPIC_API_KEY holds a carriage return")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/\n")
    with pytest.raises(ModelError, match="ANTHROPIC_BASE_URL must be a URL without spaces or control characters"):
        make_client(ModelConfig())
    with pytest.raises(ValueError, match="without spaces or control characters"):
        ModelConfig(base_url="http://127.0.0.1:1/\nx")


def test_invalid_utf8_on_standard_input_is_asked_again_and_keeps_the_answer_before_it(tmp_path: Path) -> None:
    import io

    from lluma_cli.confirm import Person

    raw = io.BytesIO(b"y\n\xff\xfe\nq\n")
    inp = io.TextIOWrapper(raw, encoding="ascii", errors="strict")  # a strict locale
    out = io.StringIO()
    person = Person(tmp_path, inp=inp, out=out)
    assert person._read("?") == "y"  # the valid answer read ahead with the bad bytes is kept
    assert person.before_turn(2) is True  # the undecodable line is an answer, not a traceback
    assert person.before_turn(3) is False


def test_the_first_ctrl_c_ends_a_waiting_prompt(tmp_path: Path) -> None:
    import io
    import signal

    from lluma_agent import interrupts
    from lluma_agent.loop.app import CtrlC
    from lluma_cli.confirm import Person

    class Pressed(io.StringIO):
        def readline(self, *a: object) -> str:  # type: ignore[override]
            assert interrupts.waiting_for_person()
            CtrlC()._handle(signal.SIGINT, None)  # what the first press does while the prompt waits
            return "y\n"

    out = io.StringIO()
    assert Person(tmp_path, inp=Pressed(), out=out).before_turn(1) is False
    assert "(Ctrl+C: stopping)" in out.getvalue() and not interrupts.waiting_for_person()


# ---- progress you can see ------------------------------------------------------------------------------------
def test_the_report_charts_progress_from_the_readings_and_the_timeline_reads(run6: Path, tmp_path: Path) -> None:
    from PIL import Image

    from lluma_agent.runlog.logread import load_run
    from lluma_agent.runlog.turnlog import read_turn
    from lluma_cli.report import progress

    run = _copy(run6, tmp_path)
    for n, (speed, energy) in {5: ("90", 1.0), 6: ("105", 0.8)}.items():  # two career hubs, as the game shows
        path = RunFolder.at(run).turn_log(n)
        log = read_turn(path)
        assert log.vision is not None
        hub = [{"name": "Rest"}, {"name": "Training"}]  # the trainee's stats are read in a career (runlog/careers.py)
        log.vision.seen_by_model = {**log.vision.seen_by_model, "gauges": {"Energy": energy}, "mood": "GOOD",
                                    "buttons": hub,
                                    "values": {"Turn": f"{n}/24", "Speed": speed, "Stamina": "85", "Fail#2": "0%",
                                               "Skill Pts": "120"}}
        path.write_text(log.model_dump_json(), encoding="utf-8")
    assert page.main([str(run), "--gif", "-o", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h2>Game progress</h2>" in html and "Stats (as the screens read them)" in html
    assert "Energy (% of the gauge)" in html
    assert "Skill points" in html
    with Image.open(run / "timeline.gif") as gif:
        assert gif.width >= 360  # the game's text reads at this size
    facts = [f for t in load_run(run).turns for f in progress.facts(t)]
    assert not any("#" in f.split()[0] for f in facts)  # by caption, never a raw key such as Fail#2
    assert progress.facts(load_run(run).turns[5])[:5] == ["Turn 6/24", "Energy 80%", "Mood: GOOD", "Speed 105",
                                                          "Stamina 85"]
    assert "turn 6: Speed 105" in html  # each point's figure, as a tooltip


def test_captions_wrap_by_words_and_a_huge_caption_is_not_quadratic() -> None:
    from typing import Any

    from PIL import Image, ImageDraw, ImageFont

    from lluma_cli.report.timeline import wrap

    draw = ImageDraw.Draw(Image.new("RGB", (8, 8)))
    font = ImageFont.load_default(size=15)
    lines = wrap(draw, "-> screen changed  person: replaced pressButton(OK) with pressButton(Cancel) because "
                       "the career should not start yet", font, 348, 2)
    assert len(lines) == 2 and lines[-1].endswith(" …") and all(draw.textlength(x, font=font) <= 348 for x in lines)
    assert all(not x.rstrip(" …").endswith(("Canc", "pressBut")) for x in lines)  # never cut mid-word
    measured = [0]
    textlength = draw.textlength

    def counted(*args: Any, **kwargs: Any) -> float:
        measured[0] += 1
        return textlength(*args, **kwargs)

    draw.textlength = counted  # type: ignore[method-assign]
    wrap(draw, "x" * 8000, font, 348, 2)
    wrap(draw, "word " * 8000, font, 348, 2)
    # the work does not grow with the caption: 52 measurements for both (an 8,000-character caption once took
    # 30 s, measuring every prefix); counted, not timed, so a loaded machine cannot fail it
    assert measured[0] <= 100, measured[0]


def test_progress_readings_number_careers_as_the_careers_table_does() -> None:
    """A career turn counter that starts again is no career's end; "Career Complete" is (issue 39: the chart and the
    Careers table agree on every boundary)."""
    from lluma_agent.runlog.turnlog import TurnLog, VisionLog
    from lluma_cli.report import progress

    hub = [{"name": "Rest"}, {"name": "Training"}]

    def log(turn: int, counter: str, speed: str, texts: tuple[str, ...] = ()) -> TurnLog:
        view = {"buttons": [] if texts else hub, "texts": list(texts), "values": {"Turn": counter, "Speed": speed},
                "gauges": {} if texts else {"Energy": 0.5}}
        return TurnLog(turn=turn, started_at=float(turn), model="m", vision=VisionLog(seen_by_model=view, summary=""))

    end = log(3, "", "", ("Career Complete",))
    rs = progress.readings([log(1, "23/24", "300"), log(2, "1/24", "310"), end, log(4, "1/24", "90")])
    assert [r.career for r in rs] == [1, 1, 2] and rs[2].stats == {"Speed": 90.0} and rs[0].energy == 50.0


# ---- one adb address everywhere ------------------------------------------------------------------------------
REPO = Path(__file__).resolve().parents[2]


def test_doctor_from_the_repository_honours_android_adb_server_port(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from lluma_cli.main import main
    from lluma_sim.adb.server import AdbServer

    monkeypatch.chdir(REPO)  # the shipped config.yaml leaves the address unset, so the variable applies
    with AdbServer() as server:
        server.add_device("emulator-5554")
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        monkeypatch.delenv("ANDROID_ADB_SERVER_HOST", raising=False)
        main(["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)}
    assert checks["adb server"]["status"] == "ok"
    assert f"127.0.0.1:{server.port} (port from ANDROID_ADB_SERVER_PORT)" in checks["adb server"]["detail"]
    assert checks["device"]["status"] == "ok" and "emulator-5554 ready" in checks["device"]["detail"]


@pytest.mark.parametrize("value", ["abc", "1e3", "99999999", "0", "-1"])
@pytest.mark.parametrize("command", [["doctor"], ["run"], ["demo", "--turns", "1"]])
def test_a_bad_adb_port_is_one_line_and_exit_2(value: str, command: list[str], monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from lluma_cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", value)
    assert main(command) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"lluma {command[0]}: ANDROID_ADB_SERVER_PORT={value!r} is not an adb server port: a whole number "
                   "from 1 to 65535 (unset it for adb's default 5037)"]


def test_the_address_says_where_it_came_from_and_an_empty_variable_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    from lluma_agent.config import DeviceConfig, load_config
    from lluma_agent.device.address import check_environment, resolve

    env = {"ANDROID_ADB_SERVER_PORT": "15037", "ANDROID_ADB_SERVER_HOST": "10.0.0.2"}
    assert resolve(DeviceConfig(), env).described == \
        "10.0.0.2:15037 (host from ANDROID_ADB_SERVER_HOST; port from ANDROID_ADB_SERVER_PORT)"
    said = resolve(DeviceConfig(adb_port=5037), env).described  # set in the configuration: it wins, and says so
    assert said.startswith("10.0.0.2:5037") and "device.adb_port from the configuration, over " \
        "ANDROID_ADB_SERVER_PORT=15037" in said
    assert resolve(DeviceConfig(), {}).described.startswith("127.0.0.1:5037 (adb's default")
    empty = {"ANDROID_ADB_SERVER_PORT": " "}
    check_environment(empty)  # adb reads an empty variable as unset; adbutils would raise on it at import
    assert empty == {}
    shipped = load_config(REPO / "config.yaml").device
    assert not {"adb_host", "adb_port"} & shipped.model_fields_set  # left for the variables


# ---- one line where a traceback was ------------------------------------------------------------------------------
def test_an_oversized_screenshot_is_one_line_or_left_out_never_a_traceback(
        run6: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    from lluma_cli import knowledge

    run = _copy(run6, tmp_path)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # every screenshot is now "too large to decode"
    assert page.main([str(run), "--gif", "-o", str(tmp_path / "r.html")]) == 0  # the page, without the pictures
    r = replay.replay(run, turns="1-2")
    assert [s.split(" (")[0] for s in r.skipped] == [f"T{n}: its screenshot turn_00000{n}.jpg cannot be read"
                                                     for n in (1, 2)]
    capsys.readouterr()
    assert knowledge.main(["--match", str(RunFolder.at(run).screenshot(1))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lluma knowledge: cannot read ")


@pytest.mark.parametrize("damage", [b"", b"garbage", b"cut"])
def test_logs_request_of_a_damaged_request_file_is_one_line(run6: Path, tmp_path: Path, damage: bytes,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import gzip

    from lluma_cli import logs

    run = _copy(run6, tmp_path)
    path = RunFolder.at(run).request(2)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2] if damage == b"cut" else gzip.compress(b"{no") if damage == b"garbage"
                     else damage)
    assert logs.main([str(run), "--turn", "2", "--request"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"lluma logs: cannot read {path}: ") and "damaged" in err[0]


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_config_yaml_that_is_a_folder_or_a_fifo_is_refused_not_ignored(
        kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from lluma_cli import run

    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").mkdir() if kind == "folder" else os.mkfifo(tmp_path / "config.yaml")
    assert run.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"lluma run: config file config.yaml is not a file (a {'folder' if kind == 'folder' else 'FIFO'}): "
                   "give a YAML file, or remove it for the defaults"]


# ---- a veto is whole ---------------------------------------------------------------------------------------------
def _actor_turn(tmp_path: Path, answer: str, text: str = "", device: object = None) -> tuple[object, Path]:
    import time

    from PIL import Image

    from lluma_agent.context.history import History
    from lluma_agent.context.stuck import StuckState
    from lluma_agent.device.protocol import Frame
    from lluma_agent.loop.acting import Actor
    from lluma_agent.loop.gated import PersonGate, Verdict
    from lluma_agent.memory.store import MemoryStore
    from lluma_agent.model.calls import ToolCall
    from lluma_agent.model.claude import ModelReply
    from lluma_agent.tools.registry import default_tools
    from lluma_agent.tools.toolkit import ToolContext
    from lluma_vision.models import Box, Button, VisionOutput

    class Untouchable:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the device was used ({name}) on a refused turn")

    vision = VisionOutput(width=720, height=1280, buttons=[Button(name="OK", bounds=Box(x0=300, y0=900, x1=420,
                                                                                          y1=980))])
    frame = Frame(image=Image.new("RGB", (720, 1280)), taken_at=time.time(), phash="0" * 16)
    memory = MemoryStore(tmp_path / "memory")
    ctx = ToolContext(vision=vision, memory=memory, history=History(), turn=4)
    reply = ModelReply(content=[], tool_calls=[
        ToolCall(id="a", name="writeMemoryFile", input={"name": "plan.md", "content": "train speed"}),
        ToolCall(id="b", name="pressButton", input={"name": "OK"}),
        ToolCall(id="c", name="createMemoryFile", input={"name": "notes.md", "content": "x"}),
    ])
    actor = PersonGate(Actor(device or Untouchable(), default_tools(), lambda a, b: True),  # type: ignore[arg-type]
                       lambda turn, planned, frame, problem: Verdict(answer=answer, text=text))  # type: ignore
    acted = actor.run(reply, frame, ctx, StuckState(), "")
    return acted, tmp_path / "memory"


@pytest.mark.parametrize("answer", ["no", "quit"])
def test_a_refused_turn_runs_none_of_the_models_calls_memory_writes_included(tmp_path: Path, answer: str) -> None:
    acted, memory = _actor_turn(tmp_path, answer)
    assert not memory.exists() or not any(memory.iterdir())  # no memory file written
    assert acted.memory_changes == [] and acted.action is None  # type: ignore[attr-defined]
    results = acted.results  # type: ignore[attr-defined]
    assert [r.tool_use_id for r in results] == ["a", "b", "c"]  # every call answered, in the model's order
    assert all(r.is_error and r.content.startswith("not executed") for r in results)
    assert "none of its tool calls ran" in results[0].content


def test_the_live_line_shows_a_vetoed_turns_calls_as_refused() -> None:
    from lluma_agent.loop.app import live_line
    from lluma_agent.loop.turn import RunTotals
    from lluma_agent.model.calls import ToolCall
    from lluma_agent.runlog.turnlog import ResponseLog, TurnLog

    calls = [ToolCall(id="a", name="writeMemoryFile", input={}), ToolCall(id="b", name="pressButton", input={})]
    log = TurnLog(turn=3, started_at=0.0, model="claude-haiku-5-5", person="vetoed pressButton(OK)",
                  response=ResponseLog(tool_calls=calls))
    assert "| refused: writeMemo… |" in live_line(log, RunTotals())  # the column is 19 wide (120 in all)


def test_a_persons_replacement_runs_the_models_other_calls_and_is_not_logged_as_forced(tmp_path: Path) -> None:
    class Phone:
        taps: list[object] = []

        def capture(self) -> object:
            return type("F", (), {"phash": "0" * 16})()

        def tap(self, box: object) -> tuple[int, int]:
            self.taps.append(box)
            return (360, 940)

    acted, memory = _actor_turn(tmp_path, "edit", "OK", device=Phone())
    assert acted.action is not None and acted.action.forced is False  # type: ignore[attr-defined]
    assert acted.person == "replaced pressButton(OK) with pressButton(OK)"  # type: ignore[attr-defined]
    assert (memory / "plan.md").is_file() and (memory / "notes.md").is_file()  # not refused: the calls ran
    assert [r.tool_use_id for r in acted.results] == ["a", "c"]  # type: ignore[attr-defined]


# ---- lluma vision shows what the model sees ----------------------------------------------------------------------
def test_plain_vision_on_a_career_screen_prints_its_energy_gauge_and_skill_points(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lluma_cli import vision
    from lluma_sim.game import SimGame

    g = SimGame(seed=3, style="hard")  # what real screens have: an energy bar with no digits, a mood badge
    way = ["Borrow", "Auto-Select", "Start Career!", "Next", "OK", "Career", "Resume", "Close"]
    once = {"Borrow", "Auto-Select"}  # a choice made once per screen, then Next
    done: set[str] = set()
    for _ in range(40):  # through the career's set-up screens to the career's own screen
        if g.truth().screen == "hub":
            break
        names = {e.name: e for e in g.truth().elements if e.kind != "text"}
        if not names:  # a loading screen: the next capture moves it on
            g.capture()
            continue
        pick = next((n for n in way if n in names and not (n in once and n in done)), None)
        target = names[pick] if pick else next(iter(names.values()))
        done.add(pick or "")
        if pick == "Next":
            done -= once
        g.tap(*target.box.center)
        g.capture()
    assert g.truth().screen == "hub"
    shot = tmp_path / "career.png"
    g.capture().save(shot)
    assert vision.main([str(shot)]) == 0
    out = capsys.readouterr().out
    gauges = out.split("gauges:\n", 1)[1].splitlines()
    assert gauges[0].split()[:2] == ["Energy", "100%"]
    assert any(line.split()[:3] == ["Skill", "Pts", "120"] for line in out.split("values:\n", 1)[1].splitlines())
    assert "\nmood: " in out


# ---- the smaller points ------------------------------------------------------------------------------------------
def test_a_resumed_demo_says_where_it_resumes_and_labels_what_counts_this_sitting(
        run6: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(run6, tmp_path)
    assert demo.main(["--resume", str(run), "--turns", "1"]) == 0
    captured = capsys.readouterr()
    assert f"lluma demo: resuming {run} after turn 6, its last complete turn" in captured.err
    assert "\n7 turns on the simulator (" in captured.out  # the whole run's totals
    assert "resumed after turn 6 (faults, taps off target and the gauge agreement below count this sitting only)" \
        in captured.out
    assert demo.main(["--turns", "1", "--logs", str(tmp_path / "one")]) == 0
    assert "\n1 turn on the simulator (" in capsys.readouterr().out  # not "1 turns"


def test_sim_phone_plays_the_demos_hard_screens_by_default() -> None:
    from lluma_cli import sim

    args = sim._parser().parse_args(["phone"])
    assert args.style == "hard" and sim._parser().parse_args(["phone", "--style", "plain"]).style == "plain"


# ---- the stand-ins under a hostile client ------------------------------------------------------------------------
def test_the_api_stand_in_answers_a_bad_content_length_or_chunk_size_with_an_http_error() -> None:
    import socket

    from lluma_sim.api.server import ApiServer

    probes = {b"Content-Length: abc\r\n\r\n": b"400", b"Content-Length: -5\r\n\r\n": b"400",
              b"Transfer-Encoding: chunked\r\n\r\nzz\r\n": b"400",
              b"Content-Length: 99999999999\r\n\r\n": b"413"}
    with ApiServer() as api:
        for head, status in probes.items():
            with socket.create_connection(("127.0.0.1", api.port), timeout=5) as c:
                c.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n" + head)
                answer = b""
                while chunk := c.recv(65536):  # the stand-in closes the connection after the answer
                    answer += chunk
            assert answer.split(b"\r\n")[0].split(b" ")[1] == status, head
            assert b'"type":"error"' in answer.replace(b" ", b"")  # the API's error shape, not a dropped connection


def test_the_simulated_adb_server_streams_a_chain_and_bounds_a_push(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    import adbutils

    from lluma_sim.adb import shell as adb_shell
    from lluma_sim.adb import sync as adb_sync
    from lluma_sim.adb.server import AdbServer

    with AdbServer() as server:
        server.add_device("sim-0")
        dev = adbutils.AdbClient("127.0.0.1", server.port, socket_timeout=20).device("sim-0")

        def shell(cmd: str) -> bytes:  # the protocol by hand: adbutils joins what it reads quadratically
            import socket

            def request(c: socket.socket, text: str) -> None:
                c.sendall(f"{len(text):04x}{text}".encode())
                assert c.recv(4, socket.MSG_WAITALL) == b"OKAY"

            out = bytearray()
            with socket.create_connection(("127.0.0.1", server.port), timeout=20) as c:
                request(c, "host:transport:sim-0")
                request(c, f"shell:{cmd}")
                while chunk := c.recv(1 << 20):
                    out += chunk
            return bytes(out)

        one = shell("screencap")
        monkeypatch.setattr(adb_shell, "run", lambda *a: pytest.fail("a chain was collected whole"))
        three = shell("screencap; screencap; screencap")
        assert len(three) == 3 * len(one)  # each frame sent as it was made
        monkeypatch.setattr(adb_sync, "DEVICE_STORAGE", 1 << 20)
        with pytest.raises(adbutils.AdbError):  # adbd's FAIL "failed to write ...: No space left on device"
            dev.sync.push(io.BytesIO(b"x" * (2 << 20)), "/sdcard/big.bin")
        assert "/sdcard/big.bin" not in server.device("sim-0").files
        dev.sync.push(io.BytesIO(b"small"), "/sdcard/small.bin")  # the device still works
        assert server.device("sim-0").files["/sdcard/small.bin"] == b"small"


def test_a_burst_of_500_connections_is_all_served() -> None:
    import socket
    import time

    from lluma_sim.adb.server import AdbServer

    with AdbServer() as server:
        start = time.monotonic()
        conns = [socket.create_connection(("127.0.0.1", server.port), timeout=10) for _ in range(500)]
        try:
            for c in conns:
                c.sendall(b"000chost:version")
            answers = [c.recv(12) for c in conns]
        finally:
            for c in conns:
                c.close()
    assert all(a.startswith(b"OKAY") for a in answers)
    assert time.monotonic() - start < 15  # a backlog of 5 dropped SYNs: the burst took 77 s of retransmits
