"""Where a person was promised one line, they get one line and the exit status the README gives (issue 23)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from lluma_cli import demo, run, vision
from lluma_cli.main import main as lluma


def bomb_png(path: Path, side: int = 30_000) -> Path:
    """A PNG whose header says side x side pixels (a few hundred bytes on disk)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 1000))
                     + chunk(b"IEND", b""))
    return path


def test_a_30000_pixel_png_is_one_line(tmp_path: Path, capsys) -> None:
    assert vision.main([str(bomb_png(tmp_path / "huge.png"))]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("lluma vision: loading")]
    assert len(err) == 1 and "too large to read" in err[0] and "900000000 pixels" in err[0]


def test_a_folder_with_a_bomb_reads_the_rest(tmp_path: Path, capsys) -> None:
    from PIL import Image

    bomb_png(tmp_path / "a.png")
    Image.new("RGB", (360, 640), "white").save(tmp_path / "b.png")
    assert vision.main([str(tmp_path), "--json"]) == 1  # one image failed; the other was read
    out = capsys.readouterr().out
    assert '"error": "too large to read' in out and str(tmp_path / "b.png") in out


@pytest.mark.parametrize("argv", [["--turns", "-1"], ["--turns", "0"], ["--turns", "x"]])
def test_demo_turns_below_one_are_refused(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        demo.main(argv)
    assert exit_.value.code == 2 and "--turns: " in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-5", "100000", "x"])
@pytest.mark.parametrize("command", ["demo", "sim phone"])
def test_a_career_length_out_of_range_is_one_clear_line(command: str, value: str, capsys) -> None:
    """Probe: --career-turns 0, -5, 100000 (a career no night would see end) are refused before anything starts,
    in one line (not argparse's usage block), exit 2."""
    from lluma_cli import sim

    if command == "demo":
        with pytest.raises(SystemExit) as exit_:
            demo.main([f"--career-turns={value}"])
        code = exit_.value.code
    else:
        code = sim.main(["phone", f"--career-turns={value}"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"lluma {command}: error: argument --career-turns: ")
    assert ("a career lasts 1 to 1,000 game turns" if value != "x" else "expected a whole number") in err


@pytest.mark.parametrize("argv", [["--max-turns", "-1"], ["--max-cost", "nan"], ["--max-cost", "-2"]])
def test_run_limits_are_checked(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        run.main(argv)
    assert exit_.value.code == 2 and "Traceback" not in capsys.readouterr().err


def test_a_bug_in_a_command_is_one_line_naming_its_traceback(monkeypatch, capsys) -> None:
    def broken(argv: list[str]) -> int:
        raise KeyError("boom")

    monkeypatch.setattr("lluma_cli.models.main", broken)
    assert lluma(["models"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError" in err and "traceback in" in err
    kept = Path(err.split("traceback in ")[1].split(" (a bug")[0])
    assert "KeyError: 'boom'" in kept.read_text()
    kept.unlink()
