"""`lluma vision IMAGE [--backend ...] [--json]`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_vision.cli import main


@pytest.fixture(scope="module")
def shot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    img = Image.new("RGB", (720, 1280), (244, 242, 250))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((200, 900, 520, 990), 26, fill=(160, 218, 92), outline=(90, 150, 40), width=3)
    d.text((300, 922), "Confirm", fill=(60, 40, 30), font=ImageFont.load_default(size=36))
    path = tmp_path_factory.mktemp("cli") / "shot.png"
    img.save(path)
    return path


def test_json_has_buttons_with_list_bounds_in_image_pixels(shot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(shot), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"buttons", "scrollbar", "menu", "cinematic", "width", "height"} <= set(doc)
    (btn,) = [b for b in doc["buttons"] if b["name"] == "Confirm"]
    x0, y0, x1, y1 = btn["bounds"]
    assert 200 <= x0 < (x0 + x1) / 2 < x1 <= 520 and 900 <= y0 < (y0 + y1) / 2 < y1 <= 990
    assert doc["scrollbar"] is None and doc["width"] == 720


def test_table_without_json(shot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(shot)]) == 0
    out = capsys.readouterr().out
    assert "Confirm" in out and "bounds" in out and not out.lstrip().startswith("{")


def test_missing_file_and_non_image_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.png")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.png"
    bad.write_text("not an image")
    assert main([str(bad), "--json"]) == 2
    assert "not an image" in capsys.readouterr().err


def test_claude_backend_without_key_is_a_clear_error(shot: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    assert main([str(shot), "--backend", "claude"]) == 2
    assert "needs an anthropic client" in capsys.readouterr().err
