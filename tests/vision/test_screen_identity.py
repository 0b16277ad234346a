"""Screen identity (lluma_vision.facts.screen): the same for what a player calls the same screen, different otherwise.

Real screens: the hand groups of bench/labels/screen_groups.json (a subset: the groups that span sources and the
screens most like them), read once per module. Simulator: frames of lluma_sim.tour, whose truth names the screen.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from PIL import Image
from real_reads import cold_read, warm

from lluma_sim.game.game import HARD_VARIANTS
from lluma_sim.labelled import buttons as lab
from lluma_sim.labelled.screens import labelled_sources
from lluma_sim.tour import tour
from lluma_vision.config import VisionConfig
from lluma_vision.facts.screen import identify, signature
from lluma_vision.models import Box, Button, MenuState, TextLine, VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.menu import TabMemory

REPO = Path(__file__).resolve().parents[2]
GROUPS: dict[str, list[str]] = json.loads((REPO / "bench" / "labels" / "screen_groups.json").read_text())
SOURCES = {p.name: p for p in labelled_sources()}
# the groups that span sources or hold one screen at other turns, and the screens a player tells apart from them
READ = ("skill list", "career event", "career hub", "training", "lessons", "race list",
        "recreation dialog over the hub")
EVENTS_KEPT = 2  # of the 19 events from one source: two are enough beside the other source's two
SCALED = ("screens2/Kisegami__fp_career_hub.png", "screens/umaplay__events__event_trainee_vodka_defeat_1.png")
SCALES = (0.75, 1.5)


def _files() -> dict[str, str]:
    """"source/file" -> group, for the groups read here whose files are present."""
    out = {}
    for group in READ:
        files = [f for f in GROUPS[group] if f.split("/")[0] in SOURCES]
        if group == "career event":
            files = files[:EVENTS_KEPT] + [f for f in files if not f.startswith("screens/")]
        out.update({f: group for f in files if (SOURCES[f.split("/")[0]] / f.split("/")[1]).is_file()})
    return out


FILES = _files()
real = pytest.mark.skipif(not FILES, reason="no labelled screenshots (LLUMA_SCREENS_DIRS)")
# about 30 reads (17 real screens, 4 rescaled, ten simulator frames): under a minute on an idle machine
pytestmark = [pytest.mark.cost(seconds=102), pytest.mark.ocr, pytest.mark.timeout(1200)]


def _read(vision: Vision, image: Image.Image) -> VisionOutput:
    vision.memory = TabMemory()  # nothing remembered from the frame before
    return vision.analyze(image)


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr", cache_size=0))


@pytest.fixture(scope="module")
def real_ids() -> dict[str, str]:
    warm((SOURCES[f.split("/")[0]], f.split("/")[1]) for f in FILES)
    return {f: cold_read(SOURCES[f.split("/")[0]], f.split("/")[1]).screen.id  # type: ignore[union-attr]
            for f in FILES}


@real
def test_real_screens_of_one_group_share_an_id(real_ids: dict[str, str]) -> None:
    for group in {g for g in FILES.values()}:
        ids = {f: real_ids[f] for f, g in FILES.items() if g == group}
        assert len(set(ids.values())) == 1, (group, ids)


@real
def test_real_screens_of_different_groups_differ(real_ids: dict[str, str]) -> None:
    owner: dict[str, str] = {}
    for f, group in FILES.items():
        assert owner.setdefault(real_ids[f], group) == group, (f, group, owner[real_ids[f]])


@real
@pytest.mark.parametrize("scale", SCALES)
def test_real_screen_keeps_its_id_when_rescaled(vision: Vision, real_ids: dict[str, str], scale: float) -> None:
    for f in (f for f in SCALED if f in FILES):
        out = _read(vision, lab.image(SOURCES[f.split("/")[0]], f.split("/")[1], scale))
        assert out.screen is not None and out.screen.id == real_ids[f], (f, scale, out.screen)


SimRead = tuple[str, str, VisionOutput]  # run, the truth's screen key, the reading


@pytest.fixture(scope="module")
def sim_reads(vision: Vision) -> list[SimRead]:
    """Tour frames: the plain style at 1080x1920 (each screen at two turns, the lists also scrolled), the hard one
    letterboxed at 1080x2400 and small at 420x936 (the screens met every turn)."""
    runs = (("plain", None, {"hub", "training", "event", "skills", "confirm:Rest"}),
            ("hard", 1, {"hub", "training"}), ("hard", 0, {"hub"}))
    out = []
    for style, variant, keep in runs:
        size = HARD_VARIANTS[variant] if variant is not None else {}
        for frame in tour(seed=1, style=style, turns=4, per_screen=2 if style == "plain" else 1, **size):
            if frame.key in keep:
                out.append((f"{style}-{variant}", frame.key, _read(vision, frame.image)))
    return out


def _id(out: VisionOutput) -> str:
    assert out.screen is not None
    return out.screen.id


def test_sim_frames_of_one_screen_share_an_id_across_turns_and_styles(sim_reads: list[SimRead]) -> None:
    for key in {k for _run, k, _out in sim_reads}:
        ids = {(run, _id(out)) for run, k, out in sim_reads if k == key}
        assert len({i for _run, i in ids}) == 1, (key, ids)
    assert {run for run, _k, _out in sim_reads} == {"plain-None", "hard-1", "hard-0"}


def test_sim_screens_differ(sim_reads: list[SimRead]) -> None:
    owner: dict[str, str] = {}
    for _run, key, out in sim_reads:
        assert owner.setdefault(_id(out), key) == key, (key, owner[_id(out)])
    assert len(owner) == 5


def test_the_reading_carries_the_id_identify_gives_it_again(sim_reads: list[SimRead]) -> None:
    """A turn log's VisionOutput identifies again to the same screen (a letterboxed frame too)."""
    out = next(out for run, key, out in sim_reads if run == "hard-1" and key == "hub")
    again = VisionOutput.model_validate_json(out.model_dump_json())
    assert out.screen is not None and identify(again) == out.screen
    assert out.screen.name == "Career"


