"""What each event choice did (issue 40): observed effects by event title and choice, kept across runs.

A career event offers two or three choices; the game says little of what each does, and the bots carry tables of
outcomes. LLuMa learns its own table from play: when the model picks a choice, the trainee's state as last read
(`TraineeState`: stats, skill points, energy, mood) is kept with it, and the first reading after the event that
shows the state again gives the effect. The real event screen shows energy and mood but not the stats (a real
screenshot, umaplay's "Unforeseen Lunch"), so the stats come from the reading before the turn's action, plus the
gains the screen where it was pressed previewed ("+N" over a stat on the training screen): what the action itself
added is not the event's.

The book is one JSON file beside the memory folder (`memory.events.json`), written atomically after each turn
like the map, shared by runs on one memory folder like the map (`record` is journaled: navmap/shared.py), and a
damaged one is set aside, never silently replaced (navmap/jsonfile.py). Damaged means any fault of the file or
of its entries: numbers not finite (NaN, Infinity), a type other than written, a fact counted with no sum.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from lluma_agent.navmap.jsonfile import Kind
from lluma_agent.navmap.shared import Journaled
from lluma_vision.models import VisionOutput

EVENTS_VERSION = 1  # the event book's file format (a definition, not measured)
SUFFIX = ".events.json"
STATS = ("Speed", "Stamina", "Power", "Guts", "Wit")
SKILL_POINTS = ("Skill Pts", "Skill Points")
MOODS = ("AWFUL", "BAD", "NORMAL", "GOOD", "GREAT")  # the badge's words, worst first (FACTS)
SETTLE_TURNS = 12  # agent turns an event's outcome is waited for (the sim's events end within 8; a night's hazard
# or a loading screen between them adds a few): a choice whose state never showed again is dropped, not guessed
SHOWN_CHOICES = 4  # choices told per event (events offer 2-3)


class Strict(BaseModel):
    """Read from a file another run or a person may have damaged: the types as written, numbers finite."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False)


class TraineeState(Strict):
    """What one reading showed of the trainee (None or missing: not shown)."""

    stats: dict[str, float] = Field(default_factory=dict)  # Speed..Wit and "Skill Pts"
    energy: float | None = None  # percent: the energy gauge's fill
    mood: str | None = None

    def empty(self) -> bool:
        return not self.stats and self.energy is None and self.mood is None

    def over(self, older: TraineeState) -> TraineeState:
        """This reading's facts, the older one's where this one showed none."""
        return TraineeState(stats={**older.stats, **self.stats},
                            energy=self.energy if self.energy is not None else older.energy,
                            mood=self.mood or older.mood)


def _number(value: str) -> float | None:
    """"796/1200" -> 796, "1,024" -> 1024, "+12" -> 12; None for words."""
    m = re.match(r"\s*([+-]?\d[\d,]*)", value)
    return float(m.group(1).replace(",", "")) if m else None


def _caption(caption: str) -> str | None:
    name = caption.split("#")[0].strip()
    if name in STATS:
        return name
    return "Skill Pts" if name in SKILL_POINTS else None


def state_of(out: VisionOutput) -> TraineeState:
    """The trainee's state as this reading shows it (doubtful values left out: a jump no turn explains)."""
    stats: dict[str, float] = {}
    for v in out.values:
        if v.kind == "value" and not v.doubtful and (name := _caption(v.caption)) and name not in stats:
            if (n := _number(v.value)) is not None:
                stats[name] = n
    energy = next((round(100 * g.fill, 1) for g in out.gauges if g.label.split("#")[0] == "Energy"
                   and not g.doubtful), None)
    mood = out.mood.upper() if out.mood and out.mood.upper() in MOODS else None
    return TraineeState(stats=stats, energy=energy, mood=mood)


