"""The game's whole state as JSON-serialisable values: its one seeded generator, its own clock, the taps it took.

The flows change a `GameState` through the game's action table; painters draw from a copy (they cannot change the
game); `SimGame.snapshot()` / `SimGame.restore()` are a copy of it, so a game resumes exactly, dice included.
Career rules without dice (failure chance, gains, score) live here so painters and the flows share them.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator

from lluma_sim.game import calendar, numbers
from lluma_sim.game import goals as goal_rules
from lluma_sim.game import races as race_rules
from lluma_sim.game.content import (
    BOND_START,
    CARDS,
    GROWTH,
    HINT_OFF,
    MAX_ENERGY,
    MOODS,
    SKILLS,
    START_COINS,
    START_SKILL_POINTS,
    START_STATS,
    STATS,
    SUPPORT_TYPE,
    SUPPORTS,
    Event,
    Race,
)

GOAL_POINTS = 150  # a goal met, in the score (about a win and a place: a goal race is one)
UNIQUE_LEVEL = 3  # NUMBERS §7: the trainees are 3-star, their unique skill at its starting level (not awakened)
Action = tuple[Any, ...]  # (action name, *args), dispatched through game.ACTIONS to a flow's function
Style = Literal["plain", "hard"]
ElementKind = Literal["button", "tab", "choice", "text", "icon", "scrollbar"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CareerData(BaseModel):
    """One career's numbers and the rules that need no dice (painters read them; the flows roll the dice)."""

    max_turns: int
    turn: int = 1
    stats: dict[str, int] = Field(default_factory=lambda: dict(START_STATS))
    energy: int = MAX_ENERGY
    mood: int = 2  # index into MOODS
    condition: str | None = None
    skill_points: int = START_SKILL_POINTS
    learned: frozenset[str] = frozenset()
    wins: int = 0
    top3: int = 0
    races: int = 0  # races entered
    failed: int = 0  # trainings failed
    status: str = "Your career begins. Good luck!"  # one line on the hub about the last action
    trainee: int = 0  # index into screens_app.TRAINEES: whose goals (lluma_sim.game.goals)
    fans: int = 0
    clocks: int = goal_rules.ALARM_CLOCKS  # Alarm Clocks left: each runs a lost goal race again
    coins: int = START_COINS  # shop coins (lluma_sim.game.flows.shop)
    skill_hints: dict[str, int] = Field(default_factory=dict)  # skill -> hint level (each 10% off its cost)
    met: frozenset[str] = frozenset()  # events met (titles): a chain's next step comes after its first
    coming: list[str] = Field(default_factory=list)  # NUMBERS §5's events still to come, in order (flows.events)
    last_race: int = -1  # the career turn of the last race run, and how many turns in a row had one
    streak: int = 0
    won: frozenset[int] = frozenset()  # goal races met, by their index in `goals()`
    ended: Literal["goal_missed"] | None = None  # set when a goal is missed: the career ends early
    # The training screen: the raised tile, where each support card sits this turn ("" on none), its bond, the
    # cards showing a hint, and the trainings done of each kind (their level).
    sel: str = "Speed"
    placed: dict[str, str] = Field(default_factory=dict)
    bonds: dict[str, int] = Field(default_factory=lambda: {name: BOND_START for name, _ in SUPPORTS})
    hints: frozenset[str] = frozenset()
    trained: dict[str, int] = Field(default_factory=dict)

    @property
    def mood_word(self) -> str:
        return MOODS[self.mood]

    @property
    def over(self) -> bool:
        return self.turn > self.max_turns or self.ended is not None

    # --- the calendar and the goals (rules without dice: lluma_sim.game.calendar, .goals) -----------------

    def goals(self) -> tuple[tuple[goal_rules.Goal, int], ...]:
        """This career's goals with the career turn each is judged on."""
        return goal_rules.schedule(self.trainee, self.max_turns)

    @property
    def real_turn(self) -> int:
        return calendar.real_turn(min(self.turn, self.max_turns), self.max_turns)

    @property
    def date(self) -> str:
        return calendar.date(self.real_turn)

    def goal_now(self) -> tuple[int, goal_rules.Goal, int] | None:
        """The current goal (index, goal, its career turn): the first not yet judged; None after the last."""
        turn = min(self.turn, self.max_turns)
        return next(((i, g, t) for i, (g, t) in enumerate(self.goals()) if t >= turn), None)

    def goal_met(self, index: int) -> bool:
        return goal_rules.met(self.goals()[index][0], index, self.fans, self.won)

    def race_day(self) -> int | None:
        """The goal whose race is run this turn and not yet met (its index), else None."""
        now = self.goal_now()
        if now is None or self.over:
            return None
        i, goal, turn = now
        return i if goal.race and turn == self.turn and i not in self.won else None

    def skill_cost(self, skill: str) -> int:
        """A skill's cost as the list shows it: its hint levels off (HINT_OFF percent each)."""
        base = next(s.cost for s in SKILLS if s.name == skill)
        return base * (100 - HINT_OFF * self.skill_hints.get(skill, 0)) // 100

    def fail_chance(self, training: str) -> int:
        """Failure percent shown on the training screen (NUMBERS §3a): energy against the facility's FailBase."""
        return numbers.failure(self.energy, numbers.FAIL_BASE[training][self.level(training) - 1],
                               condition=self.condition)

    @property
    def camp(self) -> bool:
        return calendar.summer_camp(self.real_turn)

    def level(self, training: str) -> int:
        """The facility's level (NUMBERS §1c): one more each LEVEL_EVERY successful trainings; 5 at a camp."""
        if self.camp:
            return numbers.MAX_LEVEL
        return min(numbers.MAX_LEVEL, 1 + self.trained.get(training, 0) // numbers.LEVEL_EVERY)

    def energy_change(self, training: str) -> int:
        """The training's effect on energy when it succeeds (negative: a cost; Wit restores), NUMBERS §1a."""
        return numbers.ENERGY[training][self.level(training) - 1]

    def cards_on(self, training: str) -> list[str]:
        return [name for name, _ in SUPPORTS if self.placed.get(name) == training]

    def friends(self, training: str) -> list[str]:
        """The cards making a friendship training here: their own type, bond orange or MAX (NUMBERS §2)."""
        return [n for n in self.cards_on(training)
                if SUPPORT_TYPE[n] == training and self.bonds.get(n, 0) >= numbers.FRIENDSHIP_BOND]

    def friendship(self, training: str) -> bool:
        return bool(self.friends(training))

    def gains(self, training: str) -> dict[str, int]:
        """What the training gives, as the screen shows it over the stats (Skill Pts included): NUMBERS §2's
        formula over the facility's base at its level, the trainee's growth, the mood and the cards on it."""
        on = self.cards_on(training)
        growth = GROWTH[self.trainee % len(GROWTH)]
        friendship = [CARDS[n].friendship for n in self.friends(training)]
        mood_effect = sum(CARDS[n].mood_effect for n in on)
        effect = sum(CARDS[n].training_effect for n in on)
        return {k: numbers.gain(v, growth.get(k, 0), friendship, self.mood, mood_effect, effect, len(on))
                for k, v in numbers.base(training, self.level(training)).items()}

    def races_available(self) -> list[Race]:
        """The date's races (lluma_sim.game.races): graded ones on their calendar dates, OP and Pre-OP between."""
        return race_rules.on_turn(self.turn, self.max_turns)

    def add(self, stat: str, v: int) -> None:
        """`v` more of `stat` (less when negative), within 1 and the cap; not a stat: nothing."""
        if stat in STATS:
            self.stats[stat] = max(1, min(numbers.STAT_CAP, self.stats[stat] + v))

    def apply(self, effects: dict[str, int]) -> list[str]:
        """Effects on energy, mood, skill points and stats (an event choice's, a shop item's); each as said."""
        parts = []
        for key, v in effects.items():
            if key == "Energy":
                self.energy = max(0, min(MAX_ENERGY, self.energy + v))
            elif key == "Mood":
                self.mood = max(0, min(len(MOODS) - 1, self.mood + v))
            elif key == "Skill Pts":
                self.skill_points += v
            else:
                self.add(key, v)
            parts.append(f"{key} {v:+d}")
        return parts

    def rating(self) -> int:
        """The career's rating as the game computes it (NUMBERS §7): each stat's score, the skills learned at their
        value, the unique skill. Fans and wins do not count."""
        skills = sum(s.rating for s in SKILLS if s.name in self.learned)
        return (sum(numbers.stat_score(self.stats[s]) for s in STATS) + skills
                + numbers.unique_skill(3, UNIQUE_LEVEL))

    def score(self) -> int:
        """The simulator's own measure (the game's is `rating`): gains, so a career that does nothing scores ~0 and
        a sensible one grows; each goal met adds; a career a missed goal ended keeps only the share of the calendar
        it reached (it scores low)."""
        gained = sum(self.stats.values()) - sum(START_STATS.values())
        skills = sum(s.cost for s in SKILLS if s.name in self.learned) // 2
        goals = GOAL_POINTS * sum(self.goal_met(i) for i in range(len(self.goals())))
        total = max(0, gained + 120 * self.wins + 40 * self.top3 + skills + goals)
        return total * self.real_turn // calendar.REAL_TURNS if self.ended else total


class CareerState(CareerData):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RaceResult(Frozen):
    race: Race
    place: int  # 1-based
    points: int
    fans: int = 0
    goal: int | None = None  # the goal (its index) this race was run for
    coins: int = 0  # shop coins it paid
    stats: dict[str, int] = Field(default_factory=dict)  # stats it gave
    energy: int = 0  # energy it cost


class DialogState(Frozen):
    kind: str  # "confirm" (OK/Cancel), "menu", "settings", or a hazard's or the app's (lluma_sim.game.hazards)
    title: str
    lines: tuple[str, ...]
    buttons: tuple[tuple[str, str, Action], ...]  # label, style, action; the first one is what BACK does
    back: bool = True  # False: BACK does nothing (the game's own error dialogs)


class GoalRecord(Frozen):
    text: str
    met: bool


class CareerRecord(Frozen):
    """One ended career as the game knows it (ground truth for the demo and benchmarks)."""

    number: int  # 1-based, in the order they ended
    turns: int  # turns played (the career's length when complete; the turn a missed goal ended it)
    stats: dict[str, int]
    skill_points: int  # left unspent
    skills_learned: int
    races_entered: int
    races_won: int
    score: int  # the simulator's own measure (CareerData.score)
    goals: tuple[GoalRecord, ...] = ()
    ended: Literal["complete", "goal_missed"] = "complete"
    fans: int = 0
    rating: int = 0  # the game's rating (NUMBERS §7) and its rank band
    rank: str = ""
    stats_total: int = 0
    failed_trainings: int = 0


class AnimState(Frozen):
    kind: str  # "loading" or "cutscene"
    total: int
    theme: str = ""
    step: int = 0  # 0 until the first capture shows it; shown for steps 1..total


class RngState(Frozen):
    """`random.Random.getstate()` as JSON-friendly fields."""

    version: int
    internal: tuple[int, ...]
    gauss_next: float | None

    @classmethod
    def of(cls, rng: random.Random) -> RngState:
        version, internal, gauss_next = rng.getstate()
        return cls(version=version, internal=internal, gauss_next=gauss_next)

    def apply(self, rng: random.Random) -> None:
        rng.setstate((self.version, self.internal, self.gauss_next))


def dice(seed: int = 0, saved: RngState | None = None) -> random.Random:
    """The game's one generator (every die the game rolls, a career's and a night's): new from `seed`, or where a
    snapshot left it."""
    rng = random.Random(seed)
    if saved is not None:
        saved.apply(rng)
    return rng


# A live generator in the state, saved as its `RngState` (a snapshot's JSON carries where the dice are).
Dice = Annotated[
    random.Random,
    PlainValidator(lambda v: v if isinstance(v, random.Random) else dice(saved=RngState.model_validate(v))),
    PlainSerializer(lambda r: RngState.of(r).model_dump(), return_type=dict[str, Any]),
]


class ReceivedTap(BaseModel):
    """A tap the game received, with the ground-truth element under its point at that moment."""

    x: float
    y: float
    frame_no: int  # captures taken before it
    screen: str
    element: str | None = None  # name of the topmost tappable element under the point (else a text line's)
    kind: ElementKind | None = None
    spent: str = ""  # what the tap spent ("a TP item"): the game's own word, for spends_without_model


class GameState(BaseModel):
    """Everything that decides the next frames and outcomes: `SimGame.state`, the game's only state, its dice and
    its clock included (the same inputs give the same frames however long the phone sits idle). The flows change it
    through the game's action table; painters draw a copy. `model_dump_json()` saves it."""

    model_config = ConfigDict(extra="forbid")

    seed: int
    width: int
    height: int
    max_turns: int
    style: Style = "plain"
    letterbox: int = 0  # black bar height above and below the game, in frame pixels
    rng: Dice | None = None  # the one generator; None in views made only for drawing
    screen: str = "home"
    tab: str = "Home"
    dialog: DialogState | None = None
    anim: AnimState | None = None
    queue: list[Action] = Field(default_factory=list)  # phases that follow the current animation
    career: CareerData | None = None
    event: Event | None = None
    page: int = 0
    quick: bool = False
    scroll: int = 0  # skills list offset, device px
    pending: list[str] = Field(default_factory=list)  # skills marked with Learn, not yet confirmed
    races: list[Race] = Field(default_factory=list)
    race_sel: int = 0
    result: RaceResult | None = None
    finished: bool = False
    frame_no: int = 0  # captures taken
    version: int = 0  # bumps whenever the picture changes
    settings: dict[str, bool] = Field(default_factory=dict)  # the settings modal's toggles (hard style)
    # The game as an app on the phone and what a night brings (lluma_sim.game.hazards).
    running: bool = True  # the app's process; False: the phone shows its launcher
    task: int = 409  # Android task id of the game's activity: a new one at each start
    drawn: bool = True  # the game's window has been drawn since its start (else no window has focus yet)
    resume_screen: str = "hub"  # the career screen a "Continue Career" resumes
    career_open: bool = False  # a career started and not yet completed (ended careers are in `careers`)
    careers: list[CareerRecord] = Field(default_factory=list)
    setup_step: int = 0  # career setup: scenario, trainee, legacy, deck
    trainee: int = 0
    legacy_set: bool = False
    friend_set: bool = False
    results_page: int = 0
    tp: int = 100  # trainer points: a career costs 30
    tp_items: int = 0  # "Toughness 30" items owned (each +30 TP)
    clock_s: float = 0.0  # the run's own clock: each input and capture moves it, never the wall (TP, maintenance)
    tp_clock_s: float = 0.0  # seconds towards the next TP
    hazard_rate: float = 0.0  # hazards per input
    hazard_counts: dict[str, int] = Field(default_factory=dict)  # hazards that fired, by kind
    hazard: str | None = None  # the hazard on screen now
    maintenance_until: float = 0.0  # clock_s when the maintenance ends
    update_pending: bool = False  # a data update must be downloaded before play
    login: list[str] = Field(default_factory=list)  # popups still to show after the next login (after a daily reset)
    tutorial_armed: bool = False
    tutorials_seen: list[str] = Field(default_factory=list)
    purchase_attempts: int = 0  # presses of "Purchase Carats" that reached the game
    taps: list[ReceivedTap] = Field(default_factory=list)  # every tap received, with the element under it

    @property
    def score(self) -> int:
        return self.career.score() if self.career else 0

    @property
    def turn(self) -> int:
        return min(self.career.turn, self.max_turns) if self.career else 0
