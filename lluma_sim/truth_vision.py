"""A reading of the simulated game's frame made from the game's own truth, not from its pixels: for plumbing tests.

The tests of what surrounds the reading (resume, Ctrl+C, damaged folders, limits, model errors) run the real loop
on the real adb server and the API stand-in over HTTP; the OCR costs ~1.5 s a frame on a 2-core machine and is
not their subject. `lluma demo --truth-vision` (or `sim_environment(vision="truth")`) hands the agent this reader
instead; it is never chosen by itself, and `lluma run` (a real phone) has no way to choose it. The tests whose
subject is the reading, the navigation, the hard demo and the night keep the OCR.

What it reads is what a perfect OCR and button finder would: every drawn button, tab, choice and icon as a
button (named as drawn; "disabled" when greyed), every drawn text line as text, the tab bar, the scrollbar, the
cinematic, the Energy gauge (a bar, as the truth's energy) and the mood; captions and their numbers are paired by
the reading's own `associate`, and the screen is identified by its own `identify`, so the map and the context see
the same shapes as with the OCR. The truth is the game's at the time of reading: the loop reads the frame it
has just captured, and the game changes only on a capture or an input (as the VLM stand-in's sight of it,
lluma_sim.sight_of_truth).
"""

from __future__ import annotations

import time

from PIL import Image

from lluma_sim.game.content import MAX_ENERGY
from lluma_sim.game.truth import GroundTruth
from lluma_sim.sight_of_truth import ScreenTruth, region_of
from lluma_vision.buttons.output import unique_names
from lluma_vision.facts.associate import associate
from lluma_vision.facts.screen import identify
from lluma_vision.models import Box, Button, Gauge, MenuState, Scrollbar, TextLine, VisionOutput
from lluma_vision.phash import phash as hash_of

TAPPABLE = ("button", "tab", "choice", "icon")  # the OCR names icons by their glyph (lluma_vision.icons)
ENERGY = "Energy"  # the caption the header draws left of the bar (lluma_sim.game.screens_career._header)
MS_PER_S = 1000
BACKEND = "truth"  # VisionOutput.backend of its readings: a turn log says the OCR did not read them


class TruthVision:
    """`analyze(image)` -> the reading of the game's current frame, from `truth` (SimGame.truth)."""

    def __init__(self, truth: ScreenTruth) -> None:
        self.truth = truth

    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput:
        t0 = time.perf_counter()
        t = self.truth()
        if (t.width, t.height) != image.size:
            size = f"{image.width}x{image.height}"
            raise ValueError(f"truth vision: the frame is {size}, the game's {t.width}x{t.height}")
        out = associate(reading_of(t)).model_copy(update={"screen_hash": phash or hash_of(image)})
        ms = round((time.perf_counter() - t0) * MS_PER_S, 2)
        return out.model_copy(update={"screen": identify(out), "elapsed_ms": ms})


def reading_of(t: GroundTruth) -> VisionOutput:
    """The frame's reading as the truth has it (before captions are paired with their values)."""
    buttons = [Button(name=e.name, meta="" if e.enabled else "disabled", region=region_of(e.box.center[1] / t.height,
                      e, t.screen), bounds=e.box, source="sim") for e in t.elements if e.kind in TAPPABLE]
    texts = [TextLine(text=e.name, bounds=e.box) for e in t.elements if e.kind == "text"]
    tabs = [e.name for e in t.elements if e.kind == "tab"]
    menu = MenuState(usable=t.menu_usable, selected=t.selected_tab, tabs=tabs) if t.menu_usable is not None else None
    bar = t.scrollbar
    scrollbar = Scrollbar(track=bar.track, thumb=bar.thumb, up=bar.up, down=bar.down) if bar else None
    caption = next((e for e in t.elements if e.kind == "text" and e.name == ENERGY), None)
    gauges = [] if caption is None or t.energy is None else [Gauge(
        label=ENERGY, fill=max(0.0, min(1.0, t.energy / MAX_ENERGY)),
        # the truth has no box for the bar: the row right of its caption, where the header draws it
        bounds=Box(x0=caption.box.x1, y0=caption.box.y0, x1=t.width, y1=caption.box.y1))]
    # the hard style's mood is a badge word beside the bar (the OCR's `mood`); the plain one prints "Mood: Good"
    word = (t.mood or "").upper()
    badge = word if word and any(e.kind == "text" and e.name == word for e in t.elements) else None
    return VisionOutput(width=t.width, height=t.height, buttons=unique_names(buttons), texts=texts, menu=menu,
                        scrollbar=scrollbar, cinematic=t.cinematic, gauges=gauges, mood=badge, backend=BACKEND)

