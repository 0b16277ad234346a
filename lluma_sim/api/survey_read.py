"""The stand-in player reads a survey's table (`<survey>` in the request, lluma_agent/loop/survey.py) as a model
would: one row per option raised, its gains, failure and energy; the choice is the bots' (FACTS: weigh the gains,
cap the failure rate, take Wit when tired)."""

from __future__ import annotations

import re

from pydantic import BaseModel

ROW = re.compile(r"^- (?P<option>[^:]+): gains (?P<gains>[^;]*); failure (?P<failure>[^;]*);", re.MULTILINE)
GAIN = re.compile(r"(?P<stat>[A-Za-z][A-Za-z .]*?)\s*\+(?P<n>\d+)")
SKILL_WEIGHT = 0.5  # a skill point is worth half a stat point to this player


class Row(BaseModel):
    option: str
    gain: float  # stat gains summed, skill points weighed
    failure: int | None  # percent, None when not read


def rows(texts: list[str]) -> list[Row]:
    """The survey table's rows in the request's texts ([] when there is none)."""
    table = next((t for t in texts if "<survey>" in t), "")
    out = []
    for m in ROW.finditer(table):
        gain = sum(int(g["n"]) * (SKILL_WEIGHT if "skill" in g["stat"].casefold() else 1.0)
                   for g in GAIN.finditer(m["gains"]))
        fail = re.search(r"(\d+)\s*%", m["failure"])
        out.append(Row(option=m["option"].strip(), gain=gain, failure=int(fail.group(1)) if fail else None))
    return out


def best(table: list[Row], cap: int) -> str | None:
    """The option with the most gain among those whose failure is at most `cap` (all of them when none is)."""
    safe = [r for r in table if r.failure is None or r.failure <= cap] or table
    return max(safe, key=lambda r: r.gain).option if safe else None


OFFERED = re.compile(r"opened .+? from .+?; (?P<src>.+?) offered: (?P<names>.+?) \(Back, goTo or runPlan")
PLANNED = {"Rest": "rest", "Recreation": "recreation", "Infirmary": "infirmary"}  # the hub's, as procedures


def offered(texts: list[str]) -> set[str] | None:
    """The buttons of the screen the coordinator opened the surveyed one from (the hub's), or None."""
    table = next((t for t in texts if "<survey>" in t), "")
    m = OFFERED.search(table)
    return {n.strip() for n in m["names"].split(",")} if m else None
