"""`lluma replay` on runs of a thinking model (the default Haiku 5.5): with the same model, another one, a
run whose signing key is unknown, and a replay where nothing can be replayed (non-zero exit, each turn says why)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lluma_agent.loop import checkpoint
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli import demo, replay

pytestmark = pytest.mark.cost(seconds=36)  # worker seconds in a full suite (conftest: slowest modules first)


@pytest.fixture(scope="module")
def haiku55_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("replay55") / "run"
    # the default model: adaptive thinking, blocks bound to their prefix
    demo.run_demo(10, logs, seed=7, quiet=True, truth_vision=True)
    return logs


def _calls(run: Path) -> list[int]:
    """The turns that made a model call (the others were played by the coordinator alone)."""
    return [t.turn for t in read_turns(run) if t.response is not None]


def _copy(run: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "copy"
    shutil.copytree(run, dest)
    return dest


def test_a_haiku55_demo_run_replays_with_itself(haiku55_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay.main([str(haiku55_run), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["model"] == "claude-haiku-5-5" and out["chosen"] == 10
    # a turn the coordinator played alone (a routine pass) made no call: it is the only kind skipped
    calls = _calls(haiku55_run)
    assert len(calls) >= 8 and out["not_replayed"] == 10 - len(calls) == len(out["skipped"])
    assert all("no model call was recorded" in s for s in out["skipped"])
    assert [t["turn"] for t in out["turns"]] == calls and all(not t["error"] for t in out["turns"])
    assert out["agreement"] >= 0.9 and out["agreement_of_chosen"] >= 0.9 * len(calls) / 10
    assert out["thinking"].startswith("sent back as recorded")  # the run's key, from its checkpoint


def test_a_haiku55_demo_run_replays_with_another_model(haiku55_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay.main([str(haiku55_run), "--model", "claude-sonnet-5-5"]) == 0
    text = capsys.readouterr().out
    assert "removed: it is claude-haiku-5-5's own thinking, not claude-sonnet-5-5's" in text
    assert f"of all 10 chosen, {10 - len(_calls(haiku55_run))} of them not replayed" in text and "error:" not in text
    # A budget-thinking model: the adaptive settings of the recording are reshaped, not sent as they were.
    r = replay.replay(haiku55_run, model="claude-haiku-4-5", turns="2-4")
    assert r.not_replayed == 0 and r.compared == 3 and r.agreement_of_chosen >= 0.6


def test_a_retired_model_is_refused_before_the_first_turn(haiku55_run: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LLUMA_TODAY", "2026-12-01")
    assert replay.main([str(haiku55_run), "--model", "claude-sonnet-4-5"]) == 2
    err = capsys.readouterr().err
    assert "model 'claude-sonnet-4-5' was retired on 2026-11-30" in err and "turn" not in err.split("current")[0]


def test_without_the_runs_key_the_thinking_is_removed_and_said(haiku55_run: Path, tmp_path: Path) -> None:
    run = _copy(haiku55_run, tmp_path)
    RunFolder.at(run).checkpoint.unlink()  # its key is unknown: the stand-in cannot check its signatures
    r = replay.replay(run, turns="2-5")
    assert r.not_replayed == 0
    assert r.thinking == "removed: the run's checkpoint.json is missing, so the key that signed it is unknown"
    cp = run / "checkpoint.json"
    shutil.copy(haiku55_run / "checkpoint.json", cp)  # a run on the real API: a checkpoint with no stand-in key
    data = json.loads(cp.read_text())
    del data["env"]["api_secret"]
    cp.write_text(json.dumps(data))
    assert replay.replay(run, turns="2").thinking.startswith("removed: the API signed it")


def test_a_replay_where_no_turn_replays_exits_non_zero(haiku55_run: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = _copy(haiku55_run, tmp_path)
    cp = checkpoint.Checkpoint.model_validate_json(RunFolder.at(run).checkpoint.read_text())
    cp.env["api_secret"] = "00" * 16  # another account's key: every recorded thinking block is refused
    checkpoint.save(run, cp)
    assert replay.main([str(run), "--turns", "2-4"]) == 1
    text = capsys.readouterr().out
    assert text.count("Invalid `signature`") == 3  # each turn says why
    assert "agreement: 0.00% of the 0 replayed turn(s) (0 the same); 0.00% of all 3 chosen, 3 of them not replayed" \
        in text
    shutil.rmtree(run / "screens")
    assert replay.main([str(run), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["not_replayed"] == 10 and len(out["skipped"]) == 10
    assert all("screenshot is no longer kept" in s or "no model call was recorded" in s for s in out["skipped"])
    assert sum("screenshot is no longer kept" in s for s in out["skipped"]) == len(_calls(haiku55_run))
