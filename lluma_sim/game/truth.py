"""Ground truth the simulated game exposes for the current frame (tests and benchmarks only)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from lluma_sim.game.state import CareerRecord
from lluma_sim.game.state import ElementKind as ElementKind  # re-exported for their readers: the state holds the
from lluma_sim.game.state import ReceivedTap as ReceivedTap  # taps (lluma_sim.taps, sim_check)
from lluma_vision.models import Box

Cinematic = Literal["none", "loading", "cutscene", "dialogue"]


class Element(BaseModel):
    name: str  # the label as drawn (what OCR should read); icons get a descriptive name
    kind: ElementKind
    box: Box  # device pixels
    enabled: bool = True
    row: int | None = None  # list row (skills, races, choices) so repeated labels like "Learn" can be told apart


class SupportTruth(BaseModel):
    """A support card on the raised training, as the right-hand column shows it."""

    name: str
    bond: str  # "grey", "blue", "green", "orange" or "MAX"
    hint: bool


class TruthScrollbar(BaseModel):
    track: Box
    thumb: Box
    up: bool
    down: bool


class GroundTruth(BaseModel):
    screen: str  # e.g. "home", "hub", "training", "event", "skills", "races", "race_result",
    #              "confirm", "menu", "loading", "cutscene", "career_summary", "career_results", "career_end"
    #              ("Career Complete"), "setup", "launcher", "title", "download", or a dialog's kind
    width: int = 0  # frame size in device pixels (element boxes are in these)
    height: int = 0
    elements: list[Element] = Field(default_factory=list)
    scrollbar: TruthScrollbar | None = None
    selected_tab: str | None = None
    menu_usable: bool | None = None  # None when no tab bar is drawn
    cinematic: Cinematic = "none"
    turn: int = 0
    max_turns: int = 0
    score: int = 0
    finished: bool = False
    frame_no: int = 0
    # Career state (None/empty outside a career): lets tests and scripted players check effects without OCR.
    energy: int | None = None
    mood: str | None = None
    stats: dict[str, int] = Field(default_factory=dict)
    skill_points: int | None = None
    condition: str | None = None
    race_wins: int = 0
    date: str | None = None  # as printed: "Classic Year Early Apr"
    goal: str | None = None  # the current goal's text; None after the last
    goal_status: str | None = None  # "Entry criteria met!", "Goal Achieved!", or ""
    turns_left: int | None = None  # career turns until the current goal is judged
    fans: int = 0
    clocks: int = 0  # Alarm Clocks left
    coins: int = 0  # shop coins
    # The training screen: the raised training, and the support cards on it (empty on other screens).
    selected: str | None = None
    supports: list[SupportTruth] = Field(default_factory=list)
    energy_after: int | None = None  # the energy the bar previews after the raised training (None: no cost shown)
    # The app and the night: what the phone shows ("game", "anr": Android's dialog over it, "launcher": the game
    # is not running), the hazard on screen (lluma_sim.game.hazards), trainer points, and the careers that ended.
    app: str = "game"
    hazard: str | None = None
    tp: int = 0
    career_open: bool = False
    careers: list[CareerRecord] = Field(default_factory=list)

    def element(self, name: str) -> Element | None:
        return next((e for e in self.elements if e.name == name), None)

