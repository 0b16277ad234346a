"""The career's date and its goal with its status, one fact each in the compact reading (facts/career.py), on the
real screenshots (labelled here by eye from the pictures) and on drawn near misses. The simulator's, at every frame
size the demo uses, are held in test_raised.py beside the raised training."""

from __future__ import annotations

import pytest
from real_reads import cold_read

from lluma_sim.labelled.screens import screens_dir
from lluma_vision.facts.career import date_of, goal_of, spaced
from lluma_vision.facts.compact import compact
from lluma_vision.models import Box, Button, TextLine, VisionOutput

SCREENS = screens_dir()
SCREENS2 = SCREENS.parent / "screens2"
MET = "Entry criteria met!"
# (folder, file): (the date, the goal, its status) as the picture prints them
HEADERS = {
    (SCREENS, "umaplay__events__event_trainee_vodka_new_year_shrine_visit.png"):
        ("Senior Year Early Jan", "Place top 3 in Victoria Mile", MET),
    (SCREENS, "umaplay__events__event_support_kitasan_ah_friendship.png"):
        ("Classic Year Early Dec", "Run in Arima Kinen", MET),
    (SCREENS, "umaplay__lobby_stats_01_low_res.png"): ("Classic Year Late Apr", "Place top 5 in Japanese Derby", MET),
    (SCREENS2, "dhrpf__training_guts.png"): ("Classic Year Late Dec", "Place 1st in Takarazuka Kinen", MET),
    (SCREENS2, "Staticwitt__race_list.png"): ("Junior Year Late Dec", "Place top 5 in Tulip Sho", MET),
    (SCREENS2, "mrhorseshoe__77_skill_choice_event.png"):
        ("Senior Year Early Nov", "Place 1st in URA Finale Qualifier", MET),  # "EX" for "Goal" in the finale
    # before the debut: no status line; read "RuninJuniorMakeDebut", "Run inJunior Make Debut"
    (SCREENS2, "Kisegami__fp_career_hub.png"): ("Junior Year Pre-Debut", "Run in Junior Make Debut", None),
    (SCREENS2, "mrhorseshoe__35_training_select.png"): ("Junior Year Pre-Debut", "Run in Junior Make Debut", None),
    (SCREENS2, "mrhorseshoe__13_main_menu_active.png"): ("Junior Year Pre-Debut", "Run in Junior Make Debut", None),
}
# read right, word for word (today's figures): the low-resolution hub's date (414 px wide, 8 px letters, read
# "Clmsk Ya LsteApr") by the one date it reads like; the goals spaced and "1st" as printed (read "Place lst in")
DATES_RIGHT, GOALS_RIGHT = 9, 9
NO_HEADER = [(SCREENS2, "Kisegami__fp_home.png"), (SCREENS2, "mrhorseshoe__01_scenario_select_a.png"),
             (SCREENS, "lluma__primary_scrollbars__missions_scrollbar_offset.png")]  # "Win a race in Career": a
# mission, no goal
pytestmark = [pytest.mark.ocr, pytest.mark.skipif(not (SCREENS / "labels.json").is_file() or not SCREENS2.is_dir(),
                                                  reason="the shared screenshots are not here")]


def test_the_real_headers_date_and_goal_are_one_fact_each() -> None:
    dates = goals = 0
    for (folder, name), (date, goal, status) in HEADERS.items():
        seen = compact(cold_read(folder, name))
        dates += seen.date == date
        right = seen.goal is not None and seen.goal.text == goal and seen.goal.status == status
        goals += right
        assert seen.date in (date, None), (name, seen.date)  # a date read is the picture's
    assert (dates, goals) >= (DATES_RIGHT, GOALS_RIGHT)
    for folder, name in NO_HEADER:
        seen = compact(cold_read(folder, name))
        assert seen.goal is None and seen.date is None, (name, seen.goal, seen.date)


def _out(*items: tuple[str, tuple[int, int, int, int], str]) -> VisionOutput:
    """Buttons ("b") and read lines ("t") at their boxes on a 720 x 1280 frame."""
    return VisionOutput(width=720, height=1280, buttons=[
        Button(name=n, bounds=Box.model_validate(b), region="top") for n, b, kind in items if kind == "b"],
        texts=[TextLine(text=n, bounds=Box.model_validate(b)) for n, b, kind in items if kind == "t"])


