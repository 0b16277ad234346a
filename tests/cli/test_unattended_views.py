"""What a person sees of an unattended night: `lluma stats` (text and --json), `lluma logs --turn N` and the report
count and show the recovery ladder's rungs, the game's starts and the guard, read from the turn logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_agent.context.stuck import StuckState
from lluma_agent.runlog import logread
from lluma_agent.runlog.turnlog import GameStartLog, RecoveryLog, TurnLog, TurnLogger
from lluma_cli import logs as logs_cli
from lluma_cli import stats
from lluma_cli.report import page as report

MONKEY = "monkey -p com.cygames.umamusume -c android.intent.category.LAUNCHER 1"


def _turn(n: int, **kw: object) -> TurnLog:
    return TurnLog(turn=n, started_at=1_760_000_000.0 + n, model="claude-haiku-5-5", **kw)  # type: ignore[arg-type]


@pytest.fixture
def night(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    logger = TurnLogger(folder)
    for log in [
        _turn(1, game_start=GameStartLog(reason="not in the foreground (com.google.android.apps.nexuslauncher/"
                                         ".NexusLauncherActivity)", ok=True, command=MONKEY,
                                         output="Events injected: 1")),
        _turn(2, recovery=RecoveryLog(rung="warn", reason="the last 3 actions did not change the screen"),
              stuck=StuckState(level="warn", reason="the last 3 actions did not change the screen")),
        _turn(3, recovery=RecoveryLog(rung="back", reason="the last 10 actions did not change the screen"),
              stuck=StuckState(level="recover", reason="the last 10 actions did not change the screen")),
        _turn(4, recovery=RecoveryLog(rung="restart", reason="the last 12 actions did not change the screen"),
              game_start=GameStartLog(reason="recovery rung restart", ok=False, command=MONKEY,
                                      output="** No activities found to run, monkey aborted.")),
        _turn(5, recovery=RecoveryLog(rung="back", reason="again"),
              guard=["refused pressButton(Purchase Carats): 'Purchase Carats' is guarded"]),
    ]:
        logger.write(log)
    logger.close()
    return folder


def test_stats_counts_rungs_and_game_starts(night: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert stats.main([str(night), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["recoveries"] == {"warn": 1, "back": 2, "restart": 1} and s["game_starts"] == 1
    assert s["game_start_failures"] == 1 and s["guard"] == 1
    assert stats.main([str(night)]) == 0
    out = capsys.readouterr().out
    assert "recoveries: warn 1, back 2, restart 1" in out  # in the ladder's order
    assert "game starts: 1 (1 failed); guard: 1 refusal(s) or wait(s)" in out


def test_the_turn_in_full_says_what_the_agent_did_on_its_own(night: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert logs_cli.main([str(night), "--turn", "4"]) == 0
    out = capsys.readouterr().out
    assert "recovery rung restart: the last 12 actions did not change the screen" in out
    assert f"game start FAILED (recovery rung restart): `{MONKEY}` -> ** No activities found to run" in out


def test_the_report_shows_rungs_starts_and_the_guard(night: Path) -> None:
    page = report.render(logread.load_run(night), thumb=0)
    assert '<span class="tag recovery">recovery: back</span>' in page
    assert '<span class="tag game">game start failed</span>' in page
    assert '<span class="tag game">game started</span>' in page
    assert "guard: refused pressButton(Purchase Carats): &#39;Purchase Carats&#39; is guarded" in page
    assert "<span>recoveries</span><b>4</b><span>warn 1, back 2, restart 1</span>" in page
    assert "<span>game starts</span><b>1</b><span>1 failed</span>" in page
