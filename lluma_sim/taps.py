"""Taps off target: what the simulated phone received against what the agent logged it meant.

A received tap is off target when no logged tap matches it (a tap the logs do not record, e.g. an input
that timed out on the agent's side but ran on the phone), or when the ground-truth element under its point
is not the one the agent meant. Logged and received taps are paired in order by their point.
"""

from __future__ import annotations

import re

from pydantic import BaseModel
from rapidfuzz import fuzz

from lluma_sim.game.truth import ReceivedTap

POINT_SLACK = 2.0  # px: adb `input tap` takes integers
LOOKAHEAD = 3  # logged taps a received one may skip (inputs logged that never reached the phone: a timed-out command
# is rare and one at a time); an unlogged tap on a point logged much later (the same button another turn) must not
# drop every logged tap between as never received: one tap off the logs counted once, not a thousand


class MeantTap(BaseModel):
    """A tap as the agent's log has it: the point sent and the element it meant ("" for none in particular)."""

    x: float
    y: float
    target: str = ""
    by_model: bool = True  # the model decided it (False: a routine pass, a goTo step, a recovery rung)


class OffTarget(BaseModel):
    tap: ReceivedTap
    meant: str | None  # None: the logs do not record this tap
    why: str


def _norm(name: str) -> str:
    name = re.sub(r"\s*#\d+$", "", name)  # "Learn #2": the agent's duplicate suffix
    return re.sub(r"[^a-z0-9]", "", name.lower())


def same_element(meant: str, under: str | None) -> bool:
    """Does the element under the point carry the name the agent meant (OCR spelling allowed)?"""
    if under is None:
        return False
    a, b = _norm(meant), _norm(under)
    return bool(a) and (a == b or fuzz.ratio(a, b) >= 80 or (len(a) >= 4 and (a in b or b in a)))


def paired(received: list[ReceivedTap], meant: list[MeantTap]) -> list[tuple[ReceivedTap, MeantTap | None]]:
    """Each received tap with the logged tap it is, in order by their points (None: no log records it)."""
    out: list[tuple[ReceivedTap, MeantTap | None]] = []
    pending = list(meant)
    for tap in received:
        i = next(
            (k for k, m in enumerate(pending[:LOOKAHEAD + 1])
             if abs(m.x - tap.x) <= POINT_SLACK and abs(m.y - tap.y) <= POINT_SLACK),
            None,
        )
        if i is None:
            out.append((tap, None))
            continue
        out.append((tap, pending.pop(i)))
        del pending[:i]  # logged taps before it never reached the phone: they cannot match later ones
    return out


def spends_without_model(received: list[ReceivedTap], meant: list[MeantTap]) -> list[ReceivedTap]:
    """Taps that spent something (the game says so) that no model decision made: a routine pass's, a goTo step's,
    a rung's, or one no log records. Issue 40: there must be none."""
    return [tap for tap, m in paired(received, meant) if tap.spent and (m is None or not m.by_model)]


def off_target(received: list[ReceivedTap], meant: list[MeantTap]) -> list[OffTarget]:
    out: list[OffTarget] = []
    for tap, m in paired(received, meant):
        if m is None:
            out.append(OffTarget(tap=tap, meant=None, why="not in the logs"))
            continue
        if m.target and not same_element(m.target, tap.element):
            out.append(OffTarget(tap=tap, meant=m.target, why=f"landed on {tap.element or 'nothing'}"))
        elif not m.target and tap.kind not in (None, "text"):
            out.append(OffTarget(tap=tap, meant="", why=f"meant no element, landed on {tap.element}"))
    return out
