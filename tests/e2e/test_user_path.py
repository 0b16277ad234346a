"""The user's path through the CLI: --version, quiet pipes, run folders that never mix, exit codes, replay."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lluma_agent.runlog.requestlog import load_request
from lluma_agent.runlog.runs import LogDirInUse, check_fresh, new_run_dir
from lluma_agent.runlog.turnlog import TurnLog, TurnLogger
from lluma_cli import demo, invoked, replay
from lluma_cli import logs as logs_cli
from lluma_cli import main as cli

LLUMA = [sys.executable, "-m", "lluma_cli"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lluma ") and out.split()[1][0].isdigit()


def test_a_pipe_closed_early_ends_quietly(tmp_path: Path) -> None:
    logger = TurnLogger(tmp_path / "run")
    for n in range(1, 101):  # --json well past a pipe's 64 KB buffer, so the writer must see the pipe close
        logger.write(TurnLog(turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-4-5",
                             errors=[f"a long error of turn {n} " * 150]))
    logger.close()
    for extra in (["--json"], []):
        proc = subprocess.run(
            ["bash", "-c", 'set -o pipefail; "$@" | head -n 1', "sh", *LLUMA, "logs", str(tmp_path / "run"), *extra],
            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout.count("\n") == 1
        assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
        if extra:  # 300 KB cannot fit the pipe: the writer saw it close, and said nothing
            assert proc.returncode == 141  # what a shell reports for a writer whose reader left


def test_run_folders_made_in_the_same_second_differ(tmp_path: Path) -> None:
    now = time.time()
    made = [new_run_dir(tmp_path, "run", now=now) for _ in range(3)]
    assert len(set(made)) == 3 and all(p.is_dir() for p in made)
    assert made[1].name == made[0].name + "-2"


def test_a_folder_holding_a_run_is_refused_unless_resumed(tmp_path: Path) -> None:
    check_fresh(tmp_path)  # empty: fine
    logger = TurnLogger(tmp_path)
    logger.write(TurnLog(turn=1, started_at=1.0, model="claude-haiku-4-5"))
    check_fresh(tmp_path)  # one turn, never completed (no checkpoint): it can be started over
    logger.write(TurnLog(turn=2, started_at=2.0, model="claude-haiku-4-5"))
    with pytest.raises(LogDirInUse, match="already holds a run"):
        check_fresh(tmp_path)
    check_fresh(tmp_path, resume=True)  # the hook `--resume` uses


def test_a_second_demo_into_the_same_folder_leaves_the_first_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logger = TurnLogger(tmp_path)
    logger.write(TurnLog(turn=1, started_at=1.0, model="claude-haiku-4-5"))
    logger.write(TurnLog(turn=2, started_at=2.0, model="claude-haiku-4-5"))
    logger.close()
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert demo.main(["--turns", "2", "--logs", str(tmp_path), "--truth-vision"]) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.fixture(scope="module")
def six_turns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("replay") / "run"
    # Haiku 4.5 (no thinking) sends a screenshot each turn: the request files must leave its bytes out.
    # each of the six turns is the model's (no routine pass among them), so each is replayed: in a 35-turn career game
    # turns 2-4 fall on odd calendar turns, so no event (NUMBERS §5: even ones; its pages pass without a call) comes
    demo.run_demo(6, logs, seed=6, quiet=True, overrides={"LLUMA_MODEL__NAME": "claude-haiku-4-5"}, truth_vision=True,
                  career_turns=35)
    return logs


def test_each_turn_keeps_the_request_it_sent(six_turns: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = TurnLog.model_validate_json((six_turns / "turn_000003.json").read_text())
    request = load_request(six_turns, 3)
    assert request is not None and request["model"] == log.model
    current = request["messages"][-1]["content"]
    texts = [b["text"] for b in current if b.get("type") == "text"]
    sent = json.loads(texts[0].removeprefix("<vision>").removesuffix("</vision>"))
    assert sent == log.vision.seen_by_model  # the vision JSON the log shows is the one that was sent
    assert [b["tool_use_id"] for b in current if b["type"] == "tool_result"] == [r.tool_use_id for r in
                                                                                  log.tool_results]
    image = next(b for b in current if b["type"] == "image")
    assert image["source"]["data"].startswith("omitted:")  # bytes left out; the frame is in screens/
    assert logs_cli.main([str(six_turns), "--turn", "3", "--request"]) == 0
    assert json.loads(capsys.readouterr().out) == request


def test_replay_of_a_six_turn_demo_agrees_with_itself(six_turns: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay.main([str(six_turns), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [t["turn"] for t in out["turns"]] == [1, 2, 3, 4, 5, 6]
    assert all({"turn", "recorded_action", "replayed_action", "same"} <= set(t) for t in out["turns"])
    assert out["agreement"] >= 0.8 and out["cost_usd"] > 0 and out["api"] == "stand-in"
    one = replay.replay(six_turns / "turn_000002.json")  # a single turn file
    assert [t.turn for t in one.turns] == [2] and one.turns[0].recorded_action.startswith("pressButton")
    assert replay.main([str(six_turns), "--turns", "9-3"]) == 2
    assert "ends before it starts" in capsys.readouterr().err


def test_replay_with_another_prompt_sends_it(six_turns: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("You play a training game. Be brief.")
    request = load_request(six_turns, 2)
    assert request is not None
    swapped = replay.replay_request(request, __import__("PIL.Image").Image.new("RGB", (90, 160)), "{}",
                                    "claude-sonnet-4-6", prompt.read_text(), 160)
    assert swapped["system"][0]["text"] == prompt.read_text() and swapped["model"] == "claude-sonnet-4-6"
    assert swapped["system"][1:] == request["system"][1:]  # memory untouched
    assert "<vision>{}</vision>" in json.dumps(swapped["messages"][-1])
    img = next(b for b in swapped["messages"][-1]["content"] if b["type"] == "image")
    assert not img["source"]["data"].startswith("omitted")
    r = replay.replay(six_turns, turns="1-2", prompt_file=prompt, model="claude-sonnet-4-6")
    assert r.model == "claude-sonnet-4-6" and [t.turn for t in r.turns] == [1, 2]


def test_the_printed_next_step_runs_as_printed(tmp_path: Path) -> None:
    """After `make`, `lluma` is `.venv/bin/lluma`, not on PATH: the line a stopped demo ends with names it so, and
    typed as printed (here with a turn and the fast reading added), it goes on."""
    venv = Path(sys.executable).parent.parent
    (tmp_path / ".venv").symlink_to(venv)  # a checkout's own .venv, as `make` leaves it
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if Path(p) != venv / "bin")
    env = {**os.environ, "PATH": path, "ADBUTILS_ADB_PATH": "/bin/false"}
    first = subprocess.run([".venv/bin/lluma", "demo", "--turns", "1", "--truth-vision"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    hint = first.stdout.splitlines()[-1]
    assert hint.startswith("to go on where it stopped: .venv/bin/lluma demo --resume logs/demo-"), hint
    again = subprocess.run(["bash", "-c", hint.split(": ", 1)[1] + " --turns 1 --truth-vision"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[-1] == hint  # the same folder, the same command


def test_the_command_is_lluma_where_the_lluma_on_path_is_this_one(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "lluma"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert invoked.lluma(str(script)) == "bin/lluma"  # not on PATH: the path, as typed from here
    assert invoked.lluma("bin/lluma") == "bin/lluma"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin")
    assert invoked.lluma(str(script)) == "lluma"  # `pipx install .`, an activated venv: the name alone
    assert invoked.command("run", "--resume", "logs/run 1") == "lluma run --resume 'logs/run 1'"
