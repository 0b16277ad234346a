"""Per-turn JSON logs (`logs/turn_000123.json`, atomic), screenshots with a retention limit, and a
SQLite row per turn (`logs/turns.sqlite`) for `lluma stats`-style queries.

A turn log is meant to be read by a person: what the model saw, what it said, what it did, what it
cost. The API key is never part of it (nothing here ever sees request headers).
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from PIL import Image
from pydantic import BaseModel, Field, computed_field, field_validator

from lluma_agent.atomic import atomic_write_bytes, atomic_write_text, remove_stale_temps
from lluma_agent.context.request import Section
from lluma_agent.context.stuck import StuckState
from lluma_agent.interrupts import no_interrupt
from lluma_agent.memory.store import MemoryChange
from lluma_agent.model.calls import ToolCall, ToolResult
from lluma_agent.runlog import index as history_index
from lluma_agent.runlog.folder import RunFolder
from lluma_facts import Usage
from lluma_facts.retry import Attempt


class Timings(BaseModel):
    capture_s: float = 0.0  # capturing until two frames agree (settle)
    settle_s: float = 0.0  # extra waiting out a loading screen or cutscene
    vision_s: float = 0.0
    model_s: float = 0.0
    action_s: float = 0.0  # a person's answer under --confirm included (person_s)
    total_s: float = 0.0
    person_s: float = 0.0  # waiting for a person's answer (--confirm): not the agent's time


class FrameInfo(BaseModel):
    path: str | None = None
    phash: str = ""
    width: int = 0
    height: int = 0
    settled: bool = True
    settle_captures: int = 0
    cinematic: str = "none"


class VisionLog(BaseModel):
    seen_by_model: dict[str, Any]  # the compact JSON as sent (stored as an object so it reads easily)
    summary: str  # the one-liner kept in history
    cached: bool = False
    backend: str = ""
    full: dict[str, Any] = Field(default_factory=dict)  # the full VisionOutput (with bounds)

    @field_validator("seen_by_model", mode="before")
    @classmethod
    def _parse(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value


class ResponseLog(BaseModel):
    thinking: str = ""
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    stop_reason: str | None = None  # "refusal": logged, nothing done that turn
    retries: list[Attempt] = Field(default_factory=list)
    # What the API dropped from the request (drop_block): thinking bound to a prefix that changed.
    input_transformations: list[dict[str, Any]] = Field(default_factory=list)


class ActionLog(BaseModel):
    tool: str
    target: str = ""
    point: list[int] | None = None
    swipe: list[int] | None = None
    key: str | None = None
    forced: bool = False  # the coordinator chose it (stuck), not the model
    outcome: Literal["sent", "unknown"] = "sent"  # unknown: sent, never answered; the next frame tells
    effect: str = "pending"  # filled in by the next turn: "changed (distance 21)" / "unchanged"


class RecoveryLog(BaseModel):
    """A rung of the recovery ladder this turn (context/stuck.py): warn, force, back, safe_tap, restart, wait;
    `over` when a ladder climbed in vain starts again, `pause` when the run gives up."""

    rung: str
    reason: str = ""
    failed: int = 0  # ladders climbed in vain within recovery.window_s (over, pause)


class GameStartLog(BaseModel):
    """The game started by the agent this turn: it was not in the foreground, or the ladder restarted it."""

    reason: str
    ok: bool
    command: str = ""
    output: str = ""  # what the device printed (a failed start says why)


class NavigationStep(BaseModel):
    """One step of a `goTo` walk (lluma_agent/loop/navigate.py): step `step` of `of` towards `target`, the action
    taken, the screen the map expected and the one reached."""

    target: str
    step: int
    of: int
    action: str  # the map's key: "pressButton:Next", "back"
    expected: str  # screen names (with the id where two share a name)
    reached: str = ""
    ok: bool = False
    point: list[int] | None = None  # where its tap landed: the simulator checks it on target like any other
    element: str = ""  # what the tap meant (a button's name; "" for a key)
    seconds: float = 0.0  # from the input sent to the still reading
    note: str = ""  # why the walk stopped here (a surprise, the guard, the device, a stop)


class RoutineLog(BaseModel):
    """A screen passed without a model call (loop.autopilot): the map's one way out, taken as before."""

    screen: str
    action: str  # the map's key ("wait" for a loading screen waited out)
    expected: str = ""  # the screen it led to each time ("" for any: a story advanced, a loading screen waited)
    uses: int = 0  # times the map saw it taken on this screen
    waited_s: float = 0.0  # waited after it: a notice that says to come back later (loop.come_back_max_s)
    why: str = ""  # what it followed when no way the map learned: the model's standing choice for an event


