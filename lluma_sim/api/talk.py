"""How much the stand-in's model says: reply and thinking lengths drawn from a seeded distribution.

A scripted policy decides WHAT to do in a sentence or two; a real model says more (game turns run about
80-200 output tokens) and thinks first. `Talk` pads a game turn's reasoning to a drawn length and writes
the thinking block's text, both from the policy's own notes plus stock sentences, counted with the
stand-in's tokenizer for the model. Same seed and same request sequence: same lengths.
"""

from __future__ import annotations

import random
from typing import Any

from lluma_sim.api.tokens import block_tokens, text_tokens

# Output tokens of a game turn's visible reply (text + tool calls): low, mode, high of a triangular draw.
REPLY_TOKENS = (80, 120, 200)
# Thinking tokens by effort (adaptive models) or for a budget model with thinking enabled.
THINKING_TOKENS = {
    "low": (20, 60, 150),
    "medium": (80, 180, 400),
    "high": (200, 400, 900),
    "xhigh": (400, 700, 1600),
    "max": (600, 1000, 2400),
    "budget": (150, 350, 900),
}
FILLER = (
    "The screen matches what I expected after the last action.",
    "Energy matters most right now: a failed training costs stats and mood.",
    "I should not repeat an action that changed nothing.",
    "The stat totals are still below what the next race needs, so training comes first.",
    "A rest now keeps the failure rate low for the next few turns.",
    "Mood is fine, so recreation can wait.",
    "The button names in the reading are exact, so I can press them by name.",
    "Nothing on this screen asks for a choice I have not seen before.",
    "If this does not change the screen, I will go back to the career hub next turn.",
    "My notes say this screen comes back often; the same choice worked before.",
)


def _tri(rng: random.Random, spec: tuple[int, int, int]) -> int:
    low, mode, high = spec
    return int(rng.triangular(low, high, mode))


class Talk:
    """Seeded lengths for replies and thinking (one per server)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def _prose(self, start: list[str], tokens: int, model: str) -> str:
        sentences = [s for s in start if s]
        while text_tokens(" ".join(sentences), model) < tokens:
            sentences.append(self.rng.choice(FILLER))
        return " ".join(sentences)

    def pad_reply(self, content: list[dict[str, Any]], notes: list[str], model: str) -> list[dict[str, Any]]:
        """A game turn (text + tool call): the first text block grows until the reply reaches a drawn length."""
        texts = [i for i, b in enumerate(content) if b.get("type") == "text"]
        if not texts or not any(b.get("type") == "tool_use" for b in content):
            return content
        target = _tri(self.rng, REPLY_TOKENS)
        others = sum(block_tokens(b, model) for i, b in enumerate(content) if i != texts[0])
        first = content[texts[0]]
        grown = self._prose([first["text"], *notes], max(target - others, 1), model)
        return [{**first, "text": grown} if i == texts[0] else b for i, b in enumerate(content)]

    def thinking(self, notes: list[str], level: str, model: str) -> str:
        """The thinking text for one reply at `level` (an effort, or "budget")."""
        return self._prose(notes, _tri(self.rng, THINKING_TOKENS[level]), model)
