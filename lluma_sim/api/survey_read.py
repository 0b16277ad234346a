"""The stand-in player reads a survey's table (`<survey>` in the request, lluma_agent/loop/survey.py) as a model
would: one row per option raised, its gains, failure and energy; the choice is the bots' (FACTS: weigh the gains,
cap the failure rate, take Wit when tired)."""

from __future__ import annotations

import re

from pydantic import BaseModel

ROW = re.compile(r"^- (?P<option>[^:]+): gains (?P<gains>[^;]*); failure (?P<failure>[^;]*);(?P<rest>.*)$",
                 re.MULTILINE)
GAIN = re.compile(r"(?P<stat>[A-Za-z][A-Za-z .]*?)\s*\+(?P<n>\d+)")
CARDS = re.compile(r"cards (?P<n>\d+)(?: \((?P<more>[^)]*)\))?")
SKILL_PTS = "Skill Pts"
# NUMBERS §7: the rating's score of a stat every 50 points (UmaAi's FiveStatusFinalScore, cross-checked by
# ogatetsu). A careful player weighs a point of a stat by the rating it adds where the stat stands: the table is
# convex (0.5 a point under 50, 6.8 at 1,150-1,200), so the stat already ahead pays more, up to the cap.
RATING_EVERY = 50
RATING_ROWS = (0, 25, 66, 116, 181, 261, 352, 457, 577, 707, 847, 993, 1143, 1298, 1463, 1633, 1808, 2004, 2209, 2419,
               2635, 2895, 3171, 3501, 3841)
STAT_CAP = 1200  # NUMBERS §0 (GLBOT): a point past it adds nothing
SKILL_POINT = 1.5  # NUMBERS §7: ~1.5 rating a skill point spent on skills (ogatetsu's examples)
UNREAD_STAT = 100  # a stat the reading did not give is weighed as a new trainee's (the start is 70-100)
START_STAT = 85  # a new trainee's stat (the simulator's turn-1 readings: 75-90), the pace's baseline
# A card on the option is worth this much rating beyond its gains: bond +7 a training toward orange, when its own
# facility's gains grow by its friendship bonus (NUMBERS §4, 20-35% on this deck); a hint (+5 bond and a skill 10%
# off, NUMBERS §4) more. [GUESS] sized at a third of a typical option's value at the start (~15 points).
CARD_VALUE = 5.0
HINT_VALUE = 5.0
MAXED_VALUE = 0.0  # a MAX card's bond cannot grow: its friendship is in the option's gains already


class Row(BaseModel):
    option: str
    gains: dict[str, int] = {}  # stat (Skill Pts too) -> the gain the row shows
    failure: int | None  # percent, None when not read
    cards: int = 0
    maxed: int = 0
    hints: int = 0

    @property
    def gain(self) -> float:
        """Stat gains summed, a skill point as a spent one (SKILL_POINT over a start stat's slope)."""
        return sum(n * (SKILL_POINT if stat == SKILL_PTS else 1.0) for stat, n in self.gains.items())


def rows(texts: list[str]) -> list[Row]:
    """The survey table's rows in the request's texts ([] when there is none)."""
    table = next((t for t in texts if "<survey>" in t), "")
    out = []
    for m in ROW.finditer(table):
        gains: dict[str, int] = {}
        for g in GAIN.finditer(m["gains"]):
            stat = SKILL_PTS if "skill" in g["stat"].casefold() else g["stat"].strip()
            gains[stat] = gains.get(stat, 0) + int(g["n"])
        fail = re.search(r"(\d+)\s*%", m["failure"])
        cards = CARDS.search(m["rest"])
        more = (cards["more"] or "") if cards else ""
        counts = {w: int(n) for n, w in re.findall(r"(\d+) (MAX|hint)", more)}
        out.append(Row(option=m["option"].strip(), gains=gains, failure=int(fail.group(1)) if fail else None,
                       cards=int(cards["n"]) if cards else 0, maxed=counts.get("MAX", 0), hints=counts.get("hint", 0)))
    return out


def slope(value: int) -> float:
    """The rating a point of a stat adds where it stands (NUMBERS §7's table); none at or past the cap."""
    if value >= STAT_CAP:
        return 0.0
    i = max(0, value) // RATING_EVERY
    return (RATING_ROWS[i + 1] - RATING_ROWS[i]) / RATING_EVERY


