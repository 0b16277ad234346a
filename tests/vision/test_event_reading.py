"""An event as the event book and the standing choices key it: its title and its choices, on the real event
screenshots and on the simulator's event at the frame sizes the demo uses.

On a phone every event was keyed "Career" (the header) or "Trainee Event" (its kind's label), and its "choices"
held the date, the goal and the title plate (real events read them as buttons): one standing choice could name
them all. The choices are now the column of plates, the title the nearest name above it.

Floors are counts of labelled events per source (today's figures); a source without floors of its own (a held-back
folder) is held to the weakest share of the known ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from rapidfuzz import fuzz
from real_reads import cold_read

from lluma_sim import game
from lluma_sim.game.content import EVENTS
from lluma_sim.labelled import buttons as lab
from lluma_sim.labelled.screens import labelled_sources
from lluma_vision.config import VisionConfig
from lluma_vision.facts.plates import CHOICE_WIDTH
from lluma_vision.facts.story import event_choices, event_title
from lluma_vision.models import Box, Button, Region, VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = [pytest.mark.ocr, pytest.mark.timeout(1200)]

SOURCES = [f for f in labelled_sources() if any(v.get("kind") == "event" for v in lab.load(f).values())]
# source: (labelled events, events whose choices read as labelled, events whose title reads as a name), measured
# when event_title took a title plate read as a button (before: 0 titles, 0 choice lists without the date or title)
FLOORS = {"screens": (18, 18, 18), "screens2": (2, 2, 2)}
SAME = 80  # rapidfuzz ratio: an OCR variant of a labelled choice ("Speak with moreinflection!")
NOT_NAMES = {"career", "trainee event", "support card event", "energy", "event"}


def _labelled_choices(label: dict[str, Any], width: int) -> list[str]:
    """The labelled buttons as wide as a choice plate: an event's choices."""
    return [b["name"] for b in label["buttons"] if b["box"][2] - b["box"][0] >= CHOICE_WIDTH * width]


def _choices_read(out: VisionOutput, want: list[str]) -> bool:
    """Every labelled choice read as one, and nothing above the column taken for one: the header's date and goal,
    the title plate. (A label may miss a choice: the shrine visit's labels skip its first of three plates.)"""
    got = event_choices(out)
    above = min((box.y0 for name, box in got if any(fuzz.ratio(name, w) >= SAME for w in want)), default=0)
    return bool(want) and all(any(fuzz.ratio(g, w) >= SAME for g, _ in got) for w in want) and all(
        box.y0 >= above - 2 * box.height for _, box in got)


def _a_name(title: str, label: dict[str, Any]) -> bool:
    """A title that names an event: read, no header or kind's label, none of the screen's choices or buttons."""
    return bool(title) and title.casefold() not in NOT_NAMES and not any(
        fuzz.ratio(title, b["name"]) >= SAME for b in label["buttons"])


@pytest.fixture(scope="module")
def counts() -> dict[str, tuple[int, int, int, list[str]]]:
    out = {}
    for folder in SOURCES:
        labels = {n: v for n, v in lab.load(folder).items() if v.get("kind") == "event"}
        choices = titles = 0
        read: list[str] = []
        for name, label in sorted(labels.items()):
            vision = cold_read(folder, name)
            choices += _choices_read(vision, _labelled_choices(label, vision.width))
            title = event_title(vision)
            titles += _a_name(title, label)
            read.append(title)
        out[folder.name] = (len(labels), choices, titles, read)
    return out


@pytest.mark.skipif(not SOURCES, reason="no labelled event screenshots")
def test_real_events_read_their_choices_and_title(counts: dict[str, tuple[int, int, int, list[str]]]) -> None:
    known = [FLOORS[s] for s in counts if s in FLOORS]
    weakest = min(min(c / n, t / n) for n, c, t in known) if known else 1.0
    for source, (n, choices, titles, read) in counts.items():
        if source in FLOORS:
            assert (n, choices, titles) >= FLOORS[source], (source, n, choices, titles, read)
        else:
            assert choices >= weakest * n and titles >= weakest * n, (source, n, choices, titles, read)
        named = [t for t in read if t]
        assert len(set(named)) == len(named), f"two events of {source} share a title: {read}"


@pytest.mark.cost(seconds=15)
@pytest.mark.parametrize("style, seed", [("plain", 0), ("hard", 1), ("hard", 2)])  # 1080x1920; 1080x2400 and
# 420x936, both letterboxed
def test_sim_event_title_as_shown(style: str, seed: int) -> None:
    """A title that reads like a sentence, or holds a chain's step, is the event's name (both were refused, and
    the sim's events all keyed "Event" or "Energy")."""
    vision = Vision(VisionConfig(backend="ocr", cache_size=0))
    for ev in (next(e for e in EVENTS if e.title == "New Year Shrine Visit"),
               next(e for e in EVENTS if "(1/2)" in e.title)):
        g = game.SimGame(seed=seed) if style == "plain" else game.SimGame.hard(seed=seed)
        g.state.event, g.state.page, g.state.screen = ev, len(ev.pages), "event"  # its last page: the choices
        out = vision.analyze(g.capture())
        assert event_title(out) == ev.title
        got = [name for name, _ in event_choices(out)]
        assert len(got) == len(ev.choices) and all(fuzz.ratio(name, c.text) >= SAME
                                                   for name, c in zip(got, ev.choices, strict=True)), got


def test_choice_plates_leave_the_title_plate_out() -> None:
    """Drawn: a header's date, the title plate a page above, and two choice plates: the choices are the two."""
    def plate(name: str, y0: float, x0: float = 0.32, x1: float = 0.83, region: Region = "middle") -> Button:
        return Button(name=name, region=region, bounds=Box(x0=round(x0 * 714), y0=round(y0 * 803),
                                                           x1=round(x1 * 714), y1=round((y0 + 0.073) * 803)))

    out = VisionOutput(width=714, height=803, buttons=[
        plate("Junior Year Late Dec", 0.031, 0.27, 0.5, "top"),
        plate("Support Card Event Unforeseen Lunch", 0.157, 0.25, 0.64),
        plate("Very mature.", 0.558), plate("Uh...", 0.660),
        plate("Skip", 0.959, 0.53, 0.6, "bottom")])
    assert [name for name, _ in event_choices(out)] == ["Very mature.", "Uh..."]
    assert event_title(out) == "Unforeseen Lunch"
    out.buttons[2].bounds = Box(x0=out.buttons[2].bounds.x0 - 90, y0=out.buttons[2].bounds.y0,
                                x1=out.buttons[2].bounds.x1, y1=out.buttons[2].bounds.y1)  # centred on its text
    assert [name for name, _ in event_choices(out)] == ["Very mature.", "Uh..."]
