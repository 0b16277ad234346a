"""`lluma logs`, `stats`, `report`, `memory`, `doctor` on a small log folder written through TurnLogger."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
from pathlib import Path

import pytest
from PIL import Image

from lluma_agent.context.request import Section
from lluma_agent.context.stuck import StuckState
from lluma_agent.memory.store import MemoryChange, MemoryStore
from lluma_agent.model.calls import ToolCall, ToolResult
from lluma_agent.runlog import logread
from lluma_agent.runlog import stats as run_stats
from lluma_agent.runlog.turnlog import (
    ActionLog,
    CostLog,
    ResponseLog,
    RunSummary,
    SideCall,
    Timings,
    TurnLog,
    TurnLogger,
    VisionLog,
)
from lluma_cli import doctor, stats
from lluma_cli import logs as logs_cli
from lluma_cli import main as cli
from lluma_cli import memory as memory_cli
from lluma_cli.report import charts
from lluma_cli.report import page as report
from lluma_facts import Usage
from lluma_sim.adb.server import AdbServer

EVIL = "I will <script>alert(1)</script> press OK & continue"
SECRET_KEY = "sk-ant-test-0123456789-secret"


def _turn(n: int, **kw) -> TurnLog:
    base = dict(
        turn=n,
        started_at=1_760_000_000.0 + 2 * n,
        model="claude-haiku-4-5",
        timings=Timings(model_s=0.1 * n, total_s=1.0),
        vision=VisionLog(seen_by_model='{"buttons":[{"name":"OK","region":"middle"}]}', summary=f"buttons: OK #{n}"),
        context=[Section(name="system", tokens=3500, blocks=1, breakpoint=True)],
        response=ResponseLog(text=f"turn {n}: press OK", tool_calls=[ToolCall(id=f"t{n}", name="pressButton",
                                                                             input={"name": "OK"})]),
        action=ActionLog(tool="pressButton", target="OK", point=[540, 1210], effect="screen changed (distance 20)"),
        usage=Usage(input_tokens=700, cache_read_input_tokens=4000 * (n > 1), cache_creation_input_tokens=100,
                    output_tokens=30),
        cost=CostLog(turn_usd=0.002, run_usd=0.002 * n),
        past_turn_tokens=50 + 10 * n,
    )
    base.update(kw)
    return TurnLog(**base)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    logger = TurnLogger(folder)
    turns = [
        _turn(1, memory_changes=[MemoryChange(name="notes.md", op="create", by="agent", diff="+# notes\n",
                                              tokens_after=3)]),
        _turn(2, vision=VisionLog(seen_by_model='{"buttons":[{"name":"OK","region":"middle"}]}',
                                  summary="buttons: OK #2",
                                  full={"screen": {"id": "4d920c00e9", "name": "Career", "kind": "title"}}),
              response=ResponseLog(text=EVIL, thinking="thinking about <b>it</b>",
                                      tool_calls=[ToolCall(id="t2", name="pressButton", input={"name": "OK"})]),
              tool_results=[ToolResult(tool_use_id="t1", name="pressButton", content="tapped 'OK' at (540,1210)")]),
        _turn(3, errors=["action: button 'Nope' not found"], stuck=StuckState(level="warn", reason="same screen"),
              action=ActionLog(tool="back", forced=True, effect="screen unchanged (the action had no visible effect)"),
              memory_changes=[MemoryChange(name="notes.md", op="external", by="person", diff="-a\n+b\n",
                                           tokens_after=4)]),
        _turn(4, waited="loading (2 waits)", vision=None, response=None, action=None, usage=Usage(),
              cost=CostLog(turn_usd=0.0, run_usd=0.006), past_turn_tokens=0, timings=Timings(total_s=0.5)),
    ]
    for t in turns:
        t.frame.path = logger.save_screenshot(t.turn, Image.new("RGB", (108, 192), (30 * t.turn, 80, 120)))
        logger.write(t)
    logger.close()
    return folder


def _out(capsys: pytest.CaptureFixture[str], code: int, expect: int = 0) -> str:
    assert code == expect
    return capsys.readouterr().out


# ---- logs ----------------------------------------------------------------------------------------


def test_logs_listing(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, logs_cli.main([str(run_dir)]))
    assert "4 turn(s)" in out
    lines = out.splitlines()
    assert re.search(r"uncached\s+cache write\s+cache read\s+out\s+\$turn\s+\$run\s+notes$", lines[1])
    # turn 1: 700 uncached, 100 written to the cache, 0 read, 30 out; $0.0020 this turn and so far
    row = r"^\s+1\s+buttons: OK #1\s+pressButton\(OK\) -> screen changed\s+700\s+100\s+0\s+30\s+\$0\.0020\s+\$0\.0020"
    assert re.search(row, lines[2])
    total = "run total (4 turn(s)): uncached 2,100 · cache write 300 · cache read 8,000 · out 90 · "
    assert lines[-1].startswith(total)
    assert "back [forced] -> same screen" in out and "stuck:warn" in out and "button 'Nope' not found" in out
    assert "(waited: loading (2 waits))" in out
    assert re.search(r"^\s+2\s+Career · buttons: OK #2\s+pressButton", lines[3])  # the screen by its name, as live
    tail = _out(capsys, logs_cli.main([str(run_dir), "--tail", "2"]))
    assert "last 2 shown" in tail and "#1 " not in tail and "#3" in tail


def test_logs_json(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = json.loads(_out(capsys, logs_cli.main([str(run_dir), "--json"])))
    assert [r["turn"] for r in rows] == [1, 2, 3, 4]
    assert rows[0]["action"] == "pressButton(OK)" and rows[1]["cache_read"] == 4000
    assert rows[2]["errors"] == ["action: button 'Nope' not found"] and rows[3]["action"] == ""


def test_logs_one_turn_in_full(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, logs_cli.main([str(run_dir), "--turn", "2"]))
    for piece in ("Turn 2", "what the model saw", '{"name": "OK", "region": "middle"}', "thinking about <b>it</b>",
                  EVIL, 'pressButton {"name": "OK"}', "tapped 'OK' at (540,1210)",
                  "action: pressButton(OK) at (540, 1210)",
                  "cache read 4000", "system 3500 |bp"):
        assert piece in out, piece
    out3 = _out(capsys, logs_cli.main([str(run_dir), "--turn", "3"]))
    assert "memory external notes.md by person" in out3 and "+b" in out3
    assert "stuck: warn" in out3 and "- action: button 'Nope' not found" in out3
    full = json.loads(_out(capsys, logs_cli.main([str(run_dir), "--turn", "2", "--json"])))
    assert full["response"]["text"] == EVIL
    assert logs_cli.main([str(run_dir), "--turn", "99"]) == 1
    assert "no turn 99" in capsys.readouterr().err


def test_logs_uses_the_newest_run_folder(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = tmp_path / "all"
    parent.mkdir()
    old = parent / "demo-old"
    TurnLogger(old).write(_turn(7))
    os.utime(old / "turn_000007.json", (1, 1))
    run_dir.rename(parent / "demo-new")
    assert logs_cli.main([str(parent)]) == 0
    captured = capsys.readouterr()
    assert "4 turn(s)" in captured.out and "using the newest run" in captured.err and "demo-new" in captured.err
    assert logs_cli.main([str(parent), "--json"]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)) == 4 and "demo-new" in captured.err  # the note stays off stdout


def test_logs_without_turns_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert logs_cli.main([str(tmp_path)]) == 1
    assert "no turn logs" in capsys.readouterr().err
    assert stats.main([str(tmp_path / "missing")]) == 1
    assert "no log folder" in capsys.readouterr().err


# ---- stats ---------------------------------------------------------------------------------------


def test_readers_default_to_the_configured_log_root(run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`lluma logs` / `stats` / `search` with no DIR read logs.dir (config.yaml, LLUMA_LOGS__DIR), not ./logs."""
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no ./logs and no config.yaml here
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(run_dir))
    assert stats.main(["--json"]) == 0
    turns = json.loads(capsys.readouterr().out)["turns"]
    assert turns >= 1
    assert logs_cli.main(["--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == turns
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(tmp_path / "nowhere"))
    assert stats.main([]) == 1
    assert "nowhere" in capsys.readouterr().err


def test_stats(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = json.loads(_out(capsys, stats.main([str(run_dir), "--json"])))
    assert s["turns"] == 4 and s["model_calls"] == 3
    assert s["uncached_input_tokens"] == 2100 and s["cache_read_tokens"] == 8000
    assert s["cache_write_tokens"] == 300 and s["output_tokens"] == 90
    assert s["cost_usd"] == pytest.approx(0.006) and s["cost_per_turn_usd"] == pytest.approx(0.0015)
    assert s["cache_hit_ratio"] == pytest.approx(8000 / 10400)
    assert s["median_past_turn_tokens"] == 70  # 60, 70, 80; the waiting turn adds nothing to history
    assert s["model_latency_p50_s"] == pytest.approx(0.2) and s["model_latency_p90_s"] == pytest.approx(0.28)
    assert s["actions"] == {"pressButton": 2, "back": 1} and s["forced_actions"] == 1
    assert s["errors"] == 1 and s["stuck"] == {"warn": 1}
    assert s["memory_changes"] == {"agent": 1, "person": 1}
    text = _out(capsys, stats.main([str(run_dir)]))
    assert "turns: 4" in text and "cache hit: 76.9%" in text and "cost: $0.0060 total" in text
    assert "memory changes: agent 1, person 1" in text and "p50 0.20 s, p90 0.28 s" in text


def test_percentile() -> None:
    assert run_stats.percentile([], 0.5) == 0.0
    assert run_stats.percentile([3.0], 0.9) == 3.0
    assert run_stats.percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5


# ---- report --------------------------------------------------------------------------------------


def test_report_is_one_self_contained_page(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    assert "wrote" in _out(capsys, report.main([str(run_dir), "-o", str(out)]))
    page = out.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "http://" not in page and "https://" not in page
    # the model's text is escaped; the page's one script is its own expand/collapse, allowed by its hash
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert scripts == [report.SCRIPT] and page.lower().count("<script") == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page and 'id="expand"' in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&amp; continue" in page
    assert page.count("<svg") == 2 and "Input tokens per turn" in page and "Cumulative cost" in page
    assert page.count('src="data:image/jpeg;base64,') == 4
    assert page.count('<details class="turn') == 4 and 'class="turn err" id="t3"' in page
    assert "button &#39;Nope&#39; not found" in page and '<a href="#t3">' in page


def test_report_shows_stop_reason_calls_vision_json_and_the_tap(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = RunSummary(stop_reason="max_turns (4) reached", turns=4, cost_usd=0.006)
    (run_dir / "run.json").write_text(summary.model_dump_json())
    log = TurnLog.model_validate_json((run_dir / "turn_000002.json").read_text())
    log.side_calls = [SideCall(kind="vlm", model="claude-haiku-4-5", usage=Usage(input_tokens=900, output_tokens=60),
                               cost_usd=0.0012)]
    log.cost.turn_usd = 0.0032
    (run_dir / "turn_000002.json").write_text(log.model_dump_json())
    page = report.render(logread.load_run(run_dir))
    assert "stopped: max_turns (4) reached" in page
    assert "<td>vlm</td><td>claude-haiku-4-5</td><td>900</td>" in page and "<td>decision</td>" in page
    assert "$0.00200</td>" in page  # the decision's share: the turn's cost less its side call
    assert "vision JSON the model saw" in page and "&#34;name&#34;: &#34;OK&#34;" in page
    assert "<b>pressButton(OK)</b> → screen changed" in page and "→ same screen" in page
    # the tap at (540, 1210) on a 1080x1920 frame is marked where it landed on the thumbnail
    shot = logread.load_run(run_dir).folder / "screens" / "turn_000002.jpg"
    Image.new("RGB", (1080, 1920), (40, 80, 120)).save(shot)
    uri = report.thumbnail(shot, 480, point=[540, 1210])
    assert uri is not None
    thumb = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")
    assert thumb.size == (270, 480)
    r, g, b = thumb.getpixel((135, 302))  # the centre dot, in the marker's magenta
    assert r > 180 and g < 90 and b > 100
    r, g, b = thumb.getpixel((30, 30))  # elsewhere the screenshot is untouched
    assert (r, g, b) != thumb.getpixel((135, 302)) and r < 80
    stats_out = json.loads(_out(capsys, stats.main([str(run_dir), "--json"])))
    assert stats_out["stop_reason"] == "max_turns (4) reached"
    assert stats_out["calls"]["vlm"] == {"count": 1, "input_tokens": 900, "output_tokens": 60, "cost_usd": 0.0012,
                                         "uncached_input_tokens": 900, "cache_write_tokens": 0, "cache_read_tokens": 0}
    assert stats_out["calls"]["decision"]["count"] == 3
    turn2 = _out(capsys, logs_cli.main([str(run_dir), "--turn", "2"]))
    assert "vlm claude-haiku-4-5: in 900 + cache read 0 + write 0, out 60, $0.00120" in turn2


def test_stats_without_run_json_says_the_stop_reason_is_unknown(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    s = json.loads(_out(capsys, stats.main([str(run_dir), "--json"])))
    assert s["stop_reason"].startswith("unknown (no run.json")


def test_report_default_output_and_lost_screenshots(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run_dir / "screens" / "turn_000001.jpg").unlink()  # screenshot retention deleted it
    assert cli.main(["report", str(run_dir)]) == 0
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "screenshot no longer kept" in page and page.count("data:image/jpeg") == 3
    assert report.main([str(run_dir), "--thumb", "0", "-o", str(run_dir / "small.html")]) == 0
    assert "data:image" not in (run_dir / "small.html").read_text(encoding="utf-8")


def test_charts_scale() -> None:
    assert charts.nice_step(8000) == 2000 and charts.nice_step(0.024) == 0.01
    svg = charts.stacked_bars("t", [1, 2], [("a", "#000", [1.0, 2.0]), ("b", "#111", [3.0, 0.0])])
    assert svg.count("<rect") == 4 + 2 and "turn 1: a 1, b 3" in svg  # bars + legend swatches
    assert "<polyline" in charts.line("c", [1, 2, 3], [0.1, 0.2, 0.3])


# ---- memory --------------------------------------------------------------------------------------


def test_memory_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mem = tmp_path / "memory"
    store = MemoryStore(mem, budget_tokens=1000)
    store.create("notes.md", "# Notes\nrest below 40% energy\n")
    store.create("plan.yaml", "goal: win\n")
    args = ["--dir", str(mem), "--budget", "1000"]
    out = _out(capsys, memory_cli.main(args))
    assert "2 file(s)" in out and "of 1,000 tokens" in out and "notes.md" in out and "plan.yaml" in out
    listed = json.loads(_out(capsys, memory_cli.main([*args, "--json"])))
    assert listed["total_tokens"] == store.total_tokens() and {f["name"] for f in listed["files"]} == {
        "notes.md", "plan.yaml"}
    assert _out(capsys, memory_cli.main([*args, "show", "notes.md"])) == "# Notes\nrest below 40% energy\n"
    budget = _out(capsys, memory_cli.main([*args, "budget"]))
    assert f"used ~{store.total_tokens()}" in budget and "free" in budget
    assert memory_cli.main([*args, "show", "missing.md"]) == 1
    assert "files: notes.md, plan.yaml" in capsys.readouterr().err
    assert memory_cli.main(["--dir", str(tmp_path / "none")]) == 1
    assert not (tmp_path / "none").exists()  # a read-only command creates nothing


def test_memory_command_points_at_the_newest_runs_memory_when_the_default_folder_is_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After `make demo`, `memory/` is empty and the demo's notes are in logs/demo-<time>/memory/: shown, and said."""
    monkeypatch.setenv("LLUMA_MEMORY__DIR", str(tmp_path / "memory"))
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(tmp_path / "logs"))
    (tmp_path / "memory").mkdir()
    old, new = tmp_path / "logs" / "demo-old" / "memory", tmp_path / "logs" / "demo-new" / "memory"
    MemoryStore(old).create("old.md", "old notes\n")
    MemoryStore(new).create("sim_notes.md", "Training then Speed\n")
    for run, when in ((old.parent, 1), (new.parent, 2)):  # the newest run: its last turn logged last (as `lluma logs`)
        (run / "turn_000001.json").write_text("{}", encoding="utf-8")
        os.utime(run / "turn_000001.json", (when, when))
    assert memory_cli.main([]) == 0
    captured = capsys.readouterr()
    assert "sim_notes.md" in captured.out and "old.md" not in captured.out
    assert "holds no memory files yet; showing the newest run's" in captured.err and str(new) in captured.err
    MemoryStore(tmp_path / "memory").create("mine.md", "my notes\n")  # once memory.dir has files, it is shown
    assert memory_cli.main([]) == 0
    captured = capsys.readouterr()
    assert "mine.md" in captured.out and "sim_notes.md" not in captured.out and captured.err == ""


# ---- doctor --------------------------------------------------------------------------------------


def _config(tmp_path: Path, port: int) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(
        f"device:\n  adb_port: {port}\n  command_timeout_s: 3\n"
        f"memory:\n  dir: {tmp_path / 'memory'}\nlogs:\n  dir: {tmp_path / 'logs'}\n",
        encoding="utf-8",
    )
    return path


def test_doctor_reports_a_missing_adb_server(tmp_path: Path, free_port: int, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    out = _out(capsys, doctor.main(["--config", str(_config(tmp_path, free_port))]), expect=1)
    assert re.search(rf"^FAIL\s+adb server\s+nothing answers at 127\.0\.0\.1:{free_port}", out, re.M)
    assert "fix: start it with `adb start-server`" in out
    assert re.search(rf"^ok\s+api key\s+ANTHROPIC_API_KEY is set \({len(SECRET_KEY)} characters\)", out, re.M)
    assert SECRET_KEY not in out and "1 failed" in out
    checks = json.loads(_out(capsys, doctor.main(["--config", str(_config(tmp_path, free_port)), "--json"]), 1))
    assert [c["name"] for c in checks if c["status"] == "fail"] == ["adb server"]


def test_doctor_sees_the_simulated_device(tmp_path: Path, adb_server: AdbServer, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    out = _out(capsys, doctor.main(["--config", str(_config(tmp_path, adb_server.port))]))
    assert re.search(rf"^ok\s+adb server\s+.*127\.0\.0\.1:{adb_server.port}", out, re.M)
    assert re.search(r"^ok\s+device\s+sim-0 ready", out, re.M)
    assert re.search(r"^ok\s+ocr\s+rapidocr model loaded", out, re.M)
    assert "0 failed" in out and SECRET_KEY not in out


def test_doctor_names_the_variable_a_port_came_from(tmp_path: Path, adb_server: AdbServer, free_port: int,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Before: "device.adb_port from the configuration" for LLUMA_DEVICE__ADB_PORT, a variable of the shell."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port))  # nothing there: the variable below wins
    monkeypatch.setenv("LLUMA_DEVICE__ADB_PORT", str(adb_server.port))
    out = _out(capsys, doctor.main(["--config", str(_config(tmp_path, free_port))]))
    assert f"127.0.0.1:{adb_server.port} (host from ANDROID_ADB_SERVER_HOST; device.adb_port from " \
           f"LLUMA_DEVICE__ADB_PORT, over ANDROID_ADB_SERVER_PORT={free_port})" in out
    monkeypatch.delenv("LLUMA_DEVICE__ADB_PORT")  # now the port is config.yaml's
    out = _out(capsys, doctor.main(["--config", str(_config(tmp_path, adb_server.port))]))
    assert f"127.0.0.1:{adb_server.port} (host from ANDROID_ADB_SERVER_HOST; device.adb_port from the " \
           f"configuration, over ANDROID_ADB_SERVER_PORT={free_port})" in out


def test_doctor_flags_a_missing_key_and_a_dead_local_api(tmp_path: Path, free_port: int,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{free_port}")
    checks = json.loads(_out(capsys, doctor.main(["--config", str(_config(tmp_path, free_port)), "--json"]), 1))
    by = {c["name"]: c for c in checks}
    assert by["api key"]["status"] == "fail" and "not set" in by["api key"]["detail"]
    assert by["api url"]["status"] == "fail" and "lluma sim api" in by["api url"]["fix"]


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_every_command_resolves_and_answers_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A module moved without updating the dispatcher's "module:function" string fails here, not for a user."""
    try:
        code = cli.main([name, "--help"])
    except SystemExit as exc:  # argparse's --help exits
        code = exc.code
    assert code == 0
    assert f"lluma {name}" in capsys.readouterr().out


def test_top_level_help_lines_up_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert {line.split()[0] for line in rows} == set(cli.COMMANDS)
    starts = {len(line) - len(line[2:].split(" ", 1)[1].lstrip()) for line in rows}
    assert len(starts) == 1  # every description starts in the same column (`knowledge` pushed its own right)


def test_doctor_prints_the_default_config_and_teaches_connect(tmp_path: Path, adb_server: AdbServer,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m lluma_agent.config` fails under pipx or uv; `lluma doctor --print-config` works wherever lluma
    does. With no device attached the fix names `lluma run --connect`, as the README teaches."""
    text = _out(capsys, doctor.main(["--print-config"]))
    assert "model:\n" in text and "  connect: null" in text
    bad = tmp_path / "bad.yaml"
    bad.write_text("model:\n  max_tokenz: 5\n", encoding="utf-8")
    checks = json.loads(_out(capsys, doctor.main(["--config", str(bad), "--json"]), 1))
    assert "lluma doctor --print-config" in next(c for c in checks if c["name"] == "config")["fix"]
    adb_server.remove_device("sim-0")
    checks = json.loads(_out(capsys, doctor.main(["--config", str(_config(tmp_path, adb_server.port)), "--json"]),
                         1))
    device = next(c for c in checks if c["name"] == "device")
    assert device["detail"] == "no device attached" and "lluma run --connect 127.0.0.1:PORT" in device["fix"]


def test_report_turn_list_shows_the_games_progress_as_read(tmp_path: Path) -> None:
    from lluma_cli.report import progress

    both = TurnLog(turn=1, started_at=1.0, model="claude-haiku-4-5", vision=VisionLog(
        summary="buttons: Training", seen_by_model={"texts": ["Career", "Mood: Good", "Speed"],
                                                    "values": {"Turn": "3/24", "Speed": "120"}}))
    assert progress.facts(both) == ["Turn 3/24", "Speed 120", "Mood: Good"]  # a bare "Speed" (a button) is no fact
    texts = TurnLog(turn=2, started_at=2.0, model="claude-haiku-4-5", vision=VisionLog(
        summary="x", seen_by_model={"texts": ["Turn 4/24", "Energy 80/100", "Senior Year Early Jun", "OK"]}))
    assert progress.facts(texts) == ["Turn 4/24", "Energy 80/100", "Senior Year Early Jun"]
    bar = TurnLog(turn=3, started_at=3.0, model="claude-haiku-4-5", vision=VisionLog(
        summary="x", seen_by_model={"values": {"Turn": "5/24"}, "gauges": {"Energy": 0.62}, "mood": "GOOD"}))
    assert progress.facts(bar) == ["Turn 5/24", "Energy 62%", "Mood: GOOD"]  # energy drawn as a bar only
    folder = tmp_path / "run"
    logger = TurnLogger(folder)
    logger.write(both)
    logger.close()
    assert report.main([str(folder), "-o", str(tmp_path / "r.html")]) == 0
    assert '<span class="progress">Turn 3/24 · Speed 120 · Mood: Good</span>' in (tmp_path / "r.html").read_text()
