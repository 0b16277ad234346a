"""The screen map as a picture for `lluma report`: screens as boxes, ways out as arrows as thick as their use.

Inline SVG, no script, no external file, no marker references (arrow heads are drawn as polygons), so it renders
under the page's CSP. The layout is deterministic and radial, as the game is a hub with spokes: the hub (the most
seen screen) in the middle, the screens one step from it on a ring around it, two steps on the next ring (a
breadth-first walk over the ways out and the ways in, so a screen that only leads to the hub has a place too), each
ring's screens in the order of the screen they were reached from; screens no way joins to the hub in a row below.
Every box and arrow carries a `<title>` (a browser's tooltip) with its figures.
"""

from __future__ import annotations

import math
from html import escape

from lluma_agent.navmap import ScreenMap
from lluma_cli.map import WayOut, name_of, ordered_screens, way_out

BOX_W, BOX_H = 140.0, 34.0
MAX_SCREENS = 40  # the most seen; a map grown over many nights shows its main screens, the rest counted in the title
NAME_CHARS = 20  # a screen's name on its box, cut with an ellipsis beyond
EDGE_MIN, EDGE_MAX = 1.2, 7.0  # arrow width for the least and the most used way out
BEND = 0.15  # how far an arrow bows from the straight line (a share of its length): A->B and B->A stay apart
ARROW = 7.0  # arrow head length
ASPECT = 1.8  # rings are ellipses this much wider than tall: the boxes are wide and the page is too
RING_STEP = 90.0  # the least vertical gap between rings (its horizontal gap, x ASPECT, clears a box's width)
GAP = 20.0  # between neighbouring boxes on a ring
MARGIN = 30.0
LABEL_OFF = 6.0  # an arrow's name, this far beside its bow
LABEL_SIDE = 0.3  # a bow pointing further sideways than this puts the name's start (or end) at the arrow
TITLE_H = 28.0


def rings(m: ScreenMap, shown: list[str]) -> tuple[list[list[str]], list[str]]:
    """The screens by their steps from the hub (`shown[0]`), each ring in its parents' order; and the screens no
    way joins to the hub."""
    if not shown:
        return [], []
    keep = set(shown)
    rank = {s: i for i, s in enumerate(shown)}
    near: dict[str, set[str]] = {s: set() for s in shown}
    for t in m.transitions:
        if t.src in keep and t.dst in keep and t.src != t.dst:
            near[t.src].add(t.dst)
            near[t.dst].add(t.src)
    found = [[shown[0]]]
    seen = {shown[0]}
    while True:
        ring = []
        for s in found[-1]:  # children in their parent's order: neighbours on a ring share a parent
            for n in sorted(near[s] - seen, key=rank.__getitem__):
                seen.add(n)
                ring.append(n)
        if not ring:
            break
        found.append(ring)
    return found, [s for s in shown if s not in seen]


def _radii(found: list[list[str]]) -> list[float]:
    """Each ring's vertical radius: a step beyond the last, more when its boxes need the room."""
    out = [0.0]
    per_unit = 2 * math.pi * math.sqrt((ASPECT**2 + 1) / 2)  # an ellipse's perimeter per unit of radius (close)
    for ring in found[1:]:
        out.append(max(out[-1] + RING_STEP, len(ring) * (BOX_W + GAP) / per_unit))
    return out


