"""A list drawn as cards (pixels/cards.py): the cards found by their borders, a ribbon over a card's top cutting one
end of it, the first and last cards cut by the list's viewport, and a thin scrollbar beside a short list (issue 54).
Drawn frames, read without the recogniser (the lines are given)."""

from __future__ import annotations

import numpy as np

from lluma_vision.geometry import Rect
from lluma_vision.pixels.cards import find_cards
from lluma_vision.pixels.heuristics import scrollbar
from lluma_vision.pixels.ocr import Line

W, H = 720, 1280
GROUND, CARD, EDGE = (248, 247, 251), (255, 255, 255), (200, 198, 210)


def _line(text: str, x0: int, y0: int, x1: int, y1: int) -> Line:
    return Line(text=text, box=Rect(x0, y0, x1, y1), conf=0.9)


def _list(tops: list[int], tall: int = 120, ribbon: int | None = None, right: int = 684
          ) -> tuple[np.ndarray, list[Line]]:
    """A pale list of white cards 36-684 wide with a 2 px border, a name and a detail on each; `ribbon`: the k-th
    card's top border covered on its right by a ribbon."""
    rgb = np.full((H, W, 3), GROUND, np.uint8)
    lines: list[Line] = []
    for k, top in enumerate(tops):
        rgb[top:top + tall, 36:right] = EDGE
        rgb[top + 2:top + tall - 2, 38:right - 2] = CARD
        lines += [_line(f"Race {k}", 60, top + 20, 300, top + 50), _line("+1,000 fans", 300, top + 70, 500, top + 100)]
        if ribbon == k:
            rgb[top - 12:top + 14, 520:690] = (240, 170, 40)  # as the real "Recommended!": 0.68 of the top left
    return rgb, lines


def test_a_lists_cards_are_found_by_their_borders() -> None:
    rgb, lines = _list([700, 844, 988], ribbon=0)
    cards = find_cards(rgb, lines)
    assert len(cards) == 3
    for card, top in zip(cards, (700, 844, 988), strict=True):
        assert abs(card.y0 - top) <= 3 and abs(card.y1 - (top + 120)) <= 3 and abs(card.x0 - 36) <= 3


def test_one_card_is_no_list() -> None:
    rgb, lines = _list([700])
    assert find_cards(rgb, lines) == []


def test_plates_of_one_line_are_no_list_of_cards() -> None:
    """Event choices: a stack of alike plates, one line on each, are buttons, not a list's rows."""
    rgb, lines = _list([700, 844, 988])
    assert find_cards(rgb, [ln for ln in lines if ln.text.startswith("Race")]) == []


def test_the_last_card_cut_by_the_lists_viewport_goes_on_as_far_as_its_sides() -> None:
    rgb, lines = _list([700, 844, 988])
    rgb[1050:] = GROUND  # the list's viewport ends inside the third card: its bottom border is not drawn
    lines = [ln for ln in lines if ln.y1 < 1050]
    cards = find_cards(rgb, lines)
    assert len(cards) == 3 and 1040 <= cards[-1].y1 <= 1050


def test_a_thin_bar_beside_a_short_list_is_its_scrollbar() -> None:
    rgb, lines = _list([700, 844], right=600)  # the list ends short of the frame's right tenth (AT_EDGE)
    rgb[700:964, 612:616] = (211, 211, 211)  # the track, 0.2 of the height, short of the frame's right tenth
    rgb[700:760, 612:616] = (129, 129, 129)  # the thumb at its top
    assert scrollbar(rgb) is None  # too short for a bar found anywhere on the frame
    cards = find_cards(rgb, lines)
    assert len(cards) == 2
    bar = scrollbar(rgb, beside=Rect(cards[0].x0, cards[0].y0, cards[-1].x1, cards[-1].y1))
    assert bar is not None and not bar.up and bar.down