class SurveyRow(BaseModel):
    """One option of a survey (lluma_agent/loop/survey.py): raised and read, or where the survey stopped."""

    option: str
    line: str = ""  # what the model read of it (its gains, failure, energy after, cards)
    view: str = ""  # the compact reading of the screen with it raised (the <vision> JSON)
    frame: str = ""  # the screenshot of it raised (run folder relative; "" for the one raised on arrival)
    point: list[int] | None = None  # where the raising tap landed (None: raised on arrival, or not sent)
    element: str = ""  # what the tap meant, for the simulator's on-target check
    note: str = ""  # why the survey stopped here


class SurveyLog(BaseModel):
    """A survey: each option of a screen that selects before it commits raised in turn and read, one table sent
    to the model; then, after its choice, the chosen option raised if it was not and committed (`commit`)."""

    screen: str
    options: list[str]  # the row the reading found
    lead_in: SurveyRow | None = None  # the press that opened the screen from the one before (the hub's Training)
    rows: list[SurveyRow] = Field(default_factory=list)
    complete: bool = False  # every option raised and read
    chosen: str = ""  # the option the model pressed
    commit: list[SurveyRow] = Field(default_factory=list)  # the coordinator's press that committed it


class PlanStepLog(BaseModel):
    """One press of a plan (lluma_agent/loop/plans.py): what it was, the screen expected and the one reached."""

    step: int
    action: str  # "press Rest", "goto Career: Back", "choose Speed: raise"
    expected: str = ""
    reached: str = ""
    ok: bool = False
    point: list[int] | None = None  # where its tap landed: the simulator checks it on target like any other
    element: str = ""
    seconds: float = 0.0
    note: str = ""  # why the plan stopped here
    # the reached screen's own words (its loose texts, then its buttons' names: a placing drawn on a plate reads as a
    # button; the first SAID_MAX): what a record of the career reads of a
    # screen no turn log shows (a race's result passed inside a plan: runlog/careers.py)
    said: list[str] = Field(default_factory=list)


SAID_MAX = 12  # a race result's placing sits among its first lines of text (sim and real screens: under 8)


class PlanLog(BaseModel):
    """A procedure run for the model's `runPlan(name, args)`: its steps, done or stopped on a surprise."""

    name: str
    args: dict[str, str] = Field(default_factory=dict)
    steps: list[PlanStepLog] = Field(default_factory=list)
    done: bool = False
    surprise: bool = False  # it stopped before its end (a screen not expected, a button not there, a refusal)


class SideCall(BaseModel):
    """A model call the turn made besides its decision: the VLM reading, a history fold's summary, the
    count_tokens preflight (free, but listed: it is a call)."""

    kind: str  # "vlm", "fold" or "preflight" (count_tokens)
    model: str
    usage: Usage
    cost_usd: float
    text: str = ""  # the fold's summary; the preflight's finding
    retries: list[Attempt] = Field(default_factory=list)  # failed tries that were retried


class RunSummary(BaseModel):
    """`run.json`, written atomically when a run ends: why it stopped, for `lluma stats` and the report."""

    stop_reason: str
    stop_kind: str | None = None  # lluma_agent.loop.stop.StopKind: what the exit status was decided from
    turns: int
    cost_usd: float
    usage: Usage = Field(default_factory=Usage)
    ended_at: float = 0.0




class CostLog(BaseModel):
    turn_usd: float = 0.0  # the decision plus any side calls
    run_usd: float = 0.0
    cache_hit_ratio: float = 0.0  # cache reads / all input tokens, this turn
    run_cache_hit_ratio: float = 0.0


