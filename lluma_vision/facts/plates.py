"""A column of choice plates: an event's choices, a trainee's or a scenario's to pick. One reading of it serves screen
identity (a header over such a column names a screen of choices: screen.py) and an event's choices and title
(story.py): wide plates one under the other, their edges in line.
"""

from __future__ import annotations

from lluma_vision.models import Button, VisionOutput

# Measured on the hand-grouped real screens (bench/labels/screen_groups.json) and the simulator's screens:
CHOICE_WIDTH = 0.4  # a choice plate spans at least this fraction of the width
ALIGNED = 0.03  # plates of one stack share their left edge within this fraction of the width
INSET = 0.08  # a choice's text starts within this fraction of the width inside its plate's left edge
NEXT_PLATE = 1  # the next choice plate starts within this many plate heights of the last (0.4 on real events;
# a shop's cards, a page apart, are not a column of choices: at 2 a lesson shop flipped between scales)


def _next(a: Button, b: Button, width: int, loose: bool) -> bool:
    """`b` is the plate under `a` in one column: within NEXT_PLATE of `a`'s heights, its left edge in line. `loose`:
    its left or right edge, within NEXT_PLATE of the taller one's heights (a plate read to its text's bounds)."""
    reach = ALIGNED * width
    lined = abs(a.bounds.x0 - b.bounds.x0) <= reach or (loose and abs(a.bounds.x1 - b.bounds.x1) <= reach)
    height = max(a.bounds.height, b.bounds.height) if loose else a.bounds.height
    return lined and 0 <= b.bounds.y0 - a.bounds.y1 <= NEXT_PLATE * height


def wide_plates(out: VisionOutput, min_confidence: float) -> list[Button]:
    """The buttons as wide as a choice plate, read with at least `min_confidence`, on a screen that does not
    scroll (a list's rows scroll), top first."""
    if out.scrollbar is not None:
        return []
    return sorted((b for b in out.buttons if b.bounds.width >= CHOICE_WIDTH * out.width
                   and b.confidence >= min_confidence), key=lambda b: b.bounds.y0)


def stacked(out: VisionOutput, min_confidence: float) -> bool:
    """Two wide plates, one under the other, with one left edge (screen identity's rule)."""
    wide = wide_plates(out, min_confidence)
    return any(a is not b and _next(a, b, out.width, False) for a in wide for b in wide)


def choice_plates(out: VisionOutput, min_confidence: float = 0.0) -> list[Button]:
    """The plates of the screen's column of choices, top first: the longest run of wide plates each under the last
    with its left or right edge in line (a real event centres its plates on their text: one of five sat 0.12 of
    the width left of the others, its right edge in line); [] when no two plates make one. The event's title
    plate above them is a page's height away, not in the run."""
    wide = wide_plates(out, min_confidence)
    runs: list[list[Button]] = []
    for b in wide:
        run = next((r for r in runs if _next(r[-1], b, out.width, True)), None)
        if run is None:
            runs.append([b])
        else:
            run.append(b)
    best = max(runs, key=len, default=[])
    return best if len(best) >= 2 else []