def _cut(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _border(cx: float, cy: float, hw: float, hh: float, towards: tuple[float, float]) -> tuple[float, float]:
    """Where the line from a box's centre towards a point leaves the box."""
    dx, dy = towards[0] - cx, towards[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    t = min(hw / abs(dx) if dx else math.inf, hh / abs(dy) if dy else math.inf)
    return cx + dx * min(t, 1.0), cy + dy * min(t, 1.0)


Point = tuple[float, float]


def place(m: ScreenMap, shown: list[str]) -> tuple[dict[str, Point], float, float]:
    """Each screen's box centre, and the picture's width and height."""
    found, loose = rings(m, shown)
    radii = _radii(found)
    outer = radii[-1]
    cx, cy = MARGIN + BOX_W / 2 + outer * ASPECT, MARGIN + TITLE_H + BOX_H / 2 + outer
    where: dict[str, Point] = {}
    for ring, r in zip(found, radii, strict=True):
        for k, s in enumerate(ring):
            a = -math.pi / 2 + 2 * math.pi * k / len(ring)  # from the top, clockwise
            where[s] = (cx + r * ASPECT * math.cos(a), cy + r * math.sin(a))
    width = 2 * cx
    per_row = max(1, int((width - MARGIN) // (BOX_W + GAP)))
    below = cy + outer + BOX_H + GAP
    for k, s in enumerate(loose):
        where[s] = (MARGIN + BOX_W / 2 + (k % per_row) * (BOX_W + GAP), below + (k // per_row) * (BOX_H + GAP))
    return where, width, max(y for _, y in where.values()) + BOX_H / 2 + MARGIN


def _arrow(w: WayOut, start: Point, end: Point, most: int) -> str:
    """One way out: a bowed line from box to box with its head drawn as a polygon; a loop when it stays put."""
    stroke = EDGE_MIN + (EDGE_MAX - EDGE_MIN) * math.sqrt(w.count / most)
    colour = "#b00020" if w.fails * 2 > w.count else "#d98a00" if w.fails else "#5a7fa8"
    tip = escape(f"{w.src_name} --{w.action}--> {w.dst_name}: {w.count} use(s), {w.fails} failed"
                 + (f", mean {w.seconds_mean:.1f} s" if w.seconds_mean is not None else ""))
    line = f'fill="none" stroke="{colour}" stroke-width="{stroke:.1f}" stroke-opacity="0.8"'
    (x0, y0), (x1, y1) = start, end
    if w.src == w.dst:  # a way out that stays on the screen (a page turned, a list scrolled): a loop on its corner
        lx, ly = x0 + BOX_W / 2 - 6, y0 - BOX_H / 2
        return (f'<path d="M{lx - 14:.1f},{ly:.1f} C{lx - 14:.1f},{ly - 18:.1f} {lx + 8:.1f},{ly - 18:.1f} '
                f'{lx:.1f},{ly:.1f}" {line}><title>{tip}</title></path>')
    qx, qy = (x0 + x1) / 2 + (y1 - y0) * BEND, (y0 + y1) / 2 - (x1 - x0) * BEND  # bowed right of its travel
    sx, sy = _border(x0, y0, BOX_W / 2, BOX_H / 2, (qx, qy))
    ex, ey = _border(x1, y1, BOX_W / 2, BOX_H / 2, (qx, qy))
    norm = math.hypot(ex - qx, ey - qy) or 1.0
    ux, uy = (ex - qx) / norm, (ey - qy) / norm  # the direction where it meets the box
    head = ARROW + stroke
    bx, by = ex - ux * head, ey - uy * head
    px, py = -uy * head * 0.5, ux * head * 0.5
    label = ""
    if w.count * 4 >= most:  # the busiest ways are named, beside their bow (A->B and B->A on opposite sides)
        bow = math.hypot(qx - (x0 + x1) / 2, qy - (y0 + y1) / 2) or 1.0
        nx, ny = (qx - (x0 + x1) / 2) / bow, (qy - (y0 + y1) / 2) / bow
        anchor = "start" if nx > LABEL_SIDE else "end" if nx < -LABEL_SIDE else "middle"
        lx, ly = (sx + 2 * qx + ex) / 4 + nx * LABEL_OFF, (sy + 2 * qy + ey) / 4 + ny * LABEL_OFF + 4
        label = f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" class="edge">{escape(_cut(w.action))}</text>'
    return (f'<g><title>{tip}</title><path d="M{sx:.1f},{sy:.1f} Q{qx:.1f},{qy:.1f} {bx:.1f},{by:.1f}" {line}/>'
            f'<polygon points="{ex:.1f},{ey:.1f} {bx + px:.1f},{by + py:.1f} {bx - px:.1f},{by - py:.1f}" '
            f'fill="{colour}"/></g>{label}')


def _box(m: ScreenMap, s: str, at: Point) -> str:
    x, y = at
    seen = m.screens[s].seen
    return (f'<g class="screen"><title>{escape(f"{name_of(m, s)} [{s}]: seen {seen}")}</title>'
            f'<rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W:.0f}" height="{BOX_H:.0f}" rx="6" '
            f'fill="#ffffff" stroke="#2e5f8a" stroke-width="1.5"/>'
            f'<text x="{x:.1f}" y="{y - 2:.1f}" text-anchor="middle" class="ct">{escape(_cut(name_of(m, s)))}</text>'
            f'<text x="{x:.1f}" y="{y + 12:.1f}" text-anchor="middle">seen {seen:,}</text></g>')


def map_svg(m: ScreenMap) -> str:
    """The picture, or "" when the map holds no screen."""
    shown = ordered_screens(m)[:MAX_SCREENS]
    if not shown:
        return ""
    where, width, height = place(m, shown)
    ways = [way_out(m, t) for t in m.transitions if t.src in where and t.dst in where]
    most = max((w.count for w in ways), default=1) or 1
    drawn = f" (the {len(shown)} most seen drawn)" if len(shown) < len(m.screens) else ""
    parts = [f'<text x="8" y="18" class="ct">Screen map: {len(m.screens)} screens, {len(m.transitions)} ways out'
             f"{drawn}; arrows as thick as their use, orange: some failed, red: most failed</text>"]
    ways.sort(key=lambda w: (w.count, w.src, w.action, w.dst))  # the most used drawn last, on top
    parts += [_arrow(w, where[w.src], where[w.dst], most) for w in ways]
    parts += [_box(m, s, at) for s, at in where.items()]  # boxes over every arrow
    head = (f'<svg viewBox="0 0 {width:.0f} {height:.0f}" width="100%" role="img" aria-label="the screen map" '
            'class="map">')
    return head + "".join(parts) + "</svg>"
