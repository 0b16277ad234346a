"""The values one turn's stages produce, and the TurnLog assembled from them.

The coordinator's stages fill a `TurnParts` (the coordinator's own record of the turn: its parts are handed these
values, never the record, but for the upkeep, which writes its game start, rung and failures there; the turn's input
is written by `Coordinator._own` alone) and `assemble` builds the log from whatever the turn got to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from lluma_agent.context.history import PastTurn
from lluma_agent.context.request import Section
from lluma_agent.context.stuck import StuckState, on_ladder
from lluma_agent.device.protocol import Frame
from lluma_agent.loop.acting import Acted
from lluma_agent.loop.layouts import Current
from lluma_agent.loop.state import LoopState
from lluma_agent.loop.stop import StopKind
from lluma_agent.memory.store import MemoryChange
from lluma_agent.model.calls import ToolResult
from lluma_agent.model.claude import MessagesRequest, ModelReply
from lluma_agent.runlog.turnlog import (
    CostLog,
    FrameInfo,
    GameStartLog,
    NavigationStep,
    PlanLog,
    RecoveryLog,
    ResponseLog,
    RoutineLog,
    SideCall,
    SurveyLog,
    Timings,
    TurnLog,
    VisionLog,
)
from lluma_facts import Usage, cost_usd
from lluma_facts.retry import Attempt
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact, summarize
from lluma_vision.models import VisionData, VisionOutput


class RunTotals(BaseModel):
    turns: int = 0
    usage: Usage = Usage()
    cost_usd: float = 0.0
    stop_reason: str = ""
    stop_kind: StopKind | None = None  # decides the exit status (stop.EXIT_STATUS); the reason is for people
    recoveries: dict[str, int] = Field(default_factory=dict)  # turns on each rung of the recovery ladder
    game_starts: int = 0  # the game started by the agent (not in the foreground, or the ladder's restart)
    game_start_failures: int = 0  # starts the device refused (`monkey aborted`, no such activity)
    goto_calls: int = 0  # turns whose action was a goTo walk (the screen map)
    routine_passes: int = 0  # turns that passed a routine screen without a model call (loop.autopilot)
    surveys: int = 0  # turns that raised and read a screen's options before the model chose (survey.enabled)
    option_decisions: int = 0  # the model's presses of an option on a screen that raises before it commits
    full_view_decisions: int = 0  # ...of them, made with every option of the row raised and read that turn
    plans_run: int = 0  # runPlan procedures carried out (loop/plans.py)
    plan_steps: int = 0  # their presses
    plan_surprises: int = 0  # plans stopped before their end

    @property
    def cache_hit_ratio(self) -> float:
        return self.usage.cache_hit_ratio

    def count(self, t: TurnParts) -> None:
        """One turn more, a failed one too (every turn counts toward max_turns: a run always ends), with what it
        did (its calls are billed apart: `bill`)."""
        self.turns += 1
        self.goto_calls += bool(t.navigation)
        self.routine_passes += t.routine is not None
        self.surveys += t.survey is not None and bool(t.survey.options)  # a lead-in that found none: no survey
        if t.plan is not None:
            self.plans_run += 1
            self.plan_steps += len(t.plan.steps)
            self.plan_surprises += t.plan.surprise
        self.option_decisions += t.decided_on_options
        self.full_view_decisions += t.decided_on_options and t.survey is not None and t.survey.complete
        if t.recovery is not None and on_ladder(t.recovery.rung):
            self.recoveries[t.recovery.rung] = self.recoveries.get(t.recovery.rung, 0) + 1
        if t.game_start is not None:
            self.game_starts += t.game_start.ok
            self.game_start_failures += not t.game_start.ok


@dataclass
class Observation:
    """observe(): the settled frame, its reading, and how long it took."""

    frame: Frame
    out: VisionOutput
    info: FrameInfo
    waited: str | None = None
    capture_s: float = 0.0
    vision_s: float = 0.0
    settle_s: float = 0.0


@dataclass
class Call:
    """One model call to bill: the decision (kind "") or a side call ("vlm", "fold")."""

    kind: str
    model: str
    usage: Usage
    text: str = ""
    retries: list[Attempt] = field(default_factory=list)  # failed tries that were retried


@dataclass
class Screen:
    """read(): what the model is shown of the reading, for this turn and for history."""

    view: VisionData
    log: VisionLog
    errors: list[str]
    calls: list[Call]  # the VLM reading of a new screen


@dataclass
class Notes:
    """What the model must be told besides the screen: a person's memory edits, stuck warnings."""

    lines: list[str]
    external: list[MemoryChange]  # a person's edits, for the log
    stuck: StuckState
    knowledge: list[str] = field(default_factory=list)  # ids of the knowledge entries among `lines`
    memory: list[str] = field(default_factory=list)  # the edits as notes (also in `lines`), kept in history


@dataclass
class Prompt:
    """request(): the request as built, with its sections and what it delivers."""

    params: MessagesRequest
    sections: list[Section]
    current: Current
    results: list[ToolResult]  # the tool results it delivers
    blocks: list[dict[str, Any]] = field(default_factory=list)  # the current turn as sent (no cache_control)
    as_text: bool = False  # the results went as text (the reply they answer was folded into text)
    memory_notes: list[str] = field(default_factory=list)


@dataclass
class Decision:
    reply: ModelReply  # tool ids renamed as history keeps them
    remembered: list[dict[str, Any]]  # the reply as history keeps it
    errors: list[str]


