"""The career's date and its current goal, as the header of the hub, the training screen, the race list and an
event shows them (FACTS, a career as the game plays it): one fact each for the model, however the reading split
them ("Goal" with its text as meta and the status a button apart; "Run inJuniorMakeDebut" a button of its own;
"EX" for "Goal" in the finale).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from rapidfuzz import fuzz, process

from lluma_vision.facts.values import split_words
from lluma_vision.models import Box, CompactGoal, VisionOutput

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# FACTS: "Junior Year Pre-Debut", "Classic Year Early Apr", "Senior Year Late Dec", "Finale Season"; the OCR drops
# spaces ("ClassicYear Late Jun", "SeniorYearEarlyJan") and misreads the small "Year" ("Junior Yesr Early Jul" at
# 0.75x of umaplay's event screens)
DATE = re.compile(r"\b(Junior|Classic|Senior)\s*Y[a-z]{2}r\s*"
                  rf"(?:(Pre)\s*-?\s*Debut|(Early|Late)\s*({'|'.join(MONTHS)}))|\b(Finale)\s*Season", re.IGNORECASE)
YEARS, PERIODS = ("Junior", "Classic", "Senior"), ("Early", "Late")
# A garbled date line, word by word (rapidfuzz ratio). Measured on screens (umaplay's event crops at 0.575x-1.5x and
# the 414 px hub): the year word 50-100 to its own, 31 and less to the others ("Clmsk" 50 / 18); the period 75-100 /
# 22; the month 67-100 / 33 ("Noy": Nov 67, Jan 33). The header's other lines: a goal's first word 50 to a year
# ("Place": Classic) but its last two words 40 and less to a period or month. Held out, screens2 at 0.4x-1.5x: 1
# date more read (mrhorseshoe__77 at 0.575x), none wrong.
WORD_LIKE = 45
WORD_MARGIN = 15
BADGE_ROWS = 2.5  # the date's line lies within this many badge heights over the badge's top (measured: 0.6-1.3)
# the goal's badge: "EX" in the finale (FACTS); its swirl icon may read as one letter before it ("CEX", "C-Goal":
# screens2 at 0.75x and 1.5x)
BADGE = re.compile(r"^[a-z]?(?:goal|ex)$")
# a goal's words as FACTS quotes them: "Run in Junior Make Debut", "Place top 5 in Japanese Derby", "Earn 10000 fans",
# "60 Result Pts", "Place 1st in URA Finale Qualifier" (the OCR: "Run inJuniorMakeDebut", "Place lst in ...")
GOAL = re.compile(r"^(?:Place\s*(?:top|\d|[lI]st)|Run\s*in|Win\b|Earn|\d[\d,]*\s*(?:Result|fans))", re.IGNORECASE)
# the words a goal starts with, glued or not, spaced as FACTS prints them ("Runin Junior" -> "Run in Junior")
GOAL_FORM = re.compile(r"^(Run)\s*(in)\b|^(Place)\s*(top\s*\d+|\d(?:st|nd|rd|th))\s*(in)\b|^(Earn)\s*(?=\d)",
                       re.IGNORECASE)
STATUS_TAIL = re.compile(r"\s((?:Entry\s*criteria\s*met|Goal\s*Achieved)!?)\s*$", re.IGNORECASE)
STATUSES = ("Entry criteria met!", "Goal Achieved!")  # the line under the goal (FACTS)
SAME = 80  # rapidfuzz ratio: an OCR variant of a status, as eventbook.SAME_CHOICE (not measured: the bots' 0.8)
# NEAR, measured as the line's centre from the badge's bottom in badge heights: on screens and screens2 the goal's
# words -1.12 to -0.36 and its status -0.24 to 0.17 (the badge spans both lines), the sim's status 0.44; the next line
# that reads like a goal, the race list's "11,219 Fans", 7.17
NEAR = 1.5  # the goal's text and status lie within this many badge heights under the badge's bottom, right of it


def date_of(out: VisionOutput) -> str | None:
    """The date as the game prints it, from the topmost line that holds one, spaced as printed; else the one date
    the line over the goal's badge reads like (a small header's letters garbled: "Clmsk Ya LsteApr")."""
    for _, text in _items(out):
        if m := DATE.search(text):
            if m.group(5):
                return "Finale Season"
            year = m.group(1).capitalize()
            return f"{year} Year Pre-Debut" if m.group(2) else f"{year} Year {m.group(3).capitalize()} " \
                                                               f"{m.group(4).capitalize()}"
    badge = _badge(out)
    if badge is None:
        return None
    for box, text in _items(out):
        if badge[0].y0 - BADGE_ROWS * badge[0].height <= box.center[1] < badge[0].y0 + badge[0].height / 4:
            if (date := _garbled_date(text)) is not None:
                return date
    return None


def _garbled_date(text: str) -> str | None:
    """The date a garbled line spells, word by word: its first word one of the years, its last a month (after Early or
    Late) or "Debut", each the clear best of its kind ("ClassieYesr Lste Mar", "Clmsk Ya LsteApr")."""
    words = re.findall(r"[A-Za-z]+", split_words(text))
    if len(words) < 3:
        return None
    year = _clear(words[0], YEARS)
    if year is None:
        return None
    if _clear(words[-1], ("Debut", *MONTHS)) == "Debut":
        return f"{year} Year Pre-Debut"
    period, month = _clear(words[-2], PERIODS), _clear(words[-1], MONTHS)
    return f"{year} Year {period} {month}" if period and month else None


def _clear(word: str, kinds: tuple[str, ...]) -> str | None:
    """The one of `kinds` that `word` reads like, by at least WORD_LIKE and WORD_MARGIN over the next; a word of a
    letter or two is none ("JorioYaFay d" at 0.575x: its "d" is no Dec)."""
    if len(word) < 3:
        return None
    best = process.extract(word.casefold(), [k.casefold() for k in kinds], scorer=fuzz.ratio, limit=2)
    if best[0][1] >= WORD_LIKE and best[0][1] - best[1][1] >= WORD_MARGIN:
        return kinds[best[0][2]]
    return None


def _badge(out: VisionOutput) -> tuple[Box, str] | None:
    """The topmost "Goal" (or "EX") badge and its meta."""
    badges = [(box, meta) for box, name, meta in _named(out) if BADGE.match("".join(re.findall(r"[a-z]",
                                                                                              name.casefold())))]
    return min(badges, key=lambda b: b[0].y0) if badges else None


def goal_of(out: VisionOutput) -> CompactGoal | None:
    """The current goal: the text beside the topmost "Goal" (or "EX") badge and the status under it; None when no
    badge with a goal's words beside it shows."""
    if (found := _badge(out)) is None:
        return None
    badge, meta = found
    parts = [p.strip() for p in meta.split(",")] + [text for box, text in _items(out) if _beside(badge, box)]
    # the goal and its status read as one line ("Place top 5 in Oka Sho Entry criteria met!": umaplay's events at
    # 0.75x and 1.5x) are two parts
    parts = [q.strip() for p in parts for q in STATUS_TAIL.split(p) if q and q.strip()]
    text = next((p for p in parts if GOAL.match(p)), None)
    if text is None:
        return None
    status = next((s for p in parts for s in STATUSES if fuzz.ratio(p.casefold(), s.casefold()) >= SAME), None)
    return CompactGoal(text=spaced(text), status=status)


