"""Resuming a run: history rebuilt as it was sent, torn turns set aside and played again, a killed demo goes on.

End-to-end on the simulated phone (adb protocol) and the Messages API stand-in (HTTP), like test_agent_e2e.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop

from lluma_agent.loop import checkpoint
from lluma_agent.loop.resume import ResumeError, ResumePoint, newest_run, open_point, restore
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import resolve_dir
from lluma_agent.runlog.requestlog import load_request
from lluma_agent.runlog.runs import RunLock
from lluma_agent.runlog.turnlog import TurnLog, TurnLogger, read_turn, read_turns
from lluma_cli import run as run_cli
from lluma_cli.demo import agent_on, run_demo, sim_environment
from lluma_cli.demo import main as demo_main
from lluma_cli.logs import main as logs_main
from lluma_cli.report.page import main as report_main
from lluma_facts.request import strip_cache_control
from lluma_sim.api.policy import MEMORY_EVERY

pytestmark = pytest.mark.cost(seconds=25)  # worker seconds in a full suite (conftest: slowest modules first)

LLUMA = Path(sys.executable).parent / "lluma"
# Small history so that folds (a summary, a refreshed memory snapshot) happen before the break.
SMALL_HISTORY = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "4", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "2"}


def _rows(folder: Path, table: str = "turns", key: str = "turn") -> list[int]:
    db = sqlite3.connect(folder / "turns.sqlite")
    try:
        return [r[0] for r in db.execute(f"SELECT {key} FROM {table} ORDER BY {key}")]
    finally:
        db.close()


def _sent(folder: Path, turn: int) -> dict[str, Any]:
    request = load_request(folder, turn)
    assert request is not None
    return strip_cache_control(request)


def _answers(log: TurnLog, earlier: TurnLog) -> bool:
    """`log` delivers the result of `earlier`'s input action (the pending action survived the break)."""
    assert earlier.response is not None
    ids = {c.id for c in earlier.response.tool_calls}
    return any(r.tool_use_id in ids for r in log.tool_results)


