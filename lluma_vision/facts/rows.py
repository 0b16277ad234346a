"""A scrolling list's rows, each as one item: a race row's grade, name, track line and fans; a skill row's name,
hint, description, cost and "Obtained" (FACTS: the race list and the Learn screen). The reading splits a row into
buttons, texts and values; a decision compares rows, so the model gets each row's words together.

A row is a card of the list, its words those drawn on it (pixels/cards.py finds the cards by their borders, with
or without a scrollbar); where no cards are found, a run of read lines beside the scrollbar's track with no gap
between them taller than ROW_GAP: the cards of a list stand further apart than the lines of one card.
"""

from __future__ import annotations

import re
import statistics

from lluma_vision.geometry import Rect
from lluma_vision.models import Box, VisionOutput

# ROW_GAP, measured as the empty height between two read lines in fractions of the frame's width (cards scale with
# it), chosen on screens2 and the sim with screens held out: within a card at most 0.009 (screens2's race list, a
# hint's two lines overlapping its name) and 0.002 (the sim's Learn list at 1080 and 420 px), between cards 0.07-0.12
# and 0.054-0.074; twice the largest gap within a card. Held out, screens' lists: within 0.004 at most, between
# 0.035-0.076 (tests/vision/test_rows.py)
ROW_GAP = 0.02
SEP = " | "
# a hint's level as FACTS prints it ("Hint Lvl 3"): the OCR reads its small "v" as "y" ("Hint Lyl 1" on screens2's
# Learn list at 1x, 0.575x and 1.5x)
LVL = re.compile(r"\bL[yv]l(?=\s*(?:\d|max)\b)", re.IGNORECASE)


def rows_of(out: VisionOutput) -> list[str]:
    """The rows of the list in view, top first, each its lines in reading order joined by SEP: one a card where
    the list's cards are found (pixels/cards.py), else the runs of lines beside the scrollbar's track; [] on a
    screen with neither or with fewer than two rows in view."""
    lines = _lines(out)
    rows = _by_cards(out.cards, lines) if out.cards else _by_gaps(out, lines)
    if len(rows) < 2:
        return []
    line = statistics.median(box.height for row in rows for box, _ in row)
    return [LVL.sub("Lvl", SEP.join(text for _, text in _reading_order(row, line))) for row in rows]


def _reading_order(row: list[tuple[Box, str]], line: float) -> list[tuple[Box, str]]:
    """Top to bottom by visual line (centres within half a `line` height of the line's first are on it), each left
    to right: two boxes of one printed line ("40%" "OFF!") stay in order whatever their centres' small offsets."""
    lines: list[list[tuple[Box, str]]] = []
    for item in sorted(row, key=lambda i: i[0].center[1]):
        if lines and item[0].center[1] - lines[-1][0][0].center[1] <= line / 2:
            lines[-1].append(item)
        else:
            lines.append([item])
    return [item for ln in lines for item in sorted(ln, key=lambda i: i[0].x0)]


def _by_cards(cards: list[Box], lines: list[tuple[Box, str]]) -> list[list[tuple[Box, str]]]:
    """Each card's lines: those whose centre lies on it."""
    rows = [[(box, text) for box, text in lines if Rect.of(card).contains(*box.center)] for card in cards]
    return [row for row in rows if row]


def _by_gaps(out: VisionOutput, lines: list[tuple[Box, str]]) -> list[list[tuple[Box, str]]]:
    """The lines beside the scrollbar's track, parted where the empty height between two is over ROW_GAP."""
    bar = out.scrollbar
    if bar is None:
        return []
    inside = sorted(((box, text) for box, text in lines
                     if bar.track.y0 <= box.center[1] <= bar.track.y1 and box.x1 <= bar.track.x1),
                    key=lambda i: i[0].y0)
    rows: list[list[tuple[Box, str]]] = []
    bottom = 0.0
    for box, text in inside:
        if not rows or box.y0 - bottom > ROW_GAP * out.width:
            rows.append([])
            bottom = box.y1
        rows[-1].append((box, text))
        bottom = max(bottom, box.y1)
    return rows


def _lines(out: VisionOutput) -> list[tuple[Box, str]]:
    """Every worded line the reading holds once: the read texts (a button's meta among them), the buttons' names read
    from text or by a VLM (a stepper's "Plus" found as an icon, a heuristic's name, is no word of the row), and a
    captioned value with its caption where no line over it holds the number (a skill's cost: its name and
    description read as the caption of "255"; a hint's "2." is its "Hint Lvl 2." line's)."""
    lines = [(t.bounds, t.text) for t in out.texts if t.text.strip()] + [
        (b.bounds, b.name.split("#")[0]) for b in out.buttons if b.source != "heuristic" and b.region != "menu"]
    over = [[text for box, text in lines if Rect.of(v.bounds).intersects(box)] for v in out.values]
    return lines + [(v.bounds, v.value if v.caption in texts else f"{v.caption} {v.value}")
                    for v, texts in zip(out.values, over, strict=True) if not any(v.value in t for t in texts)]

