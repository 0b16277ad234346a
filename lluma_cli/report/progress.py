"""Game progress as the screen showed it: the career turn, energy, mood and stats among the texts a turn read.

The report's turn list shows them beside each turn, so a run's progress reads down the page. Taken from the
reading (what vision saw), never from the game: on a phone that is all there is."""

from __future__ import annotations

import re

from lluma_agent.runlog.turnlog import TurnLog

# Texts that say where the career is: "Turn 5/24", "Energy 80/100", "Mood: Good", "Speed 120", "Skill Pts 95",
# "Senior Year Early Jun". A stat needs its number, so a button named "Speed" is not a fact.
_FACT = re.compile(
    r"^(?:turn\s*\d+(?:\s*/\s*\d+)?|energy\s*\d+(?:\s*/\s*\d+)?|mood:?\s*\w+|"
    r"(?:speed|stamina|power|guts|wit|wisdom|int|skill\s*pts|skill\s*points)\s*:?\s*\d+|"
    r"(?:junior|classic|senior)\s+year\b.*)$",
    re.IGNORECASE,
)


def facts(log: TurnLog, limit: int = 12) -> list[str]:
    """The progress a turn read, each once: the reading's captioned values (`Turn 1/24`, `Speed 90`), gauges
    (`Energy 62%`, unless a value says it) and mood when vision gives them, else the texts that say the same."""
    if log.vision is None:
        return []
    seen = log.vision.seen_by_model
    out: list[str] = []
    values = seen.get("values")
    if isinstance(values, dict):
        out += [f"{k} {v}" for k, v in values.items()]
    gauges = seen.get("gauges")  # a bar's fill: the real game prints no energy digits
    if isinstance(gauges, dict):
        said = {o.split()[0] for o in out}
        out += [f"{k} {round(v * 100)}%" for k, v in gauges.items()
                if isinstance(v, int | float) and not isinstance(v, bool) and k not in said]
    if isinstance(seen.get("mood"), str):
        out.append(f"Mood: {seen['mood']}")
    texts = seen.get("texts", [])
    for text in texts if isinstance(texts, list) else []:
        t = " ".join(str(text).split())
        if _FACT.match(t) and t not in out and not (t.lower().startswith("mood") and any(
                o.startswith("Mood") for o in out)):
            out.append(t)
    return out[:limit]