class TurnLog(BaseModel):
    """One turn, in the order a person reads it: what happened first, the details (frame, timings,
    context layout, the full vision reading) last."""

    turn: int
    started_at: float  # epoch seconds; `time` below is the same instant, readable
    model: str
    errors: list[str] = Field(default_factory=list)
    response: ResponseLog | None = None
    tool_results: list[ToolResult] = Field(default_factory=list)  # sent with THIS turn (answers to the last)
    notes: list[str] = Field(default_factory=list)  # every note the model was given this turn, as sent
    action: ActionLog | None = None
    # A person in the loop (`lluma run --confirm`): "approved X", "vetoed X", "replaced X with Y", "stopped the run".
    person: str = ""
    memory_changes: list[MemoryChange] = Field(default_factory=list)
    knowledge: list[str] = Field(default_factory=list)  # ids of the knowledge entries sent with this turn
    stuck: StuckState = Field(default_factory=StuckState)
    recovery: RecoveryLog | None = None  # a rung of the recovery ladder taken this turn
    game_start: GameStartLog | None = None  # the game started (again) this turn
    guard: list[str] = Field(default_factory=list)  # what the guard refused or did (guard.*): "refused ...", "..."
    navigation: list[NavigationStep] = Field(default_factory=list)  # a goTo walk's steps (the action is goTo)
    routine: RoutineLog | None = None  # a routine screen passed without a model call (the action is its input)
    survey: SurveyLog | None = None  # the options raised and read before the decision, and its commit
    plan: PlanLog | None = None  # a procedure run for the model's runPlan (the action is its first press)
    decided_on_options: bool = False  # the model decided on a screen whose options raise before they commit
    usage: Usage = Field(default_factory=Usage)  # the decision call, as billed
    # The agent's own estimate of the decision's input tokens (lluma_agent.context.tokens), beside the billed
    # usage.total_input_tokens: the API (or the stand-in) counts with its own tokenizer.
    estimated_input_tokens: int = 0
    side_calls: list[SideCall] = Field(default_factory=list)
    cost: CostLog = Field(default_factory=CostLog)
    # Estimated tokens this turn adds to every later request's history: its compact record (tool
    # results + screen line) and the kept assistant reply.
    past_turn_tokens: int = 0
    past_reply_tokens: int = 0
    history_fold: str | None = None
    waited: str | None = None  # "loading (2 waits)": captures spent waiting before this turn's reading
    frame: FrameInfo = Field(default_factory=FrameInfo)
    timings: Timings = Field(default_factory=Timings)
    context: list[Section] = Field(default_factory=list)
    vision: VisionLog | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def time(self) -> str:
        return datetime.fromtimestamp(self.started_at, tz=UTC).isoformat(timespec="seconds")


_NUMBER_LIST = re.compile(r"\[\s+(-?[\d.]+(?:,\s+-?[\d.]+)*)\s+\]")


def readable_json(log: TurnLog) -> str:
    """Indented JSON with short number lists (boxes, points) kept on one line."""
    text = json.dumps(log.model_dump(mode="json"), indent=2, ensure_ascii=False)
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(m.group(1).split()).replace(",,", ",") + "]", text)




def read_turn(path: Path) -> TurnLog:
    """One turn log file back (raises OSError / ValidationError on a bad one)."""
    return TurnLog.model_validate_json(path.read_text(encoding="utf-8"))


def read_turns(folder: Path | RunFolder) -> list[TurnLog]:
    """Every turn log in `folder`, in turn order; a bad file raises (`logread.load_run` skips them instead)."""
    return sorted((read_turn(p) for p in RunFolder.at(folder).turn_logs()), key=lambda t: t.turn)


def _search_action(log: TurnLog) -> str:
    parts = []
    if log.action is not None:
        a = log.action
        parts.append(f"{a.tool}({a.target})" if a.target else a.tool)
        parts.append(("[forced] " if a.forced else "") + a.effect)
    if log.response is not None:
        parts += [f"{c.name} {json.dumps(c.input, ensure_ascii=False)}" for c in log.response.tool_calls]
    return "\n".join(parts)


def _search_read(log: TurnLog) -> str:
    if log.vision is None:
        return ""
    seen = log.vision.seen_by_model
    buttons = [" ".join(filter(None, (b.get("name"), b.get("meta")))) for b in seen.get("buttons", [])]
    return "\n".join([*seen.get("texts", []), *buttons])


def search_row(log: TurnLog) -> history_index.Row:
    """What the full-text index holds of a turn (see history_index.COLUMNS)."""
    reasoning = "\n".join(filter(None, (log.response.thinking, log.response.text))) if log.response else ""
    return (
        log.turn,
        log.vision.summary if log.vision else (log.waited or ""),
        _search_action(log),
        reasoning,
        _search_read(log),
        "\n".join(f"{r.name}: {r.content}" for r in log.tool_results),
        "\n".join(f"{c.op} {c.name} by {c.by}\n{c.diff}" for c in log.memory_changes),
    )