@dataclass
class TurnParts:
    turn: int
    model: str
    started_at: float = field(default_factory=time.time)
    started: float = field(default_factory=time.monotonic)
    failures: list[str] = field(default_factory=list)  # why the turn ended early
    retries: list[Attempt] | None = None  # a failed decision's attempts (None: it did not fail)
    reading: Observation | None = None
    screenshot: str | None = None
    screen: Screen | None = None
    notes: Notes | None = None
    fold: str | None = None
    fold_calls: list[Call] = field(default_factory=list)
    request: Prompt | None = None
    decision: Decision | None = None
    acted: Acted | None = None
    past: PastTurn | None = None
    state: LoopState = field(default_factory=LoopState)  # the loop's state as this turn changes it
    model_s: float = 0.0
    action_s: float = 0.0
    recovery: RecoveryLog | None = None  # the recovery ladder's rung this turn
    game_start: GameStartLog | None = None  # the game started this turn
    guard: list[str] = field(default_factory=list)  # what the guard refused or did
    navigation: list[NavigationStep] = field(default_factory=list)  # a goTo walk's steps (loop/navigate.py)
    routine: RoutineLog | None = None  # a routine screen passed without a model call
    survey: SurveyLog | None = None  # the options raised and read before the decision (loop/survey.py)
    decided_on_options: bool = False  # the model pressed an option of a screen that raises before it commits
    plan: PlanLog | None = None  # a procedure run for the model's runPlan (loop/plans.py)

    def calls(self) -> list[Call]:
        """Every model call this turn made, in the order they were made."""
        screen = self.screen.calls if self.screen else []
        decision = [Call("", self.model, self.decision.reply.usage)] if self.decision else []
        return [*screen, *self.fold_calls, *decision]


def shown(out: VisionOutput, cfg: VisionConfig) -> Screen:
    """What the model is shown of a reading (and its log), with the VLM's call when a new screen needed one."""
    view = compact(out, cfg.max_buttons, cfg.max_texts)
    log = VisionLog(seen_by_model=view.to_json(), summary=summarize(out), cached=out.cached,
                    backend=out.backend, full=out.model_dump(mode="json"))
    vlm = [Call("vlm", cfg.vlm_model, Usage.from_api(out.vlm_usage), retries=list(out.vlm_retries))] if (
        (out.vlm_usage or out.vlm_retries) and not out.cached) else []
    return Screen(view, log, [f"vision: {e}" for e in out.errors], vlm)


def assemble(t: TurnParts, side_calls: list[SideCall], cost: CostLog, now: float) -> TurnLog:
    """The turn log of what the turn got to; `now` on the clock `t.started` was read on."""
    r, s, d, a = t.reading, t.screen, t.decision, t.acted
    timings = Timings(model_s=t.model_s, action_s=t.action_s, total_s=now - t.started)
    if r is not None:
        timings.capture_s, timings.vision_s, timings.settle_s = r.capture_s, r.vision_s, r.settle_s
    if a is not None:
        timings.person_s = a.person_s
    response = ResponseLog(retries=t.retries) if t.retries is not None else None
    if d is not None:
        reply = d.reply
        response = ResponseLog(thinking=reply.thinking, text=reply.text, tool_calls=reply.tool_calls,
                               stop_reason=reply.stop_reason, retries=list(reply.retries),
                               input_transformations=reply.input_transformations)
    return TurnLog(
        turn=t.turn, started_at=t.started_at, model=t.model,
        errors=[*(s.errors if s else []), *t.failures, *(d.errors if d else []), *(a.errors if a else [])],
        response=response,
        # a zoom's crop is in the request, not the log (requests/ leaves image bytes out too)
        tool_results=[r.model_copy(update={"image": None}) for r in t.request.results] if t.request else [],
        notes=t.notes.lines if t.notes else [],
        action=a.action if a else None, person=a.person if a else "",
        memory_changes=[*(t.notes.external if t.notes else []), *(a.memory_changes if a else [])],
        knowledge=t.notes.knowledge if t.notes else [],
        stuck=t.notes.stuck if t.notes else StuckState(),
        recovery=t.recovery, game_start=t.game_start, guard=list(t.guard), navigation=t.navigation, routine=t.routine,
        survey=t.survey, decided_on_options=t.decided_on_options, plan=t.plan,
        usage=d.reply.usage if d else Usage(),
        estimated_input_tokens=sum(x.tokens for x in t.request.sections) if t.request else 0,
        side_calls=side_calls, cost=cost,
        past_turn_tokens=t.past.record_tokens() if t.past else 0,
        past_reply_tokens=t.past.reply_tokens() if t.past else 0,
        history_fold=t.fold, waited=r.waited if r else None,
        frame=r.info.model_copy(update={"path": t.screenshot}) if r else FrameInfo(),
        timings=timings,
        context=t.request.sections if t.request else [],
        vision=s.log if s else None,
    )


def bill(totals: RunTotals, calls: list[Call]) -> tuple[list[SideCall], CostLog]:
    """Bill each call to the turn and the run (budgets see every call, not only the decision)."""
    side_calls, turn_usd = [], 0.0
    for c in calls:
        cost = cost_usd(c.usage, c.model)
        if c.kind:
            side_calls.append(SideCall(kind=c.kind, model=c.model, usage=c.usage, cost_usd=cost, text=c.text,
                                       retries=c.retries))
        totals.usage = totals.usage + c.usage
        totals.cost_usd += cost
        turn_usd += cost
    decision = next((c.usage for c in calls if not c.kind), Usage())
    return side_calls, CostLog(turn_usd=turn_usd, run_usd=totals.cost_usd, cache_hit_ratio=decision.cache_hit_ratio,
                               run_cache_hit_ratio=totals.cache_hit_ratio)
