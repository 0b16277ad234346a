"""The facts a decision needs, on the real screenshots: the energy gauge, captioned values, the mood, greyed-out
buttons and the decision facts (date, goal, the raised training and its cards, a list's rows), scored as
bench/vision.py scores them (lluma_sim.labelled.facts) against bench/labels/*.facts.json.

Floors are counts over every labelled fact of a source (today's figures, measured with `bench/vision.py --no-sim`
before the round that added these tests), so a change that loses one fails here, beside the button floors of
test_vision_real.py. A source without floors of its own (a held-back folder with its facts file) is held to the
weakest share of the known sources, over all its labelled facts, and must read every energy gauge. No true value may be
marked doubtful (lluma_vision.facts.checks).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from real_reads import cold_read

from lluma_sim.labelled import facts as fact_labels
from lluma_sim.labelled.facts import FactScore
from lluma_sim.labelled.screens import facts_path, labelled_sources

SOURCES = [f for f in labelled_sources() if fact_labels.load(facts_path(f.name))]
pytestmark = [pytest.mark.ocr, pytest.mark.skipif(not SOURCES, reason="no labelled screenshots with facts"),
              pytest.mark.timeout(1200)]

# source: (energy gauges, values, moods, disabled buttons) read at 1x, and the most buttons marked disabled that are not
# (bench/vision.py --no-sim on 2612053, before round 4: screens 19/19, 25/26, 19/19, 41/44 +3; screens2 8/8, 106/113,
# 8/8, 7/14 +3; values 26/26 and 107/113 since captions are given as printed: "Sleill Pts", "Staminai")
FLOORS: dict[str, tuple[int, int, int, int, int]] = {
    "screens": (19, 26, 19, 41, 3),
    "screens2": (8, 107, 8, 7, 3),
}
TOTALS = {  # the labelled facts behind those floors: a floor is a share of these for a source without its own
    "screens": (19, 26, 19, 44),
    "screens2": (8, 113, 8, 14),
}


# source: the decision facts read at 1x (the date, the goal with its status word for word, the raised training, its
# cards, each row of a list), of (41, 26) labelled; 34 and 19 on 1dc20ab, the start of stop 48
DECISIONS = {"screens": 41, "screens2": 26}
DECISION_TOTALS = {"screens": 41, "screens2": 26}



@pytest.fixture(scope="module")
def scores() -> dict[str, FactScore]:
    """Every screen with labelled facts read once, cold (no tab bar remembered from the one before)."""
    out = {}
    for folder in SOURCES:
        facts = fact_labels.load(facts_path(folder.name))
        readings = []
        for name in sorted(n for n, want in facts.items() if fact_labels.has_facts(want) and (folder / n).is_file()):
            readings.append((name, cold_read(folder, name)))
        out[folder.name] = fact_labels.score(readings, facts)
    return out


def _floors(folder: Path, s: FactScore) -> tuple[int, int, int, int, int]:
    if folder.name in FLOORS:
        return FLOORS[folder.name]
    share = [min(FLOORS[k][i] / max(1, TOTALS[k][i]) for k in FLOORS) for i in range(4)]
    counts = (s.gauges, s.values, s.moods, s.disabled)
    _, v, m, d = (math.floor(share[i] * counts[i]) for i in range(4))
    return s.gauges, v, m, d, max(f[4] for f in FLOORS.values())  # every energy gauge read


@pytest.mark.parametrize("folder", SOURCES, ids=lambda p: p.name)
def test_every_source_keeps_its_facts(scores: dict[str, FactScore], folder: Path) -> None:
    s = scores[folder.name]
    gauges, values, moods, disabled, false = _floors(folder, s)
    print(folder.name, s.figures())
    assert s.gauges_read >= gauges, s.misses
    assert s.values_read >= values, s.misses
    assert s.moods_read >= moods, s.misses
    assert s.disabled_read >= disabled, s.misses
    assert s.disabled_false <= false


@pytest.mark.parametrize("folder", SOURCES, ids=lambda p: p.name)
def test_every_source_keeps_its_decision_facts(scores: dict[str, FactScore], folder: Path) -> None:
    """A source without a floor of its own (a held-back folder) is held to the weakest share of the known ones."""
    s = scores[folder.name]
    share = min(DECISIONS[k] / DECISION_TOTALS[k] for k in DECISIONS)
    floor = DECISIONS.get(folder.name, math.floor(share * s.decisions))
    keys = (*fact_labels.DECISION_KEYS, "row")
    assert s.decisions_read >= floor, [m for m in s.misses if any(f": {k}" in m for k in keys)]


@pytest.mark.parametrize("folder", SOURCES, ids=lambda p: p.name)
def test_no_true_value_is_marked_doubtful(scores: dict[str, FactScore], folder: Path) -> None:
    s = scores[folder.name]
    assert s.values_read > 0
    assert s.values_doubtful == 0, [m for m in s.misses if "doubtful" in m]
