"""A fact's caption as the game prints it (facts/captions.py): the misreads the OCR makes of the career screens'
captions on the real screenshots at 0.4x-2x are given in the game's words; every other caption stays as read; and
on rescaled real screens the calendar's count keeps its caption, so the grammar checks and the model find it."""

from __future__ import annotations

import pytest

from lluma_sim.labelled import buttons as lab
from lluma_sim.labelled import facts as fact_labels
from lluma_sim.labelled.screens import facts_path, screens_dir
from lluma_vision.config import VisionConfig
from lluma_vision.facts.captions import as_printed, gauge_label
from lluma_vision.facts.compact import compact
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.menu import TabMemory

# (as read, as printed): read off screens and screens2 at 0.4x-2x (bench/vision.py's scales and 0.575x, 2x)
MISREADS = [("tun(s) left", "turn(s) left"), ("tum(s) left", "turn(s) left"), ("turn(shleft", "turn(s) left"),
            ("turn(s}left", "turn(s) left"), ("turns) left", "turn(s) left"), ("Sleill Pts", "Skill Pts"),
            ("Skill Pls", "Skill Pts"), ("Staminai", "Stamina"), ("Powcr", "Power"), ("Spued", "Speed"),
            ("Enegy", "Energy"), ("Eneigy", "Energy"), ("Erergy", "Energy")]
# the other captions read there, each as it must stay: the simulator's count of skills learned at a career's end
# ("Skills" reads 80 like "Skill Pts"), a tile's level, an event's or a list's words, a scenario's badges, two
# letters too few to tell
OTHERS = ["Skills", "Skill", "Staminai Lvl", "Speed Lvl", "Guts Lvl", "Skip", "Spin", "Legacy", "Story",
          "Friendship Gauge", "Concertin turn(s)", "Performance Point Cost", "Remaining Performance Points", "Amount",
          "Hint Lyl", "TW", "Wi", "Da", "fans", "Stories", "TEAM-RANK", "Support Chain Event Frequency"]


@pytest.mark.parametrize(("read", "printed"), MISREADS)
def test_a_misread_caption_is_given_as_the_game_prints_it(read: str, printed: str) -> None:
    assert as_printed(read) == printed


@pytest.mark.parametrize("read", OTHERS)
def test_any_other_caption_stays_as_read(read: str) -> None:
    assert as_printed(read) == read


def test_the_energy_bars_after_twin_keeps_its_word() -> None:
    assert gauge_label("Erergy after") == "Energy after"
    assert gauge_label("Energy after") == "Energy after" and gauge_label("gauge") == "gauge"


SCREENS = screens_dir()
EVENTS = sorted(n for n, want in fact_labels.load(facts_path("screens")).items()
                if n.startswith("umaplay__events__") and want.get("values"))


@pytest.mark.ocr
@pytest.mark.cost(seconds=20)
@pytest.mark.skipif(not EVENTS or not all((SCREENS / n).is_file() for n in EVENTS),
                    reason="the shared screenshots are not here")
def test_the_calendars_count_keeps_its_caption_at_three_quarters() -> None:
    """umaplay's event crops at 0.75x (536 px wide): the OCR reads "tun(s) left" or "tum(s) left" on 17 of 18; each
    count must reach the model under the game's caption, with its number (the labelled one)."""
    vision = Vision(VisionConfig(backend="ocr", cache_size=0))
    labels = fact_labels.load(facts_path("screens"))
    wrong = []
    for name in EVENTS:
        vision.memory = TabMemory()
        seen = compact(vision.analyze(lab.image(SCREENS, name, 0.75))).values or {}
        want = labels[name]["values"][0]
        if seen.get("turn(s) left") != want["value"]:
            wrong.append((name, seen))
    assert not wrong, wrong
