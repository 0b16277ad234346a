"""lluma_agent.notify with real commands: one that keeps what it reads, one that fails, one that hangs."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from processes import all_gone

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


LEAVES_A_CHILD = (
    "import json, os, subprocess, sys\n"
    "event = json.loads(sys.stdin.read())['event']\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])  # keeps our stdout and stderr\n"
    "with open(sys.argv[1], 'a') as f:\n"
    "    f.write(f'{event} {os.getpid()} {child.pid}\\n')\n"
    "{tail}"
)


def _told(out: Path) -> list[tuple[str, list[int]]]:
    """(event, [the command's pid, its child's]) for each event the command ran for."""
    return [(event, [int(p) for p in pids]) for event, *pids in (line.split() for line in out.read_text().splitlines())]


def test_a_child_left_holding_the_pipes_blocks_no_later_event_and_is_killed(tmp_path: Path) -> None:
    """The command exits at once; the child it started in the background keeps its stderr open. The next event is
    still run (it waited for that pipe to close: two minutes), and nothing the command started is left running."""
    out = tmp_path / "got.txt"
    hook = _script(tmp_path, LEAVES_A_CHILD.replace("{tail}", "")) + " " + shlex.quote(str(out))
    n = Notifier(NotifyConfig(command=hook, timeout_s=10))
    n.send("game_restarted", {})
    n.send("run_stopped", {})
    assert n.wait(10)
    told = _told(out)
    assert [e for e, _ in told] == ["game_restarted", "run_stopped"]
    assert all_gone([p for _, pids in told for p in pids])


def test_a_hung_command_is_killed_with_its_whole_group(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Past notify.timeout_s the command and what it started are killed (an orphan kept the pipe, and the run, for
    as long as it lived)."""
    out = tmp_path / "got.txt"
    hook = _script(tmp_path, LEAVES_A_CHILD.replace("{tail}", "import time\ntime.sleep(120)\n")) + " " + shlex.quote(
        str(out))
    n = Notifier(NotifyConfig(command=hook, timeout_s=1))
    n.send("game_restarted", {})
    assert n.wait(20)
    assert "game_restarted: " in capfd.readouterr().err
    assert all_gone([p for _, pids in _told(out) for p in pids])


def test_at_the_end_what_still_runs_is_killed_and_the_events_not_delivered_are_named(tmp_path: Path) -> None:
    """The run's end waits one notify.timeout_s in all, then kills the command in flight (its group too) and says
    which events were not delivered: the queued ones are never started."""
    out = tmp_path / "got.txt"
    hook = _script(tmp_path, LEAVES_A_CHILD.replace("{tail}", "import time\ntime.sleep(120)\n")) + " " + shlex.quote(
        str(out))
    n = Notifier(NotifyConfig(command=hook, timeout_s=60))
    n.send("career_ended", {})
    n.send("run_stopped", {})
    deadline = time.monotonic() + 20
    while not (out.exists() and out.read_text().endswith("\n")) and time.monotonic() < deadline:
        time.sleep(0.02)  # the first command has started its child: what is in flight now is a whole group
    assert n.close(0) == ["career_ended", "run_stopped"]
    assert n.wait(10)  # the worker is done with both: the first killed, the second dropped
    told = _told(out)
    assert [e for e, _ in told] == ["career_ended"]
    assert all_gone([p for _, pids in told for p in pids])
    n.send("run_stopped", {})  # a closed notifier starts nothing more
    assert n.wait(0) and len(_told(out)) == 1
