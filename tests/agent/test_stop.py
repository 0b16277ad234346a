"""Why a run ended is a kind, and the kind alone gives the exit status (README's table holds the same).

Each kind is produced here by the real Coordinator on fakes (tests/fakes.py), the way a run meets it."""

from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import Any

import pytest
from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop, model_error

from lluma_agent.loop.app import CtrlC
from lluma_agent.loop.stop import EXIT_STATUS, RunEnded, StopKind, disk_error, exit_status
from lluma_agent.model.claude import ModelError, ModelReply
from lluma_agent.runlog.turnlog import TurnLog
from lluma_facts import Usage

README = Path(__file__).resolve().parents[2] / "README.md"


def _phone() -> FakePhone:
    return FakePhone({"home": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], goes_to={})}, "home")


class Refuser(ScriptedModel):
    """Refuses every request (stop_reason "refusal", no content), as a safety classifier does."""

    def __init__(self) -> None:
        super().__init__([])

    def decide(self, request: dict[str, Any]) -> ModelReply:
        self.requests.append(request)
        return ModelReply(content=[], stop_reason="refusal", usage=Usage(input_tokens=900, output_tokens=3))


def _run(tmp_path: Path, model: ScriptedModel, **run: Any) -> tuple[StopKind | None, str, int]:
    totals = loop(tmp_path, _phone(), model, **run).run()
    return totals.stop_kind, totals.stop_reason, totals.turns


def test_the_readme_table_of_exit_statuses_is_the_code_table() -> None:
    rows = re.findall(r"^\| `([a-z_]+)` \| (\d+) \|", README.read_text(encoding="utf-8"), flags=re.M)
    table = {StopKind(kind): int(code) for kind, code in rows}
    assert table == EXIT_STATUS and set(table) == set(StopKind)
    start = re.search(r"^\| \(start\) \| (\d+) \|", README.read_text(encoding="utf-8"), flags=re.M)
    assert start and int(start.group(1)) == 2


def test_the_status_is_decided_by_the_kind_never_by_the_words() -> None:
    assert exit_status(StopKind.MAX_TURNS) == 0 and exit_status("stuck") == 3 and exit_status(None) == 1
    assert exit_status(StopKind.REFUSALS) == 1 and exit_status(StopKind.INTERNAL) == 1
    end = RunEnded(StopKind.PERSON, "3 model calls in a row failed")  # the words say failure; the kind says not
    assert exit_status(end.kind) == 0


def test_max_turns_counts_failed_turns_too(tmp_path: Path) -> None:
    model = ScriptedModel([model_error("API error 400: bad"), [call("pressButton", name="Training")]])
    kind, reason, turns = _run(tmp_path, model, max_turns=2)
    assert (kind, reason, turns) == (StopKind.MAX_TURNS, "max_turns (2) reached", 2)


def test_max_cost(tmp_path: Path) -> None:
    kind, reason, turns = _run(tmp_path, ScriptedModel([[call("pressButton", name="Training")]] * 3), max_turns=9,
                               max_cost_usd=0.000001)
    assert kind == StopKind.MAX_COST and turns == 1 and exit_status(kind) == 0


def test_a_persons_stop(tmp_path: Path) -> None:
    c = loop(tmp_path, _phone(), ScriptedModel([]), max_turns=9)
    c.request_stop()
    assert c.run().stop_kind == StopKind.PERSON


def test_a_second_ctrl_c_stops_now_and_exits_130(tmp_path: Path) -> None:
    class Interrupted(ScriptedModel):
        def decide(self, request: dict[str, Any]) -> ModelReply:
            raise KeyboardInterrupt  # what CtrlC's handler raises on a second press while a turn runs

    c = loop(tmp_path, _phone(), Interrupted([]), max_turns=9)
    with CtrlC() as ctrl_c:
        totals = ctrl_c.run(c)
    assert totals.stop_kind == StopKind.PERSON_NOW and exit_status(totals.stop_kind) == 130


