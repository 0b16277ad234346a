"""A game shown between flat bars (a 16:9 game on a 20:9 phone, a portrait game in an emulator's landscape frame)
reads as the same game filling its frame, with every box in the whole frame's pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw

from lluma_sim.game import SimGame
from lluma_sim.game.game import HARD_VARIANTS
from lluma_vision.config import VisionConfig
from lluma_vision.models import Box, Button, CaptionedValue, Gauge, Scrollbar, TextLine, VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.bars import content_box, shifted

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


def _boxed(game: Image.Image, width: int, height: int, colour: tuple[int, int, int] = (0, 0, 0)) -> Image.Image:
    frame = Image.new("RGB", (width, height), colour)
    frame.paste(game, ((width - game.width) // 2, (height - game.height) // 2))
    return frame


def _picture(w: int = 360, h: int = 640) -> Image.Image:
    rng = np.random.default_rng(3)
    return Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))


def test_the_game_between_two_like_flat_bars_is_found() -> None:
    game = _picture()
    assert content_box(_boxed(game, 480, 640)) == (60, 0, 420, 640)  # pillarbox
    assert content_box(_boxed(game, 360, 800)) == (0, 80, 360, 720)  # letterbox
    assert content_box(_boxed(game, 480, 800, (24, 24, 30))) == (60, 80, 420, 720)  # both, in dark grey
    assert content_box(game) is None  # a frame the game fills
    assert content_box(_boxed(game, 480, 640, (244, 242, 250))) is None  # a light page around a dialog is the game's
    assert content_box(Image.new("RGB", (360, 640))) is None  # a blank frame: no picture between bars
    lopsided = Image.new("RGB", (480, 640))
    lopsided.paste(game, (20, 0))
    assert content_box(lopsided) is None  # a margin and a panel (a PC capture), not two like bars
    two = _boxed(game, 480, 640)
    two.paste((200, 0, 0), (0, 0, 60, 640))
    assert content_box(two) is None  # bars of two colours
    crossed = _boxed(game, 480, 640)
    crossed.paste((255, 255, 255), (0, 301, 480, 302))  # a line across a bar, between the sampled lines
    assert content_box(crossed) is None
    crossed = _boxed(game, 360, 800)
    crossed.paste((255, 255, 255), (181, 0, 182, 800))  # ...and across a letterbox's bars
    assert content_box(crossed) is None


def test_a_loading_frames_spinner_on_black_is_no_game_between_bars() -> None:
    frame = Image.new("RGB", (1080, 1920))
    ImageDraw.Draw(frame).ellipse((500, 920, 580, 1000), outline=(230, 230, 230), width=8)
    assert content_box(frame) is None
    out = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(frame)
    assert out.cinematic == "loading" and not out.buttons


def _reading(out: VisionOutput) -> dict[str, object]:
    """What a reading says, apart from the frame it came from (its size, hash and timing)."""
    return out.model_dump(exclude={"width", "height", "screen_hash", "elapsed_ms"})


@pytest.mark.parametrize("width, height", [(1440, 1920), (1080, 2400)])
def test_a_boxed_frame_reads_as_its_game_does_in_the_whole_frames_pixels(width: int, height: int) -> None:
    g = SimGame(seed=3, style="hard", **HARD_VARIANTS[3])  # 1080x1920
    # to the career hub through the career setup: an energy gauge, the mood, stats with their values
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
        while g.truth().cinematic in ("loading", "cutscene"):
            g.capture()
    assert g.truth().screen == "hub"
    game = g.capture()
    vision = Vision(VisionConfig(backend="ocr", cache_size=0))
    alone = vision.analyze(game)
    boxed = vision.analyze(_boxed(game, width, height))
    dx, dy = (width - game.width) // 2, (height - game.height) // 2
    assert (boxed.width, boxed.height) == (width, height)
    assert alone.buttons and alone.gauges and alone.values and alone.mood  # a reading with something in it
    assert _reading(boxed) == _reading(shifted(alone, dx, dy))  # buttons, meta, texts, gauges, values, mood...


def test_every_box_of_a_reading_moves_with_it() -> None:
    out = VisionOutput(width=100, height=100, buttons=[Button(name="A", bounds=Box(x0=1, y0=2, x1=3, y1=4))],
                       texts=[TextLine(text="t", bounds=Box(x0=1, y0=2, x1=3, y1=4))],
                       scrollbar=Scrollbar(track=Box(x0=90, y0=0, x1=95, y1=50), thumb=Box(x0=90, y0=5, x1=95, y1=9),
                                           up=False, down=True),
                       gauges=[Gauge(label="Energy", fill=0.5, bounds=Box(x0=10, y0=10, x1=50, y1=14))],
                       values=[CaptionedValue(caption="Speed", value="90", bounds=Box(x0=5, y0=60, x1=20, y1=70))])
    moved = shifted(out, 7, 11)
    assert moved.buttons[0].bounds.as_list() == [8, 13, 10, 15] and moved.texts[0].bounds.as_list() == [8, 13, 10, 15]
    assert moved.scrollbar is not None and moved.scrollbar.thumb.as_list() == [97, 16, 102, 20]
    assert moved.gauges[0].bounds.as_list() == [17, 21, 57, 25] and moved.values[0].bounds.as_list() == [12, 71, 27, 81]
