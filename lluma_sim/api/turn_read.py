"""What the stand-in player reads off the current turn, as a model reads it: the `<vision>` JSON (energy from the
Energy gauge's fill, else printed digits; the mood badge; the goal, its turns left and the fans; an event's choices),
the map hint (`<map>`: where this is and the places it leads to) and the tools the request offers.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

_ENERGY = re.compile(r"energy\D{0,12}?(\d{1,3})\s*/\s*(\d{2,3})", re.IGNORECASE)
_FRACTION = re.compile(r"(?<!turn )(?<!\d)(\d{1,3})\s*/\s*100\b", re.IGNORECASE)
_TURN = re.compile(r"\bturn\W{0,3}(\d{1,3})\s*/\s*(\d{1,3})\b", re.IGNORECASE)  # the header's "Turn 12/78"
_MOOD = re.compile(r"mood\W*(awful|bad|normal|good|great)", re.IGNORECASE)
_MOODS = ("awful", "bad", "normal", "good", "great")
FANS_AHEAD = 4  # turns before a fan goal's turn from which a player short of fans races for them
_GOAL_FANS = re.compile(r"earn\s+([\d,]+)\s+fans", re.IGNORECASE)
_TURNS_LEFT = re.compile(r"(\d+)\s+turn\(?s?\)?\s+left", re.IGNORECASE)
_FANS = re.compile(r"fans\s*\|\s*([\d,]+)", re.IGNORECASE)
GOTO = "goTo"
_MAP_HINT = re.compile(r"<map>(.*?)</map>", re.DOTALL)
_WAY_TO = re.compile(r"->\s*([^,;]+?)\s*(?=,|;|$)")  # a way out's destination in `ways out: Races -> Races, ...`


class GoalRead(BaseModel):
    """The current goal as the hub shows it (read from the texts alone)."""

    text: str = ""
    turns_left: int | None = None
    achieved: bool = False
    fans_needed: int = 0
    fans: int | None = None

    @property
    def fans_short(self) -> bool:
        """A fan goal not achieved with FANS_AHEAD turns or fewer left."""
        return (self.fans_needed > 0 and not self.achieved and self.turns_left is not None
                and self.turns_left <= FANS_AHEAD and (self.fans is None or self.fans < self.fans_needed))


def goal(texts: str) -> GoalRead:
    """The goal on the hub: its text ("Earn 3000 fans"), "N turn(s) left", "Goal Achieved!", the fans read."""
    parts = [t.strip() for t in texts.split("|")]
    text = next((t for t in parts if re.match(r"(run in|place|earn)\b", t, re.IGNORECASE)), "")
    left = _TURNS_LEFT.search(texts)
    need = _GOAL_FANS.search(text)
    fans = _FANS.search(texts)
    return GoalRead(text=text, turns_left=int(left.group(1)) if left else None,
                achieved="goal achieved" in texts.lower(),
                fans_needed=int(need.group(1).replace(",", "")) if need else 0,
                fans=int(fans.group(1).replace(",", "")) if fans else None)


def map_places(texts: list[str]) -> dict[str, str]:
    """The screens the current turn's map hint (`<map>screen: Career; ways out: Races -> Races, ...; goTo: Skill
    List</map>`) names as ways out or walks: lowercased name -> the label as written (`Event [3fa2]` where two
    screens share a name); {} when the turn has no hint (map disabled)."""
    places: dict[str, str] = {}
    for t in texts:
        for hint in _MAP_HINT.finditer(t):
            ways, _, far = hint.group(1).partition("ways out:")[2].partition("; goTo:")
            for label in [*_WAY_TO.findall(ways), *(f.strip() for f in far.split(",") if f.strip())]:
                places.setdefault(label.split(" [", 1)[0].strip().lower(), label.strip())
    return places


def map_here(texts: list[str]) -> str:
    """The screen the current turn's map hint names (`<map>screen: dialogue (choices); ...`), or ""."""
    for t in texts:
        for hint in _MAP_HINT.finditer(t):
            return hint.group(1).partition("screen:")[2].partition(";")[0].strip()
    return ""


def goto_key(request: dict[str, Any]) -> str:
    """goTo's argument (the first required property of its input schema), or "" when the tool is not offered."""
    for tool in request.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name") == GOTO:
            schema = tool.get("input_schema") or {}
            required = schema.get("required") or list(schema.get("properties") or {})
            return str(required[0]) if required else ""
    return ""


def energy(v: dict[str, Any], texts: str) -> float | None:
    """Energy as a share of full: the reading's Energy gauge (a bar's fill), else a printed "62/100"."""
    gauges = v.get("gauges")
    fill = next((f for k, f in gauges.items() if k.split("#")[0].lower() == "energy"), None) if isinstance(
        gauges, dict) else None
    if isinstance(fill, int | float) and not isinstance(fill, bool):
        return max(0.0, min(1.0, float(fill)))
    texts = with_values(v, texts, " ")  # a captioned value ("Energy": "62/100")
    if m := _ENERGY.search(texts):
        return int(m.group(1)) / max(1, int(m.group(2)))
    if m := _FRACTION.search(texts):
        return int(m.group(1)) / 100
    return None


def mood(badge: Any, texts: str) -> str:
    """The mood word: the reading's mood badge, else a "Mood: Good" line; normal when neither is read."""
    if isinstance(badge, str) and badge.lower() in _MOODS:
        return badge.lower()
    return m.group(1).lower() if (m := _MOOD.search(texts)) else "normal"


def pct(energy: float | None) -> str:
    return "unknown" if energy is None else f"{round(energy * 100)}%"


def is_plus(name: str) -> bool:
    """A skill row's "+" stepper, as a reading names it ("+", "+#2", or an icon read as "Plus"), or the plain
    style's "Learn" plate."""
    return name.split("#")[0].strip().lower() in ("+", "plus", "learn")


def is_choice(name: str) -> bool:
    """Event choice bars are long sentences; ordinary buttons are a word or two."""
    return len(name) >= 18 and len(name.split()) >= 3


def choices(v: dict[str, Any], as_text: bool = False) -> list[str]:
    """An event's choice bars among the reading's enabled buttons; else, on a story page the map names an event's
    choices (`as_text`), the sentences read as text (the choices a reader did not frame as buttons)."""
    bars = [str(b["name"]) for b in v.get("buttons") or [] if isinstance(b, dict) and b.get("name")
            and "disabled" not in str(b.get("meta") or "").lower() and is_choice(str(b["name"]))]
    if bars or not as_text or (v.get("cinematic") or "none") != "dialogue":
        return bars
    return [str(t) for t in v.get("texts") or [] if is_choice(str(t))]


def first_choice(choices: list[str], energy: float) -> str:
    """The choice ranked first at `energy` (share of full): the event rule the policy plays by."""
    return sorted(choices, key=lambda c: -choice_score(c, energy))[0]


def choice_score(text: str, energy: float | None) -> float:
    t = text.lower()
    score = 0.0
    if energy is not None and energy < 0.5 and re.search(r"rest|health|bed|off|easy|light", t):
        score += 2
    if re.search(r"train|run|race|win|strength|corner", t):
        score += 1
    return score


def clean_vision(raw: Any) -> dict[str, Any] | None:
    """The `<vision>` reading in the shape the policy reads, whatever JSON arrived (a model may be sent
    anything): buttons as objects with a text name, texts as strings, menu and scroll as objects."""
    if not isinstance(raw, dict):
        return None

    def listed(value: Any) -> list[Any]:
        return value if isinstance(value, list) else []

    def obj(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    buttons = [{**b, "name": str(b["name"]), "meta": "" if b.get("meta") is None else str(b.get("meta"))}
               for b in listed(raw.get("buttons")) if isinstance(b, dict) and b.get("name")]
    cinematic = raw.get("cinematic")
    return {**raw, "buttons": buttons, "texts": [str(t) for t in listed(raw.get("texts"))],
            "cinematic": cinematic if isinstance(cinematic, str) else None, "menu": obj(raw.get("menu")),
            "scroll": obj(raw.get("scroll"))}


def with_values(v: dict[str, Any], texts: str, caption: str = " | ") -> str:
    """The texts with the reading's captioned values after them (caption, `caption`, value: "Fans | 1,950"): a
    captioned value is not repeated among the texts."""
    values = v.get("values")
    if not isinstance(values, dict):
        return texts
    return " | ".join([texts, *(f"{k}{caption}{val}" for k, val in values.items())])


def career_turn(v: dict[str, Any], texts: str) -> int | None:
    """The career's turn as the header prints it ("Turn 12/78"), or None when it is not read."""
    now = career_now(v, texts)
    return now[0] if now else None


def career_now(v: dict[str, Any], texts: str) -> tuple[int, int] | None:
    """The career's turn and length as the header prints them ("Turn 12/78"), or None when not read."""
    m = _TURN.search(with_values(v, texts, " "))
    return (int(m.group(1)), int(m.group(2))) if m else None

