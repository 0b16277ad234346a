"""Careers, the unit of an unattended run: a fold over the turn logs that says where each career ended and what
it came to.

The agent knows a career only from what the screens showed, as a player does (FACTS, "Careers"). A career is
being played once the career hub shows (its Training and Rest buttons). It ends where the game ends it: on the
screen the game shows after its results ("Career Complete"), that turn included. The turns from its "Complete
Career" confirm's "Finish" to there (the result screens) are its own, but what they print ("Sparks Acquired":
Speed 2) is not read as the trainee's stats. The turns after the end belong to the next career (starting one is
part of its cost): a new career begins at the next hub. So a run started on, or brought back to, the end screens
does not count a career it did not play. Should the "Career Complete" screen go unseen after a Finish (a crash,
the daily reset), the next career's hub ends it as of its Finish, and the turns since go to the new one. The
final stats are the last value read under each stat caption while it was played (before its Finish); races are
the race result screens seen ("Race Result"), won when they show "1st".

`CareerBook.add(log)` is the same fold for the running loop (loop/careers.py writes each record as it ends), for
`lluma stats` (over the turn logs on disk) and for the report's table and charts, so all say the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from lluma_agent.context.stuck import RUNGS
from lluma_agent.runlog.logread import turn_calls
from lluma_agent.runlog.turnlog import TurnLog
from lluma_vision.models import VisionData

END_TITLE = "career complete"  # the game's screen after a career (Global wording)
FINISH, CANCEL = "Finish", "Cancel"  # the "Complete Career" confirm's buttons (FACTS)
HUB = frozenset({"Training", "Rest"})  # the career hub's buttons (FACTS): a career is being played
RACE_RESULT_TITLE = "race result"
RESULTS_TITLE = "career results"  # the screen after a career's Finish: its rank and rating (FACTS)
_RATING = re.compile(r"rating\s*:?\s*([\d,]+)", re.IGNORECASE)
_RANK = re.compile(r"(?:G|F|E|D|C|B|A|S|SS|UG|UF|UE|UD|UC|UB|UA|US)\+?")  # the rank bands, NUMBERS §7
WIN = "1st"
STATS = ("Speed", "Stamina", "Power", "Guts", "Wit")
SKILL_POINTS = ("skill pts", "skill points")
_NUMBER = re.compile(r"\d[\d,]*")
_WORDS = re.compile(r"[^a-z0-9]+")


GOAL_TEXT = re.compile(r"(run in|place|earn)\b", re.IGNORECASE)  # a goal's text as the game prints it (FACTS)
# a goal's outcome on the career's summary, before its text ("Achieved: Place top 5 in Japanese Derby")
GOAL_WORDS = {"achieved": True, "missed": False, "not run": False}
GOAL_NOT_REACHED = "goal not reached"  # the dialog a missed goal shows (FACTS: a title bots handle)
SUMMARY_BUTTON = "Complete Career"
_TURN = re.compile(r"turn\s*(\d+)\s*/\s*\d+", re.IGNORECASE)
_LABELLED = re.compile(r"(fans|skills learned)\s+([\d,]+)$", re.IGNORECASE)


class CareerNow(BaseModel):
    """Where the career going on stands, as its screens last showed it (the live line's clock and goal), and what
    its end will take at its own pace so far (`to_end_s`, `to_end_usd`: None until a game turn has passed)."""

    turn: str | None = None  # the header's "Turn 12/78", as "12/78"
    date: str | None = None  # "Classic Year Early Apr"
    goal: str | None = None  # the current goal's words
    status: str | None = None  # the status line under it ("Goal Achieved!")
    to_end_s: float | None = None
    to_end_usd: float | None = None

    def fraction(self) -> tuple[int, int]:
        """"12/78" as (12, 78); (0, 0) when no turn was read as one."""
        done, _, of = (self.turn or "").partition("/")
        return (int(done), int(of)) if done.isdigit() and of.isdigit() else (0, 0)

    def estimate(self) -> str:
        """`about 25 min and $0.0312 to the career's end at this career's pace`, or "" before a game turn passed."""
        if self.to_end_s is None or self.to_end_usd is None:
            return ""
        return (f"about {self.to_end_s / 60:.0f} min and ${self.to_end_usd:.4f} to the career's end at this "
                "career's pace")

    def words(self) -> str:
        """`12/78 Earn 3000 fans`: the turn and the goal, as short as a column allows; "" when nothing showed."""
        return " ".join(w for w in (self.turn, self.goal) if w)


class GoalSeen(BaseModel):
    text: str
    met: bool


class PlanCount(BaseModel):
    """runPlan procedures carried out (lluma_agent/loop/plans.py): how many, their presses, those stopped early."""

    run: int = 0
    steps: int = 0
    surprises: int = 0

    def add(self, log: TurnLog) -> None:
        if log.plan is not None:
            self.run += 1
            self.steps += len(log.plan.steps)
            self.surprises += log.plan.surprise


class CareerSummary(BaseModel):
    """One career as the turn logs saw it (`careers/career_001.json`; `lluma stats --json` key `careers`)."""

    number: int  # 1 = the first career this run played
    complete: bool  # its end screen was seen (or its Finish, the run stopping on its results); False: it went on
    first_turn: int
    last_turn: int
    turns: int
    model_calls: int  # every call its turns made (decisions and side calls)
    cost_usd: float
    wall_s: float  # its first turn's start to its last turn's end
    stats: dict[str, int] = Field(default_factory=dict)  # the last value read under each stat caption
    skill_points: int | None = None  # the last "Skill Pts" read
    races_entered: int = 0  # race result screens seen
    races_won: int = 0  # ...showing 1st
    recoveries: dict[str, int] = Field(default_factory=dict)  # recovery ladder rungs climbed, by rung
    game_starts: int = 0  # times the game had to be started again
    plans: PlanCount = Field(default_factory=PlanCount)  # runPlan procedures carried out in it
    surveys: int = 0  # turns whose options were raised and read before the model chose
    ended_at: float | None = None  # epoch seconds of the turn that saw its end
    # What the career came to, as its screens said (the game's record has the same: `lluma demo --json`'s
    # game_careers): its goals and whether each was met (the summary's list), how it ended ("goal_missed": a
    # "Goal Not Reached" seen or a goal missed on the list), the game's turn it ended on (the last "Turn N/M"),
    # fans and skills learned (the last read).
    goals: list[GoalSeen] = Field(default_factory=list)
    ended: Literal["complete", "goal_missed"] | None = None
    game_turns: int | None = None
    fans: int | None = None
    skills_learned: int | None = None
    # the game's own rating of it and its rank band, as its "Career Results" screen prints them (FACTS/NUMBERS §7)
    rating: int | None = None
    rank: str | None = None


def _words(text: str) -> str:
    return _WORDS.sub(" ", text.lower()).strip()


def _number(text: str) -> int | None:
    m = _NUMBER.search(text)
    return int(m.group().replace(",", "")) if m else None


def view_of(log: TurnLog) -> VisionData | None:
    """What the model was shown this turn, or None (a turn that read nothing, or a log from an older schema)."""
    if log.vision is None or not log.vision.seen_by_model:
        return None
    try:
        return VisionData.model_validate(log.vision.seen_by_model)
    except (ValidationError, ValueError):
        return None


def _shows(view: VisionData, title: str) -> bool:
    return any(_words(t) == title for t in (*view.texts, *(b.name for b in view.buttons)))


def _names(view: VisionData) -> set[str]:
    return {b.name for b in view.buttons}


def _finished(log: TurnLog, view: VisionData) -> bool:
    """This turn answered the "Complete Career" confirm: Finish pressed on a Cancel / Finish dialog."""
    a = log.action
    return a is not None and a.tool == "pressButton" and a.target == FINISH and {FINISH, CANCEL} <= _names(view)


def _recovery_rung(log: TurnLog) -> str | None:
    """The rung of the recovery ladder this turn climbed, if any (counted as `lluma stats` counts them)."""
    return log.recovery.rung if log.recovery is not None and log.recovery.rung in RUNGS else None


class _Open(BaseModel):
    """The career going on: what its turns added up to so far."""

    first_turn: int
    last_turn: int
    started_at: float
    ended_at: float
    turns: int = 0
    model_calls: int = 0
    cost_usd: float = 0.0
    stats: dict[str, int] = Field(default_factory=dict)
    skill_points: int | None = None
    races_entered: int = 0
    races_won: int = 0
    recoveries: dict[str, int] = Field(default_factory=dict)
    game_starts: int = 0
    plans: PlanCount = Field(default_factory=PlanCount)
    surveys: int = 0
    playing: bool = False  # its hub has shown: what the screens print is its own
    goals: list[GoalSeen] = Field(default_factory=list)
    missed: bool = False
    game_turns: int | None = None
    fans: int | None = None
    skills_learned: int | None = None
    rating: int | None = None
    rank: str | None = None

    @classmethod
    def at(cls, log: TurnLog) -> _Open:
        return cls(first_turn=log.turn, last_turn=log.turn, started_at=log.started_at, ended_at=log.started_at)

    def tally(self, log: TurnLog) -> None:
        """One more turn of it: what the turn cost and what it had to do to keep the game going."""
        self.last_turn, self.ended_at = log.turn, log.started_at + log.timings.total_s
        self.turns += 1
        self.model_calls += len(turn_calls(log))
        self.cost_usd += log.cost.turn_usd
        if rung := _recovery_rung(log):
            self.recoveries[rung] = self.recoveries.get(rung, 0) + 1
        if log.game_start is not None and log.game_start.ok:
            self.game_starts += 1
        self.plans.add(log)
        self.surveys += log.survey is not None

    def record(self, number: int, complete: bool, ended_at: float | None) -> CareerSummary:
        return CareerSummary(
            number=number, complete=complete, first_turn=self.first_turn, last_turn=self.last_turn, turns=self.turns,
            model_calls=self.model_calls, cost_usd=round(self.cost_usd, 6),
            wall_s=round(max(0.0, self.ended_at - self.started_at), 3), stats=dict(self.stats),
            skill_points=self.skill_points, races_entered=self.races_entered, races_won=self.races_won,
            recoveries=dict(self.recoveries), game_starts=self.game_starts, ended_at=ended_at,
            goals=[g.model_copy() for g in self.goals],
            # a missed goal ends the career in the game at once, before its results show (then it is complete)
            ended="goal_missed" if self.missed or any(not g.met for g in self.goals) else "complete" if complete
            else None,
            game_turns=self.game_turns, fans=self.fans, skills_learned=self.skills_learned, rating=self.rating,
            rank=self.rank,
            plans=self.plans.model_copy(), surveys=self.surveys,
        )


def _read_rating(c: _Open, view: VisionData) -> None:
    """"Rating 5,652" and the rank band ("C+") on the career's results screen."""
    for t in view.texts:
        if m := _RATING.fullmatch(t.strip()):
            c.rating = int(m.group(1).replace(",", ""))
        elif _RANK.fullmatch(t.strip()):
            c.rank = t.strip()
    for key, value in view.values.items():
        if key.split("#")[0].strip().lower() == "rating" and (number := _number(value)) is not None:
            c.rating = number


def _read_record(c: _Open, view: VisionData) -> None:
    """What the career came to, as this screen prints it: the turn, fans, skills learned, a missed goal, and on
    the career's summary its goals with their outcomes."""
    said = [*view.texts, *(b.name for b in view.buttons)]
    for t in said:
        if m := _TURN.fullmatch(t.strip()):
            c.game_turns = int(m.group(1))
        elif m := _LABELLED.match(t.strip()):
            number = int(m.group(2).replace(",", ""))
            if m.group(1).lower() == "fans":
                c.fans = number
            else:
                c.skills_learned = number
    for key, value in view.values.items():
        caption, read = key.split("#")[0].strip().lower(), _number(value)
        if caption == "turn" and read is not None:  # the header's "Turn 3/10", read as a caption and its value
            c.game_turns = read
        elif caption == "fans" and read is not None:
            c.fans = read
        elif caption == "skills learned" and read is not None:
            c.skills_learned = read
    if _shows(view, GOAL_NOT_REACHED):
        c.missed = True
    if SUMMARY_BUTTON not in _names(view):
        return
    goals: list[GoalSeen] = []
    lines = [*said, *(f"{k.split('#')[0].strip()}: {v}" for k, v in view.values.items())]
    for line in lines:
        word, _, text = line.partition(":")
        text = text.strip()
        if _words(word) in GOAL_WORDS and GOAL_TEXT.match(text) and text not in {g.text for g in goals}:
            goals.append(GoalSeen(text=text, met=GOAL_WORDS[_words(word)]))
    if goals:
        c.goals = goals


class CareerBook:
    """The careers of one run, fed one turn log at a time in turn order."""

    def __init__(self) -> None:
        self.ended: list[CareerSummary] = []
        # Turns whose screen was read as the trainee's (a career played, before its Finish): the report's progress
        # charts plot these only, so a result screen's "Speed 2" is no stat there either.
        self.trainee_turns: list[int] = []
        self._open: _Open | None = None
        self._finish: _Open | None = None  # the career as it was at its Finish, while its results show
        self._since: _Open | None = None  # the turns after that Finish: the next career's, should its end go unseen
        self._in_race_result = False
        self.now = CareerNow()  # the career going on, as its screens last showed it

    def add(self, log: TurnLog) -> CareerSummary | None:
        """Take one turn; returns the career this turn saw end, if it did."""
        c = self._open = self._open or _Open.at(log)
        since = None
        if self._finish is not None:
            since = self._since = self._since or _Open.at(log)
            since.tally(log)
        c.tally(log)
        view = view_of(log)
        if view is None:
            return None
        hub = HUB <= _names(view)
        record = None
        if self._finish is not None and since is not None and hub:  # a new hub, "Career Complete" unseen
            record = self._end(self._finish)  # the career ended as of its Finish; the turns since are the new one's
            c = self._open = since
        c.playing = c.playing or hub
        if not c.playing:
            return record
        if self._finish is None:  # before its Finish the screens show the trainee; after it, the game's results
            self._read(c, view, log)
            self._shown(view)
            self.trainee_turns.append(log.turn)
            if _finished(log, view):
                self._finish = c.model_copy(deep=True)
        if self._finish is not None and _shows(view, RESULTS_TITLE):  # the game's rating of the finished career
            for held in (c, self._finish):
                _read_rating(held, view)
        if _shows(view, END_TITLE):
            self._final(c, view)
            return self._end(c)
        return record

    @staticmethod
    def _final(c: _Open, view: VisionData) -> None:
        """The stats and skill points a screen shows, into the career. Read while it is played, and on its end screen
        where it prints the trainee's final stats (the simulator's "Career Complete" does): a summary whose stat row
        went unread (the hard 420x936 frames) loses nothing."""
        for key, value in view.values.items():
            caption, number = key.split("#")[0].strip(), _number(value)
            if number is not None and caption in STATS:
                c.stats[caption] = number
            elif number is not None and caption.lower() in SKILL_POINTS:
                c.skill_points = number

    def _shown(self, view: VisionData) -> None:
        """The career's clock and goal, where this screen shows them (the last read kept)."""
        turn = next((v for k, v in view.values.items() if k.split("#")[0].strip().lower() == "turn"), None)
        if turn is not None and "/" in turn:
            self.now.turn = turn.replace(" ", "")
        if view.date:
            self.now.date = view.date
        if view.goal is not None:
            self.now.goal, self.now.status = view.goal.text, view.goal.status
        c = self._open
        done, of = self.now.fraction()
        if c is not None and c.playing and done and of and done > 1:  # the pace of the game turns played so far
            left = (of - done) / (done - 1)
            self.now.to_end_s = round((c.ended_at - c.started_at) * left, 1)
            self.now.to_end_usd = round(c.cost_usd * left, 6)

    def _end(self, c: _Open) -> CareerSummary:
        self.now = CareerNow()
        record = c.record(len(self.ended) + 1, complete=True, ended_at=c.ended_at)
        self.ended.append(record)
        self._open = self._finish = self._since = None
        return record

    def _read(self, c: _Open, view: VisionData, log: TurnLog) -> None:
        self._final(c, view)  # the stats and skill points it shows, the last read kept
        _read_record(c, view)
        # a race's result: on a plan's step (runPlan(race_day) passes it inside one turn), then on the turn's screen
        for step in log.plan.steps if log.plan is not None else []:
            if step.reached:
                self._raced(c, RACE_RESULT_TITLE in _words(step.reached), any(_words(t) == WIN for t in step.said))
        self._raced(c, _shows(view, RACE_RESULT_TITLE), _shows(view, WIN.lower()))

    def _raced(self, c: _Open, result: bool, won: bool) -> None:
        """A race result screen seen (counted once however many screens in a row show it)."""
        if result and not self._in_race_result:
            c.races_entered += 1
            c.races_won += won
        self._in_race_result = result

    def clock(self) -> tuple[int, int | None, int]:
        """Where the game's clock stands: careers ended, the open career's game turn as last read (None before its
        hub shows), races run in it."""
        c = self._open
        if c is None or not c.playing:
            return len(self.ended), None, 0
        return len(self.ended), c.game_turns, c.races_entered

    def in_progress(self) -> CareerSummary | None:
        """The career going on, as a record marked not complete; None between careers (no hub seen yet). One whose
        Finish was pressed is complete (the game has completed it) though the run stopped during its results."""
        c = self._open
        if c is None or not c.playing:
            return None
        finished = self._finish is not None
        return c.record(len(self.ended) + 1, complete=finished, ended_at=c.ended_at if finished else None)

    def careers(self) -> list[CareerSummary]:
        """Every career the turns saw: those that ended, then the one going on (if its hub showed)."""
        going = self.in_progress()
        return [*self.ended, *([going] if going else [])]


def fold(turns: Iterable[TurnLog]) -> CareerBook:
    """The book of a run's turn logs, taken in turn order."""
    book = CareerBook()
    for t in sorted(turns, key=lambda t: t.turn):
        book.add(t)
    return book


def careers_of(turns: Iterable[TurnLog]) -> list[CareerSummary]:
    return fold(turns).careers()


def career_state(r: CareerSummary) -> str:
    """How a career stands, the same words everywhere: `complete`, `goal missed at game turn 30` (with `, results
    not seen yet` while its end screens have not shown), or `going on`."""
    if r.ended == "goal_missed":
        at = f" at game turn {r.game_turns}" if r.game_turns else ""
        return f"goal missed{at}" + ("" if r.complete else ", results not seen yet")
    return "complete" if r.complete else "going on"


def career_line(r: CareerSummary) -> str:
    """One line for a person: `career 2 (complete): turns 41-96, 56 turns, 57 calls, $0.0210, 412 s; Speed 310 ...`."""
    stats = " ".join(f"{k[:3]} {v}" for k, v in r.stats.items()) or "no stats read"
    extra = [f"rating {r.rating:,}" + (f" ({r.rank})" if r.rank else "") if r.rating is not None else "",
             f"game turn {r.game_turns}" if r.game_turns is not None else "",
             f"fans {r.fans:,}" if r.fans is not None else "",
             f"goals {sum(g.met for g in r.goals)}/{len(r.goals)} met" if r.goals else "",
             f"skill pts {r.skill_points}" if r.skill_points is not None else "",
             f"races {r.races_won}/{r.races_entered} won" if r.races_entered else "",
             f"recoveries {', '.join(f'{k} {n}' for k, n in r.recoveries.items())}" if r.recoveries else "",
             f"game starts {r.game_starts}" if r.game_starts else ""]
    return (f"career {r.number} ({career_state(r)}): turns {r.first_turn}-{r.last_turn}, "
            f"{r.turns} turns, {r.model_calls} calls, ${r.cost_usd:.4f}, {r.wall_s:.0f} s; {stats}"
            + "".join(f"; {e}" for e in extra if e))


def dump(record: CareerSummary) -> str:
    return json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
