"""A reading of the simulated game's frame made from the game's own truth, not from its pixels: for plumbing tests.

The tests of what surrounds the reading (resume, Ctrl+C, damaged folders, limits, model errors) run the real loop
on the real adb server and the API stand-in over HTTP; the OCR costs ~1.5 s a frame on a 2-core machine and is
not their subject. `lluma demo --truth-vision` (or `sim_environment(vision="truth")`) hands the agent this reader
instead; it is never chosen by itself. `lluma run` reads it only from a simulated phone (`lluma sim phone`), which
answers the shell command `lluma-truth` with it (lluma_sim/truth_over_adb.py), when told `vision.backend: truth`; a
real phone has no such command, and the run stops at its start. The tests whose subject is the reading, the
navigation, the hard demo and the night keep the OCR.

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
from typing import Literal, cast

from PIL import Image

from lluma_sim.game.content import MAX_ENERGY
from lluma_sim.game.truth import GroundTruth
from lluma_sim.sight_of_truth import ScreenTruth, region_of
from lluma_vision.buttons.output import unique_names
from lluma_vision.facts.associate import associate
from lluma_vision.facts.screen import identify
from lluma_vision.facts.values import GAIN
from lluma_vision.models import (
    Box,
    Button,
    CaptionedValue,
    Gauge,
    MenuState,
    Scrollbar,
    Support,
    TextLine,
    VisionOutput,
)
from lluma_vision.phash import phash as hash_of
from lluma_vision.pipeline.reading import SUPPORT_CARD

TAPPABLE = ("button", "tab", "choice", "icon")  # the OCR names icons by their glyph (lluma_vision.icons)
ENERGY = "Energy"  # the caption the header draws left of the bar (lluma_sim.game.screens_career._header)
MS_PER_S = 1000  # a unit
Bond = Literal["grey", "blue", "green", "orange", "MAX", "none"]  # lluma_vision.models.Support.bond
BACKEND = "truth"  # VisionOutput.backend of its readings: a turn log says the OCR did not read them


class TruthVision:
    """`analyze(image)` -> the reading of the game's current frame, from `truth` (SimGame.truth)."""

    def __init__(self, truth: ScreenTruth) -> None:
        self.truth = truth

    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput:
        t = self.truth()
        if (t.width, t.height) != image.size:
            size = f"{image.width}x{image.height}"
            raise ValueError(f"truth vision: the frame is {size}, the game's {t.width}x{t.height}")
        return read_truth(t, phash or hash_of(image))


def read_truth(t: GroundTruth, phash: str) -> VisionOutput:
    """The whole reading of the frame whose truth is `t` and perceptual hash `phash`: what TruthVision hands the
    demo's loop, and what the simulated phone answers `lluma-truth` with (lluma_sim/truth_over_adb.py)."""
    t0 = time.perf_counter()
    read = reading_of(t)
    out = associate(read).model_copy(update={"screen_hash": phash})
    # a signed number is a gain of the stat under it (read after the pairing, which reads the other values)
    out = out.model_copy(update={"values": out.values + gains_of(read.texts)})
    ms = round((time.perf_counter() - t0) * MS_PER_S, 2)
    return out.model_copy(update={"screen": identify(out), "elapsed_ms": ms})


def reading_of(t: GroundTruth) -> VisionOutput:
    """The frame's reading as the truth has it (before captions are paired with their values). The training screen's
    facts are read as the OCR's facts are (lluma_vision.facts): each "+N" as a gain of the caption under it, the bar's
    preview of the raised training's cost as "Energy after", the portraits in the right-hand column as support cards
    (each also a "Support card" button, as the OCR reads a portrait: lluma_vision/facts/supports.py)."""
    portraits = [e for e in t.elements if e.kind == "icon" and e.name == SUPPORT_CARD]
    buttons = [Button(name=e.name, meta="" if e.enabled else "disabled", region=region_of(e.box.center[1] / t.height,
                      e, t.screen), bounds=e.box, source="sim") for e in t.elements
               if e.kind in TAPPABLE]
    texts = [TextLine(text=e.name, bounds=e.box) for e in t.elements if e.kind == "text"]
    tabs = [e.name for e in t.elements if e.kind == "tab"]
    menu = MenuState(usable=t.menu_usable, selected=t.selected_tab, tabs=tabs) if t.menu_usable is not None else None
    bar = t.scrollbar
    scrollbar = Scrollbar(track=bar.track, thumb=bar.thumb, up=bar.up, down=bar.down) if bar else None
    # the hard style's mood is a badge word beside the bar (the OCR's `mood`); the plain one prints "Mood: Good"
    word = (t.mood or "").upper()
    badge = word if word and any(e.kind == "text" and e.name == word for e in t.elements) else None
    supports = [Support(bond=cast(Bond, s.bond), hint=s.hint, bounds=e.box)
                for s, e in zip(t.supports, sorted(portraits, key=lambda e: e.box.y0), strict=False)]
    return VisionOutput(width=t.width, height=t.height, buttons=unique_names(buttons), texts=texts, menu=menu,
                        scrollbar=scrollbar, cinematic=t.cinematic, gauges=gauges_of(t), mood=badge,
                        supports=supports, backend=BACKEND)


def gauges_of(t: GroundTruth) -> list[Gauge]:
    """The Energy bar (the truth's energy), and on the training screen the fill it previews after the raised
    training ("Energy after", as lluma_vision.pixels.gauges names it), where a cost is drawn."""
    caption = next((e for e in t.elements if e.kind == "text" and e.name == ENERGY), None)
    if caption is None or t.energy is None:
        return []
    # the truth has no box for the bar: the row right of its caption, where the header draws it
    box = Box(x0=caption.box.x1, y0=caption.box.y0, x1=t.width, y1=caption.box.y1)
    fills = [(ENERGY, t.energy)] + ([(f"{ENERGY} after", t.energy_after)] if t.energy_after is not None else [])
    return [Gauge(label=label, fill=max(0.0, min(1.0, n / MAX_ENERGY)), bounds=box) for label, n in fills]


def gains_of(texts: list[TextLine]) -> list[CaptionedValue]:
    """Each signed number ("+12") as the gain of the caption printed under it in its column: the nearest worded line
    below whose span holds the number's centre (the training screen draws a gain centred over its stat)."""
    out = []
    for g in texts:
        if not GAIN.match(g.text.strip()):
            continue
        cx = g.bounds.center[0]
        under = [c for c in texts if c.bounds.y0 >= g.bounds.y1 and c.bounds.x0 <= cx < c.bounds.x1
                 and any(ch.isalpha() for ch in c.text)]
        if under:
            caption = min(under, key=lambda c: c.bounds.y0)
            out.append(CaptionedValue(caption=caption.text, value=g.text.strip(), kind="gain", bounds=g.bounds))
    return out