@pytest.fixture(scope="module")
def three_turns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 3-turn demo run; tests copy it before changing anything."""
    logs = tmp_path_factory.mktemp("three") / "run"
    run_demo(3, logs, seed=5, quiet=True, truth_vision=True)
    return logs


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "run"
    shutil.copytree(src, dst)
    return dst


def test_a_short_break_resumes_with_the_same_prefix_and_reads_it_from_cache(tmp_path: Path) -> None:
    logs = tmp_path / "run"
    # seed 1: turns 6 and 7 are both the model's, in a 35-turn career whose game turns 2-4 fall on odd calendar turns
    # (no event, NUMBERS §5, whose pages are passed without a call; in a 24-turn one game turn 2 is calendar turn 4)
    with sim_environment(6, logs, seed=1, overrides=SMALL_HISTORY, truth_vision=True, career_turns=35) as sim:
        with agent_on(sim) as coordinator:
            coordinator.run()
        before = read_turns(logs)
        assert before[-1].turn == 6 and before[-1].history_fold  # a fold came before the break
        notes = logs / "memory" / "sim_notes.md"
        notes.write_text(notes.read_text(encoding="utf-8") + "- a person's line during the break\n", encoding="utf-8")
        point = open_point(logs)
        assert point.turn == 6 and not point.torn
        sim.cfg.run.max_turns = 2
        with agent_on(sim, resume=point) as coordinator:
            totals = coordinator.run()
    logs_after = read_turns(logs)
    assert [t.turn for t in logs_after] == list(range(1, 9))
    assert totals.turns == 8 and totals.stop_reason == "max_turns (2 more) reached"  # the sitting's own number
    assert _rows(logs) == list(range(1, 9)) and _rows(logs, "turns_fts", "rowid") == list(range(1, 9))
    six, seven = logs_after[5], logs_after[6]
    assert seven.history_fold is None
    # The rebuilt history is what was sent: turn 7's request is turn 6's (summary and all) plus turn 6's reply.
    sent6, sent7 = _sent(logs, 6), _sent(logs, 7)
    assert sent7["tools"] == sent6["tools"] and sent7["system"] == sent6["system"]
    assert sent6["messages"][0]["content"][0]["text"].startswith("<summary of earlier turns>")
    assert sent7["messages"][: len(sent6["messages"])] == sent6["messages"]
    assert sent7["messages"][len(sent6["messages"])]["role"] == "assistant"
    # ... so the stand-in, still up, reads all of it from its cache.
    assert seven.usage.cache_read_input_tokens > six.usage.cache_read_input_tokens
    assert _answers(seven, six)  # the pending tap's result was owed across the break, and delivered
    person = [c for c in seven.memory_changes if c.by == "person"]
    assert [c.name for c in person] == ["sim_notes.md"] and "a person's line" in person[0].diff
    assert any("a person's line" in n for n in seven.notes)
    summary = json.loads((logs / "run.json").read_text(encoding="utf-8"))
    assert summary["turns"] == 8 and summary["cost_usd"] == pytest.approx(sum(t.cost.turn_usd for t in logs_after))


def test_a_torn_last_turn_is_set_aside_and_played_again(three_turns: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    logs = _copy(three_turns, tmp_path)
    three = read_turn(logs / "turn_000003.json")
    # Killed after turn 4's JSON and SQLite row, before its checkpoint; turn 5's JSON (with a row) cut off.
    logger = TurnLogger(logs)
    for n in (4, 5):
        logger.write(three.model_copy(update={"turn": n, "started_at": 1.0}))
    logger.close()
    (logs / "turn_000005.json").write_text('{"turn": 5, "started_at": 17', encoding="utf-8")
    shutil.copy(logs / "requests" / "turn_000003.json.gz", logs / "requests" / "turn_000004.json.gz")
    point = open_point(logs)
    assert point.turn == 3 and [p.name for p in point.torn] == [
        "turn_000004.json", "turn_000004.json.gz", "turn_000005.json"]

    summary = run_demo(1, logs, quiet=True, resume=point, truth_vision=True)

    err = capsys.readouterr().err
    assert "turn 4 was not finished" in err and "turn 5 was not finished" in err
    assert summary.resumed_from_turn == 3 and summary.turns == 4
    assert (logs / "turn_000004.json.torn").is_file() and (logs / "turn_000005.json.torn").is_file()
    assert (logs / "requests" / "turn_000004.json.gz.torn").is_file()
    played = read_turns(logs)
    assert [t.turn for t in played] == [1, 2, 3, 4]
    assert played[3].started_at > 1.0 and _answers(played[3], played[2])  # a real turn 4, from the checkpoint
    assert _rows(logs) == [1, 2, 3, 4] and _rows(logs, "turns_fts", "rowid") == [1, 2, 3, 4]
    assert load_request(logs, 4) is not None


def _demo_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run([str(LLUMA), "demo", *args], env=env, capture_output=True, text=True, timeout=600)


def test_a_demo_killed_with_sigkill_resumes_to_completion(tmp_path: Path) -> None:
    logs = tmp_path / "run"
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"}
    env.pop("ANTHROPIC_API_KEY", None)
    # killed on the truth vision (the kill is the subject), resumed with the OCR: the taps land on the resumed game
    cmd = [str(LLUMA), "demo", "--turns", "200", "--seed", "4", "--logs", str(logs), "--json", "--truth-vision"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not RunFolder.at(logs).checkpoint.is_file() or len(list(logs.glob("turn_*.json"))) < 3:
            assert proc.poll() is None, "the demo ended before it was killed"
            assert time.monotonic() < deadline, "no 3 turns within 240 s"
            time.sleep(0.05)
        time.sleep(random.Random(14).uniform(0.0, 1.5))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    saved = checkpoint.Checkpoint.model_validate_json(RunFolder.at(logs).checkpoint.read_bytes())
    game_before = saved.env["game"]["career"]

    done = _demo_cli("--resume", str(logs), "--turns", "3", "--json")

    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    k = saved.turn
    assert summary["resumed_from_turn"] == k and summary["turns"] == k + 3
    assert summary["stop_reason"] == "max_turns (3 more) reached" and summary["taps_off_target"] == 0
    assert [t.turn for t in read_turns(logs)] == list(range(1, k + 4))  # every file whole, numbers go on
    assert _rows(logs) == list(range(1, k + 4))
    assert read_turn(logs / f"turn_{k + 1:06d}.json").errors == []
    if game_before is not None:  # the same career went on
        assert summary["game_turn"] >= min(game_before["turn"], game_before["max_turns"])


def test_a_line_a_person_adds_during_the_break_outlives_the_players_rewrite(
        three_turns: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A person adds a line to the player's notes while the demo is stopped; the resumed stand-in rewrites the file
    from its own idea of it (it writes its notes every MEMORY_EVERY turns, its last write read from the history) and
    leaves the line out: the write keeps it, and the live line, `lluma logs` and the report say so."""
    logs = _copy(three_turns, tmp_path)
    notes = logs / "memory" / "sim_notes.md"
    before = notes.read_text(encoding="utf-8")
    mine = "- a person: no race below NORMAL mood"
    notes.write_text(before + mine + "\n", encoding="utf-8")
    # its writes come MEMORY_EVERY model calls apart (routine passes make none): twice that many turns covers one
    assert demo_main(["--resume", str(logs), "--turns", str(2 * MEMORY_EVERY), "--truth-vision"]) == 0
    live = capsys.readouterr().out.splitlines()
    writes = [(t.turn, m) for t in read_turns(logs) if t.turn > 3
              for m in t.memory_changes if m.by == "agent" and m.name == "sim_notes.md"]
    assert writes, "the player never rewrote its notes after the resume"
    n, wrote = writes[0]
    assert wrote.kept_person_lines == [mine] and mine in notes.read_text(encoding="utf-8")
    assert "- most used lately:" in notes.read_text(encoding="utf-8")  # the player's own rewrite landed too
    assert notes.read_text(encoding="utf-8") != before + mine + "\n"
    block = "\n".join(live).split(f"turn {n:>4} |")[1].split("\nturn ")[0]  # turn n's line and those under it
    assert "\n     | memory: kept 1 line(s) a person wrote in sim_notes.md" in block, live
    assert logs_main([str(logs), "--turn", str(n)]) == 0
    assert "KEEPS 1 line(s) a person wrote its content left out" in capsys.readouterr().out
    assert report_main([str(logs), "-o", str(tmp_path / "r.html"), "--thumb", "0"]) == 0
    assert "memory: kept 1 line(s) a person wrote in sim_notes.md" in (tmp_path / "r.html").read_text()


