"""Game progress as the screen showed it: the career turn, energy, mood and stats among the texts a turn read.

The report's turn list shows them beside each turn, so a run's progress reads down the page. Taken from the
reading (what vision saw), never from the game: on a phone that is all there is."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lluma_agent.runlog.careers import STATS, CareerBook, fold
from lluma_agent.runlog.turnlog import TurnLog

# Texts that say where the career is: "Turn 5/24", "Energy 80/100", "Mood: Good", "Speed 120", "Skill Pts 95",
# "Senior Year Early Jun". A stat needs its number, so a button named "Speed" is not a fact.
_FACT = re.compile(
    r"^(?:turn\s*\d+(?:\s*/\s*\d+)?|energy\s*\d+(?:\s*/\s*\d+)?|mood:?\s*\w+|"
    r"(?:speed|stamina|power|guts|wit|wisdom|int|skill\s*pts|skill\s*points)\s*:?\s*\d+|"
    r"(?:junior|classic|senior)\s+year\b.*)$",
    re.IGNORECASE,
)


_ORDER = ("Turn", "Energy", "Mood", *STATS, "Skill Pts", "Skill Points")


def _number(value: object) -> float | None:
    """A captioned value as an absolute number (`"120"`), None for a gain (`"+12"`), a share or words."""
    text = str(value).strip().replace(",", "")
    return float(text) if re.fullmatch(r"\d+(?:\.\d+)?", text) else None


def facts(log: TurnLog, limit: int = 12) -> list[str]:
    """The progress a turn read, each once and by its caption: the career turn, energy (a gauge's fill: the real
    game prints no digits), mood, the stats and skill points first, then the other captioned values (a caption
    repeated on the screen, `Fail#2`, is the same caption again and not listed), the gains as one fact; when
    vision gives none of them, the texts that say the same."""
    if log.vision is None:
        return []
    seen = log.vision.seen_by_model
    found: dict[str, str] = {}
    values = seen.get("values")
    if isinstance(values, dict):
        found.update({str(k): f"{k} {v}" for k, v in values.items() if "#" not in str(k)})
    gauges = seen.get("gauges")
    if isinstance(gauges, dict):
        found.update({str(k): f"{k} {round(v * 100)}%" for k, v in gauges.items()
                      if isinstance(v, int | float) and not isinstance(v, bool) and "#" not in str(k)
                      and str(k) not in found})
    if isinstance(seen.get("mood"), str):
        found["Mood"] = f"Mood: {seen['mood']}"
    out = [found.pop(k) for k in _ORDER if k in found] + list(found.values())
    gains = seen.get("gains")
    if isinstance(gains, dict) and gains:
        out.append("gains: " + ", ".join(f"{k} {v}" for k, v in gains.items() if "#" not in str(k)))
    texts = seen.get("texts", [])
    for text in texts if isinstance(texts, list) else []:
        t = " ".join(str(text).split())
        if _FACT.match(t) and t not in out and not (t.lower().startswith("mood") and any(
                o.startswith("Mood") for o in out)):
            out.append(t)
    return out[:limit]


@dataclass
class ProgressReading:
    """What one turn's screen said of the trainee, as numbers (None where it said nothing)."""

    turn: int
    career: int  # the career the turn belongs to, numbered as the Careers table numbers it (runlog/careers.py)
    game_turn: int | None = None  # the career's turn as its screens last showed it (CareerBook.now)
    stats: dict[str, float] = field(default_factory=dict)
    energy: float | None = None  # percent (the gauge's fill)
    skill_points: float | None = None


def readings(turns: list[TurnLog]) -> list[ProgressReading]:
    """The turns whose screen showed the trainee's state (a stat, energy or skill points as a number), in order.
    Only the turns the careers' fold read as the trainee's (runlog/careers.py: a career being played, before its
    Finish): a result screen's "Speed 2" is no stat, and each reading's career is the one the Careers table gives."""
    book = fold(turns)
    careers = book.careers()
    trainee = set(book.trainee_turns)
    clock = CareerBook()  # the same fold, turn by turn: the career's turn each reading was made at
    out: list[ProgressReading] = []
    for log in sorted(turns, key=lambda t: t.turn):
        clock.add(log)
        if log.turn not in trainee or log.vision is None:
            continue
        seen = log.vision.seen_by_model
        raw_values, raw_gauges = seen.get("values"), seen.get("gauges")
        values: dict[str, Any] = raw_values if isinstance(raw_values, dict) else {}
        gauges: dict[str, Any] = raw_gauges if isinstance(raw_gauges, dict) else {}
        career = next((c.number for c in careers if c.first_turn <= log.turn <= c.last_turn), len(careers))
        r = ProgressReading(turn=log.turn, career=career, game_turn=clock.now.fraction()[0] or None)
        r.stats = {k: v for k in STATS if (v := _number(values.get(k, ""))) is not None}
        energy = gauges.get("Energy")
        if isinstance(energy, int | float) and not isinstance(energy, bool):
            r.energy = round(100 * float(energy), 1)
        pts = values.get("Skill Pts", values.get("Skill Points"))
        r.skill_points = _number(pts) if pts is not None else None
        if r.stats or r.energy is not None or r.skill_points is not None:
            out.append(r)
    return out
