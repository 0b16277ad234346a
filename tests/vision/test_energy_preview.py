"""The training screen's energy bar previews the selected training's cost at the end of its coloured run (FACTS): the
simulator draws it (paler, the same hue) and the reading gives the energy now and after the training."""

from __future__ import annotations

import colorsys

import numpy as np
import pytest
from PIL import Image, ImageDraw

from lluma_sim.game import SimGame
from lluma_sim.game.content import MAX_ENERGY, STATS, TRAININGS
from lluma_sim.game.draw import GREEN, TRACK, paler
from lluma_sim.game.game import HARD_VARIANTS
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact
from lluma_vision.geometry import Rect
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.gauges import find_gauges
from lluma_vision.pixels.ocr import Line

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

CAREER_START = ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!")  # home to the hub
COST = TRAININGS[STATS[0]][1] / MAX_ENERGY  # the selected (first) training's


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr", cache_size=0))


def _training_screen(seed: int, energy: int) -> Image.Image:
    g = SimGame(seed=seed, style="hard", max_turns=12, **HARD_VARIANTS[seed])
    for name in (*CAREER_START, "Training"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text").box.center)
        while g.truth().cinematic in ("loading", "cutscene"):
            g.capture()
        if name == "Start Career!":
            assert g.career is not None
            g.career.energy = energy
    assert g.truth().screen == "training"
    return g.capture()


@pytest.mark.parametrize(("seed", "energy"), [(0, 100), (0, 60), (3, 80), (3, 25), (1, 45)])
def test_the_training_screen_reads_the_energy_now_and_after_the_selected_training(
        vision: Vision, seed: int, energy: int) -> None:
    gauges = compact(vision.analyze(_training_screen(seed, energy))).gauges
    assert abs(gauges["Energy"] - energy / MAX_ENERGY) <= 0.05, gauges
    assert abs(gauges["Energy after"] - (energy / MAX_ENERGY - COST)) <= 0.05, gauges


def _bar(runs: list[tuple[tuple[int, int, int], int]]) -> np.ndarray:
    """A bar of coloured runs (colour, width) on a white frame, its caption-free track grey to the end."""
    img = Image.new("RGB", (720, 200), (255, 255, 255))
    d = ImageDraw.Draw(img)
    x = 200
    for colour, width in [*runs, (TRACK, 400 - sum(w for _, w in runs))]:
        d.rectangle((x, 80, x + width - 1, 107), fill=colour)
        x += width
    return np.asarray(img)


def test_a_bar_without_a_preview_has_no_energy_after() -> None:
    found = find_gauges(_bar([(GREEN, 240)]), [])
    assert [(round(g.fill, 2), g.after) for g in found] == [(0.6, None)]


def test_a_darker_end_as_the_real_game_draws_it_is_a_preview_too() -> None:
    found = find_gauges(_bar([((44, 213, 255), 120), ((19, 145, 40), 100)]), [])  # real captures' blue, dark green
    assert [(round(g.fill, 2), round(g.after or 0, 2)) for g in found][:1] == [(0.55, 0.3)]
    assert [g.label for g in found] == ["gauge", "gauge after"]


def test_a_paler_end_of_the_same_hue_is_a_preview() -> None:
    found = find_gauges(_bar([(GREEN, 160), (paler(GREEN), 80)]), [])
    assert [(round(g.fill, 2), round(g.after or 0, 2)) for g in found][:1] == [(0.6, 0.4)]


def _gradient_bar(coloured: int, pale: int, whiten: float) -> np.ndarray:
    """The real energy bar's gradient (blue to yellow, as screens2's race list draws it) over `coloured + pale`
    pixels, its last `pale` drawn paler by `whiten` (toward white), the gradient going on under it; grey after."""
    img = np.full((200, 720, 3), 255, np.uint8)
    img[80:108, 200:600] = TRACK
    n = coloured + pale
    for i in range(n):
        r, g, b = colorsys.hsv_to_rgb((200 - 150 * i / n) / 360, 0.85, 0.95)  # 200 deg (blue) to 50 (yellow)
        rgb = np.array([r, g, b]) * 255
        if i >= coloured:
            rgb = rgb * (1 - whiten) + 255 * whiten
        img[80:108, 200 + i] = rgb.astype(np.uint8)
    return img


@pytest.mark.parametrize("whiten", [0.55, 0.8])
def test_a_paler_end_over_a_gradient_is_a_preview(whiten: float) -> None:
    """A kept-back training screen's bar: a gradient with a pale preview after it read no gauge at all (the pale run
    was held to the run's last hue; the gradient goes on under it)."""
    found = find_gauges(_gradient_bar(200, 80, whiten), [])
    assert [(round(g.fill, 2), round(g.after or 0, 2)) for g in found][:1] == [(0.7, 0.5)]


@pytest.mark.parametrize("whiten", [0.9, 0.95])
def test_a_preview_whitened_past_its_hue_is_a_preview_too(whiten: float) -> None:
    """Paler still (near white, no hue left), between the gradient and the grey track: the captioned bar was read as
    a full one (Energy 1.0 for 0.7), the white gap taken for nothing. It is the preview: the energy now up to the
    grey, after it up to the coloured run's end."""
    caption = [Line(text="Energy", conf=0.95, box=Rect(120, 82, 190, 106))]
    found = find_gauges(_gradient_bar(200, 80, whiten), caption)
    assert [(g.label, round(g.fill, 2)) for g in found] == [("Energy", 0.7), ("Energy after", 0.5)]

