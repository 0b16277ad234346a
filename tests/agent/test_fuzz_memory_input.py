"""Fuzzing (hypothesis, bounded): memory names and contents never escape the folder or crash the store,
and `input text` never hands the device shell an unquoted metacharacter."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lluma_agent.device.android import Device, DeviceError
from lluma_agent.memory.store import MemoryError_, MemoryStore
from lluma_sim.adb.server import AdbServer

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Names built from the pieces that make escapes: separators, dots, NUL, drive letters, suffixes.
_name_parts = st.sampled_from(["..", ".", "/", "\\", "\x00", "~", "C:", "a", "x.md", ".yaml", ".txt", "%2e", " ", "é"])
names = st.one_of(st.text(max_size=40), st.lists(_name_parts, max_size=8).map("".join))
# Contents include lone surrogates (hypothesis leaves them out of text() by default) and YAML nesting.
contents = st.one_of(
    st.text(max_size=300),
    st.text(max_size=50).map(lambda s: s + "\ud800"),
    st.integers(1, 2000).map(lambda n: "[" * n + "]" * n),
)


def _outside(tmp_path: Path, folder: Path) -> set[Path]:
    return {p for p in tmp_path.rglob("*") if folder not in p.parents and p != folder}


@FUZZ
@given(name=names, content=contents, op=st.sampled_from(["create", "write", "delete"]))
def test_memory_names_and_contents_never_escape_or_crash(tmp_path: Path, name: str, content: str, op: str) -> None:
    folder = tmp_path / "memory"
    store = MemoryStore(folder, budget_tokens=2000)
    before = _outside(tmp_path, folder)
    try:
        if op == "delete":
            store.delete(name)
        else:
            getattr(store, op)(name, content)
    except MemoryError_:
        pass  # refused with a message for the model: fine; anything else fails the test
    assert _outside(tmp_path, folder) == before
    for path in folder.iterdir():
        assert path.resolve().parent == folder.resolve()
    # The store agrees with the disk after every operation.
    store.refresh()
    on_disk = {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert {f.name for f in store.files} == on_disk


def test_yaml_nested_beyond_recursion_is_refused(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    with pytest.raises(MemoryError_, match="not valid YAML"):
        store.write("deep.yaml", "[" * 5000 + "]" * 5000)
    assert not (tmp_path / "deep.yaml").exists()


def test_lone_surrogate_is_refused_and_nothing_written(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    with pytest.raises(MemoryError_, match="not valid UTF-8"):
        store.create("notes.md", "speed first \ud83d")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_named_like_a_memory_file_is_refused_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "x.md").mkdir()
    store = MemoryStore(tmp_path)
    assert store.files == []
    for op in (lambda: store.write("x.md", "hi"), lambda: store.create("x.md", "hi"), lambda: store.delete("x.md")):
        with pytest.raises(MemoryError_):
            op()
    assert (tmp_path / "x.md").is_dir()


def test_a_failed_delete_keeps_the_store_in_step_with_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore(tmp_path)
    store.create("plan.md", "rest at 30 energy")

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)  # the file system refuses (read-only mount, permissions)
    with pytest.raises(MemoryError_, match="could not be deleted"):
        store.delete("plan.md")
    monkeypatch.undo()
    assert [f.name for f in store.files] == ["plan.md"] and (tmp_path / "plan.md").exists()
    assert store.refresh() == []  # no phantom "person deleted it" change either


def test_huge_hand_written_file_is_read_capped(tmp_path: Path) -> None:
    (tmp_path / "paste.txt").write_bytes(b"x" * 5_000_000)
    store = MemoryStore(tmp_path, budget_tokens=1000)
    (f,) = store.files
    assert len(f.content) < 10_000 and "file cut at" in f.content


def test_stale_temp_files_are_removed_at_start(tmp_path: Path) -> None:
    (tmp_path / ".plan.md.abc123.tmp").write_text("half a write")
    (tmp_path / "plan.md").write_text("kept")
    store = MemoryStore(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.md"]
    assert [f.name for f in store.files] == ["plan.md"]


# ---- input text --------------------------------------------------------------------------------------------

ascii_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=60).filter(
    lambda s: "%s" not in s  # Android's `input text` cannot type a literal "%s": it means a space
)


@FUZZ
@given(s=ascii_text)
@example(s="$?")  # found by this test: the simulated shell expanded $? inside single quotes
def test_input_text_reaches_the_device_exactly_as_typed(adb_server: AdbServer, device: Device, s: str) -> None:
    """Whatever the model types, the simulated shell (which splits words and runs `;`, `&&`, `||` like sh)
    receives one `input text` command whose argument is the text itself: nothing ran unquoted."""
    inputs = adb_server.device("sim-0").inputs
    n = len(inputs)
    device.text(s)
    assert inputs[n:] == [f"text {s}"]


@FUZZ
@given(s=st.text(min_size=1, max_size=20).filter(lambda s: any(not (" " <= c <= "~") for c in s)))
def test_input_text_outside_ascii_is_refused_and_nothing_sent(adb_server: AdbServer, device: Device, s: str) -> None:
    inputs = adb_server.device("sim-0").inputs
    n = len(inputs)
    with pytest.raises(DeviceError):
        device.text(s)
    assert len(inputs) == n
