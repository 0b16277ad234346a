"""A line's crop reads the same whatever else the screen shows, and a crop read before is not read again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_sim.game.game import SimGame
from lluma_vision.config import VisionConfig
from lluma_vision.pipeline import Vision
from lluma_vision.pixels import kept_on_disk, ocr

pytestmark = pytest.mark.ocr


def crop(text: str, size: int = 22) -> np.ndarray:
    """A BGR line crop as the detector cuts one: dark text on a light plate, a few pixels of margin."""
    font = ImageFont.load_default(size)
    x0, y0, x1, y1 = ImageDraw.Draw(Image.new("RGB", (1, 1))).textbbox((0, 0), text, font=font)
    img = Image.new("RGB", (x1 - x0 + 12, y1 - y0 + 10), (236, 236, 228))
    ImageDraw.Draw(img).text((6 - x0, 5 - y0), text, fill=(60, 50, 40), font=font)
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1])


class Counted:
    """The engine's recogniser, counting the crops it is given (the real one reads them)."""

    def __init__(self, rec: Any) -> None:
        self.rec, self.crops = rec, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rec, name)

    def __call__(self, crops: list[np.ndarray], **kw: Any) -> Any:
        self.crops += len(crops)
        return self.rec(crops, **kw)


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    eng = ocr.get_engine()
    monkeypatch.setattr(eng, "text_rec", Counted(eng.text_rec))
    monkeypatch.delenv(kept_on_disk.CACHE_ENV, raising=False)  # this process's reads only (the suite shares a folder)
    monkeypatch.setattr(ocr, "_READS", ocr.Kept("rec-test", ocr._recognised))  # this test's reads only
    yield eng


SHORT, LONG = crop("Speed"), crop("Guess you'll have to think of something quickly.")


def test_a_short_line_reads_the_same_beside_a_long_one(engine: Any) -> None:
    alone = ocr.recognised(engine, [SHORT])
    ocr._READS.clear()
    beside = ocr.recognised(engine, [LONG, crop("Stamina"), SHORT])
    assert beside[2] == alone[0] and alone[0][0].strip() == "Speed"
    # what the recogniser says of it read alone, its batch no wider than its own width
    raw, conf, info = engine.text_rec.rec([SHORT], return_word_box=True)[0][0]
    assert (raw, conf) == alone[0][:2] and tuple(info[4]) == alone[0][2]
    assert "quickly" in beside[0][0]


def test_a_crop_read_before_is_not_read_again_and_the_kept_reads_are_bounded(
        engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    first = ocr.recognised(engine, [SHORT, LONG, SHORT])
    assert engine.text_rec.crops == 2  # the same pixels twice in one frame: read once
    assert ocr.recognised(engine, [LONG, SHORT]) == [first[1], first[0]]
    assert engine.text_rec.crops == 2
    monkeypatch.setattr(ocr, "READS_KEPT", 2)
    ocr.recognised(engine, [crop("Power")])
    assert len(ocr._READS) == 2 and engine.text_rec.crops == 3
    ocr.recognised(engine, [LONG])  # the least recently read was let go
    assert engine.text_rec.crops == 4
    ocr.forget_reads()  # what bench/vision does before each cold reading it times
    ocr.recognised(engine, [LONG])
    assert engine.text_rec.crops == 5


def test_a_screen_read_twice_reads_the_same_and_the_second_time_recognises_nothing(engine: Any) -> None:
    frame = SimGame(seed=3).capture()
    first = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(frame)  # no frame cache: read from pixels
    crops = engine.text_rec.crops
    again = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(frame)
    assert first.buttons and crops > 0 and engine.text_rec.crops == crops
    assert first.model_dump(exclude={"elapsed_ms"}) == again.model_dump(exclude={"elapsed_ms"})


def test_a_masked_re_read_is_kept_apart_from_a_full_one_and_callers_get_their_own_copy() -> None:
    ocr.forget_reads()
    line = np.ascontiguousarray(crop("Speed 15")[:, :, ::-1])  # recognise takes RGB
    digits = ocr.recognise([line], ocr.NUMBER_CHARS, ocr.DIGITS_RATIO)[0]
    full = ocr.recognise([line])[0]
    assert "".join(c for c, _ in digits).isdigit() and "Speed" in "".join(c for c, _ in full)
    full.clear()  # the caller's list: what is kept is not touched
    assert ocr.recognise([line])[0] and ocr.recognise([line], ocr.NUMBER_CHARS, ocr.DIGITS_RATIO)[0] == digits


def test_another_process_sharing_the_folder_reads_nothing_again_and_reads_the_same(
        engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """LLUMA_OCR_CACHE: what one process detected and recognised, another (here: its reads forgotten) takes from the
    folder; the reading is the same to the last field."""
    monkeypatch.setenv(kept_on_disk.CACHE_ENV, str(tmp_path))
    detected: list[int] = []
    real_det = engine.text_det
    monkeypatch.setattr(engine, "text_det", lambda img: detected.append(1) or real_det(img))
    frame = SimGame(seed=5).capture()
    first = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(frame)
    crops, frames = engine.text_rec.crops, len(detected)
    ocr.forget_reads()  # a new process: nothing read in memory
    again = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(frame)
    assert crops > 0 and frames > 0 and (engine.text_rec.crops, len(detected)) == (crops, frames)
    assert first.model_dump(exclude={"elapsed_ms"}) == again.model_dump(exclude={"elapsed_ms"})


def test_a_damaged_entry_is_read_again_and_an_unwritable_folder_ends_no_read(
        engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv(kept_on_disk.CACHE_ENV, str(tmp_path))
    first = ocr.recognised(engine, [SHORT])
    for entry in (tmp_path / "rec-test").iterdir():
        entry.write_text("{half an entr", encoding="utf-8")
    ocr._READS.clear()
    assert ocr.recognised(engine, [SHORT]) == first and engine.text_rec.crops == 2
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv(kept_on_disk.CACHE_ENV, str(blocked))
    ocr._READS.clear()
    assert ocr.recognised(engine, [SHORT]) == first and engine.text_rec.crops == 3