def test_resume_refuses_what_it_cannot_continue(three_turns: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    def refused(*args: str) -> str:
        assert demo_main(list(args)) == 2
        return capsys.readouterr().err

    empty = tmp_path / "empty"
    empty.mkdir()
    assert "holds no run to resume" in refused("--resume", str(empty))
    assert "no log folder" in refused("--resume", str(tmp_path / "missing"))
    logs = _copy(three_turns, tmp_path)
    assert "--seed cannot go with --resume" in refused("--resume", str(logs), "--seed", "3")

    assert run_cli.main(["--resume", str(logs)]) == 2
    assert f"holds a demo run: resume it with `lluma demo --resume {logs}`" in capsys.readouterr().err
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(empty))
    assert run_cli.main(["--resume"]) == 2
    assert f"no run to resume under {empty}" in capsys.readouterr().err

    lock = RunLock(logs)  # another process is writing it
    assert "another LLuMa process is writing" in refused("--resume", str(logs))
    lock.release()

    monkeypatch.setenv("LLUMA_MODEL__NAME", "claude-haiku-4-5")
    assert "played with claude-haiku-5-5; resuming it with claude-haiku-4-5" in refused("--resume", str(logs))
    monkeypatch.delenv("LLUMA_MODEL__NAME")

    cp = json.loads(RunFolder.at(logs).checkpoint.read_text(encoding="utf-8"))
    RunFolder.at(logs).checkpoint.write_text(json.dumps({**cp, "format": 99}), encoding="utf-8")
    assert "has format 99" in refused("--resume", str(logs))
    RunFolder.at(logs).checkpoint.write_text(json.dumps({**cp, "env": {}}), encoding="utf-8")
    assert "holds a run on a phone" in refused("--resume", str(logs))
    RunFolder.at(logs).checkpoint.write_text(json.dumps(cp)[:100], encoding="utf-8")
    assert "cannot be read" in refused("--resume", str(logs))
    RunFolder.at(logs).checkpoint.unlink()
    assert "has no checkpoint.json" in refused("--resume", str(logs))
    assert sorted(p.name for p in logs.glob("turn_*")) == ["turn_000001.json", "turn_000002.json",
                                                            "turn_000003.json"]  # nothing was changed