def gains_of(out: VisionOutput) -> dict[str, float]:
    """The gains a screen previews ("+N" over a stat): what pressing its commit adds, the event aside."""
    gains: dict[str, float] = {}
    for v in out.values:
        if v.kind == "gain" and not v.doubtful and (name := _caption(v.caption)) and name not in gains:
            if (n := _number(v.value)) is not None:
                gains[name] = n
    return gains


def effect(before: TraineeState, after: TraineeState) -> dict[str, float]:
    """What changed between two states, fact by fact, where both showed it ("Mood" in badge steps)."""
    out = {k: after.stats[k] - v for k, v in before.stats.items() if k in after.stats}
    if before.energy is not None and after.energy is not None:
        out["Energy"] = round(after.energy - before.energy, 1)
    if before.mood in MOODS and after.mood in MOODS:
        out["Mood"] = MOODS.index(after.mood) - MOODS.index(before.mood)
    return out


class ChoiceRecord(Strict):
    """A choice's outcomes so far: how often it was measured, and each fact's sum over the times it was read."""

    times: int = Field(0, ge=0)
    sums: dict[str, float] = Field(default_factory=dict)
    counts: dict[str, Annotated[int, Field(ge=1)]] = Field(default_factory=dict)  # times each fact was read

    @model_validator(mode="after")
    def _consistent(self) -> ChoiceRecord:
        """Each fact counted has its sum and none is counted more often than the choice was measured (`means`)."""
        if missing := sorted(set(self.counts) - set(self.sums)):
            raise ValueError(f"{', '.join(missing)} counted with no sum")
        if missing := sorted(set(self.sums) - set(self.counts)):
            raise ValueError(f"{', '.join(missing)} summed with no count")
        if over := sorted(k for k, n in self.counts.items() if n > self.times):
            raise ValueError(f"{', '.join(over)} counted more often than the choice's {self.times} time(s)")
        return self

    def add(self, change: dict[str, float]) -> None:
        self.times += 1
        for k, v in change.items():
            self.sums[k] = self.sums.get(k, 0.0) + v
            self.counts[k] = self.counts.get(k, 0) + 1

    def means(self) -> dict[str, float]:
        return {k: round(self.sums[k] / n, 1) for k, n in self.counts.items() if n}


class EventRecord(Strict):
    choices: dict[str, ChoiceRecord] = Field(default_factory=dict)
    last_seen: float = 0.0


class PendingChoice(Strict):
    """A choice made, its outcome not yet read."""

    event: str
    choice: str
    before: TraineeState
    turn: int
    run: str


class EventBook(Journaled, Strict):
    OWN = ("pending",)  # the run's own choice awaiting its outcome; `record` is journaled (navmap/shared.py)
    version: int = EVENTS_VERSION
    events: dict[str, EventRecord] = Field(default_factory=dict)
    pending: PendingChoice | None = None

    def record(self, event: str, choice: str, change: dict[str, float], now: float) -> None:
        self._note("record", event, choice, change, now)
        rec = self.events.setdefault(event, EventRecord())
        rec.choices.setdefault(choice, ChoiceRecord()).add(change)
        rec.last_seen = now

    def told(self, event: str) -> str:
        """What each choice of `event` did before, in a few tokens, or "" when the book has nothing of it."""
        rec = self.events.get(event)
        if rec is None or not rec.choices:
            return ""
        parts = []
        for choice, c in sorted(rec.choices.items(), key=lambda kv: -kv[1].times)[:SHOWN_CHOICES]:
            means = ", ".join(f"{k} {v:+g}" for k, v in c.means().items() if v) or "no change read"
            parts.append(f"{choice!r} {c.times}x: {means}")
        return f"<events>{event}, what each choice did before (mean): {'; '.join(parts)}</events>"


def events_path(map_path: Path) -> Path:
    """`memory.map.json` -> `memory.events.json`: the book sits beside the map."""
    return map_path.with_name(map_path.name.removesuffix(".map.json") + SUFFIX)


BOOK = Kind(EventBook, "an event book", EVENTS_VERSION, SUFFIX, "book")