def test_stuck(tmp_path: Path) -> None:
    model = ScriptedModel([[call("pressButton", name="Gacha")]] * 4)
    c = loop(tmp_path, _phone(), model, max_turns=10, stuck_after=2, stuck_force_after=8, stuck_pause_after=4)
    c.cfg.recovery.max_cycles, c.cfg.recovery.wait_s = 1, 0  # the run pauses once one recovery ladder failed
    totals = c.run()
    kind, reason = totals.stop_kind, totals.stop_reason
    assert kind == StopKind.STUCK and reason.startswith("paused: stuck") and exit_status(kind) == 3


def test_three_non_retryable_model_errors(tmp_path: Path) -> None:
    kind, reason, turns = _run(tmp_path, ScriptedModel([model_error("API error 400: bad")] * 3), max_turns=9)
    assert kind == StopKind.MODEL and turns == 3 and "(last: API error 400: bad)" in reason


def test_an_api_that_never_answers_ends_within_max_turns_with_exit_1(tmp_path: Path) -> None:
    busy = [ModelError("cannot reach the API (gave up after 4 attempts): APIConnectionError", busy=True)] * 3
    kind, reason, turns = _run(tmp_path, ScriptedModel(busy), max_turns=3)  # type: ignore[arg-type]
    assert kind == StopKind.MODEL and turns == 3 and exit_status(kind) == 1
    assert reason.startswith("max_turns (3) reached without one answer from the model API: cannot reach")


def test_an_api_outage_longer_than_the_window_ends_the_run(tmp_path: Path) -> None:
    busy = ModelError("API error 529 (gave up after 9 attempts): overloaded_error: Overloaded", busy=True)
    c = loop(tmp_path, _phone(), ScriptedModel([[call("pressButton", name="Training")], busy, busy]), max_turns=0)
    c.cfg.model.outage_wait_s = 0
    totals = c.run()
    assert totals.stop_kind == StopKind.MODEL and totals.turns == 2
    assert totals.stop_reason.startswith("the model API has not answered for")


def test_a_device_gone(tmp_path: Path) -> None:
    phone = _phone()
    phone.fail_captures = 10**9
    c = loop(tmp_path, phone, ScriptedModel([]), max_turns=9)
    c.cfg.device.outage_wait_s = 0
    totals = c.run()
    assert totals.stop_kind == StopKind.DEVICE and exit_status(totals.stop_kind) == 1


def test_three_refusals_in_a_row_exit_non_zero(tmp_path: Path) -> None:
    kind, reason, turns = _run(tmp_path, Refuser(), max_turns=9)
    assert (kind, reason, turns) == (StopKind.REFUSALS, "the model refused 3 turns in a row", 3)
    assert exit_status(kind) == 1


def test_three_internal_errors_in_a_row_exit_non_zero(tmp_path: Path) -> None:
    kind, reason, turns = _run(tmp_path, ScriptedModel([]), max_turns=9)  # no reply left: a bug in a stage
    assert kind == StopKind.INTERNAL and turns == 3 and exit_status(kind) == 1


def test_a_full_disk_ends_the_run_after_the_turn_and_loses_no_cost(tmp_path: Path, monkeypatch) -> None:
    c = loop(tmp_path, _phone(), ScriptedModel([[call("pressButton", name="Training")]] * 3), max_turns=3)

    def disk_full(log: TurnLog) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(c.logger, "write", disk_full)
    totals = c.run()
    assert totals.stop_kind == StopKind.DISK and totals.turns == 1 and totals.cost_usd > 0
    assert str(c.logger.folder) in totals.stop_reason and "No space left" in totals.stop_reason


def test_a_checkpoint_the_disk_refuses_ends_the_run(tmp_path: Path) -> None:
    def checkpoint(log: TurnLog, totals: Any) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(tmp_path / "checkpoint.json"))

    c = loop(tmp_path, _phone(), ScriptedModel([[call("pressButton", name="Training")]] * 3), on_turn=checkpoint,
             max_turns=3)
    totals = c.run()
    assert totals.stop_kind == StopKind.DISK and totals.turns == 1


def test_disk_errors_are_told_from_bugs() -> None:
    assert disk_error(OSError(errno.ENOSPC, "full")) and not disk_error(OSError(errno.ENOENT, "missing"))
    assert not disk_error(ValueError("x"))


@pytest.mark.parametrize("kind", list(StopKind))
def test_every_kind_has_a_status(kind: StopKind) -> None:
    assert exit_status(kind) in (0, 1, 3, 4, 130)
