"""A run's totals from its turn logs (tokens, cost, cache, latency, actions): `lluma stats`, the report's header."""

from __future__ import annotations

import statistics
from collections import Counter

from pydantic import BaseModel, Field

from lluma_agent.context.stuck import RUNGS
from lluma_agent.runlog.careers import CareerSummary, career_line, careers_of
from lluma_agent.runlog.figures import percent, usd
from lluma_agent.runlog.logread import CALL_KINDS, turn_calls
from lluma_agent.runlog.turnlog import TurnLog
from lluma_facts import Usage


class CallTotals(BaseModel):
    """The model calls of one kind (decision, vlm, fold, preflight) over a run."""

    count: int = 0
    input_tokens: int = 0  # all input: uncached + cache write + cache read
    output_tokens: int = 0
    cost_usd: float = 0.0
    uncached_input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0


class RunStats(BaseModel):
    folder: str = ""
    stop_reason: str = ""  # from run.json, written when the run ends
    models: list[str] = Field(default_factory=list)
    turns: int = 0
    first_turn: int = 0
    last_turn: int = 0
    model_calls: int = 0  # every call: decisions and side calls (waiting turns make none)
    wall_s: float = 0.0  # first turn's start to the last turn's end (a resume's break included)
    active_s: float = 0.0  # the turns' own time: breaks between sittings and a person's answers left out
    person_wait_s: float = 0.0  # time spent waiting for a person's answer under --confirm
    uncached_input_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    cost_per_turn_usd: float = 0.0
    cache_hit_ratio: float = 0.0  # cache reads / all input tokens, whole run
    median_past_turn_tokens: float = 0.0
    model_latency_p50_s: float = 0.0
    model_latency_p90_s: float = 0.0
    actions: dict[str, int] = Field(default_factory=dict)  # by tool
    forced_actions: int = 0
    errors: int = 0
    turns_with_errors: int = 0
    stuck: dict[str, int] = Field(default_factory=dict)  # turns per level other than "ok"
    recoveries: dict[str, int] = Field(default_factory=dict)  # turns on each rung of the recovery ladder (RUNGS)
    game_starts: int = 0  # the game started by the agent (not in the foreground, or the ladder's restart)
    game_start_failures: int = 0  # starts the device refused
    guard: int = 0  # what the guard refused or did (guard.*)
    goto_calls: int = 0  # turns whose action was a goTo walk (the screen map)
    goto_steps: int = 0  # the steps those walks took, and how many of them reached another screen than expected
    goto_surprises: int = 0
    routine_passes: int = 0  # turns that passed a routine screen without a model call (loop.autopilot)
    memory_changes: dict[str, int] = Field(default_factory=dict)  # by "agent" / "person"
    calls: dict[str, CallTotals] = Field(default_factory=dict)  # by kind; every call the run paid for
    careers: list[CareerSummary] = Field(default_factory=list)  # each career the turns saw (runlog/careers.py)


    def usage(self) -> Usage:
        """The run's tokens as one Usage (its cache_hit_ratio is this run's cache_hit_ratio)."""
        return Usage(input_tokens=self.uncached_input_tokens, cache_creation_input_tokens=self.cache_write_tokens,
                     cache_read_input_tokens=self.cache_read_tokens, output_tokens=self.output_tokens)


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0 < q < 1 in hundredths, e.g. 0.9), interpolated like numpy's default; 0.0 for no values."""
    if not 0 < q < 1:
        raise ValueError(f"percentile: q must be between 0 and 1 exclusive, got {q}")
    if len(values) < 2:  # statistics.quantiles wants two points
        return float(values[0]) if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def call_totals(turns: list[TurnLog]) -> dict[str, CallTotals]:
    out: dict[str, CallTotals] = {}
    for call in (c for t in turns for c in turn_calls(t)):
        tot, u = out.setdefault(call.kind, CallTotals()), call.usage
        tot.count += 1
        tot.input_tokens += u.total_input_tokens
        tot.output_tokens += u.output_tokens
        tot.cost_usd += call.cost_usd
        tot.uncached_input_tokens += u.input_tokens
        tot.cache_write_tokens += u.cache_creation_input_tokens
        tot.cache_read_tokens += u.cache_read_input_tokens
    order = {k: i for i, k in enumerate(CALL_KINDS)}
    return dict(sorted(out.items(), key=lambda kv: order.get(kv[0], len(order))))


