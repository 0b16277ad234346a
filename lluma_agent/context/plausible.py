"""Readings checked across turns: a number that moved in a way the game cannot move it is marked doubtful before the
model sees it (the compact JSON shows it with a "?" and lists it under `doubtful`), never passed on as sure.

The bots people run show what a misread costs: skill points read as 920 instead of 92 stopped one (FACTS, "How the
bots people use read the game"). Within one screen the vision checks what the game could not print at all
(lluma_vision.facts.checks); across turns only the agent knows what was seen before and whether anything was done:

- skill points that grew tenfold (a digit gained) or by more than the turns passed can give;
- turns left that went up (other than a count restarting once a goal or a career was reached) or down by more than
  one; any change with nothing done;
- a gauge (energy) that moved with nothing done.

A doubtful reading is not remembered as the last good one: the next reading is checked against what was trusted. The
same new value read on another frame (the screen changed) is taken as true: a misread of one frame is not repeated
on another, and a count the game really restarted must not stay doubtful.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lluma_vision.models import CaptionedValue, Gauge, VisionOutput

SKILL_CAPTIONS = ("skill pts", "skill points")
SKILL_GAIN_MAX = 200  # skill points one game turn can give: a training +1..40, a race +10..70, an event +40 (FACTS'
# screens: "+19"; the simulator's largest turn: a G1 win +70 and an event +40)
TENFOLD_MIN = 20  # from this many points, gaining a digit ("92" -> "920") is a misread, not a turn's gain
GOAL_NEAR = 3  # turns left at or under this may restart higher: the goal (or the career) was reached
GAUGE_JUMP = 0.1  # a gauge that moved more than this with nothing done (bench/vision.py reads gauges within 0.1)
NUMBER = re.compile(r"^(\d[\d,]*)$")


def _number(value: str) -> int | None:
    m = NUMBER.match(value.replace(" ", ""))
    return int(m.group(1).replace(",", "")) if m else None


def _turns_left(caption: str) -> bool:
    c = caption.casefold()
    return "turn" in c and "left" in c


@dataclass
class _Seen:
    value: float
    game_turn: int  # the game turns counted when it was read (turns left going down)
    peak: float  # the highest trusted value since (a skill list's pending buys lower the count, Reset restores it)


@dataclass
class Plausible:
    """The last trusted reading of each watched number (by caption or gauge label), across turns."""

    seen: dict[str, _Seen] = field(default_factory=dict)
    pending: dict[str, tuple[float, str]] = field(default_factory=dict)  # a doubtful value and the frame it was on
    game_turn: int = 0

    def check(self, out: VisionOutput, acted: bool) -> VisionOutput:
        """`out` with each watched number that moved impossibly since it was last trusted marked doubtful; `acted`:
        an input action was done since the last reading."""
        values = [self._value(v, acted, out.screen_hash) for v in out.values]
        gauges = [self._gauge(g, acted, out.screen_hash) for g in out.gauges]
        if values == out.values and gauges == out.gauges:
            return out
        return out.model_copy(update={"values": values, "gauges": gauges})

    def _value(self, v: CaptionedValue, acted: bool, frame: str) -> CaptionedValue:
        n = _number(v.value)
        if v.kind != "value" or v.doubtful or n is None:
            return v
        caption = v.caption.casefold()
        if _turns_left(caption):
            last = self.seen.get(caption)
            ok = last is None or self._turns_ok(int(last.value), n, acted)
            if ok and last is not None and n != last.value:
                self.game_turn += 1  # a turn went by (or the count restarted)
        elif caption in SKILL_CAPTIONS:
            ok = self._skill_ok(caption, n, acted)
        else:
            return v
        return v if self._settle(caption, n, ok, frame) else v.model_copy(update={"doubtful": True})

    def _gauge(self, g: Gauge, acted: bool, frame: str) -> Gauge:
        key = f"gauge:{g.label.casefold()}"
        last = self.seen.get(key)
        ok = g.doubtful is False and (acted or last is None or abs(g.fill - last.value) <= GAUGE_JUMP)
        return g if self._settle(key, g.fill, ok, frame) else g.model_copy(update={"doubtful": True})

    @staticmethod
    def _turns_ok(last: int, n: int, acted: bool) -> bool:
        if not acted:
            return n == last
        return n in (last, last - 1) or (n > last and last <= GOAL_NEAR)

    def _skill_ok(self, caption: str, n: int, acted: bool) -> bool:
        last = self.seen.get(caption)
        if last is None:
            return True
        if not acted:
            return n == last.value
        if n <= last.peak:
            return True  # spent (or a pending buy undone)
        ref = int(last.peak)
        tenfold = ref >= TENFOLD_MIN and n // 10 == ref
        turns = max(1, self.game_turn - last.game_turn)
        return not tenfold and n - ref <= SKILL_GAIN_MAX * turns

    def _settle(self, key: str, n: float, ok: bool, frame: str) -> bool:
        """Remember a trusted value; a doubtful one becomes trusted when another frame shows it again."""
        held = self.pending.pop(key, None)
        if not ok and held is not None and held[0] == n and held[1] != frame:
            ok = True
        if not ok:
            self.pending[key] = (n, frame)
            return False
        last = self.seen.get(key)
        peak = n if last is None or self.game_turn != last.game_turn else max(last.peak, n)
        self.seen[key] = _Seen(n, self.game_turn, peak)
        return True
