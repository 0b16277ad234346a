"""The one hardened loader (lluma_agent/safeload.py): whatever a file in or beside the memory folder holds, reading it
is the data or one line naming the file and what is wrong, at once: never a hang (a FIFO, a link to /dev/zero), a
RecursionError (a deep nest), memory spent on a huge file, or numbers JSON has not (NaN prints as invalid JSON)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lluma_agent import safeload, yamlsafe
from lluma_agent.safeload import Refused

DEEP = yamlsafe.MAX_DEPTH + 1


def _refused(path: Path, read=safeload.read_json, **kw: object) -> str:
    started = time.monotonic()
    with pytest.raises(Refused) as info:
        read(path, **kw)
    assert time.monotonic() - started < 2  # refused at once, never read for long
    line = str(info.value)
    assert line.startswith(f"{path}: ") and "\n" not in line
    return info.value.problem


@pytest.mark.timeout(20)  # a FIFO's read waits for ever, /dev/zero never ends: the old loaders hung
@pytest.mark.parametrize(("make", "kind"), [
    (os.mkfifo, "a FIFO (named pipe)"),
    (lambda p: os.symlink("/dev/zero", p), "a device"),
    (os.mkdir, "a folder"),
])
def test_what_is_no_regular_file_is_refused_at_once_and_named(tmp_path: Path, make, kind: str) -> None:
    path = tmp_path / "memory.events.json"
    make(path)
    assert _refused(path, what="an event book") == f"{kind}, not an event book file"
    assert _refused(path, safeload.read_yaml) == f"{kind}, not a regular file"


def test_a_file_over_the_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "procedures.yaml"
    path.write_bytes(b"# " + b"x" * 5000 + b"\n")
    assert _refused(path, safeload.read_yaml, limit=4096) == "larger than 4,096 bytes, not read"
    assert safeload.read_yaml(path, limit=8192) is None  # within it: read


@pytest.mark.parametrize(("data", "said"), [
    ("a: é\n".encode("utf-16"), "the file is UTF-16, not UTF-8; save it as UTF-8"),
    (b"a: caf\xe9\n", "the file is not UTF-8 (byte 0xe9 at position 6); save it as UTF-8"),
])
def test_a_file_that_is_not_utf8_is_named_with_its_encoding(tmp_path: Path, data: bytes, said: str) -> None:
    path = tmp_path / "procedures.yaml"
    path.write_bytes(data)
    assert _refused(path, safeload.read_yaml) == said


@pytest.mark.parametrize(("text", "said"), [
    ('{"sums": {"Speed": NaN}}', "NaN is no number JSON has"),
    ('{"sums": {"Speed": -Infinity}}', "-Infinity is no number JSON has"),
    ('{"sums": {"Speed": 1e999}}', "1e999 is too large a number"),
    ("[" * DEEP + "]" * DEEP, f"nested more than {yamlsafe.MAX_DEPTH} levels deep"),
    ("[" * 100_000 + "]" * 100_000, f"nested more than {yamlsafe.MAX_DEPTH} levels deep"),  # Python's json recursed
    ('{"a": [1, 2', "Expecting"),
])
def test_json_holds_finite_numbers_and_a_bounded_depth(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "memory.events.json"
    path.write_text(text)
    assert _refused(path).startswith(f"not JSON: {said}")


def test_yaml_nested_past_the_limit_is_refused_with_its_line(tmp_path: Path) -> None:
    """`plans.parse` read procedures with PyYAML's own loader: a few thousand levels were a RecursionError, 3,000
    lines of traceback a turn. Block style and flow style alike."""
    path = tmp_path / "procedures.yaml"
    for text in ("".join("  " * i + "a:\n" for i in range(3000)) + "  " * 3000 + "x\n", "a: " + "[" * 5000):
        path.write_text(text)
        assert _refused(path, safeload.read_yaml).startswith(f"not YAML: nested more than {yamlsafe.MAX_DEPTH} levels")


def test_a_good_file_is_its_data_and_no_file_is_left_to_the_caller(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"times": 2, "sums": {"Speed": 10.5}, "deep": [[[1]]]}')
    assert safeload.read_json(tmp_path / "a.json") == {"times": 2, "sums": {"Speed": 10.5}, "deep": [[[1]]]}
    (tmp_path / "a.yaml").write_bytes("\ufeffrest:\n  about: a nap\n".encode())  # a BOM from a Windows editor
    assert safeload.read_yaml(tmp_path / "a.yaml") == {"rest": {"about": "a nap"}}
    with pytest.raises(FileNotFoundError):
        safeload.read_json(tmp_path / "none.json")
