"""Run folders a person's worst day leaves behind (issue 23): whole turn logs can always be resumed, a folder
with no completed turn can be started over, a full disk is one line and exit 1, nothing is left half done."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from lluma_agent.loop import resume
from lluma_agent.loop.resume import open_point
from lluma_agent.runlog.turnlog import TurnLogger, read_turns
from lluma_cli import demo, search


@pytest.fixture(scope="module")
def three_turns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("damaged") / "run"
    assert demo.main(["--turns", "3", "--logs", str(logs), "--json", "--truth-vision"]) == 0
    return logs


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


@pytest.mark.parametrize("damage", ["deleted", "truncated", "garbage"])
def test_a_run_whose_turns_sqlite_is_damaged_resumes(three_turns: Path, tmp_path: Path, capsys, damage: str) -> None:
    run = _copy(three_turns, tmp_path / "run")
    db = run / "turns.sqlite"
    if damage == "deleted":
        db.unlink()
    elif damage == "truncated":
        db.write_bytes(db.read_bytes()[:1000])
    else:
        db.write_bytes(b"this is not a database" * 100)
    assert demo.main(["--resume", str(run), "--turns", "2", "--json", "--truth-vision"]) == 0
    assert len(read_turns(run)) == 5
    rows = sqlite3.connect(run / "turns.sqlite").execute("select count(*) from turns").fetchone()[0]
    assert rows == 5 and "Traceback" not in capsys.readouterr().err


def test_search_rebuilds_a_damaged_index(three_turns: Path, tmp_path: Path, capsys) -> None:
    run = _copy(three_turns, tmp_path / "run")
    (run / "turns.sqlite").write_bytes(b"garbage" * 500)
    assert search.main(["Career", str(run)]) == 0
    captured = capsys.readouterr()
    assert "rebuilt from the turn logs" in captured.err and "T" in captured.out


def test_a_folder_with_no_completed_turn_is_started_over(three_turns: Path, tmp_path: Path, capsys) -> None:
    run = _copy(three_turns, tmp_path / "run")
    (run / "checkpoint.json").unlink()  # killed before its first checkpoint
    for extra in ("turn_000002.json", "turn_000003.json"):
        (run / extra).unlink()
    assert demo.main(["--resume", str(run), "--turns", "2", "--truth-vision"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"lluma demo --logs {run}" in err
    assert demo.main(["--logs", str(run), "--turns", "2", "--json", "--truth-vision"]) == 0
    assert (run / "turn_000001.json.torn").is_file()
    assert [t.turn for t in read_turns(run)] == [1, 2] and (run / "checkpoint.json").is_file()


def test_setting_torn_turns_aside_is_whole_or_not_at_all(three_turns: Path, tmp_path: Path, monkeypatch) -> None:
    run = _copy(three_turns, tmp_path / "run")
    (run / "checkpoint.json").write_text((run / "checkpoint.json").read_text().replace('"turn":3', '"turn":1'))
    point = open_point(run)
    assert {"turn_000002.json", "turn_000003.json"} <= {p.name for p in point.torn}
    real = resume._aside
    calls = []

    def full_disk(p: Path) -> Path:
        calls.append(p)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(p)

    monkeypatch.setattr(resume, "_aside", full_disk)
    logger = TurnLogger(run)
    with pytest.raises(OSError):
        resume.set_aside(point, logger)
    logger.close()
    assert not list(run.rglob("*.torn")) and (run / "turn_000002.json").is_file()


def test_a_demo_on_a_full_disk_exits_1_with_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    from lluma_agent.loop import checkpoint

    def full(folder: Path, cp: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(folder / "checkpoint.json"))

    monkeypatch.setattr(checkpoint, "save", full)
    assert demo.main(["--turns", "5", "--logs", str(tmp_path / "run"), "--truth-vision"]) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("lluma demo:")]
    assert len(lines) == 1 and "cannot write the run folder" in lines[0] and "No space left" in lines[0]
    assert "Traceback" not in err and len(read_turns(tmp_path / "run")) == 1
