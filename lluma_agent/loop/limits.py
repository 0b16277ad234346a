"""The limits a person set on a run (turns, dollars, careers, hours, a stop), checked before each turn: one that is
reached ends the run (`RunEnded`). What a turn itself finds ends the run from that turn (`Sitting.ends`)."""

from __future__ import annotations

from lluma_agent.config import RunConfig
from lluma_agent.loop.careers import CareerTracker
from lluma_agent.loop.sitting import Sitting
from lluma_agent.loop.state import LoopState
from lluma_agent.loop.stop import RunEnded, StopKind
from lluma_agent.loop.turn import RunTotals


def check_limits(run: RunConfig, sitting: Sitting, s: LoopState, totals: RunTotals, before: RunTotals,
                 careers: CareerTracker | None) -> None:
    """Raise RunEnded when the run must not play another turn. `before`: the run's totals before this sitting (a
    resumed sitting's limits are its own numbers: "12 more")."""
    if sitting.ending is not None:  # found by a step() played on its own, before this run()
        raise sitting.ending
    if sitting.stop.requested:
        raise RunEnded(StopKind.PERSON, "stopped by user")
    limit, more = "", " more" if before.turns else ""
    if run.max_turns and totals.turns - before.turns >= run.max_turns:
        limit, kind = f"max_turns ({run.max_turns}{more}) reached", StopKind.MAX_TURNS
    elif run.max_cost_usd and totals.cost_usd - before.cost_usd >= run.max_cost_usd:
        limit, kind = f"max_cost_usd (${run.max_cost_usd:.2f}{more}) reached", StopKind.MAX_COST
    elif run.max_careers and careers is not None and careers.ended >= run.max_careers:
        limit, kind = f"max_careers ({run.max_careers}{more}) ended", StopKind.MAX_CAREERS
    elif run.max_hours and sitting.clock.now() - sitting.started >= run.max_hours * 3600:
        limit, kind = f"max_hours ({run.max_hours:g}) played", StopKind.MAX_HOURS
    if limit and s.last_model_error and not s.model_answered:  # the run did nothing it was asked to do
        raise RunEnded(StopKind.MODEL, f"{limit} without one answer from the model API: {s.last_model_error}")
    if limit:
        raise RunEnded(kind, limit)
