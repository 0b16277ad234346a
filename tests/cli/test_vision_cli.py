"""`lluma vision IMAGE [--backend ...] [--json]`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_cli.vision import main

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


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


def test_folder_gives_one_json_entry_per_image_and_reports_a_bad_one(
    shot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / "a.png").write_bytes(shot.read_bytes())
    Image.open(shot).save(folder / "b.jpg", quality=90)
    (folder / "c.png").write_text("not an image")
    (folder / "notes.txt").write_text("ignored: not an image suffix")
    assert main([str(folder), "--json"]) == 1  # one file failed; the others are still read
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert [Path(e["image"]).name for e in doc] == ["a.png", "b.jpg", "c.png"]
    for entry in doc[:2]:
        assert entry["width"] == 720 and any(b["name"] == "Confirm" for b in entry["buttons"])
    assert "not an image" in doc[2]["error"] and "buttons" not in doc[2]
    assert "[3/3] c.png" in captured.err  # progress on stderr, stdout stays one JSON document


def test_a_folders_files_left_unread_are_named(shot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a GIF in the folder was left out without a word."""
    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / "a.png").write_bytes(shot.read_bytes())
    Image.open(shot).save(folder / "clip.gif")
    (folder / "notes.txt").write_text("not an image")
    assert main([str(folder), "--compact"]) == 0
    captured = capsys.readouterr()
    assert [line.split("\t")[0] for line in captured.out.splitlines()] == [str(folder / "a.png")]
    assert ("lluma vision: skipped 2 file(s) not read as screenshots (only .png, .jpg, .jpeg, .webp, .bmp): clip.gif, "
            "notes.txt\n") in captured.err
    (folder / "a.png").unlink()
    assert main([str(folder)]) == 2
    assert capsys.readouterr().err == (f"lluma vision: no images (.png, .jpg, .jpeg, .webp, .bmp) in {folder}; skipped "
                                       "2 file(s) not read as screenshots (only .png, .jpg, .jpeg, .webp, .bmp): "
                                       "clip.gif, notes.txt\n")


def test_annotate_draws_the_reading_on_an_image_of_the_screenshots_size(
    shot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_png = tmp_path / "annotated.png"
    assert main([str(shot), "--json", "--annotate", str(out_png)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (btn,) = [b for b in doc["buttons"] if b["name"] == "Confirm"]
    original, drawn = Image.open(shot).convert("RGB"), Image.open(out_png).convert("RGB")
    assert drawn.size == original.size
    x0, y0, x1, y1 = btn["bounds"]
    # the button's outline is drawn on its box; far from any box the picture is untouched
    assert drawn.getpixel((x0, (y0 + y1) // 2)) != original.getpixel((x0, (y0 + y1) // 2))
    assert drawn.getpixel((10, 500)) == original.getpixel((10, 500))


def test_folder_annotate_wants_a_folder_and_an_empty_folder_is_an_error(
    shot: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(empty), "--json"]) == 2
    assert "no images" in capsys.readouterr().err
    (empty / "a.png").write_bytes(shot.read_bytes())
    assert main([str(empty), "--annotate", str(tmp_path / "x.png")]) == 2
    assert "give a folder" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_compact_prints_the_vision_payload_a_turn_sends(shot: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from lluma_vision.config import VisionConfig
    from lluma_vision.facts.compact import compact
    from lluma_vision.pipeline import Vision

    monkeypatch.chdir(tmp_path)  # no config.yaml here: the defaults, as a run in this folder would use
    monkeypatch.setenv("LLUMA_VISION__MAX_BUTTONS", "1")  # ...with the caps a run would apply
    assert main([str(shot), "--compact"]) == 0
    printed = capsys.readouterr().out.strip()
    with Image.open(shot) as im:
        want = compact(Vision(VisionConfig(backend="ocr")).analyze(im), max_buttons=1).to_json()
    assert printed == want and json.loads(printed)["buttons"][0]["name"] == "Confirm"


def test_compact_and_json_together_are_refused(shot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(shot), "--compact", "--json"]) == 2
    assert "choose one" in capsys.readouterr().err
