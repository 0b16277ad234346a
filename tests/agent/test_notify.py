"""lluma_agent.notify with real commands: one that keeps what it reads, one that fails, one that hangs."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from lluma_agent.config import NotifyConfig, load_config
from lluma_agent.notify import Notifier


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "hook.py"
    path.write_text(body, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def test_each_event_reaches_the_command_as_one_json_object_on_stdin(tmp_path: Path) -> None:
    out = tmp_path / "events dir" / "got.jsonl"  # a space in a path: split like a shell line, no shell
    out.parent.mkdir()
    command = _script(tmp_path, "import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n") + " " + shlex.quote(
        str(out))
    n = Notifier(NotifyConfig(command=command, timeout_s=10), run="run-20261126-010000")
    n.send("game_restarted", {"reason": "not in the foreground", "turn": 12})
    assert n.wait(10)  # one at a time: the lines of two writers could interleave
    n.send("run_stopped", {"stop_kind": "max_careers", "turns": 300})
    assert n.wait(10)
    events = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["event"] for e in events] == ["game_restarted", "run_stopped"]
    assert events[0]["run"] == "run-20261126-010000" and events[0]["turn"] == 12
    assert events[0]["time"].endswith("+00:00")
    assert events[1]["stop_kind"] == "max_careers"


def test_a_failing_command_is_a_logged_line_not_an_error(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    hook = _script(tmp_path, "import sys\nsys.stderr.write('webhook 500\\n')\nsys.exit(7)\n")
    n = Notifier(NotifyConfig(command=hook))
    n.send("run_paused", {})
    assert n.wait(10)
    err = capfd.readouterr().err
    assert "notify: run_paused:" in err and "failed (exit 7): webhook 500" in err


def test_a_missing_command_is_a_logged_line(capfd: pytest.CaptureFixture[str]) -> None:
    n = Notifier(NotifyConfig(command="/no/such/notify-hook --flag"))
    n.send("session_error", {})
    assert n.wait(5)
    assert "notify: session_error: cannot run '/no/such/notify-hook' (FileNotFoundError" in capfd.readouterr().err


def test_a_slow_command_never_slows_the_run(tmp_path: Path) -> None:
    release = tmp_path / "release"
    hook = _script(tmp_path, "import pathlib, sys, time\nwhile not pathlib.Path(sys.argv[1]).exists():\n"
                             "    time.sleep(0.01)\n") + " " + shlex.quote(str(release))
    n = Notifier(NotifyConfig(command=hook, timeout_s=60))
    n.send("game_restarted", {})  # a send that waited for the command would wait here until it was killed
    assert not n.wait(0)  # sent, and the command still runs: it ends only once the test releases it
    release.touch()
    assert n.wait(60)


def test_a_hung_command_is_killed_after_the_timeout(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    finished = tmp_path / "finished"
    hook = _script(tmp_path, "import pathlib, sys, time\ntime.sleep(30)\npathlib.Path(sys.argv[1]).touch()\n")
    n = Notifier(NotifyConfig(command=hook + " " + shlex.quote(str(finished)), timeout_s=0.5))
    n.send("game_restarted", {})
    assert n.wait(20)  # over: killed (it would run for 30 s)
    assert "still running after 0.5 s (notify.timeout_s); killed" in capfd.readouterr().err
    assert not finished.exists()


def test_no_command_sends_nothing_and_the_environment_sets_one() -> None:
    n = Notifier(NotifyConfig())
    n.send("run_stopped", {})
    assert not n.enabled and n.sent == [] and n.wait(0)
    cfg = load_config(None, env={"LLUMA_NOTIFY__COMMAND": "curl -s --data-binary @- https://example.invalid/hook"})
    assert Notifier(cfg.notify).argv == ["curl", "-s", "--data-binary", "@-", "https://example.invalid/hook"]


def test_events_reach_the_command_in_the_order_they_happened(tmp_path: Path) -> None:
    """A slow first command does not let the run's end overtake the career's end."""
    out = tmp_path / "got.jsonl"
    hook = _script(tmp_path, "import json, sys, time\nevent = json.loads(sys.stdin.read())\n"
                             "time.sleep(0.5 if event['event'] == 'career_ended' else 0)\n"
                             "open(sys.argv[1], 'a').write(event['event'] + '\\n')\n") + " " + shlex.quote(str(out))
    n = Notifier(NotifyConfig(command=hook, timeout_s=10))
    for event in ("career_ended", "run_stopped"):
        n.send(event, {})
    assert n.wait(10)
    assert out.read_text().split() == ["career_ended", "run_stopped"]
