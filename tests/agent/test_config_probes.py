"""Every configuration probe of the reliability check, each with its one line, refused fast (issue 23).

A file or an environment value that should be refused is a ConfigError of one line naming the key (or the
file and its line); `lluma run`, `demo` and `doctor` print that same line. "Fast" is what the lines show: a bomb
or a deep nest is refused by the limit it names (yamlsafe counts while it reads), never after expanding it, so
nothing here times the machine (a loaded one would fail a wall-clock bound, a fast one pass a slow parser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lluma_agent.config import ConfigError, load_config
from lluma_cli import demo, doctor, run

BOMB = "model:\n  name: &a [" + ",".join(['"lol"'] * 9) + "]\n" + "".join(
    f"  {k}: &{k} [{','.join([f'*{p}'] * 9)}]\n" for p, k in zip("abcdefg", "bcdefgh", strict=False))

FILES: list[tuple[str, bytes, str]] = [
    ("alias bomb", BOMB.encode(), "more than 100,000 values once its aliases are expanded"),
    ("600-deep nesting", ("model:\n  name: " + "[" * 600 + "]" * 600 + "\n").encode(), "nested more than 32 levels"),
    ("max_tokens: true", b"model:\n  max_tokens: true\n", "model.max_tokens: must be a number, not true"),
    ("adb_port: true", b"device:\n  adb_port: true\n", "device.adb_port: must be a number, not true"),
    ("duplicate key", b"model:\n  name: a\n  name: b\n", "duplicate key 'name' at line 3"),
    ("duplicate section", b"run:\n  max_turns: 1\nrun:\n  max_turns: 2\n", "duplicate key 'run' at line 3"),
    ("UTF-16", "model:\n  name: claude-haiku-5-5\n".encode("utf-16"), "the file is UTF-16, not UTF-8"),
    ("UTF-16 without BOM", "model:\n  name: x\n".encode("utf-16-le"), "looks like UTF-16"),
    ("Latin-1", "model:\n  name: caf\xe9\n".encode("latin-1"), "not UTF-8 (byte 0xe9"),
    ("stuck order", b"run:\n  stuck_after: 10\n  stuck_force_after: 5\n  stuck_pause_after: 2\n",
     "run.stuck_after (10), run.stuck_force_after (5), run.stuck_pause_after (2) must each be at most the next"),
    ("ocr sides", b"vision:\n  ocr_short_side: 2000\n  ocr_long_side: 1000\n",
     "vision.ocr_short_side (2000), vision.ocr_long_side (1000) must each be at most the next"),
    ("base_url not a url", b'model:\n  base_url: "not a url"\n', "model.base_url: must be an http:// or https://"),
    ("base_url file://", b"model:\n  base_url: file:///etc/passwd\n", "model.base_url: must be an http://"),
    ("api_key_env: PATH", b"model:\n  api_key_env: PATH\n", "model.api_key_env: PATH is a system variable"),
    ("top level a list", b"- model\n", "top level must be a mapping of sections"),
    ("bad YAML", b"model:\n  name: [unclosed\n", "not valid YAML"),
    ("unknown key", b"model:\n  max_tokenz: 5\n", "model.max_tokenz: unknown key"),
]

ENVIRON: list[tuple[str, dict[str, str], str]] = [
    ("LLUMA_MODEL=foo", {"LLUMA_MODEL": "foo"}, "LLUMA_MODEL: a whole section from one variable is not read; "
     "set one key at a time, LLUMA_MODEL__<KEY>=value (got 'foo')"),
    ("max_turns true", {"LLUMA_RUN__MAX_TURNS": "true"}, "run.max_turns: Input should be a valid integer"),
    ("base_url", {"LLUMA_MODEL__BASE_URL": "localhost:8080"}, "model.base_url: must be an http://"),
    ("misspelt section", {"LLUMA_MODLE__NAME": "x"}, "modle: unknown key"),
    ("stuck order", {"LLUMA_RUN__STUCK_AFTER": "9", "LLUMA_RUN__STUCK_FORCE_AFTER": "2"}, "must each be at most"),
    ("NaN", {"LLUMA_RUN__MAX_COST_USD": "nan"}, "run.max_cost_usd"),
]


def _refused(check) -> str:
    with pytest.raises(ConfigError) as err:
        check()
    line = str(err.value)
    assert "\n" not in line
    return line


@pytest.mark.parametrize(("name", "content", "line"), FILES, ids=[f[0] for f in FILES])
def test_a_bad_file_is_one_line_fast(tmp_path: Path, name: str, content: bytes, line: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(content)
    assert line in _refused(lambda: load_config(path, env={}))


@pytest.mark.parametrize(("name", "env", "line"), ENVIRON, ids=[e[0] for e in ENVIRON])
def test_a_bad_environment_value_is_one_line(name: str, env: dict[str, str], line: str) -> None:
    assert line in _refused(lambda: load_config(None, env=env))


@pytest.mark.parametrize("command", [run.main, demo.main])
@pytest.mark.parametrize(("name", "content", "line"), [FILES[0], FILES[1], FILES[2], FILES[4], FILES[6]],
                         ids=["bomb", "deep", "max_tokens", "duplicate", "utf16"])
def test_run_and_demo_print_the_same_line_and_exit_2(tmp_path: Path, capsys, command, name: str, content: bytes,
                                                      line: str) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(content)
    assert command(["--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert line in err and err.count("\n") == 1


def test_doctor_prints_the_same_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(FILES[0][1])
    doctor.main(["--config", str(path), "--json"])
    assert FILES[0][2] in capsys.readouterr().out


def test_good_yaml_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes("# ünïcode comment\nmodel:\n  max_tokens: 4096\nrun: &r\n  max_turns: 3\n".encode())
    cfg = load_config(path, env={})
    assert cfg.model.max_tokens == 4096 and cfg.run.max_turns == 3
