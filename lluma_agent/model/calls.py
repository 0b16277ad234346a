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
    image: str | None = Field(None, repr=False)  # base64 JPEG sent with the text (zoom); never in a compact record

    def block(self, compact: bool = False) -> dict[str, Any]:
        text = self.content
        if compact:
            text = self.short or (text if len(text) <= 80 else text[:77] + "...")
        content: str | list[dict[str, Any]] = text
        if self.image is not None and not compact:
            content = [{"type": "text", "text": text}, {"type": "image", "source": {
                "type": "base64", "media_type": "image/jpeg", "data": self.image}}]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": content}
        if self.is_error:
            block["is_error"] = True
        return block