def compute(turns: list[TurnLog], folder: str = "", stop_reason: str = "") -> RunStats:
    if not turns:
        return RunStats(folder=folder, stop_reason=stop_reason)
    # Run totals count every call: the decision and its side calls (their usage is billed to the turn).
    calls = call_totals(turns)
    usage = sum((c.usage for t in turns for c in turn_calls(t)), Usage())
    past = [t.past_turn_tokens for t in turns if t.past_turn_tokens > 0]
    latency = [t.timings.model_s for t in turns if t.timings.model_s > 0]
    cost = sum(t.cost.turn_usd for t in turns)
    return RunStats(
        folder=folder,
        stop_reason=stop_reason,
        models=sorted({t.model for t in turns}),
        turns=len(turns),
        first_turn=turns[0].turn,
        last_turn=turns[-1].turn,
        model_calls=sum(c.count for c in calls.values()),
        wall_s=max(0.0, turns[-1].started_at + turns[-1].timings.total_s - turns[0].started_at),
        active_s=sum(max(0.0, t.timings.total_s - t.timings.person_s) for t in turns),
        person_wait_s=sum(t.timings.person_s for t in turns),
        uncached_input_tokens=usage.input_tokens,
        cache_write_tokens=usage.cache_creation_input_tokens,
        cache_read_tokens=usage.cache_read_input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=cost,
        cost_per_turn_usd=cost / len(turns),
        cache_hit_ratio=usage.cache_hit_ratio,
        median_past_turn_tokens=statistics.median(past) if past else 0.0,
        model_latency_p50_s=percentile(latency, 0.5),
        model_latency_p90_s=percentile(latency, 0.9),
        actions=dict(Counter(t.action.tool for t in turns if t.action).most_common()),
        forced_actions=sum(1 for t in turns if t.action and t.action.forced),
        errors=sum(len(t.errors) for t in turns),
        turns_with_errors=sum(1 for t in turns if t.errors),
        stuck=dict(Counter(t.stuck.level for t in turns if t.stuck.level != "ok")),
        recoveries=dict(Counter(t.recovery.rung for t in turns if t.recovery and t.recovery.rung in RUNGS)),
        game_starts=sum(1 for t in turns if t.game_start and t.game_start.ok),
        game_start_failures=sum(1 for t in turns if t.game_start and not t.game_start.ok),
        guard=sum(len(t.guard) for t in turns),
        goto_calls=sum(1 for t in turns if t.navigation),
        goto_steps=sum(len(t.navigation) for t in turns),
        goto_surprises=sum(1 for t in turns for s in t.navigation if s.reached and not s.ok),
        routine_passes=sum(1 for t in turns if t.routine is not None),
        memory_changes=dict(Counter(m.by for t in turns for m in t.memory_changes)),
        calls=calls,
        careers=careers_of(turns),
    )


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"


def format_stats(s: RunStats) -> str:
    total_in = s.uncached_input_tokens + s.cache_write_tokens + s.cache_read_tokens
    per = max(s.turns, 1)
    person = f", {s.person_wait_s:.0f} s waiting for a person" if s.person_wait_s else ""
    return "\n".join([
        f"run: {s.folder}",
        f"stopped: {s.stop_reason}",
        f"model: {', '.join(s.models)}",
        f"turns: {s.turns} (turn {s.first_turn}..{s.last_turn}), {s.model_calls} model call(s)",
        f"time: {s.active_s:.0f} s active (the turns themselves{person}), {s.wall_s:.0f} s wall time "
        "(first turn's start to last turn's end, breaks included)",
        f"input tokens: {total_in:,} = uncached {s.uncached_input_tokens:,} + cache write {s.cache_write_tokens:,} "
        f"+ cache read {s.cache_read_tokens:,} ({total_in // per:,} per turn)",
        f"output tokens: {s.output_tokens:,} ({s.output_tokens // per:,} per turn)",
        f"cost: {usd(s.cost_usd)} total, {usd(s.cost_per_turn_usd)} per turn",
        "calls by kind:",
        *(f"  {kind:<9} {c.count:>4} call(s), in {c.input_tokens:,} (cache read {c.cache_read_tokens:,}, "
          f"write {c.cache_write_tokens:,}), out {c.output_tokens:,}, {usd(c.cost_usd)}"
          for kind, c in s.calls.items()),
        f"cache hit: {percent(s.cache_hit_ratio)} of input tokens read from cache",
        f"past turn in history: median {s.median_past_turn_tokens:.0f} tokens",
        f"model latency: p50 {s.model_latency_p50_s:.2f} s, p90 {s.model_latency_p90_s:.2f} s",
        f"actions: {_counts(s.actions)}" + (f" ({s.forced_actions} forced)" if s.forced_actions else ""),
        f"errors: {s.errors} in {s.turns_with_errors} turn(s)",
        f"stuck: {_counts(s.stuck)}",
        f"recoveries: {_counts({r: s.recoveries[r] for r in RUNGS if r in s.recoveries})}",
        f"game starts: {s.game_starts}" + (f" ({s.game_start_failures} failed)" if s.game_start_failures else "")
        + (f"; guard: {s.guard} refusal(s) or wait(s)" if s.guard else ""),
        f"screen map: {s.goto_calls} goTo call(s), {s.goto_steps} step(s), {s.goto_surprises} surprise(s); "
        f"{s.routine_passes} routine pass(es) without a model call",
        f"memory changes: {_counts(s.memory_changes)}",
        f"careers: {sum(c.ended == 'complete' for c in s.careers)} complete"
        + (f", {missed} ended on a missed goal" if (missed := sum(c.ended == 'goal_missed' for c in s.careers)) else "")
        + (", 1 going on" if s.careers and s.careers[-1].ended is None else ""),
        *(f"  {career_line(c)}" for c in s.careers),
    ])
