"""What a run writes in the tree is ignored by git: after a run with the default folders (memory/ and logs/ at the
top), `git status` shows nothing new. The run writes memory too, so the map, the event book, the map's lock and the
memory folder's state are all there to be ignored."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop

REPO = Path(__file__).resolve().parents[2]


def _git(where: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_run_with_the_default_folders_leaves_git_status_clean(tmp_path: Path) -> None:
    shutil.copy(REPO / ".gitignore", tmp_path / ".gitignore")
    (tmp_path / "memory").mkdir()
    shutil.copy(REPO / "memory" / "README.md", tmp_path / "memory" / "README.md")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "the tree as cloned")
    hub = FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)], goes_to={"Training": "hub"})
    phone = FakePhone({"hub": hub}, start="hub")
    play = [[call("pressButton", name="Training"), call("createMemoryFile", name="plan.md", content="train speed\n")],
            *[[call("pressButton", name="Training")]] * 3]
    loop(tmp_path, phone, ScriptedModel(play), logs="logs/run-1", memory="memory", max_turns=4).run()
    written = {p.name for p in tmp_path.iterdir()}
    assert {"memory.map.json", "memory.map.json.lock", "memory.events.json"} <= written  # not a vacuous check
    assert (tmp_path / "memory" / "plan.md").is_file() and (tmp_path / "logs" / "run-1" / "turn_000004.json").is_file()
    assert _git(tmp_path, "status", "--porcelain", "--untracked-files=all") == ""
