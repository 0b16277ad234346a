"""A scrolling list's rows, each as one item in the compact reading (facts/rows.py): a race row's grade, track line
and fans together, a skill row's name, hint, cost and "Obtained" together; on the real lists (screens2's, and
screens' held out when ROW_GAP was chosen) and on the simulator's Learn list at the frame sizes the demo uses."""

from __future__ import annotations

import pytest
from real_reads import cold_read

from lluma_sim.game import SimGame
from lluma_sim.game.content import SKILLS
from lluma_sim.game.game import HARD_VARIANTS
from lluma_sim.labelled.screens import screens_dir
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact
from lluma_vision.facts.rows import SEP
from lluma_vision.pipeline import Vision

SCREENS = screens_dir()
SCREENS2 = SCREENS.parent / "screens2"
# (folder, file): each row in view, top first, as the words it must hold together (labelled by eye from the pictures)
LISTS = {
    (SCREENS2, "Staticwitt__race_list.png"): [
        ("Pre-OP", "Hanshin Turf 1600m (Mile) Right / Outer", "Senryo Sho", "+1,000 fans"),
        ("Nakayama Turf 2000m (Med) Right / Inner", "Hopeful Stakes", "+7,000 fans")],  # its G1 badge is covered
    (SCREENS2, "Staticwitt__skills_learn.png"): [
        ("Obtained",), ("Corner Recovery", "Hint Lvl 2", "Obtained"),
        ("Rushing Gale!", "Hint Lvl 1", "10% OFF!", "255"),
        ("Straightaway Acceleration", "Hint Lvl Max", "40%OFF!", "102")],
    (SCREENS, "lluma__primary_scrollbars__missions_scrollbar_mid.png"): [  # held out
        ("Slick Surge", "180"), ("Updrafters", "160"), ("Front Runner Corners", "Hint Lvl 1", "10%OFF!", "117")],
    # a white card on the white list (its bottom border unseen) over two grey ones, under a tab strip of the list's
    # width: the cards part at the grey card's top, and the strip and the band under the list are no rows
    (SCREENS, "lluma__primary_scrollbars__missions_scrollbar_offset.png"): [
        ("Win a race in Career", "Attempt", "0/1"), ("Run in a Daily Race", "Attempt", "0/1"),
        ("Run in 3 Daily Races", "Attempt", "0/3")],
}
pytestmark = [pytest.mark.ocr, pytest.mark.skipif(not (SCREENS / "labels.json").is_file() or not SCREENS2.is_dir(),
                                                  reason="the shared screenshots are not here")]


@pytest.mark.parametrize(("where", "want"), LISTS.items(), ids=[name for _, name in LISTS])
def test_a_real_lists_rows_are_one_item_each(where: tuple[object, str], want: list[tuple[str, ...]]) -> None:
    folder, name = where
    rows = compact(cold_read(folder, name)).rows  # type: ignore[arg-type]
    assert len(rows) == len(want), rows
    for row, words in zip(rows, want, strict=True):
        assert all(w in row for w in words), (row, words)


# the thin scrollbar beside a list, in the picture's pixels: painted out with the ground right of it. (The Learn
# list is left out: painted, the recogniser splits its "40% OFF!" and the values stage reads "40%" as a value
# captioned "Hint Lvl Max OFF!", a reading the rows cannot mend.)
BARS = {(SCREENS2, "Staticwitt__race_list.png"): (1044, 1040, 1058, 1530),
        (SCREENS, "lluma__primary_scrollbars__missions_scrollbar_mid.png"): (908, 510, 918, 1100)}


@pytest.mark.parametrize("where", list(BARS), ids=[name for _, name in BARS])
def test_a_list_of_cards_is_read_as_rows_without_its_scrollbar(where: tuple[object, str]) -> None:
    """Issue 54: the rows are the cards themselves (their borders), whether or not a scrollbar is found beside them;
    the race list's first card's top is cut by its "Recommended!" ribbon, its second's by the rival's portrait."""
    import numpy as np
    from PIL import Image

    from lluma_sim.labelled import buttons as lab

    folder, name = where
    rgb = np.asarray(lab.image(folder, name)).copy()  # type: ignore[arg-type]
    x0, y0, x1, y1 = BARS[where]  # type: ignore[index]
    rgb[y0:y1, x0:x1] = rgb[y0:y1, x1:x1 + 1]
    out = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(Image.fromarray(rgb))
    assert out.scrollbar is None  # the bar is gone: the rows come from the cards
    rows = compact(out).rows
    want = LISTS[where]  # type: ignore[index]
    assert len(rows) == len(want), rows
    for row, words in zip(rows, want, strict=True):
        assert all(w.replace(" ", "") in row.replace(" ", "") for w in words), (row, words)


def test_no_rows_without_a_list() -> None:
    for name in ("dhrpf__training_guts.png", "Kisegami__fp_career_hub.png"):
        assert compact(cold_read(SCREENS2, name)).rows == []


@pytest.mark.cost(seconds=10)
@pytest.mark.parametrize(("style", "variant"), [("plain", None), ("hard", 1), ("hard", 2)])
def test_the_simulators_learn_list_reads_a_row_per_skill(style: str, variant: int | None) -> None:
    g = SimGame(seed=variant or 0, style=style, max_turns=78,  # type: ignore[arg-type]
                **(HARD_VARIANTS[variant] if variant is not None else {}))
    for name in ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!", "Skills"):
        g.tap(*next(e for e in g.truth().elements if e.name == name and e.kind != "text" and e.enabled).box.center)
        while g.truth().cinematic in ("loading", "cutscene"):
            g.capture()
    rows = compact(Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(g.capture())).rows
    shown = {e.row for e in g.truth().elements if e.kind == "text" and e.row is not None}
    assert len(rows) == len(shown), rows
    for row, skill in zip(rows, SKILLS, strict=False):  # the list's top rows: its first skills, unscrolled
        name, *rest = row.split(SEP)
        assert name.replace(" ", "") == skill.name.replace(" ", ""), row
        assert any(part.removesuffix(" pt") == str(skill.cost) for part in rest), (row, skill.cost)


def test_a_vlms_names_join_their_row_and_an_icons_does_not() -> None:
    """Drawn: two skill cards beside a scrollbar, the names read by a VLM, a "+" stepper found as an icon."""
    from lluma_vision.models import Box, Button, Scrollbar, TextLine, VisionOutput

    def box(x0: int, y0: int, x1: int, y1: int) -> Box:
        return Box(x0=x0, y0=y0, x1=x1, y1=y1)

    out = VisionOutput(
        width=1080, height=1920, scrollbar=Scrollbar(track=box(1040, 700, 1050, 1500), thumb=box(1040, 700, 1050, 900),
                                                     up=False, down=True),
        buttons=[Button(name="Corner Recovery", bounds=box(200, 760, 700, 820), source="vlm"),
                 Button(name="Plus", bounds=box(900, 760, 980, 820), source="heuristic"),
                 Button(name="Rushing Gale!", bounds=box(200, 1000, 700, 1060), source="vlm")],
        texts=[TextLine(text="120", bounds=box(800, 770, 880, 810)),
               TextLine(text="255", bounds=box(800, 1010, 880, 1050))])
    assert compact(out).rows == ["Corner Recovery | 120", "Rushing Gale! | 255"]