def test_a_run_whose_model_retired_goes_on_with_the_replacement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Played while Sonnet 4.5 was served; resumed after it retired: the refusal names the replacement, and the
    run goes on with it (`--model`), its history sent as text."""
    logs = tmp_path / "run"
    monkeypatch.setenv("LLUMA_TODAY", "2026-11-01")
    monkeypatch.setenv("LLUMA_MODEL__NAME", "claude-sonnet-4-5")
    monkeypatch.setenv("LLUMA_MODEL__THINKING_BUDGET", "1024")  # thinking blocks kept in the history
    assert demo_main(["--turns", "3", "--logs", str(logs), "--truth-vision", "--json"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("LLUMA_TODAY", "2026-12-01")
    assert demo_main(["--resume", str(logs), "--turns", "2", "--json"]) == 2
    err = capsys.readouterr().err
    assert "played with claude-sonnet-4-5, retired on 2026-11-30; go on with claude-sonnet-4-6: add --model " \
        "claude-sonnet-4-6" in err
    assert demo_main(["--resume", str(logs), "--turns", "2", "--json", "--model", "claude-sonnet-4-6"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["turns"] == 5 and summary["model"] == "claude-sonnet-4-6"
    four = read_turn(logs / "turn_000004.json")
    assert four.model == "claude-sonnet-4-6" and not four.errors
    sent = _sent(logs, 4)
    assert not any(b.get("type") in ("thinking", "redacted_thinking")
                   for m in sent["messages"] for b in (m["content"] if isinstance(m["content"], list) else []))
    monkeypatch.delenv("LLUMA_MODEL__NAME")  # a current model other than the replacement is refused as before
    monkeypatch.setenv("LLUMA_TODAY", "2026-11-01")
    assert demo_main(["--resume", str(logs), "--turns", "1", "--model", "claude-haiku-5-5"]) == 2
    assert "played with claude-sonnet-4-6; resuming it with claude-haiku-5-5 is not possible" in capsys.readouterr().err


def test_run_resume_without_a_folder_takes_the_newest_run(three_turns: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The newest run means one thing everywhere (runlog/runs.py): the one whose last turn was logged last, as
    `lluma logs` and `lluma search` take it. A demo newest is refused by `lluma run`, naming both ways on."""
    with pytest.raises(ResumeError, match="no run to resume"):
        newest_run(tmp_path)
    shutil.copytree(three_turns, tmp_path / "demo-20261102-100000")
    for i, name in enumerate(["run-20261101-100000", "run-20261101-090000", "demo-20261102-100000"]):
        (tmp_path / name).mkdir(exist_ok=True)
        turn = tmp_path / name / "turn_000001.json"
        if not turn.exists():
            turn.write_text("{}", encoding="utf-8")
        for log in (tmp_path / name).glob("turn_*.json"):
            os.utime(log, (1_000_000 + i * 10, 1_000_000 + i * 10))
    demo, phone = tmp_path / "demo-20261102-100000", tmp_path / "run-20261101-090000"
    assert newest_run(tmp_path) == demo  # by its newest turn, not by its name
    assert resolve_dir(tmp_path)[0] == demo  # what `lluma logs`, `stats`, `report` and `search` read
    assert logs_main([str(tmp_path), "--path"]) == 0 and capsys.readouterr().out == f"{demo}\n"  # README's sqlite3
    monkeypatch.setenv("LLUMA_LOGS__DIR", str(tmp_path))
    assert run_cli.main(["--resume"]) == 2
    assert capsys.readouterr().err == (f"lluma run: {demo} holds a demo run: resume it with `lluma demo --resume "
                                       f"{demo}`, or go on with the newest run on a phone: `lluma run --resume "
                                       f"{phone}`\n")


def test_a_run_paused_as_stuck_resumes_with_fresh_counts_and_limits_from_the_resume(tmp_path: Path) -> None:
    def phone() -> FakePhone:
        return FakePhone({"home": FakeScreen(buttons=[button("Rest", 600, 1300, 1000, 1400)])}, start="home")

    first = loop(tmp_path, phone(), ScriptedModel([[call("pressButton", name="Gacha")]] * 4), max_turns=10,
                 stuck_after=2, stuck_force_after=8, stuck_pause_after=4)
    first.cfg.recovery.max_cycles = 0  # no recovery ladder: the run pauses at stuck_pause_after
    assert first.run().stop_reason.startswith("paused: stuck")
    cp = checkpoint.capture(first)
    first.logger.close()
    assert cp.turn == 5 and cp.totals.turns == 5  # the pause turn made no call, and counts (every turn does)

    model = ScriptedModel([[call("pressButton", name="Rest")]] * 2)
    second = loop(tmp_path, phone(), model, max_turns=2, stuck_after=2, stuck_force_after=8, stuck_pause_after=4)
    restore(ResumePoint(tmp_path / "logs", cp), second)
    totals = second.run()
    assert totals.stop_reason == "max_turns (2 more) reached" and totals.turns == 7  # two more, counted in the run
    assert len(model.requests) == 2 and sorted(p.name for p in (tmp_path / "logs").glob("turn_*.json"))[-1] == (
        "turn_000007.json")
