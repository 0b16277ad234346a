"""What a night brings, drawn by rate on the game's own clock of inputs.

A real game left alone overnight crashes to the launcher, gets a system "isn't responding" dialog, loses its
connection, meets the daily reset and a maintenance, asks for a data update, shows a tutorial on a screen seen for
the first time, and sometimes loads for a minute (FACTS, "The game as an app, and what a night brings"). The
simulated game draws one of these after an input with probability `rate` (`draw`), on the game's one generator, so
the same seed and inputs bring the same hazards whether the player is `lluma demo`, `lluma run` or a test; `SimGame`
carries them out and counts what fired (a hazard drawn while another is on screen, or during an animation, does not
fire). `session_error` (logged in elsewhere) is never drawn at random: `SimGame.hazard("session_error")` shows it.

The words are the Global client's (FACTS): dialog titles and button labels as a real client draws them.
"""

from __future__ import annotations

import random
from typing import Literal, get_args

from pydantic import BaseModel

from lluma_sim.words import APP_LABEL

HazardKind = Literal[
    "app_crash",  # the game's process dies: the phone shows its launcher
    "anr",  # Android's "<Game> isn't responding" (Close app / Wait)
    "connection_error",  # "Connection Error" (Title Screen / Retry)
    "daily_reset",  # "Date Changed" (OK) -> title screen -> login bonus -> notices -> daily sale
    "maintenance",  # "Maintenance" (OK) -> title screen; the notice comes back until it is over
    "update_prompt",  # "Data Update" (Cancel / Download) -> download -> title screen
    "tutorial",  # a "Tutorial" overlay on the next screen seen for the first time
    "long_loading",  # a loading screen that lasts about a minute of captures
    "session_error",  # "Session Error" (Title Screen only); only when asked for by name
]
HAZARD_KINDS: tuple[str, ...] = get_args(HazardKind)
RANDOM_KINDS: tuple[str, ...] = tuple(k for k in HAZARD_KINDS if k != "session_error")

# The game's own clock, the only one it has (no wall clock: a phone left idle lives no time, so a seeded run is the
# same at any machine's speed and however long it sits): seconds an input stands for (a turn of a real agent)...
INPUT_S = 30.0
CAPTURE_S = 1.0  # ...and a capture
TP_EVERY_S = 600.0  # 1 TP comes back every 10 minutes (FACTS)
MAINTENANCE_S = 360.0  # how long a maintenance lasts on the game's clock
LONG_LOADING_FRAMES = 40  # captures a long loading screen stays up
DOWNLOAD_FRAMES = 6  # captures the data download takes


class HazardsInjected(BaseModel):
    """What fired, by kind (as `FaultsInjected`): `lluma demo --json`'s `hazards_injected`."""

    total: int
    by_kind: dict[str, int]

    @classmethod
    def of(cls, counts: dict[str, int]) -> HazardsInjected:
        kept = {k: v for k, v in sorted(counts.items()) if v}
        return cls(total=sum(kept.values()), by_kind=kept)


def check_rate(rate: float) -> float:
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"hazard rate must be between 0 and 1 per input, got {rate}")
    return rate


def draw(rng: random.Random, rate: float) -> str | None:
    """After one input: a hazard kind with probability `rate`, uniform over the random kinds. Both dice are rolled
    whatever the rate, so the same seed brings hazards at the same inputs at any rate above them."""
    roll, kind = rng.random(), rng.choice(RANDOM_KINDS)
    return kind if roll < rate else None


# ---- the words (Global client) ----------------------------------------------------------------------------

CONNECTION_ERROR = ("Connection Error", ("A communication error occurred.", "Please check your connection."))
DATE_CHANGED = ("Date Changed", ("The date has changed.", "Returning to the title screen."))
MAINTENANCE = ("Maintenance", ("The game is currently under maintenance.", "Please try again later."))
DATA_UPDATE = ("Data Update", ("New data is available.", "Download 48.2 MB of data now?"))
SESSION_ERROR = ("Session Error", ("You have logged in on another device.", "Returning to the title screen."))
ANR_TITLE = f"{APP_LABEL} isn't responding"
LOGIN_POPUPS = ("login_bonus", "notices", "daily_sale")  # after a daily reset's login, in order
LOGIN_BONUS = ("Login Bonus", ("Day 3 of 7", "Carats x50 received!"))
NOTICES = ("Notices", ("Autumn Cup event now on!", "Maintenance has ended. Thank you!"))
DAILY_SALE = ("Daily Sale", ("Today only: 1,500 Carats pack.", "A special price for trainers!"))
PURCHASE_CLOSED = ("Purchase Carats", ("Purchases are not available",  "in the simulator."))
TUTORIALS = {  # screen -> what the overlay says there
    "home": "Tap Career to train a new trainee.",
    "hub": "Each turn, choose to train, rest or race.",
    "training": "Tap a training to see what it gives; tap it again to train. Watch the failure rate.",
    "skills": "Learn skills with your skill points.",
    "races": "Pick a race and tap Race to enter it.",
    "event": "Events may change stats. Choose carefully.",
    "setup": "Pick a scenario, a trainee, legacy and a deck.",
}
