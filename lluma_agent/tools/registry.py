"""The tools the model is given, in the order of their definitions: every tool is listed in `default_tools`, goTo
included (a new tool is one line there).

Input tools act on the phone (at most one per turn); the others run at once (memory edits). `goTo` walks the screen
map and is offered only with one (`router`: the loop's navigator when map.enabled), after the other input tools;
`runPlan` carries out a named procedure (`planner`: the loop's planner when plans.enabled and the map is on).
The definitions are static and deterministic: they sit at the very top of the cached prefix, so a change of order or
wording changes every request's bytes.
"""

from __future__ import annotations

from typing import Any

from lluma_agent.model.calls import ToolCall
from lluma_agent.tools.actions import INPUT_TOOLS as _INPUT
from lluma_agent.tools.goto import GoTo, Router
from lluma_agent.tools.memory import MEMORY_TOOLS as _MEMORY
from lluma_agent.tools.plan import PlanRouter, RunPlan
from lluma_agent.tools.search import SearchHistoryTool
from lluma_agent.tools.toolkit import Args, ToolInputError, ToolRegistry
from lluma_agent.tools.zoom import ZoomTool

__all__ = ["INPUT_TOOLS", "MEMORY_TOOLS", "ToolInputError", "default_tools", "parse_args", "tool_definitions"]


def default_tools(router: Router | None = None, planner: PlanRouter | None = None) -> ToolRegistry:
    """Every tool, in definition order; goTo only with a `router` (the screen map on), runPlan only with a `planner`
    (plans.enabled, the map on)."""
    return ToolRegistry([*_INPUT, *([GoTo(router)] if router is not None else []),
                         *([RunPlan(planner)] if planner is not None else []), *_MEMORY, SearchHistoryTool(),
                         ZoomTool()])


INPUT_TOOLS = default_tools().names(acts=True)
MEMORY_TOOLS = frozenset(t.name for t in _MEMORY)


def tool_definitions() -> list[dict[str, Any]]:
    return default_tools().definitions()


def parse_args(call: ToolCall) -> Args:
    """Validate a call's input against its tool; a clear error (shown to the model) otherwise."""
    return default_tools().parse(call)[1]
