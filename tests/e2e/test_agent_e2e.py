"""End-to-end: the real loop on the simulated phone (adb protocol) and the Messages API stand-in (HTTP)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from fakes import IgnoresFoldAsk, bench_module

from lluma_agent.loop.app import live_line
from lluma_agent.loop.stop import STUCK_EXIT, exit_status
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli import logs as logs_cli
from lluma_cli import stats
from lluma_cli.demo import DEMO_KEY, run_demo, sim_agent
from lluma_cli.demo import main as demo_main
from lluma_sim.api.policy import PolicyReply, ScriptedPolicy

pytestmark = pytest.mark.cost(seconds=48)  # worker seconds in a full suite (conftest: slowest modules first)

REPO = Path(__file__).resolve().parents[2]


def _norm(s: str) -> str:
    return re.sub(r"[^0-9a-z]+", "", re.sub(r"#\d+$", "", s).casefold())


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    """One 16-turn demo shared by several tests. Their subject is the loop's plumbing (logs, search, knowledge, memory,
    the cache, the key), so it runs on the simulator's truth vision; that the OCR's taps land on their buttons is
    checked on OCR by test_hazards_high (plain screens) and test_demo_hard (hard screens)."""
    logs = tmp_path_factory.mktemp("demo")
    taps: list[tuple[float, float, Any]] = []
    with sim_agent(16, logs, seed=3, truth_vision=True) as (sim, coordinator):
        game = sim.game
        original = game.tap

        def spy(x: float, y: float) -> None:
            taps.append((x, y, game.truth()))
            original(x, y)

        game.tap = spy  # the adb server calls game.tap for `input tap`
        totals = coordinator.run()
        requests = list(sim.api.log)
    return logs, taps, totals, requests


def test_demo_plays_and_logs_validate(demo_run):
    logs, taps, totals, _ = demo_run
    turn_logs = read_turns(logs)
    assert totals.turns == 16 and len(turn_logs) == 16
    assert totals.stop_reason.startswith("max_turns")
    assert sum(1 for t in turn_logs if t.action is not None) >= 12  # it acts, not just talks
    rows = sqlite3.connect(logs / "turns.sqlite").execute("select count(*), max(run_cost_usd) from turns").fetchone()
    assert rows[0] == 16 and rows[1] == pytest.approx(totals.cost_usd)
    for t in turn_logs[:-1]:
        if t.action is not None:
            assert t.action.effect != "pending"  # filled in by the next turn
    assert all((logs / t.frame.path).exists() for t in turn_logs[-5:])


def test_lluma_search_finds_the_runs_turns(demo_run):
    logs = demo_run[0]
    out = subprocess.run([sys.executable, "-m", "lluma_cli", "search", "Training", str(logs), "--json"],
                         capture_output=True, text=True, check=True, cwd=REPO)
    hits = json.loads(out.stdout)
    turns = {t.turn: t for t in read_turns(logs)}
    assert hits and all(h["turn"] in turns for h in hits)
    shown = {n for n, t in turns.items() if t.vision and "Training" in t.vision.summary}
    assert shown <= {h["turn"] for h in hits}  # every turn that showed a Training button is found
    for h in hits:  # each hit is a turn whose log holds the word (stemmed: train, training), shown in the snippet
        assert "train" in turns[h["turn"]].model_dump_json().lower()
        assert "[train" in h["snippet"].lower()


def test_turn_logs_list_the_knowledge_matched_to_their_screen(demo_run):
    from lluma_agent.context import knowledge

    starter = {e.id: e for e in knowledge.load().entries}
    matched = [t for t in read_turns(demo_run[0]) if t.knowledge]
    assert matched  # the starter set has entries for the simulated game's screens
    for t in matched:
        assert all(starter[i].tokens for i in t.knowledge)  # ids of real entries, within the default budget
        assert sum(starter[i].tokens for i in t.knowledge) <= 300


def test_taps_land_on_the_named_buttons(demo_run):
    logs, taps, _, _ = demo_run
    presses = [t.action for t in read_turns(logs) if t.action and t.action.tool == "pressButton" and t.action.point]
    assert len(presses) >= 6
    by_point = {(round(x), round(y)): truth for x, y, truth in taps}
    for action in presses:
        truth = by_point[tuple(action.point)]
        hit = [e for e in truth.elements if e.box.contains(*action.point)]
        assert hit, f"tap {action.point} for {action.target!r} hit no element on {truth.screen}"
        assert any(_norm(e.name) == _norm(action.target) for e in hit), (
            action.target,
            [e.name for e in hit],
        )


def test_memory_files_change_and_are_logged(demo_run):
    logs, _, _, _ = demo_run
    changes = [c for t in read_turns(logs) for c in t.memory_changes]
    assert changes and all(c.by == "agent" for c in changes)
    assert any((logs / "memory" / c.name).exists() for c in changes if c.op != "delete")
    assert all(c.diff.startswith("--- a/") for c in changes)


def test_cache_is_read_after_the_first_turns(demo_run):
    logs, _, totals, requests = demo_run
    turn_logs = read_turns(logs)
    later = [t.usage for t in turn_logs[4:] if t.response is not None]  # a routine pass makes no call to cache
    assert len(later) >= 8 and all(u.cache_read_input_tokens > 0 for u in later)
    assert totals.cache_hit_ratio > 0.6
    # breakpoints A, B, the rolling C and, with a thinking model, D on the current turn (it will be kept verbatim)
    assert [s.name for s in turn_logs[0].context if s.breakpoint] == ["system", "memory", "current"]
    for t in turn_logs[1:]:
        if t.response is not None:  # a routine pass sends no request
            assert [s.name for s in t.context if s.breakpoint] == ["system", "memory", "history", "current"]


def test_api_key_never_reaches_a_log(demo_run):
    logs, _, _, requests = demo_run
    for path in logs.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".sqlite", ".md", ".txt", ".yaml"):
            assert DEMO_KEY.encode() not in path.read_bytes(), path
    assert DEMO_KEY not in json.dumps([r.model_dump(mode="json") for r in requests])


class OnePolicy:
    """Scripted replies for a handful of turns, then the default player."""

    def __init__(self, script: list[list[dict[str, Any]]]):
        self.script = list(script)
        self.fallback = ScriptedPolicy(seed=1)
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        self.requests.append(request)
        if self.script:
            return PolicyReply(content=self.script.pop(0), stop_reason="tool_use")
        return self.fallback.respond(request)


def _tool(tool: str, /, **inp: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{tool}_{time.monotonic_ns()}", "name": tool, "input": inp}


def test_unknown_button_taps_nothing_and_says_why(tmp_path):
    policy = OnePolicy([[_tool("pressButton", name="Gacha")]])
    with sim_agent(3, tmp_path, seed=2, policy=policy, truth_vision=True) as (sim, coordinator):
        game = sim.game
        taps: list[tuple[float, float]] = []
        original = game.tap
        game.tap = lambda x, y: (taps.append((x, y)), original(x, y))[1]
        first = coordinator.step()
        assert taps == [] and first.action is None
        assert any("no button or text named 'Gacha'" in e for e in first.errors)
        coordinator.step()
    second_request = policy.requests[1]
    result = second_request["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert "Gacha" in json.dumps(result) and "Career" in json.dumps(result)


def test_a_persons_memory_edit_is_noticed(tmp_path):
    policy = OnePolicy([])
    with sim_agent(4, tmp_path, seed=2, policy=policy, truth_vision=True) as (sim, coordinator):
        coordinator.step()
        (tmp_path / "memory" / "orders.md").write_text("Always rest below 50 energy.\n")
        log = coordinator.step()
    assert [(c.name, c.by) for c in log.memory_changes if c.by == "person"] == [("orders.md", "person")]
    sent = json.dumps(policy.requests[-1])
    assert "a person changed memory file(s) outside your tools: orders.md" in sent
    assert any("a person changed memory file(s) outside your tools: orders.md" in n for n in log.notes)
    assert all(json.dumps(n)[1:-1] in sent for n in log.notes)  # the turn log holds the notes exactly as they were sent
    # The edit travels as a message with its content; the memory snapshot in `system` waits for the next fold.
    assert "Always rest below 50 energy." in json.dumps(policy.requests[-1]["messages"][-1])
    assert "Always rest below 50 energy." not in json.dumps(policy.requests[-1]["system"])


def test_rewriting_a_persons_memory_file_keeps_their_lines_and_says_so(tmp_path):
    policy = OnePolicy([])
    with sim_agent(5, tmp_path, seed=2, policy=policy, truth_vision=True) as (sim, coordinator):
        coordinator.step()
        (tmp_path / "memory" / "orders.md").write_text("Always rest below 50 energy.\nKeep this line.\n")
        coordinator.step()  # the person's edit is noticed and shown
        policy.script = [[_tool("writeMemoryFile", name="orders.md", content="Keep this line.\nTrain speed.\n")]]
        wrote = coordinator.step()
        coordinator.step()  # its result travels with the next request
    (change,) = [c for c in wrote.memory_changes if c.by == "agent"]
    assert change.kept_person_lines == ["Always rest below 50 energy."]  # the log says which
    assert (tmp_path / "memory" / "orders.md").read_text() == (
        "Always rest below 50 energy.\nKeep this line.\nTrain speed.\n")  # the person's line where it stood
    assert "| memory: kept 1 line(s) a person wrote in orders.md" in live_line(wrote, coordinator.totals)
    result = json.dumps(policy.requests[-1]["messages"][-1])
    assert "1 line(s) a person wrote in orders.md were not in your content; they were kept" in result
    assert "Always rest below 50 energy." in result


def _demo_playing(logs: Path, turns: int) -> subprocess.Popen[str]:
    """`lluma demo` in a process of its own, once it has logged `turns` turns (of 200)."""
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lluma_cli", "demo", "--turns", "200", "--logs", str(logs), "--truth-vision"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 120
    while len(list(logs.glob("turn_*.json"))) < turns and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc


def _appears(path: Path, proc: subprocess.Popen[str]) -> None:
    """Wait for a marker file of tests/held_demo.py (a failure guard, not a timing: nothing is asserted on time)."""
    deadline = time.monotonic() + 180
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def test_second_ctrl_c_stops_now_with_consistent_files(tmp_path):
    marks, logs = tmp_path / "marks", tmp_path / "run"
    marks.mkdir()
    env = {**os.environ, "ADBUTILS_ADB_PATH": "/bin/false"}
    proc = subprocess.Popen(  # the stand-in holds the 4th decision: turn 4 runs until the second press
        [sys.executable, str(REPO / "tests" / "held_demo.py"), "4", str(marks), "--turns", "200", "--logs", str(logs),
         "--truth-vision"],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _appears(marks / "held", proc)
        proc.send_signal(signal.SIGINT)
        _appears(marks / "press1", proc)  # "stopping after this turn"; turn 4 still waits for its decision
        proc.send_signal(signal.SIGINT)  # the second, during the turn: stop now
        _appears(marks / "press2", proc)
        proc.send_signal(signal.SIGINT)  # a third, during shutdown: only "already stopping", never death by the signal
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err  # person_now: README's table of exit statuses
    assert "stopping after this turn" in err and "stopped now by user (second Ctrl+C)" in err
    assert "Traceback" not in err
    assert not list(logs.rglob("*.tmp")), "a half-written file was left behind"
    turn_logs = read_turns(logs)
    assert len(turn_logs) == 4 and turn_logs[-1].response is None  # the held turn is logged, without a decision
    rows = sqlite3.connect(logs / "turns.sqlite").execute("select count(*) from turns").fetchone()[0]
    assert rows == len(turn_logs)
    assert json.loads((logs / "run.json").read_text())["stop_kind"] == "person_now"
    assert "turns on the simulator" in out and "stopped now" in out  # the summary still comes, with the reason


def test_sigterm_stops_after_the_turn_like_ctrl_c_and_writes_run_json(tmp_path):
    proc = _demo_playing(tmp_path, 2)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "SIGTERM: stopping after this turn" in err and "Traceback" not in err
    summary = json.loads((tmp_path / "run.json").read_text())
    assert summary["stop_kind"] == "person" and summary["stop_reason"] == "stopped by user"
    assert summary["turns"] == len(read_turns(tmp_path)) < 200


def test_demo_json_summary_reads_config_yaml_and_environment(tmp_path, monkeypatch, capsys):
    """`lluma demo --json` prints one JSON summary; like `lluma run` it reads ./config.yaml and LLUMA_*."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text("model:\n  name: claude-sonnet-4-6\n  max_tokenz: 1\n")
    assert demo_main(["--turns", "3", "--json", "--truth-vision"]) == 2
    assert "model.max_tokenz: unknown key" in capsys.readouterr().err
    (tmp_path / "config.yaml").write_text("model:\n  name: claude-sonnet-4-6\n")
    monkeypatch.setenv("LLUMA_MODEL__NAME", "claude-opus-4-5")  # the environment wins over the file
    monkeypatch.setenv("LLUMA_TODAY", "2026-11-01")  # a day Opus 4.5 is served on (it retires 2027-01-22)
    assert demo_main(["--turns", "3", "--json", "--logs", str(tmp_path / "logs"), "--truth-vision"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["turns"] == 3 and d["model"] == "claude-opus-4-5" and d["cost_usd"] > 0
    total_in = d["uncached_input_tokens"] + d["cache_read_tokens"] + d["cache_write_tokens"]
    assert d["cache_hit_ratio"] == pytest.approx(d["cache_read_tokens"] / total_in, abs=1e-3)


class PressForever:
    """A model that keeps pressing the same tab: the screen stops changing after the first press."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> PolicyReply:
        self.requests.append(request)
        return PolicyReply(content=[{"type": "text", "text": "Story again."}, _tool("pressButton", name="Story")],
                           stop_reason="tool_use")


def test_stuck_warns_then_forces_another_action_then_pauses(tmp_path):
    policy = PressForever()
    overrides = {
        "LLUMA_RUN__STUCK_AFTER": "2", "LLUMA_RUN__STUCK_FORCE_AFTER": "3", "LLUMA_RUN__STUCK_PAUSE_AFTER": "5",
        "LLUMA_RECOVERY__MAX_CYCLES": "0",  # no ladder: the pause at stuck_pause_after (test_game_restart.py climbs it)
    }
    with sim_agent(20, tmp_path, seed=2, policy=policy, overrides=overrides, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
    logs = read_turns(tmp_path)
    levels = [t.stuck.level for t in logs]
    assert "warn" in levels and "force" in levels and levels[-1] == "pause"
    assert levels.index("warn") < levels.index("force") < levels.index("pause")
    assert totals.stop_reason.startswith("paused: stuck")
    assert exit_status(totals.stop_kind) == STUCK_EXIT  # `lluma run` / `demo` exit non-zero with the reason
    forced = [t.action for t in logs if t.action and t.action.forced]
    assert forced and forced[0].tool == "back" and forced[0].target != "Story"
    assert any("STUCK WARNING" in json.dumps(r["messages"][-1]) for r in policy.requests)
    assert any("the coordinator ran back instead of your action" in json.dumps(r["messages"][-1])
               for r in policy.requests)
    assert len(policy.requests) == len(logs) - 1  # the pausing turn makes no model call


def test_max_cost_stops_the_run_cleanly(tmp_path):
    s = run_demo(50, tmp_path, seed=4, quiet=True, overrides={"LLUMA_RUN__MAX_COST_USD": "0.004"}, truth_vision=True)
    assert s.stop_reason.startswith("max_cost_usd") and 1 <= s.turns < 50
    assert s.cost_usd >= 0.004


def test_a_cost_cap_set_outside_holds_in_the_demo(tmp_path):
    """LLUMA_RUN__MAX_COST_USD set by a person is never overridden by the demo's wiring: the run stops at the turn
    that reaches it (the turn before was still under it)."""
    s = run_demo(60, tmp_path, seed=5, quiet=True, environ={"LLUMA_RUN__MAX_COST_USD": "0.006"}, truth_vision=True)
    assert s.stop_kind == "max_cost" and s.cost_usd >= 0.006 and s.turns < 60
    costs = [t.cost.turn_usd for t in read_turns(tmp_path)]
    assert sum(costs[:-1]) < 0.006 <= sum(costs)


def test_a_dropped_device_costs_nothing_and_an_unreachable_one_ends_the_run(tmp_path):
    policy = OnePolicy([])
    overrides = {"LLUMA_DEVICE__RECONNECT_ATTEMPTS": "2", "LLUMA_DEVICE__RECONNECT_BACKOFF_S": "0.05"}
    with sim_agent(10, tmp_path, seed=2, policy=policy, overrides=overrides, truth_vision=True) as (sim, coordinator):
        faults = sim.adb.faults(sim.cfg.device.serial)
        first = coordinator.step()
        assert first.action is not None
        faults.drop_mid_frame = 2  # the connection dies in the middle of the next two frames
        dropped = coordinator.step()  # the device is back at once: the capture is taken again, the turn goes on
        assert dropped.response is not None and not dropped.errors
        assert [r.tool_use_id for r in dropped.tool_results] == [c.id for c in first.response.tool_calls]
        faults.offline = True
        totals = coordinator.run()
    assert totals.stop_reason.startswith("the device failed")
    assert len(policy.requests) == 2  # no model call was made on a turn that saw no screen


def test_history_folds_with_the_summary_the_model_wrote_a_turn_ahead_and_no_extra_call(tmp_path):
    overrides = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "6", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "3"}
    policy = OnePolicy([])
    # seed 2: the game's path puts a model turn before each fold (seed 1 since NUMBERS §5's events: one fold only,
    # its turn-2 event's pages passed without a call)
    with sim_agent(12, tmp_path, seed=2, overrides=overrides, policy=policy, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
    logs = read_turns(tmp_path)
    folded = [t for t in logs if t.history_fold]
    assert len(folded) >= 2 and all(t.history_fold == "reply" for t in folded)
    assert not any(c.kind == "fold" for t in logs for c in t.side_calls)  # no summary call was made
    assert not any("<summarize>" in json.dumps(r["messages"][-1]) for r in policy.requests)
    # The turn before each fold asked for the summary in its own request, and its reply wrote it...
    by_turn = {t.turn: t for t in logs}
    for t in folded:
        ahead = by_turn[t.turn - 1]
        assert any("folded into a summary" in n for n in ahead.notes)
        written = re.search(r"<summary>(.*?)</summary>", ahead.response.text, re.DOTALL)
        assert written is not None
    # ...which is the summary every later request opens its history with.
    last = by_turn[folded[-1].turn - 1]
    written = re.search(r"<summary>(.*?)</summary>", last.response.text, re.DOTALL)
    after = policy.requests[-1]["messages"][0]["content"][0]["text"]
    assert written is not None and after.startswith("<summary of earlier turns>") and written.group(1).strip() in after
    assert totals.cost_usd == pytest.approx(sum(t.cost.turn_usd for t in logs))


def test_a_model_that_writes_no_summary_ahead_gets_a_billed_summary_call(tmp_path):
    from lluma_facts import cost_usd

    policy = IgnoresFoldAsk()
    overrides = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "6", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "3"}
    with sim_agent(10, tmp_path, seed=6, overrides=overrides, policy=policy, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
        entries = list(sim.api.log)
    logs = read_turns(tmp_path)
    folded = [t for t in logs if t.history_fold]
    assert folded and all(t.history_fold == "model" for t in folded)
    for t in folded:
        fold = [c for c in t.side_calls if c.kind == "fold"]
        assert len(fold) == 1 and fold[0].text and fold[0].cost_usd > 0
        assert t.cost.turn_usd == pytest.approx(cost_usd(t.usage, t.model) + fold[0].cost_usd)
    assert all(e.status == 200 for e in entries)  # the summary request passes `tools` and validates
    summaries = [r for r in policy.requests if "<summarize>" in json.dumps(r["messages"][-1])]
    assert len(summaries) == len(folded) and all(r["tools"] for r in summaries)
    after = policy.requests[-1]["messages"][0]["content"][0]["text"]
    assert after.startswith("<summary of earlier turns>") and folded[-1].side_calls[0].text in after
    assert totals.cost_usd == pytest.approx(sum(t.cost.turn_usd for t in logs))


def test_thinking_blocks_are_passed_back_unmodified(tmp_path):
    overrides = {"LLUMA_MODEL__NAME": "claude-haiku-4-5", "LLUMA_MODEL__THINKING_BUDGET": "1024",
                 "LLUMA_MODEL__MAX_TOKENS": "2048"}
    with sim_agent(4, tmp_path, seed=6, overrides=overrides, truth_vision=True) as (sim, coordinator):
        coordinator.run()
        entries = [e for e in sim.api.log if e.endpoint == "messages"]  # not the count_tokens preflight
    assert [e.status for e in entries] == [200] * 4
    replies = [t.reply for t in coordinator.history.turns]
    assert all(r[0]["type"] == "thinking" and r[0]["signature"] for r in replies)
    assert all(b["id"].startswith("toolu_") for r in replies for b in r if b["type"] == "tool_use")


@pytest.mark.ocr
def test_vlm_readings_are_billed_to_the_turn(tmp_path, capsys):
    with sim_agent(2, tmp_path, seed=6, overrides={"LLUMA_VISION__BACKEND": "hybrid"}) as (sim, coordinator):
        totals = coordinator.run()
    logs = read_turns(tmp_path)
    vlm = [c for t in logs for c in t.side_calls if c.kind == "vlm"]
    assert vlm and all(c.usage.input_tokens > 500 and c.cost_usd > 0 for c in vlm)  # a screenshot each
    assert logs[0].vision.backend == "hybrid"
    assert totals.cost_usd == pytest.approx(sum(t.cost.turn_usd for t in logs))
    # `lluma stats` shows every call by kind, with the costs adding up to the run's, and why the run stopped
    assert stats.main([str(tmp_path), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["stop_reason"] == "max_turns (2) reached" == totals.stop_reason
    assert s["calls"]["decision"]["count"] == 2 and s["calls"]["vlm"]["count"] == len(vlm)
    assert s["calls"]["vlm"]["cost_usd"] == pytest.approx(sum(c.cost_usd for c in vlm))
    assert sum(c["cost_usd"] for c in s["calls"].values()) == pytest.approx(totals.cost_usd)
    assert s["calls"]["vlm"]["input_tokens"] == sum(c.usage.total_input_tokens for c in vlm)
    assert logs_cli.main([str(tmp_path), "--turn", "1"]) == 0
    out = capsys.readouterr().out
    assert "calls (each billed to this turn)" in out and "\n  decision claude-" in out and "\n  vlm claude-" in out


def _images(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    return sum(1 for b in content if b.get("type") == "image")


def test_every_decision_carries_the_screenshot_and_kept_thinking_turns_keep_theirs(tmp_path):
    # The default model (Haiku 5.5, adaptive thinking): each turn is kept verbatim, image included, until a fold.
    policy = OnePolicy([])
    overrides = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "6", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "3"}
    with sim_agent(10, tmp_path, seed=6, overrides=overrides, policy=policy, truth_vision=True) as (sim, coordinator):
        coordinator.run()
        entries = [e for e in sim.api.log if e.endpoint == "messages"]
    assert all(e.status == 200 for e in entries)
    decisions = [r for r in policy.requests if "<summarize>" not in json.dumps(r["messages"][-1])]
    called = [t for t in read_turns(tmp_path) if t.response is not None]  # a routine pass makes no call
    assert len(decisions) == len(called) >= 8 and all(r.get("thinking") for r in decisions)
    assert all(_images(r["messages"][-1]["content"]) == 1 for r in decisions)  # the current screenshot, every turn
    kept = folded = 0
    for r in decisions:
        history = r["messages"][:-1]
        for user, reply in zip(history[::2], history[1::2], strict=True):
            thinking = any(b.get("type") == "thinking" for b in reply["content"])
            # A turn kept verbatim (its reply holds thinking) keeps its screenshot; a folded one keeps none.
            assert _images(user["content"]) == (1 if thinking else 0)
            kept, folded = kept + thinking, folded + (not thinking)
    assert kept and folded
    # Appending a turn with its screenshot leaves the cached prefix readable: every decision after the
    # first reads more than the system prefix from cache, except the one right after a fold.
    reads = [t.usage.cache_read_input_tokens for t in read_turns(tmp_path)]
    logs = read_turns(tmp_path)
    grown = [n for n, t in enumerate(logs[1:], 1) if not t.history_fold and reads[n] > reads[n - 1]]
    assert len(grown) >= 6


def test_zoom_sends_the_crop_at_full_resolution_with_the_next_request(tmp_path):
    import base64
    import io

    from PIL import Image

    policy = OnePolicy([[_tool("zoom", name="Career")], [_tool("zoom", box=[0, 0.5, 1, 0.75])],
                        [_tool("zoom", name="Gacha")]])
    no_thinking = {"LLUMA_MODEL__NAME": "claude-haiku-4-5"}  # past turns compact (a thinking turn stays verbatim)
    with sim_agent(4, tmp_path, seed=2, policy=policy, overrides=no_thinking, truth_vision=True) as (sim, coordinator):
        taps: list[tuple[float, float]] = []
        original = sim.game.tap
        sim.game.tap = lambda x, y: (taps.append((x, y)), original(x, y))[1]
        frame = coordinator.device.capture().image  # the screen the first decision is made on
        career = next(b.bounds for b in coordinator.vision.analyze(frame).buttons if b.name == "Career")
        for _ in range(3):
            coordinator.step()
        assert taps == []  # zoom sends no input
        coordinator.step()  # its request carries the third zoom's result (the script's own play follows)
        entries = [e for e in sim.api.log if e.endpoint == "messages"]
    assert [e.status for e in entries] == [200] * 4  # the stand-in takes image blocks inside tool results

    def crop(request: dict[str, Any]) -> tuple[dict[str, Any], Image.Image | None]:
        result = request["messages"][-1]["content"][0]
        assert result["type"] == "tool_result"
        if not isinstance(result["content"], list):
            return result, None
        image = next(b for b in result["content"] if b["type"] == "image")
        return result, Image.open(io.BytesIO(base64.b64decode(image["source"]["data"])))

    _, named = crop(policy.requests[1])
    assert named is not None
    # Full resolution: the crop holds the button's pixels one for one (plus a margin), not the downscaled ones.
    assert named.width >= career.x1 - career.x0 and named.height >= career.y1 - career.y0
    assert named.width < frame.width
    _, boxed = crop(policy.requests[2])
    assert boxed is not None and boxed.size == (frame.width, round(0.75 * frame.height) - round(0.5 * frame.height))
    missing, none = crop(policy.requests[3])
    assert none is None and missing["is_error"] and "Gacha" in missing["content"]
    # A compact history keeps the one-line summary, never the image.
    past = policy.requests[3]["messages"][:-1]
    assert "zoom 'Career': ok" in json.dumps(past) and '"image"' not in json.dumps(past)
    # The turn log says what was sent, without the bytes.
    log = read_turns(tmp_path)[1]
    assert log.tool_results[0].name == "zoom" and log.tool_results[0].image is None


def test_the_baseline_window_slides_past_its_limit_without_an_orphan_tool_result(tmp_path):
    # It used to stop at turn 44 (history_max_turns 40): the first kept turn's results answered a dropped reply.
    overrides = {"LLUMA_CONTEXT__HISTORY_MAX_TURNS": "3", "LLUMA_CONTEXT__FOLD_CHUNK_TURNS": "1"}
    baseline = bench_module("baseline_layout").BaselineLayout()
    with sim_agent(7, tmp_path, seed=6, overrides=overrides, layout=baseline, truth_vision=True) as (sim, coordinator):
        totals = coordinator.run()
        entries = [e for e in sim.api.log if e.endpoint == "messages"]
    called = [t for t in read_turns(tmp_path) if t.response is not None]  # a routine pass makes no call
    assert totals.turns == 7 and len(called) > 3 + 1 and [e.status for e in entries] == [200] * len(called)
    assert all(not t.errors for t in read_turns(tmp_path))