def spaced(goal: str) -> str:
    """A goal's words spaced as printed: the OCR drops spaces ("Run inJuniorMakeDebut", "RuninJunior") and reads
    "1st" as "lst" or "Ist"; no goal the game prints has a capital inside a word (FACTS' goals, races.yaml)."""
    text = split_words(goal)
    text = re.sub(r"\b[lI]st(?=in\b|\b)", "1st", text)
    if m := GOAL_FORM.match(text):
        text = " ".join(w for w in m.groups() if w) + " " + text[m.end():]
    return re.sub(r"\s+", " ", text).strip()


def _beside(badge: Box, box: Box) -> bool:
    """On the badge's row or just under it, starting right of the badge's left edge."""
    return box.x0 >= badge.x0 and badge.y0 - badge.height <= box.center[1] <= badge.y1 + NEAR * badge.height \
        and box != badge


def _named(out: VisionOutput) -> Iterator[tuple[Box, str, str]]:
    yield from ((b.bounds, b.name.split("#")[0], b.meta) for b in out.buttons if b.region != "menu")
    yield from ((t.bounds, t.text, "") for t in out.texts)


def _items(out: VisionOutput) -> list[tuple[Box, str]]:
    """Every button's name and read line, top first."""
    return sorted(((box, name) for box, name, _ in _named(out)), key=lambda i: (i[0].y0, i[0].x0))
