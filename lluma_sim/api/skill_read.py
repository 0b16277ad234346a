"""The stand-in player reads the skill list ("Learn") as a model would: each row's "+" (or the plain style's "Learn"
plate), its cost, its hint's discount, and the skill points on top; it marks what a careful player buys (FACTS: the
Learn screen; NUMBERS §7: a skill's rating is fixed, so a hint's discount is more rating a point spent, and points
left at the career's end add nothing)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from lluma_sim.api.turn_read import is_plus

_OFF = re.compile(r"(\d{1,2})\s*%\s*OFF", re.IGNORECASE)
_NUMBER = re.compile(r"^(\d{2,4})(?:\s*pt)?$")
_POINTS = re.compile(r"skill\s*p(?:oin)?ts?\D{0,3}(\d{1,5})", re.IGNORECASE)


class SkillRow(BaseModel):
    """A row of the list the player may mark: the name of its "+" plate, its cost, its hint's discount."""

    plus: str  # the "+" (or "Learn") button's name in the reading: "+", "+#2", ...
    cost: int | None  # as printed (a hint's discount taken off), None when not read
    off: int = 0  # percent

    @property
    def value(self) -> float:
        """Rating a point spent buys, relative: the skill's fixed rating over its discounted cost."""
        return 100 / (100 - min(self.off, 90))


def points(v: dict[str, Any]) -> int | None:
    """The skill points the list's top shows: a value captioned "Skill Points", else a text holding both."""
    for key, value in (v.get("values") or {}).items():
        if "skill" in str(key).casefold() and (m := re.search(r"\d+", str(value))):
            return int(m.group())
    m = _POINTS.search(" | ".join(str(t) for t in v.get("texts") or []))
    return int(m.group(1)) if m else None


def rows(v: dict[str, Any]) -> list[SkillRow]:
    """The enabled "+" plates, in the reading's order, each with the cost and discount of its row: the k-th row that
    shows a "+" (or "Learn") belongs to the k-th plate; the plate's own meta (its cost) when the rows do not say."""
    plates = [b for b in v.get("buttons") or [] if isinstance(b, dict) and is_plus(str(b.get("name", "")))]
    listed = [str(x) for x in v.get("rows") or []]
    shown = [r for r in listed if any(is_plus(p) for p in (part.strip() for part in r.split("|")))]
    if not shown:  # the OCR's "+" is an icon, no word of its row: the game greys the rows the points do not reach
        shown = affordable(listed, points(v))
    out = []
    for k, plate in enumerate(plates):
        meta = str(plate.get("meta") or "")
        row = shown[k] if k < len(shown) else ""
        cost = _cost(row)
        if cost is None and (m := re.search(r"\d{2,4}", meta)):
            cost = int(m.group())
        off = _OFF.search(row)
        if "disabled" not in meta.lower():
            out.append(SkillRow(plus=str(plate["name"]), cost=cost, off=int(off.group(1)) if off else 0))
    return out


def _cost(row: str) -> int | None:
    """A row's cost as printed (a part that is a number alone), None when it shows none."""
    return next((int(m.group(1)) for part in row.split("|") if (m := _NUMBER.match(part.strip()))), None)


def affordable(listed: list[str], left: int | None) -> list[str]:
    """The rows whose "+" the game leaves enabled: not learned, their cost within the points (all when not read)."""
    out = []
    for row in listed:
        cost = _cost(row)
        if "obtained" not in row.casefold() and (left is None or cost is None or cost <= left):
            out.append(row)
    return out


def short(v: dict[str, Any]) -> bool:
    """A row in view the points left do not reach: its "+" greyed, the row not marked (its "-" greyed too; the plain
    style's "Learn" plate greyed, a marked row's says "Added"). A careful player takes that as the points run out."""
    buttons = [b for b in v.get("buttons") or [] if isinstance(b, dict)]
    minus = [b for b in buttons if str(b.get("name", "")).split("#")[0].strip() == "-"]
    plates = [b for b in buttons if is_plus(str(b.get("name", "")))]
    for k, plate in enumerate(plates):
        marked = k < len(minus) and "disabled" not in str(minus[k].get("meta") or "").lower()
        if "disabled" in str(plate.get("meta") or "").lower() and not marked:
            return True
    return False


def picks(v: dict[str, Any]) -> list[str]:
    """The "+" plates to mark on this screen: the most rating a point first (hints' discounts), then the cheaper,
    as many as the points reach (all enabled ones when the points are not read: the game greys what they do not)."""
    left = points(v)
    out = []
    for row in sorted(rows(v), key=lambda r: (-r.value, r.cost or 0)):
        if left is not None and row.cost is not None:
            if row.cost > left:
                continue
            left -= row.cost
        out.append(row.plus)
    return out
