"""What a tool is: one object holding its name, its input model (the schema the model sees is derived
from it), its handler, and how its result reads in full (this turn) and compact (history).

Two kinds: an input tool plans one device action (at most one runs per turn, its result comes at the
next capture); any other tool runs at once and answers in the same turn (memory edits, look-ups).
`ToolRegistry` keeps them in order: the order is the order of the definitions in every request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, ValidationError

from lluma_agent.context.history import History
from lluma_agent.memory.store import MemoryChange, MemoryStore
from lluma_agent.model.calls import ToolCall, ToolResult
from lluma_agent.runlog.index import Hit
from lluma_vision.models import VisionOutput


class Args(BaseModel):
    """Base of every tool's input model: unknown keys are an error the model is told about."""

    model_config = ConfigDict(extra="forbid")


class NoArgs(Args):
    pass


def error_result(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(tool_use_id=call.id, name=call.name, content=message, is_error=True)


class ToolInputError(ValueError):
    pass


class ToolFailed(ValueError):
    """A tool that runs at once could not do what was asked; the message goes back as an is_error result."""

    def __init__(self, message: str, log_prefix: str = "tool") -> None:
        super().__init__(message)
        self.log_prefix = log_prefix  # the turn log's error reads "<prefix>: <message>"


@dataclass
class ToolContext:
    """What a tool may use: the reading the model decided on, memory, history, the turn number."""

    vision: VisionOutput
    memory: MemoryStore
    history: History
    turn: int
    search: Callable[[str, int], list[Hit]] | None = None  # the run's full-text index (searchHistory)
    frame: Image.Image | None = None  # the frame the model decided on, at full resolution (zoom)


class Outcome(BaseModel):
    """A tool that ran at once: its result lines and the memory change it made, if any."""

    content: str
    short: str = ""
    memory_change: MemoryChange | None = None
    image: str | None = None  # base64 JPEG sent beside the text (zoom's crop)


class Tool:
    """One tool. Subclasses set the class attributes and implement `run` (or `plan`, for input tools)."""

    name: str
    description: str
    args: type[Args] = NoArgs
    acts: bool = False  # an input tool: sends one action to the phone

    def definition(self) -> dict[str, Any]:
        """The tool definition sent at the top of every request (static: it sits in the cached prefix)."""
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def parse(self, call: ToolCall) -> Args:
        """Validate a call's input; a clear error (shown to the model) otherwise."""
        try:
            return self.args.model_validate(call.input if isinstance(call.input, dict) else {})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
            raise ToolInputError(f"invalid input for {call.name}: {problems}") from None

    def run(self, args: Any, ctx: ToolContext) -> Outcome:
        """Do it now; raise ToolFailed with a message for the model when it cannot be done."""
        raise NotImplementedError(f"{self.name} is an input tool" if self.acts else self.name)

    def result(self, call: ToolCall, outcome: Outcome) -> ToolResult:
        return ToolResult(tool_use_id=call.id, name=call.name, content=outcome.content, short=outcome.short,
                          image=outcome.image)


class ToolRegistry:
    """The tools the model may call, in definition order. Add a tool with `add` (or in `tools.py`)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self, acts: bool | None = None) -> frozenset[str]:
        return frozenset(t.name for t in self if acts is None or t.acts == acts)

    def definitions(self) -> list[dict[str, Any]]:
        return [t.definition() for t in self]

    def parse(self, call: ToolCall) -> tuple[Tool, Args]:
        tool = self.get(call.name)
        if tool is None:
            raise ToolInputError(f"unknown tool {call.name!r}; tools: {', '.join(self._tools)}")
        return tool, tool.parse(call)
