"""A game shown between flat bars (a 16:9 game on a 20:9 phone, a portrait game in an emulator's landscape frame)
reads as the same game filling its frame, with every box in the whole frame's pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from lluma_sim.game import SimGame
from lluma_vision.bars import content_box
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision


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


def _moved(out: VisionOutput, dx: int, dy: int) -> list[tuple[str, list[int]]]:
    return sorted((b.name, [b.bounds.x0 - dx, b.bounds.y0 - dy, b.bounds.x1 - dx, b.bounds.y1 - dy])
                  for b in out.buttons)


@pytest.mark.parametrize("width, height", [(1440, 1920), (1080, 2400)])
def test_a_boxed_frame_reads_as_its_game_does_in_the_whole_frames_pixels(width: int, height: int) -> None:
    game = SimGame(seed=0).capture()  # 1080x1920, the home screen
    vision = Vision(VisionConfig(backend="ocr", cache_size=0))
    alone = vision.analyze(game)
    boxed = vision.analyze(_boxed(game, width, height))
    dx, dy = (width - game.width) // 2, (height - game.height) // 2
    assert (boxed.width, boxed.height) == (width, height)
    assert alone.buttons and _moved(boxed, dx, dy) == _moved(alone, 0, 0)
    assert [t.text for t in boxed.texts] == [t.text for t in alone.texts]
