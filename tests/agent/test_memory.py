import os

import pytest

from lluma_agent.memory.store import MemoryError_, MemoryStore


def test_create_write_delete_roundtrip_with_diffs(tmp_path):
    m = MemoryStore(tmp_path / "mem", budget_tokens=1000)
    c = m.create("plan.md", "train speed\n")
    assert c.op == "create" and "+train speed" in c.diff
    w = m.write("plan.md", "train stamina\n")
    assert w.op == "write" and "-train speed" in w.diff and "+train stamina" in w.diff
    assert (tmp_path / "mem" / "plan.md").read_text() == "train stamina\n"
    assert '<file name="plan.md">' in m.block_text()
    d = m.delete("plan.md")
    assert d.op == "delete" and not (tmp_path / "mem" / "plan.md").exists()


@pytest.mark.parametrize(
    "name", ["../escape.md", "/etc/passwd.md", "a/b.md", "..", "x.py", "", "a\\b.md", "..hidden.md"]
)
def test_names_that_could_escape_are_refused_and_nothing_is_written(tmp_path, name):
    m = MemoryStore(tmp_path / "mem")
    with pytest.raises(MemoryError_):
        m.write(name, "x")
    assert list((tmp_path / "mem").iterdir()) == []
    assert not (tmp_path / "escape.md").exists()


def test_symlink_escape_is_refused(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret")
    mem = tmp_path / "mem"
    mem.mkdir()
    os.symlink(outside, mem / "link.md")
    m = MemoryStore(mem)
    with pytest.raises(MemoryError_, match="symlink"):
        m.write("link.md", "overwrite")
    assert outside.read_text() == "secret"
    assert "secret" not in m.block_text()  # symlinks are not read either


def test_write_over_budget_is_refused_and_changes_nothing(tmp_path):
    m = MemoryStore(tmp_path / "mem", budget_tokens=50)
    m.create("a.txt", "short note")
    with pytest.raises(MemoryError_, match="budget"):
        m.write("a.txt", "word " * 200)
    assert (tmp_path / "mem" / "a.txt").read_text() == "short note"


def test_yaml_must_parse(tmp_path):
    m = MemoryStore(tmp_path / "mem")
    with pytest.raises(MemoryError_, match="YAML"):
        m.create("stats.yaml", "a: [1, 2\n")
    assert not (tmp_path / "mem" / "stats.yaml").exists()
    m.create("stats.yaml", "speed: 300\n")


def test_create_refuses_existing_and_delete_missing_lists_files(tmp_path):
    m = MemoryStore(tmp_path / "mem")
    m.create("a.md", "x")
    with pytest.raises(MemoryError_, match="already exists"):
        m.create("a.md", "y")
    with pytest.raises(MemoryError_, match="a.md"):
        m.delete("b.md")


def test_person_edits_are_noticed_once_and_own_writes_are_not(tmp_path):
    mem = tmp_path / "mem"
    m = MemoryStore(mem)
    m.create("plan.md", "v1\n")
    assert m.refresh() == []  # our own write is not an external change
    (mem / "plan.md").write_text("v1\nhuman note\n")
    (mem / "new.txt").write_text("from a person")
    changes = m.refresh()
    assert {(c.name, c.by) for c in changes} == {("plan.md", "person"), ("new.txt", "person")}
    assert any("+human note" in c.diff for c in changes)
    assert m.refresh() == []
    (mem / "new.txt").unlink()
    assert [(c.name, c.op) for c in m.refresh()] == [("new.txt", "delete")]


def test_block_order_is_deterministic(tmp_path):
    m = MemoryStore(tmp_path / "mem")
    m.create("b.md", "B")
    m.create("a.md", "A")
    text = m.block_text()
    assert text.index("a.md") < text.index("b.md")
    assert MemoryStore(tmp_path / "mem").block_text() == text


def test_a_persons_edit_made_after_the_last_look_is_not_overwritten(tmp_path):
    mem = tmp_path / "mem"
    m = MemoryStore(mem)
    m.create("plan.md", "v1\n")
    (mem / "plan.md").write_text("person's v2\n")  # while the model was thinking
    with pytest.raises(MemoryError_, match="changed by a person"):
        m.write("plan.md", "agent's v2\n")
    assert (mem / "plan.md").read_text() == "person's v2\n"
    with pytest.raises(MemoryError_, match="changed by a person"):
        m.delete("plan.md")
    assert [c.by for c in m.refresh()] == ["person"]  # the next turn sees it, then the agent may write
    m.write("plan.md", "agent's v3\n")


def test_a_file_that_is_not_utf8_is_shown_not_dropped(tmp_path):
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "notes.txt").write_bytes(b"caf\xe9 latte\n")
    m = MemoryStore(mem)
    assert "caf\ufffd latte" in m.block_text()
    assert m.refresh() == []


def test_the_folder_readme_is_for_people_never_shown_nor_writable(tmp_path):
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "README.md").write_text("# what this folder is\n")
    (mem / "plan.md").write_text("train speed\n")
    m = MemoryStore(mem)
    assert [f.name for f in m.files] == ["plan.md"]
    assert "what this folder is" not in m.block_text()
    for name in ("README.md", "readme.md"):
        with pytest.raises(MemoryError_, match="reserved"):
            m.write(name, "agent notes")
    assert (mem / "README.md").read_text() == "# what this folder is\n"
    (mem / "README.md").write_text("# edited by a person\n")
    assert m.refresh() == []  # editing the README is not a memory change the model hears about
