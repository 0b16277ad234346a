"""Tool definitions the model sees, and validation of the calls it makes.

Input tools act on the phone (at most one per turn); memory tools edit memory files (any number).
Definitions are static and deterministic: they sit at the very top of the cached prefix.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(_Args):
    pass


class PressButtonArgs(_Args):
    name: str = Field(min_length=1)


class FileArgs(_Args):
    name: str = Field(min_length=1)


class FileContentArgs(FileArgs):
    content: str


class ToolSpec(BaseModel):
    name: str
    description: str
    args: type[_Args]
    kind: str  # "input" or "memory"

    def definition(self) -> dict[str, Any]:
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        return {"name": self.name, "description": self.description, "input_schema": schema}


SPECS: list[ToolSpec] = [
    ToolSpec(
        name="pressButton",
        kind="input",
        args=PressButtonArgs,
        description=(
            "Tap a button on the current screen by its name exactly as listed in <vision> buttons "
            "(e.g. 'Training', 'OK', 'Learn#2'). An unknown or ambiguous name taps nothing and returns the "
            "candidates. The result arrives next turn: where it tapped and whether the screen changed."
        ),
    ),
    ToolSpec(
        name="advanceDialogue",
        kind="input",
        args=NoArgs,
        description="Tap the dialogue text box to show the next line of a story/event dialogue.",
    ),
    ToolSpec(
        name="back",
        kind="input",
        args=NoArgs,
        description="Go back: taps a visible 'Back' button, otherwise sends the Android back key.",
    ),
    ToolSpec(
        name="confirm",
        kind="input",
        args=NoArgs,
        description="Tap the confirming button of a dialog (OK, Confirm, Yes, Next, Close...).",
    ),
    ToolSpec(
        name="scrollUp",
        kind="input",
        args=NoArgs,
        description="Scroll the visible list up (towards its top). Use when <vision> scroll.up is true.",
    ),
    ToolSpec(
        name="scrollDown",
        kind="input",
        args=NoArgs,
        description="Scroll the visible list down (towards its end). Use when <vision> scroll.down is true.",
    ),
    ToolSpec(
        name="createMemoryFile",
        kind="memory",
        args=FileContentArgs,
        description=(
            "Create a new memory file (name like 'strategy.md', 'notes.txt' or 'stats.yaml'; no folders). "
            "Memory files are shown to you every turn; keep them short, the total budget is limited."
        ),
    ),
    ToolSpec(
        name="writeMemoryFile",
        kind="memory",
        args=FileContentArgs,
        description="Replace the whole content of a memory file (creates it if missing). .yaml must parse.",
    ),
    ToolSpec(
        name="deleteMemoryFile",
        kind="memory",
        args=FileArgs,
        description="Delete a memory file you no longer need.",
    ),
]
SPEC_BY_NAME = {s.name: s for s in SPECS}
INPUT_TOOLS = frozenset(s.name for s in SPECS if s.kind == "input")
MEMORY_TOOLS = frozenset(s.name for s in SPECS if s.kind == "memory")


def tool_definitions() -> list[dict[str, Any]]:
    return [s.definition() for s in SPECS]


class ToolCall(BaseModel):
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseModel):
    """What we tell the model about one tool call (sent as a tool_result block)."""

    tool_use_id: str
    name: str
    content: str
    is_error: bool = False
    short: str = ""  # the one line kept in history (defaults to the start of `content`)

    def block(self, compact: bool = False) -> dict[str, Any]:
        text = self.content
        if compact:
            text = self.short or (text if len(text) <= 80 else text[:77] + "...")
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": text}
        if self.is_error:
            block["is_error"] = True
        return block


class ToolInputError(ValueError):
    pass


def parse_args(call: ToolCall) -> _Args:
    """Validate a call's input against its tool; a clear error (shown to the model) otherwise."""
    spec = SPEC_BY_NAME.get(call.name)
    if spec is None:
        raise ToolInputError(f"unknown tool {call.name!r}; tools: {', '.join(SPEC_BY_NAME)}")
    try:
        return spec.args.model_validate(call.input if isinstance(call.input, dict) else {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
        raise ToolInputError(f"invalid input for {call.name}: {problems}") from None