def bound_for(now: int, at: tuple[int, int] | None) -> int:
    """Where a stat is headed by the career's end at the pace it has grown so far (from START_STAT over `at`'s
    turns of its length), the cap left out; where it stands when the turn is not read."""
    if at is None or at[0] < 1:
        return now
    turn, length = at
    return now + max(0, now - START_STAT) * max(0, length - turn) // turn


# NUMBERS §8's "decent URA run" (an A): the spread a careful player builds toward, as shares of the stat total. No
# stat is left to a new trainee's pace: each is headed at least to its share of the total the stats are headed to.
PROFILE = {"Speed": 1200, "Stamina": 800, "Power": 900, "Guts": 400, "Wit": 600}


def headed(stats: dict[str, int], at: tuple[int, int] | None = None) -> dict[str, tuple[int, float]]:
    """Per stat, where a careful player builds it (its pace, or its PROFILE share of the total the pace heads to,
    whichever is more; under the cap) and the share of a point now that the end needs: a stat whose pace passes
    the cap gets there with fewer trainings, so a point of it now is worth the part of the pace the cap takes
    ((cap - now) / (pace - now)), and the other stats have the trainings it leaves."""
    now = {s: stats.get(s, UNREAD_STAT) for s in PROFILE}
    pace = {s: bound_for(v, at) for s, v in now.items()}
    total = sum(min(STAT_CAP, p) for p in pace.values())
    out: dict[str, tuple[int, float]] = {}
    for s, v in now.items():
        share = total * PROFILE[s] // sum(PROFILE.values())
        need = (STAT_CAP - v) / (pace[s] - v) if pace[s] > STAT_CAP > v else 1.0
        out[s] = (min(STAT_CAP - 1, max(pace[s], share)), need)
    return out


def worth(row: Row, stats: dict[str, int], at: tuple[int, int] | None = None) -> float:
    """What the option adds to the career's rating if it succeeds: each gain at the slope of where its stat is
    headed, times the share of it the end needs (headed; nothing past the cap), skill points as spent, the cards'
    bonds and hints."""
    value = 0.0
    bound = headed(stats, at)
    for stat, n in row.gains.items():
        if stat == SKILL_PTS:
            value += n * SKILL_POINT
            continue
        now = stats.get(stat, UNREAD_STAT)
        to, need = bound.get(stat, (bound_for(now, at), 1.0))
        value += min(n, max(0, STAT_CAP - now)) * slope(min(STAT_CAP - 1, to)) * need
    return value + (row.cards - row.maxed) * CARD_VALUE + row.maxed * MAXED_VALUE + row.hints * HINT_VALUE


def best(table: list[Row], cap: int, stats: dict[str, int] | None = None, at: tuple[int, int] | None = None
         ) -> str | None:
    """The option worth the most rating (worth) among those whose failure is at most `cap` (all of them when none
    is), a failure's chance taking its share off."""
    safe = [r for r in table if r.failure is None or r.failure <= cap] or table
    if not safe:
        return None
    return max(safe, key=lambda r: worth(r, stats or {}, at) * (1 - (r.failure or 0) / 100)).option


# A rest and then the best option, against a lesser option now: Rest gives 52.5 energy on average (NUMBERS §5: +70
# 25%, +50 62.5%, +30 12.5%) and a training costs about 21 (§1a, Speed Lv1), so the best option comes 1 turn in 1.4
# with rests between: worth taking a lesser option only at 1 / 1.4 of the best's worth or more.
REST_SHARE = 0.71


def rest_instead(table: list[Row], choice: str | None, stats: dict[str, int], at: tuple[int, int] | None = None
                 ) -> bool:
    """Rest rather than `choice`: the failure cap left it, and it is worth under REST_SHARE of the best option."""
    pick = next((r for r in table if r.option == choice), None)
    if pick is None or not table:
        return False
    top = max(worth(r, stats, at) for r in table)
    return worth(pick, stats, at) < REST_SHARE * top


OFFERED = re.compile(r"opened .+? from .+?; (?P<src>.+?) offered: (?P<names>.+?) \(Back, goTo or runPlan")
PLANNED = {"Rest": "rest", "Recreation": "recreation", "Infirmary": "infirmary"}  # the hub's, as procedures


def offered(texts: list[str]) -> set[str] | None:
    """The buttons of the screen the coordinator opened the surveyed one from (the hub's), or None."""
    table = next((t for t in texts if "<survey>" in t), "")
    m = OFFERED.search(table)
    return {n.strip() for n in m["names"].split(",")} if m else None
