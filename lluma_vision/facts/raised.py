"""The raised option of a screen that selects before it commits (the training screen, FACTS: "one tile is raised on
arrival; a tap on another raises it, a tap on the raised tile trains"), from the reading's own facts.

The game prints "Failure N%" in a pill right over the raised tile, and lifts that tile above its row. So: the raised
option is the button under the pill (its box spans the pill's centre line, its top within PILL_GAP of the frame's
height below the pill); the options are the worded buttons of its row (not above it, their centres within
ROW_BELOW of its height under its bottom). The agent's survey presses the other options to see each one's facts.
"""

from __future__ import annotations

from pydantic import BaseModel

from lluma_vision.models import Button, VisionOutput

FAILURE = "failure"  # the pill's caption (FACTS: "Failure N%")
# The pill's bottom to the raised tile's top, as a share of the frame's height: 0.047-0.055 on the two real
# training screens (screens2: dhrpf__training_guts, mrhorseshoe__35_training_select), 0.022 (plain) and 0.107
# (hard) on the simulator's at 1080x1920. 0.15 keeps the hard style with room, short of the Back row (0.25+).
PILL_GAP = 0.15
# How far below the raised tile's bottom the others' centres sit, in its heights: 0.47 (Wit, real 720x1280) to
# 0.8 (Stamina, mrhorseshoe) on the real screens; the Back/Menu row is 1.9+ heights away there.
ROW_BELOW = 1.5
LIFT = 0.01  # a tile of the row may sit this share of the frame's height above the raised one (OCR boxes jitter)
# Ways out are never options (FACTS: the training screen's Back sits bottom-left; a perfect reading's box for it can
# fall in the tiles' row, and a survey that raised "Back" left the screen every turn). The clients' words: Global,
# Japanese (戻る, 閉じる, キャンセル) and Korean (뒤로, 닫기, 취소).
WAYS_OUT = frozenset({"back", "close", "cancel", "return", "quit", "exit", "戻る", "閉じる", "キャンセル", "뒤로",
                      "닫기", "취소"})


class Raised(BaseModel):
    """The raised option and the options of its row (the raised one included), in reading order."""

    selected: str
    options: list[str]


def _worded(name: str) -> bool:
    base = name.split("#")[0]
    return base.strip().casefold() not in WAYS_OUT and any(w.isalpha() and len(w) > 1 for w in base.split())


def raised(out: VisionOutput) -> Raised | None:
    """The raised option under the failure pill and its row, or None (no pill, no button under it)."""
    pill = next((v for v in out.values if v.kind == "value" and v.caption.casefold().startswith(FAILURE)
                 and v.value.rstrip("?").endswith("%")), None)
    if pill is None:
        return None
    cx = (pill.bounds.x0 + pill.bounds.x1) / 2
    under = [b for b in out.buttons if b.region != "menu" and _worded(b.name)
             and b.bounds.x0 <= cx <= b.bounds.x1 and 0 <= b.bounds.y0 - pill.bounds.y1 <= PILL_GAP * out.height]
    if not under:
        return None
    top = min(under, key=lambda b: b.bounds.y0)
    return Raised(selected=top.name, options=[b.name for b in _row(out, top)])


def _row(out: VisionOutput, top: Button) -> list[Button]:
    floor = top.bounds.y1 + ROW_BELOW * top.bounds.height
    row = [b for b in out.buttons if b.region != "menu" and _worded(b.name)
           and b.bounds.y0 >= top.bounds.y0 - LIFT * out.height and (b.bounds.y0 + b.bounds.y1) / 2 <= floor]
    return sorted(row, key=lambda b: b.bounds.x0)
