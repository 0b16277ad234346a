"""A person in the loop: `lluma run --confirm` / `--step` against the simulated phone and the API stand-in (the
real path: `lluma sim phone` + `lluma sim api`), with the answers on standard input, one a line."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lluma_agent.runlog.logread import load_run
from lluma_cli import run as run_cli
from lluma_cli.report import page as report
from lluma_sim.adb.server import AdbServer
from lluma_sim.api.server import ApiServer
from lluma_sim.game import SimGame

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

SERIAL = "emulator-5554"


@pytest.fixture
def sim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SimGame]:
    """A fresh game behind the adb server and the stand-in, and the settings `lluma run` needs for them."""
    game = SimGame(seed=7)
    with AdbServer() as adb, ApiServer() as api:
        adb.add_device(SERIAL, game)
        monkeypatch.chdir(tmp_path)  # no config.yaml here: the settings below are the whole configuration
        for key, value in {
            "LLUMA_DEVICE__SERIAL": SERIAL, "LLUMA_DEVICE__ADB_PORT": str(adb.port),
            "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05", "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "2",
            "LLUMA_MODEL__BASE_URL": api.base_url, "LLUMA_VISION__BACKEND": "ocr",
            "LLUMA_MEMORY__DIR": str(tmp_path / "memory"), "LLUMA_LOGS__DIR": str(tmp_path / "logs"),
            "ANTHROPIC_API_KEY": "sk-ant-stand-in",
            # one press a turn, one answer each: the setup's new_career plan would ask several in one turn (its own
            # test below turns plans back on)
            "LLUMA_PLANS__ENABLED": "false",
        }.items():
            monkeypatch.setenv(key, value)
        yield game


def _run(monkeypatch: pytest.MonkeyPatch, answers: str, *flags: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))  # not a terminal: one answer a line
    return run_cli.main([*flags, "--max-turns", "3"])


def _turns(tmp_path: Path) -> list[dict[str, object]]:
    (folder,) = (tmp_path / "logs").glob("run-*")
    return [t.model_dump() for t in load_run(folder).turns]


def test_every_answer_no_taps_nothing_and_tells_the_model(sim: SimGame, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(monkeypatch, "n\nn\nn\n", "--confirm") == 0
    assert sim.taps == []
    turns = _turns(tmp_path)
    assert len(turns) == 3 and all(str(t["person"]).startswith("vetoed ") for t in turns)
    assert all(t["action"] is None for t in turns)
    # The veto reaches the model as a person's, in the next turn's tool result.
    told = [r["content"] for t in turns[1:] for r in t["tool_results"]  # type: ignore[attr-defined]
            if r["name"] == "pressButton"]
    assert len(told) == 2 and all("a person watching the run vetoed" in c for c in told)
    out = capsys.readouterr().out
    assert out.count("marked: ") == 3 and "person: vetoed" in out
    shown = [line.split("marked: ")[1].strip() for line in out.splitlines() if "marked: " in line]
    assert all(Path(p).is_file() for p in shown)  # the screenshot with the spot marked, one per question
    (folder,) = (tmp_path / "logs").glob("run-*")
    assert report.main([str(folder)]) == 0  # the report's turn list shows the person's hand
    assert (folder / "report.html").read_text().count('class="tag person">person: vetoed') == 3


def test_every_answer_yes_plays(sim: SimGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(monkeypatch, "y\ny\ny\n", "--confirm") == 0
    turns = _turns(tmp_path)
    assert len(sim.taps) == 3 and all(str(t["person"]).startswith("approved ") for t in turns)
    assert [t["action"]["point"] for t in turns] == [[tap.x, tap.y] for tap in sim.taps]  # type: ignore[index]


def test_an_edit_sends_the_persons_action_and_the_end_of_answers_stops(
        sim: SimGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Turn 2 is the career's first setup page (the scenario): the person answers Back where the model chose Next; a
    # name that is not on the screen is asked again. Then the answers run out: nothing more is tapped, the run stops.
    assert _run(monkeypatch, "y\ne Nowhere\ne Back\n", "--confirm") == 0
    turns = _turns(tmp_path)
    assert [tap.element for tap in sim.taps] == ["Career", "Back"]
    assert turns[1]["person"] == "replaced pressButton(Next) with pressButton(Back)"
    assert "replaced your pressButton(Next) with pressButton(Back)" in json.dumps(turns[2]["tool_results"])
    assert str(turns[2]["person"]).startswith("stopped the run") and len(turns) == 3


def test_step_plays_one_turn_per_line(sim: SimGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run(monkeypatch, "\n\nq\n", "--step") == 0
    assert len(_turns(tmp_path)) == 2 and len(sim.taps) == 2


def test_confirm_asks_before_each_press_of_a_plan_and_a_no_stops_it(sim: SimGame, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in asks for new_career on the home screen: the person approves its first two presses and vetoes
    the third; nothing more is tapped, and the plan's log says where it stopped."""
    monkeypatch.setenv("LLUMA_PLANS__ENABLED", "true")
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\ny\nn\n"))
    assert run_cli.main(["--confirm", "--max-turns", "1"]) == 0
    (turn,) = _turns(tmp_path)
    assert [tap.element for tap in sim.taps] == ["Career", "Next"]
    plan = turn["plan"]
    assert isinstance(plan, dict) and plan["name"] == "new_career" and plan["surprise"]
    assert [step["ok"] for step in plan["steps"]] == [True, True, False]
    assert plan["steps"][-1]["note"] == "not sent (vetoed pressButton(Next))" and turn["person"] == plan[
        "steps"][-1]["note"][len("not sent ("):-1]