# --- synthetic readings: what changes and what does not -----------------------------------------------------

def _text(text: str, x0: float, y0: float, x1: float, y1: float, w: int = 1080, h: int = 1920) -> TextLine:
    return TextLine(text=text, bounds=Box(x0=round(x0 * w), y0=round(y0 * h), x1=round(x1 * w), y1=round(y1 * h)))


def _button(name: str, x0: float, y0: float, x1: float, y1: float, w: int = 1080, h: int = 1920) -> Button:
    return Button(name=name, bounds=Box(x0=round(x0 * w), y0=round(y0 * h), x1=round(x1 * w), y1=round(y1 * h)),
                  region="top" if y0 < 0.15 else "bottom" if y0 > 0.85 else "middle")


def training(title: str = "Training", turn: int = 12, speed: int = 434, date: str = "Classic Year Late Dec",
             selected: str = "Guts") -> VisionOutput:
    """A training screen as the offline reading gives it: header, date, goal, stats, the five trainings."""
    return VisionOutput(
        width=1080, height=1920,
        texts=[_text(title, 0.03, 0.01, 0.15, 0.03), _text(f"{turn} turn(s) left", 0.02, 0.06, 0.2, 0.1),
               _text(f"Speed {speed}/1200", 0.02, 0.7, 0.2, 0.73), _text(f"{selected} Lvl 3", 0.02, 0.18, 0.2, 0.2)],
        buttons=[_button(date, 0.22, 0.03, 0.53, 0.06), _button("Details", 0.85, 0.06, 0.98, 0.09)]
        + [_button(s, 0.05 + 0.19 * i, 0.8, 0.2 + 0.19 * i, 0.85) for i, s in
           enumerate(("Speed", "Stamina", "Power", "Guts", "Wit"))]
        + [_button("Back", 0.02, 0.9, 0.15, 0.95)],
        menu=MenuState(usable=True, tabs=["Back", "Skip", "Quick", "Log"]),
    )


