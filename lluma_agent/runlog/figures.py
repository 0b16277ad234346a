"""A run's numbers, said one way everywhere (the live line, `lluma logs`, `lluma stats`, the report, the demo
summary): the four token columns with their labels, a turn's tokens over every call it made, dollars, and the
cache share as a percentage. Each figure is computed once (`Usage.cache_hit_ratio`) and printed here."""

from __future__ import annotations

from lluma_agent.runlog.logread import turn_calls
from lluma_agent.runlog.turnlog import TurnLog
from lluma_facts import Usage

# The four token columns. "uncached" is the input after the last cache breakpoint (the API's input_tokens):
# 0 means everything was cached or written to the cache, not "no input".
COLUMNS = ("uncached", "cache write", "cache read", "out")


def columns(u: Usage) -> tuple[int, int, int, int]:
    return u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens, u.output_tokens


def tokens(u: Usage) -> str:
    """`uncached 0 · cache write 483 · cache read 6,158 · out 279`."""
    return " · ".join(f"{label} {n:,}" for label, n in zip(COLUMNS, columns(u), strict=True))


def turn_usage(log: TurnLog) -> Usage:
    """A turn's tokens over every call it made (decision, VLM reading, fold, preflight): what its cost covers."""
    return sum((c.usage for c in turn_calls(log)), Usage())


def usd(amount: float) -> str:
    """Dollars: six decimals below a tenth of a cent (a cached turn costs $0.0003), four above."""
    return f"${amount:.4f}" if abs(amount) >= 0.001 else f"${amount:.6f}"


def percent(ratio: float) -> str:
    """A share (0..1) as `94.9%`, rounded once, from the unrounded ratio."""
    return f"{100 * ratio:.1f}%"
