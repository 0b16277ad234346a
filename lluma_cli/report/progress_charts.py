"""The report's game-progress charts: stats, energy and skill points over the turns, as the screens read them.

From `progress.readings` (what vision saw, never the game's truth: on a phone that is all there is). Each chart
is a line per series through the turns that showed it, against the run's turns; where a run played several
careers, a dashed line marks where each began, at the turn the Careers table gives. Inline SVG like `charts.py`,
every point with a `<title>` tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from lluma_agent.runlog.careers import CareerSummary
from lluma_cli.report.charts import BOTTOM, LEFT, TOP, H, _axes, _svg
from lluma_cli.report.progress import ProgressReading

Starts = list[tuple[int, str]]  # (index into xs, label): where each career after the first begins

STAT_COLOURS = {"Speed": "#2e86ab", "Stamina": "#e07a1f", "Power": "#c0392b", "Guts": "#8e44ad", "Wit": "#27ae60"}


def _number(v: float) -> str:
    return f"{v:.0f}"


def multi_line(title: str, xs: list[int], series: list[tuple[str, str, list[float | None]]],
               fmt: Callable[[float], str] = _number, starts: list[tuple[int, str]] | None = None) -> str:
    """A line per series through its known values (None: the turn did not show it), a legend, and a dashed
    vertical line with a label at each (index into xs, label) of `starts`."""
    top = max((v for _, _, vals in series for v in vals if v is not None), default=0.0)
    parts, scale, slot = _axes(title, xs, top, fmt)
    for index, label in starts or []:
        x = LEFT + (index + 0.5) * slot  # on the turn, where its point and label stand
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#999" '
                     f'stroke-dasharray="4 3"/>')
        parts.append(f'<text x="{x + 3:.1f}" y="{TOP + 10}">{escape(label)}</text>')
    for name, colour, vals in series:
        pts = [(LEFT + (i + 0.5) * slot, H - BOTTOM - v * scale, xs[i], v) for i, v in enumerate(vals)
               if v is not None]
        if not pts:
            continue
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{colour}"><title>turn {turn}: {escape(name)} '
                  f"{escape(fmt(v))}</title></circle>" for x, y, turn, v in pts]
    lx = LEFT + 260
    for name, colour, vals in series:
        if any(v is not None for v in vals):
            parts.append(f'<rect x="{lx}" y="7" width="10" height="10" fill="{colour}"/>')
            parts.append(f'<text x="{lx + 14}" y="16">{escape(name)}</text>')
            lx += 30 + 7 * len(name)
    return _svg(title, parts)


def progress_charts(readings: list[ProgressReading], careers: list[CareerSummary]) -> str:
    """The charts' HTML (stats; energy; skill points), or "" when no turn read the career's state. The x axis is the
    game's turns where the screens showed them (issue 53: a career's progress is its game turns, not the agent's),
    a slot a game turn of each career with a dashed line where the next career begins; in logs that never showed a
    career's turn, the run's turns (a turn that showed nothing is a gap, not squeezed out)."""
    if not readings:
        return ""
    if any(r.game_turn is not None for r in readings):
        return _charts(*_by_game_turn(readings))
    first = min(readings[0].turn, *(c.first_turn for c in careers))
    last = max(readings[-1].turn, *(c.last_turn for c in careers))
    xs = list(range(first, last + 1))
    at = {r.turn: r for r in readings}
    starts = [(c.first_turn - first, f"career {c.number}") for c in careers] if len(careers) > 1 else []
    return _charts(xs, [at.get(t) for t in xs], starts, "turn")


def _by_game_turn(readings: list[ProgressReading]) -> tuple[list[int], list[ProgressReading | None], Starts, str]:
    """One slot a game turn of each career, in play order (a career's turns 1..N, then the next's), each the last
    reading made at it: the state as that game turn left it. Readings before a career's turn showed are left out."""
    last: dict[tuple[int, int], ProgressReading] = {}
    for r in readings:
        if r.game_turn is not None:
            last[(r.career, r.game_turn)] = r
    keys = sorted(last)
    slots: list[tuple[int, int]] = []
    for career in sorted({c for c, _ in keys}):
        turns = [g for c, g in keys if c == career]
        slots += [(career, g) for g in range(min(turns), max(turns) + 1)]  # a game turn not read is a gap
    starts = [(i, f"career {c}") for i, (c, g) in enumerate(slots) if i and slots[i - 1][0] != c]
    return [g for _, g in slots], [last.get(k) for k in slots], starts, "game turn"


def _charts(xs: list[int], at: list[ProgressReading | None], starts: Starts, unit: str) -> str:
    stats = [(name, colour, [r.stats.get(name) if r else None for r in at]) for name, colour in STAT_COLOURS.items()]
    out = []
    by = f" by {unit}"
    if any(v is not None for _, _, vals in stats for v in vals):
        out.append(multi_line(f"Stats (as the screens read them){by}", xs, stats, starts=starts))
    energy: list[float | None] = [r.energy if r else None for r in at]
    if any(v is not None for v in energy):
        out.append(multi_line(f"Energy (% of the gauge){by}", xs, [("Energy", "#f1c40f", energy)],
                              fmt=lambda v: f"{v:.0f}%", starts=starts))
    points: list[float | None] = [r.skill_points if r else None for r in at]
    if any(v is not None for v in points):
        out.append(multi_line(f"Skill points{by}", xs, [("Skill points", "#16a085", points)], starts=starts))
    return "".join(f'<div class="chart">{svg}</div>' for svg in out)