def test_numbers_date_and_selection_changed_keep_the_identity() -> None:
    a, b = training(), training(turn=3, speed=1021, date="Senior Year Early Jan", selected="Speed")
    assert identify(a) == identify(b)
    assert identify(a).name == "Training"


def test_another_header_is_another_screen() -> None:
    assert identify(training()).id != identify(training(title="Race List")).id


def test_a_dialog_over_the_screen_is_another_screen() -> None:
    """A confirmation over a screen whose header the blur hides: its title, centred over Cancel and OK."""
    dialog = training().model_copy(update={
        "texts": [_text("Rest", 0.45, 0.38, 0.55, 0.41), _text("Rest for this turn?", 0.3, 0.45, 0.7, 0.48)],
        "buttons": [_button("Cancel", 0.12, 0.55, 0.48, 0.6), _button("OK", 0.52, 0.55, 0.88, 0.6)], "menu": None})
    assert identify(dialog).id != identify(training()).id and identify(dialog).name == "Rest"


def test_a_dialog_is_another_screen_even_where_the_header_under_it_still_reads() -> None:
    rest = [_text("Rest", 0.45, 0.38, 0.55, 0.41), _text("Rest for this turn?", 0.3, 0.45, 0.7, 0.48)]
    closing = [_button("Cancel", 0.12, 0.55, 0.48, 0.6), _button("OK", 0.52, 0.55, 0.88, 0.6)]
    hub = training(title="Career")
    over = hub.model_copy(update={"texts": hub.texts[:1] + rest, "buttons": closing, "menu": None})
    assert identify(over).name == "Rest" and identify(over).id != identify(hub).id


def test_the_id_is_a_stable_hash_of_the_signature_not_pythons_hash() -> None:
    sig, _name = signature(training())
    assert identify(training()).id == hashlib.sha1(sig.encode(), usedforsecurity=False).hexdigest()[:10]
    assert identify(training()) == identify(training().model_copy(deep=True))


def story_page(*lines: str, choices: tuple[str, ...] = ()) -> VisionOutput:
    """An event's story page as the sim's hard style reads: title, choices (plates read as text) and the text box."""
    texts = [_text("Event", 0.03, 0.02, 0.15, 0.05), _text("Premeditated Mischief", 0.04, 0.13, 0.45, 0.15)]
    texts += [_text(c, 0.07, 0.42 + 0.085 * i, 0.78, 0.45 + 0.085 * i) for i, c in enumerate(choices)]
    texts += [_text(t, 0.14, 0.68 + 0.046 * i, 0.86, 0.705 + 0.046 * i) for i, t in enumerate(lines)]
    return VisionOutput(width=1080, height=1920, cinematic="dialogue", texts=texts,
                        buttons=[_button("Skip", 0.22, 0.9, 0.48, 0.96), _button("Quick", 0.52, 0.9, 0.78, 0.96)])


def test_a_story_page_that_shows_its_choices_is_another_screen_than_its_other_pages() -> None:
    """A routine pass moves a story on; the page with the event's choices is a decision, so it needs its own id."""
    plain = identify(story_page("Sweep giggles behind the equipment shed,", "pretending not to know."))
    other = identify(story_page("You both ring the bell and make a wish for the", "season."))
    choosing = identify(story_page("Sweep giggles behind the equipment shed,", "pretending not to know.",
                                   choices=("Join in and set up a secret obstacle course.",
                                            "Ask her to help put everything back properly.")))
    assert plain == other and plain.kind == "cinematic"
    assert choosing.id != plain.id and choosing.name == "dialogue (choices)"


def test_identity_says_what_it_keyed_on() -> None:
    assert identify(training()).kind == "title"
    dialog = training().model_copy(update={
        "texts": [_text("Rest", 0.45, 0.38, 0.55, 0.41), _text("Rest for this turn?", 0.3, 0.45, 0.7, 0.48)],
        "buttons": [_button("Cancel", 0.12, 0.55, 0.48, 0.6), _button("OK", 0.52, 0.55, 0.88, 0.6)], "menu": None})
    assert identify(dialog).kind == "dialog"
