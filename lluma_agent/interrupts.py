"""Sections a second Ctrl+C must not cut in half (a turn's JSON and its SQLite row, a memory write).

The Ctrl+C handler asks `defer()`: inside `no_interrupt()` the interrupt is remembered and raised
when the section ends, so "stop now" never leaves a turn file without its row.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0  # state, not a knob: how deep in prompts the person is
_pending = False
_asking = 0  # state, not a knob: prompts open now


@contextmanager
def no_interrupt() -> Iterator[None]:
    global _depth, _pending
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _pending:
            _pending = False
            raise KeyboardInterrupt


def defer() -> bool:
    """Called by the signal handler: True when the interrupt was deferred to the end of a section."""
    global _pending
    if _depth:
        _pending = True
        return True
    return False


@contextmanager
def asking() -> Iterator[None]:
    """A prompt waiting for a person's answer (`--confirm`, `--step`): the first Ctrl+C ends the wait."""
    global _asking
    _asking += 1
    try:
        yield
    finally:
        _asking -= 1


def waiting_for_person() -> bool:
    """Called by the signal handler: True while a prompt waits (it raises KeyboardInterrupt into the wait)."""
    return _asking > 0