def create_tables(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS turns (turn INTEGER PRIMARY KEY, started_at REAL, screen TEXT, action TEXT,"
        " input_tokens INTEGER, cache_read INTEGER, cache_write INTEGER, output_tokens INTEGER,"
        " cost_usd REAL, run_cost_usd REAL, cache_hit_ratio REAL, stuck TEXT, errors INTEGER, log TEXT)"
    )
    history_index.ensure(db)


def insert_row(db: sqlite3.Connection, log: TurnLog, path: Path) -> None:
    """A turn's row and its search-index entry (not committed)."""
    u = log.usage
    db.execute(
        "INSERT OR REPLACE INTO turns VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            log.turn,
            log.started_at,
            log.vision.summary if log.vision else (log.waited or ""),
            f"{log.action.tool}:{log.action.target}" if log.action else "",
            u.input_tokens,
            u.cache_read_input_tokens,
            u.cache_creation_input_tokens,
            u.output_tokens,
            log.cost.turn_usd,
            log.cost.run_usd,
            log.cost.cache_hit_ratio,
            log.stuck.level,
            len(log.errors),
            path.name,
        ),
    )
    history_index.index(db, search_row(log))


def rebuild_db(folder: Path | RunFolder) -> int:
    """turns.sqlite (rows and search index) made again from the turn logs, which are the truth; a damaged file
    is kept beside it as `turns.sqlite.damaged`. Returns the rows written (turn logs that do not parse are left
    out, as `lluma logs` leaves them out)."""
    run = RunFolder.at(folder)
    db_path, tmp = run.db, run.db_rebuild
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    rows = 0
    try:
        create_tables(db)
        for path in run.turn_logs():
            try:
                log = read_turn(path)
            except (OSError, ValueError):
                continue
            insert_row(db, log, path)
            rows += 1
        db.commit()
    finally:
        db.close()
    if db_path.exists():
        db_path.replace(run.db_companion(".damaged"))
    for suffix in ("-wal", "-shm", "-journal"):  # what belonged to the damaged file
        run.db_companion(suffix).unlink(missing_ok=True)
    tmp.replace(db_path)
    return rows


class TurnLogger:
    def __init__(self, folder: Path | RunFolder, keep_screenshots: int = 300) -> None:
        self.run = RunFolder.at(folder)
        self.folder = self.run.path
        self.shots = self.run.screens
        self.shots.mkdir(parents=True, exist_ok=True)
        for folder in (self.folder, self.shots):  # half-written files of a run that was killed
            remove_stale_temps(folder)
        self.keep = keep_screenshots
        self.db = sqlite3.connect(self.run.db)
        create_tables(self.db)
        self.db.commit()
        self.last_written = 0  # the last turn whose JSON and SQLite row are both written (checkpoints wait for it)

    def save_screenshot(self, turn: int, image: Image.Image, part: str = "") -> str:
        path = self.run.screenshot(turn, part)
        buf = io.BytesIO()
        image.convert("RGB").save(buf, format="JPEG", quality=85)
        atomic_write_bytes(path, buf.getvalue())
        old = self.run.screenshots()
        for stale in old[: max(0, len(old) - self.keep)]:
            stale.unlink(missing_ok=True)
        return str(path.relative_to(self.folder))

    def path(self, turn: int) -> Path:
        return self.run.turn_log(turn)

    def write(self, log: TurnLog) -> Path:
        with no_interrupt():
            return self._write(log)

    def _write(self, log: TurnLog) -> Path:
        path = self.path(log.turn)
        atomic_write_text(path, readable_json(log))
        insert_row(self.db, log, path)
        self.db.commit()
        self.last_written = log.turn
        return path

    def write_summary(self, summary: RunSummary) -> Path:
        path = self.run.summary
        with no_interrupt():
            atomic_write_text(path, summary.model_dump_json(indent=2))
        return path

    def update_effect(self, turn: int, effect: str) -> None:
        """Fill in what the last action did, once the next capture shows it."""
        path = self.path(turn)
        if not path.exists():
            return
        log = read_turn(path)
        if log.action is not None:
            log.action.effect = effect
            with no_interrupt():
                atomic_write_text(path, readable_json(log))
                history_index.index(self.db, search_row(log))
                self.db.commit()

    def forget_after(self, turn: int) -> None:
        """Drop the rows of turns after `turn`: a resumed run plays them again (their files were set aside)."""
        with no_interrupt():
            try:
                self.db.execute("DELETE FROM turns WHERE turn > ?", (turn,))
                history_index.forget_after(self.db, turn)
                self.db.commit()
            except sqlite3.Error:
                self.db.rollback()  # a full disk: every row stays, nothing half-forgotten
                raise

    def close(self) -> None:
        self.db.close()
