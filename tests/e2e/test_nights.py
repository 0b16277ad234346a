"""A night on `lluma run` means what it says (issue 39), on the simulated phone over real adb and the API stand-in
over real HTTP: `--hours H` is not cut short by the configuration's turn cap, and `--careers 1` ends after the
game's results ("Career Complete"), not on the confirm's Finish, with the record, the stats and the live line
agreeing on where the career ended."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest

from lluma_agent.loop.app import build
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.stats import compute
from lluma_agent.runlog.turnlog import read_turns
from lluma_cli import run
from lluma_sim.adb.server import AdbServer
from lluma_sim.api.policy import ScriptedPolicy
from lluma_sim.api.server import ApiServer
from lluma_sim.game import SimGame
from lluma_sim.sight_of_truth import seer
from lluma_sim.truth_vision import TruthVision

SERIAL = "emulator-5554"


@contextmanager
def phone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, career_turns: int, max_turns: int) -> Iterator[SimGame]:
    """The simulated phone and the API stand-in on loopback, `lluma run`'s settings pointing at both, and
    `run.max_turns` set in the configuration (as config.yaml would). The agent reads the game's truth (the subject
    is when a night ends, not what the OCR reads: the night on OCR is test_unattended's and test_hazards_high's)."""
    game = SimGame(seed=3, max_turns=career_turns)
    with AdbServer() as adb, ApiServer(policy=ScriptedPolicy(screen=seer(game.truth))) as api:
        adb.add_device(SERIAL, game)
        env = {"ANTHROPIC_API_KEY": "sk-ant-test", "LLUMA_DEVICE__SERIAL": SERIAL,
               "LLUMA_DEVICE__ADB_PORT": str(adb.port), "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05",
               "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "2", "LLUMA_MODEL__BASE_URL": api.base_url,
               "LLUMA_VISION__BACKEND": "ocr", "LLUMA_LOGS__DIR": str(tmp_path / "logs"),
               "LLUMA_MEMORY__DIR": str(tmp_path / "memory"), "LLUMA_RUN__MAX_TURNS": str(max_turns)}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(run, "build", partial(build, vision=TruthVision(game.truth)))
        yield game


def _folder(tmp_path: Path) -> Path:
    [folder] = (tmp_path / "logs").glob("run-*")
    return folder


def _session_error_once_turn_is_logged(game: SimGame, logs: Path, turn: int, done: threading.Event) -> None:
    """Ends the run from the game's side, as a person logging in elsewhere would: once `turn` is logged."""
    while not done.wait(0.05):
        if any(RunFolder.at(f).turn_log(turn).exists() for f in logs.glob("run-*")) and game.hazard("session_error"):
            return


def test_hours_are_not_cut_short_by_the_configured_turn_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with phone(tmp_path, monkeypatch, career_turns=2, max_turns=1) as game:
        done = threading.Event()
        ender = threading.Thread(target=_session_error_once_turn_is_logged, args=(game, tmp_path / "logs", 2, done))
        ender.start()
        try:
            code = run.main(["--hours", "8"])
        finally:
            done.set()
            ender.join()
    summary = json.loads((_folder(tmp_path) / "run.json").read_text())
    # played on past the configured cap of 1 turn until the game itself ended the run (not max_turns, exit 0)
    assert (summary["stop_kind"], code) == ("session", 1) and summary["turns"] >= 3, summary


def test_a_turn_cap_on_the_same_command_line_still_applies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with phone(tmp_path, monkeypatch, career_turns=2, max_turns=500):
        assert run.main(["--hours", "8", "--max-turns", "2"]) == 0
    summary = json.loads((_folder(tmp_path) / "run.json").read_text())
    assert (summary["stop_kind"], summary["turns"]) == ("max_turns", 2)


def test_one_career_ends_after_the_games_results_whatever_the_configured_turn_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    with phone(tmp_path, monkeypatch, career_turns=1, max_turns=3) as game:
        assert run.main(["--careers", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    folder = _folder(tmp_path)
    summary = json.loads((folder / "run.json").read_text())
    turns = read_turns(folder)
    last = turns[-1]
    assert summary["stop_kind"] == "max_careers" and summary["turns"] == last.turn > 3
    # the game completed one career and was left on its home screen after "Career Complete", no second one begun
    assert len(game.careers) == 1 and not game.career_open and game.screen == "home", game.screen
    assert last.vision is not None and "Career Complete" in last.vision.seen_by_model.get("texts", [])
    finish = next(t.turn for t in turns if t.action is not None and t.action.target == "Finish")
    assert finish < last.turn  # the results were played, and billed to the career
    record = json.loads((folder / "careers" / "career_001.json").read_text())
    assert record["complete"] and (record["first_turn"], record["last_turn"]) == (1, last.turn)
    assert [c.model_dump(mode="json") for c in compute(turns).careers] == [record]  # `lluma stats`, the report
    # the live line: the career's end is said once, after the line of the turn that ended it
    said = [i for i, line in enumerate(out) if line.startswith("career 1 (complete)")]
    own = [i for i, line in enumerate(out) if re.match(rf"turn +{last.turn} \|", line)]
    assert len(said) == 1 and len(own) == 1 and said[0] == own[0] + 1, out[-4:]
    assert f"turns 1-{last.turn}" in out[said[0]]
