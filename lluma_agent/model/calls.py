"""A tool call as the model made it, and the result we send back for it (a tool_result block).

They sit with the model seam, below the tools: the reply parser, the turn log and the tools all use them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


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
