"""Inline SVG charts for `lluma report`: stacked bars per turn and a line. No JS, no external files.

Every bar carries a `<title>`, which browsers show as a tooltip, so exact figures need no script.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

W, H = 900, 240
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 34


def nice_step(top: float, ticks: int = 4) -> float:
    """A 1/2/2.5/5 x 10^k step so that `ticks` steps cover `top`."""
    if top <= 0:
        return 1.0
    raw = top / ticks
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(float(m * mag) for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def fmt_tokens(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k".replace(".0k", "k")
    return f"{v:.0f}"


def fmt_usd(v: float) -> str:
    if v == 0:
        return "$0"
    return f"${v:.2f}" if v >= 1 else f"${v:.3f}" if v >= 0.01 else f"${v:.4f}"


def _axes(title: str, xs: list[int], top: float, fmt: Callable[[float], str]) -> tuple[list[str], float, float]:
    """Title, y grid with labels, x labels; returns the parts, the y scale and the slot width."""
    step = nice_step(top)
    ymax = step * max(1, math.ceil(top / step))
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM
    scale = ph / ymax
    slot = pw / max(len(xs), 1)
    parts = [f'<text x="{LEFT}" y="16" class="ct">{escape(title)}</text>']
    for k in range(round(ymax / step) + 1):
        v = k * step  # multiply, not accumulate: no 0.30000000000000004 labels
        y = H - BOTTOM - v * scale
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{escape(fmt(v))}</text>')
    every = max(1, math.ceil(len(xs) / 12))  # about a dozen x labels whatever the run length
    for i, x in enumerate(xs):
        if i % every == 0 or i == len(xs) - 1:
            cx = LEFT + (i + 0.5) * slot
            parts.append(f'<text x="{cx:.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{x}</text>')
    parts.append(f'<text x="{W - RIGHT}" y="{H - 4}" text-anchor="end">turn</text>')
    return parts, scale, slot


def _svg(label: str, parts: list[str]) -> str:
    # Inline SVG in HTML needs no xmlns: the page stays free of any URL.
    head = f'<svg viewBox="0 0 {W} {H}" width="100%" role="img" aria-label="{escape(label)}">'
    return head + "".join(parts) + "</svg>"


def stacked_bars(title: str, xs: list[int], series: list[tuple[str, str, list[float]]],
                 fmt: Callable[[float], str] = fmt_tokens) -> str:
    """One bar per x, `series` = (name, colour, values) stacked bottom-up, with a legend."""
    totals = [sum(vals[i] for _, _, vals in series) for i in range(len(xs))]
    parts, scale, slot = _axes(title, xs, max(totals, default=0), fmt)
    bw = max(slot * 0.8, 0.5)
    for i, x in enumerate(xs):
        y = float(H - BOTTOM)
        tip = f"turn {x}: " + ", ".join(f"{name} {fmt(vals[i])}" for name, _, vals in series)
        rects = []
        for _, colour, vals in series:
            h = vals[i] * scale
            y -= h
            rects.append(f'<rect x="{LEFT + i * slot + (slot - bw) / 2:.2f}" y="{y:.2f}" width="{bw:.2f}" '
                         f'height="{h:.2f}" fill="{colour}"/>')
        parts.append(f"<g><title>{escape(tip)}</title>{''.join(rects)}</g>")
    lx = LEFT + 260
    for name, colour, _ in series:
        parts.append(f'<rect x="{lx}" y="7" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{lx + 14}" y="16">{escape(name)}</text>')
        lx += 30 + 7 * len(name)
    return _svg(title, parts)


def line(title: str, xs: list[int], values: list[float], colour: str = "#2e86ab",
         fmt: Callable[[float], str] = fmt_usd) -> str:
    """A line through one value per x, with a light fill under it."""
    parts, scale, slot = _axes(title, xs, max(values, default=0), fmt)
    pts = [(LEFT + (i + 0.5) * slot, H - BOTTOM - v * scale) for i, v in enumerate(values)]
    if pts:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        base = H - BOTTOM
        parts.append(f'<polygon points="{pts[0][0]:.1f},{base} {path} {pts[-1][0]:.1f},{base}" '
                     f'fill="{colour}" fill-opacity="0.15"/>')
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        x, y = pts[-1]
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>turn {xs[-1]}: '
                     f'{escape(fmt(values[-1]))}</title></circle>')
        parts.append(f'<text x="{x - 6:.1f}" y="{y - 8:.1f}" text-anchor="end" class="ct">'
                     f"{escape(fmt(values[-1]))}</text>")
    return _svg(title, parts)
