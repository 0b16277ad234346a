"""Memory a person can trust: edits between runs are found and shown, an agent that overwrites a person's
lines says which, and a person's broken YAML is reported (to the model and by `lluma doctor`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_agent.memory.store import STATE_FILE, MemoryError_, MemoryStore
from lluma_cli.doctor import check_memory_files


def test_a_persons_edit_between_runs_is_found_at_start(tmp_path: Path) -> None:
    first = MemoryStore(tmp_path)
    first.create("plan.md", "# Plan\ntrain speed\n")
    first.create("old.txt", "stale\n")
    assert first.refresh() == []
    # between runs a person edits one file, deletes another and adds a third
    (tmp_path / "plan.md").write_text("# Plan\ntrain speed\nrest below 40% energy\n")
    (tmp_path / "old.txt").unlink()
    (tmp_path / "mine.md").write_text("my own notes\n")
    second = MemoryStore(tmp_path)
    found = {c.name: c for c in second.found}
    assert set(found) == {"plan.md", "old.txt", "mine.md"} and all(c.by == "person" for c in found.values())
    assert "+rest below 40% energy" in found["plan.md"].diff and found["old.txt"].op == "delete"
    assert {c.name for c in second.refresh()} == set(found)  # the first turn is told (then never again)
    assert second.refresh() == []
    assert set(second.fingerprint()) == {"plan.md", "mine.md"}
    assert MemoryStore(tmp_path).found == []  # nothing changed since: nothing to report


def test_a_write_keeps_the_lines_a_person_wrote(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.create("plan.md", "# Plan\ntrain speed\nrest below 40\n")
    (tmp_path / "plan.md").write_text("# Plan\ntrain speed\nNEVER skip the Derby\nrest below 40\n")
    assert [c.by for c in store.refresh()] == ["person"]
    change = store.write("plan.md", "# Plan\ntrain wit\n")
    # "train speed" and "rest below 40" are the agent's own lines: only the person's one is kept, where it stood
    assert change.kept_person_lines == ["NEVER skip the Derby"]
    assert (tmp_path / "plan.md").read_text() == "# Plan\ntrain wit\nNEVER skip the Derby\n"
    assert "NEVER skip the Derby" in change.person_note() and "they were kept" in change.person_note()
    again = store.write("plan.md", "# Plan\ntrain power\n")  # still the person's line, whoever wrote last
    assert again.kept_person_lines == ["NEVER skip the Derby"]
    assert (tmp_path / "plan.md").read_text() == "# Plan\ntrain power\nNEVER skip the Derby\n"
    assert store.write("plan.md", "NEVER skip the Derby\n# Plan\n").kept_person_lines == []  # moved, not dropped
    with pytest.raises(MemoryError_, match="holds 1 line\\(s\\) a person wrote .*nothing was deleted"):
        store.delete("plan.md")
    (tmp_path / "plan.md").write_text("# Plan\n")  # the person removes their line: it is theirs no more
    store.refresh()
    assert store.write("plan.md", "# Plan\ntrain guts\n").kept_person_lines == []
    state = json.loads((tmp_path / STATE_FILE).read_text())
    assert state["files"]["plan.md"] == {"content": "# Plan\ntrain guts\n", "by": "agent"}
    store.delete("plan.md")


def test_a_persons_lines_between_runs_are_told_apart_from_the_agents(tmp_path: Path) -> None:
    first = MemoryStore(tmp_path)
    first.create("plan.md", "# Plan\ntrain speed\nrest at energy 30\n")
    first.save_state()
    (tmp_path / "plan.md").write_text("# Plan\ntrain speed\nrest at energy 50\nwin the Derby\n")  # between runs
    second = MemoryStore(tmp_path)
    assert [c.by for c in second.refresh()] == ["person"]
    change = second.write("plan.md", "# Plan\ntrain wit\n")
    assert change.kept_person_lines == ["rest at energy 50", "win the Derby"]
    assert (tmp_path / "plan.md").read_text() == "# Plan\ntrain wit\nrest at energy 50\nwin the Derby\n"
    second.save_state()
    third = MemoryStore(tmp_path)  # the next run still knows which lines are the person's
    assert third.write("plan.md", "# Plan\n").kept_person_lines == ["rest at energy 50", "win the Derby"]


def test_a_write_that_cannot_keep_a_persons_lines_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "stats.yaml").write_text("speed: 600\n")  # a person's file
    store = MemoryStore(tmp_path, budget_tokens=20)
    with pytest.raises(MemoryError_, match="over the budget .* 1 line\\(s\\) a person wrote put back.*speed: 600"):
        store.write("stats.yaml", "stamina: 400\nnotes: >-\n  " + "long " * 30 + "\n")
    assert (tmp_path / "stats.yaml").read_text() == "speed: 600\n"  # nothing changed


def test_a_persons_broken_yaml_is_shown_to_the_model_and_by_doctor(tmp_path: Path) -> None:
    (tmp_path / "stats.yaml").write_text("speed: [1, 2\n")
    (tmp_path / "ok.yaml").write_text("speed: 1\n")
    store = MemoryStore(tmp_path)
    assert list(store.problems()) == ["stats.yaml"]
    block = store.block_text()
    assert '<file name="stats.yaml" problem="not valid YAML: ' in block and "speed: [1, 2" in block
    assert '<file name="ok.yaml">' in block
    check = check_memory_files(tmp_path)
    assert check.status == "warn" and "stats.yaml: not valid YAML" in check.detail and "ok.yaml" not in check.detail
    (tmp_path / "stats.yaml").write_text("speed: [1, 2]\n")
    assert check_memory_files(tmp_path).status == "ok"
