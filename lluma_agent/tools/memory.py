"""The memory tools: create, replace and delete memory files through MemoryStore (any number per turn)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from lluma_agent.memory.store import MemoryChange, MemoryError_, MemoryStore
from lluma_agent.tools.toolkit import Args, Outcome, Tool, ToolContext, ToolFailed


class FileArgs(Args):
    name: str = Field(min_length=1)


class FileContentArgs(FileArgs):
    content: str


class MemoryTool(Tool):
    """One MemoryStore operation; the arguments are the operation's keyword arguments."""

    def __init__(self, name: str, op: Literal["create", "write", "delete"], args: type[FileArgs],
                 description: str) -> None:
        self.name, self.op, self.args, self.description = name, op, args, description

    def run(self, args: Args, ctx: ToolContext) -> Outcome:
        store: MemoryStore = ctx.memory
        try:
            change: MemoryChange = getattr(store, self.op)(**args.model_dump())
        except MemoryError_ as exc:
            raise ToolFailed(str(exc), log_prefix="memory") from None
        return Outcome(
            content=f"{change.op} {change.name}: ok (~{change.tokens_after} tokens; memory ~{store.total_tokens()}/"
            f"{store.budget_tokens}).{change.person_note()}",
            short=f"{change.op} {change.name}: ok" + (f" (kept {len(change.kept_person_lines)} line(s) a person "
                                                      "wrote)" if change.kept_person_lines else ""),
            memory_change=change,
        )


MEMORY_TOOLS: list[MemoryTool] = [
    MemoryTool(
        "createMemoryFile", "create", FileContentArgs,
        "Create a new memory file (name like 'strategy.md', 'notes.txt' or 'stats.yaml'; no folders). "
        "Memory files are shown to you every turn; keep them short, the total budget is limited.",
    ),
    MemoryTool(
        "writeMemoryFile", "write", FileContentArgs,
        "Replace the whole content of a memory file (creates it if missing). .yaml must parse.",
    ),
    MemoryTool("deleteMemoryFile", "delete", FileArgs, "Delete a memory file you no longer need."),
]
