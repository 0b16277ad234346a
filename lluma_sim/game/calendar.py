"""The career's calendar as the game prints it (FACTS: a career as the game plays it).

A real career is 78 turns: 72 dated ones (24 a year, an early and a late half of each month: Junior 1-24,
Classic 25-48, Senior 49-72) and 6 of the finale. A shorter simulated career keeps that shape: its turns are
spread over the same 78 (turn 1 is the first, its last turn the last), so dates and goals compress together.
"""

from __future__ import annotations

from functools import cache

REAL_TURNS = 78  # NUMBERS §0: 78 turns, 72 of them dated (24 a year), then the finale's 6
DATED_TURNS = 72  # NUMBERS §0, as above
YEARS = ("Junior", "Classic", "Senior")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
DEBUT_TURN = 12  # Junior Late Jun: the debut race (FACTS)
DATED_FROM = 11  # "Junior Year Early Jun" is the first dated Junior turn FACTS quotes; before it, "Pre-Debut"
SUMMER_CAMPS = ((37, 40), (61, 64))  # Classic and Senior Early Jul .. Late Aug (FACTS)
# longer is no career, and `--career-turns` refuses it: a real one is 78 game turns; a night (8 hours at 6-9 s a
# turn) plays 3,000-4,800 agent turns and a career takes more agent turns than game turns, so one past this never
# ends within a night
MAX_CAREER_TURNS = 1000


def real_turn(turn: int, max_turns: int) -> int:
    """The calendar turn (1..78) career turn `turn` of a `max_turns`-turn career falls on."""
    if max_turns <= 1:
        return REAL_TURNS
    turn = max(1, min(turn, max_turns))
    return 1 + (turn - 1) * (REAL_TURNS - 1) // (max_turns - 1)


@cache  # pure; the painters ask it for every goal and race row of every frame (20,000 calls in a 40-turn demo)
def career_turn(real: int, max_turns: int) -> int:
    """The first career turn on or after calendar turn `real` (the inverse of `real_turn`)."""
    return next((t for t in range(1, max_turns + 1) if real_turn(t, max_turns) >= real), max_turns)


def date(real: int) -> str:
    """The date as the Global client prints it: "Junior Year Pre-Debut", "Classic Year Early Apr", "Finale Season"."""
    if real > DATED_TURNS:
        return "Finale Season"
    year, index = divmod(real - 1, 24)
    if year == 0 and real < DATED_FROM:
        return "Junior Year Pre-Debut"
    half = "Early" if index % 2 == 0 else "Late"
    return f"{YEARS[year]} Year {half} {MONTHS[index // 2]}"


def summer_camp(real: int) -> bool:
    return any(a <= real <= b for a, b in SUMMER_CAMPS)