def test_a_goal_split_by_the_reading_is_put_together() -> None:
    """The badge, its text a button of its own, the status a line under it: one goal; the date spaced as printed."""
    out = _out(("ClassicYear LateDec", (170, 45, 380, 70), "t"), ("Goal", (160, 85, 230, 130), "b"),
               ("Place lst in Takarazuka Kinen", (240, 80, 520, 105), "b"), ("Entry criteria met", (240, 110, 410, 130),
                                                                               "t"))
    assert date_of(out) == "Classic Year Late Dec"
    goal = goal_of(out)
    assert goal is not None and (goal.text, goal.status) == ("Place 1st in Takarazuka Kinen", MET)


@pytest.mark.parametrize(("items", "why"), [
    ([("Place top 5 in Tulip Sho", (240, 80, 520, 105), "b")], "a goal's words with no badge"),
    ([("Goal", (160, 85, 230, 130), "b"), ("Details", (560, 85, 650, 125), "b")], "a badge with no goal's words"),
    ([("Goal", (160, 85, 230, 130), "b"), ("Win a race in Career", (240, 600, 520, 640), "b")],
     "a goal's words far under the badge (a mission)"),
])
def test_near_misses_read_no_goal(items: list[tuple[str, tuple[int, int, int, int], str]], why: str) -> None:
    assert goal_of(_out(*items)) is None, why


@pytest.mark.parametrize(("read", "printed"), [
    ("Run inJuniorMakeDebut", "Run in Junior Make Debut"), ("RuninJunior MakeDebut", "Run in Junior Make Debut"),
    ("Place lst in Takarazuka Kinen", "Place 1st in Takarazuka Kinen"), ("Place top 3in Victoria Mile",
                                                                          "Place top 3 in Victoria Mile"),
    ("Place 1st inURA Finale Qualifier", "Place 1st in URA Finale Qualifier"), ("Earn10000 fans", "Earn 10000 fans"),
    ("Place top 5 in Hanshin J.F.", "Place top 5 in Hanshin J.F."), ("60 Result Pts", "60 Result Pts"),
])
def test_a_goals_words_are_spaced_as_printed(read: str, printed: str) -> None:
    assert spaced(read) == printed


def test_a_garbled_date_over_the_badge_reads_as_the_one_date_it_resembles() -> None:
    badge = [("Goal", (173, 32, 196, 54), "b"), ("Place top 5 in Japanese Derby", (199, 33, 314, 46), "t")]
    assert date_of(_out(("Clmsk Ya LsteApr", (83, 19, 191, 31), "b"), *badge)) == "Classic Year Late Apr"
    # a line under the badge's top (the goal's row, the energy's), or one like two dates alike, is no date
    assert date_of(_out(("Clmsk Ya LsteApr", (83, 60, 191, 72), "b"), *badge)) is None
    assert date_of(_out(("Classic Year Late", (83, 19, 191, 31), "b"), *badge)) is None


@pytest.mark.parametrize(("line", "date"), [
    ("ClassieYesr Lste Mar", "Classic Year Late Mar"), ("Senior Yesr Late Noy", "Senior Year Late Nov"),
    ("Junior Yesr Early Jul", "Junior Year Early Jul"),  # umaplay's events at 0.75x
    ("JorioYaFay d", None), ("Chrsie Yee Loe Dee", None),  # at 0.575x: a month of one letter, a year unclear
    ("Place top 5 in Oka Sho", None), ("Run in Arima Kinen", None),
])
def test_a_garbled_date_is_read_word_by_word_or_not_at_all(line: str, date: str | None) -> None:
    badge = [("Goal", (211, 33, 252, 61), "b")]
    assert date_of(_out((line, (141, 18, 246, 34), "b"), *badge)) == date


def test_a_goal_read_with_its_status_on_one_line_and_a_badge_with_its_icons_letter() -> None:
    """At 0.75x and 1.5x the OCR joins the goal and its status, and reads the swirl before the badge as "C"."""
    for badge in ("CEX", "C-Goal"):
        out = _out((badge, (226, 136, 314, 172), "b"),
                   ("Place top 5 in Oka Sho Entry criteriamet!", (354, 112, 830, 156), "t"))
        goal = goal_of(out)
        assert goal is not None and (goal.text, goal.status) == ("Place top 5 in Oka Sho", MET), badge
