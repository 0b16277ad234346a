"""What the loop needs of a model: the one model seam.

`Model` (claude.py, the anthropic SDK) is the real one; tests use scripted models with the same methods.
"""

from __future__ import annotations

from typing import Protocol

from lluma_agent.model.claude import MessagesRequest, ModelReply


class DecisionModel(Protocol):
    def decide(self, request: MessagesRequest) -> ModelReply:
        """One Messages API call (retried as lluma_facts.retry says); ModelError when it fails for good."""
        ...

    def preflight(self, request: MessagesRequest) -> tuple[bool, str] | None:
        """The cached prefix's real size against the model's minimum: (big enough, a line for the log), or
        None where the model cannot count (a scripted model)."""
        ...
