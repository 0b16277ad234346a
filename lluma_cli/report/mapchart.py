"""The screen map as a picture for `lluma report`: screens as boxes, ways out as arrows as thick as their use.

Inline SVG, no script, no external file, no marker references (arrow heads are drawn as polygons), so it renders
under the page's CSP. The layout is deterministic and radial, as the game is a hub with spokes: the hub (the screen
joined to the most others) in the middle, the screens one step from it on a ring around it, two steps on the next
ring (a breadth-first walk over the ways out and the ways in, so a screen that only leads to the hub has a place
too), each screen in the wedge of the screen it was reached from (a chain of screens runs straight out), slid round
its ring until its box clears its neighbours' (a ring too short moves out); screens no way joins to the hub in a row
below.
Every box and arrow carries a `<title>` (a browser's tooltip) with its figures.
"""

from __future__ import annotations

import math
from html import escape

from lluma_agent.navmap import ScreenMap
from lluma_cli.report.mapdata import WayOut, name_of, ordered_screens, way_out

BOX_W, BOX_H = 140.0, 34.0
MAX_SCREENS = 40  # the most seen; a map grown over many nights shows its main screens, the rest counted in the title
NAME_CHARS = 20  # a screen's name on its box, cut with an ellipsis beyond
EDGE_MIN, EDGE_MAX = 1.2, 7.0  # arrow width for the least and the most used way out
BEND = 0.15  # how far an arrow bows from the straight line (a share of its length): A->B and B->A stay apart
ARROW = 7.0  # arrow head length
ASPECT = 1.8  # rings are ellipses this much wider than tall: the boxes are wide and the page is too
RING_STEP = 90.0  # the vertical gap between rings (its horizontal gap, x ASPECT, clears a box's width)
GAP = 20.0  # between neighbouring boxes on a ring
SLIDE = 0.02  # radians a box slides round its ring at a time to clear its neighbour
RING_GROW = 15.0  # a ring too short for its boxes moves out by this much at a time
MARGIN = 30.0  # the chart's border, px (a display choice)
LABEL_OFF = 6.0  # an arrow's name, this far beside its bow
LABEL_SIDE = 0.3  # a bow pointing further sideways than this puts the name's start (or end) at the arrow
TITLE_H = 28.0  # the title's band, px (a display choice)


def tree(m: ScreenMap, shown: list[str]) -> tuple[list[str], dict[str, str]]:
    """A breadth-first walk from the hub over the ways out and in: the screens it reached in order (the most seen
    first among a screen's neighbours), and the screen each was reached from. The hub is the screen joined to the
    most others (the most seen of those): the career hub, not a story's page seen as often."""
    keep = set(shown)
    rank = {s: i for i, s in enumerate(shown)}
    near: dict[str, set[str]] = {s: set() for s in shown}
    for t in m.transitions:
        if t.src in keep and t.dst in keep and t.src != t.dst:
            near[t.src].add(t.dst)
            near[t.dst].add(t.src)
    hub = min(shown, key=lambda s: (-len(near[s]), rank[s]))
    order, parent = [hub], {}
    for s in order:  # grows as it goes: breadth first
        for n in sorted(near[s] - set(order), key=rank.__getitem__):
            parent[n] = s
            order.append(n)
    return order, parent


def _angles(order: list[str], parent: dict[str, str]) -> tuple[dict[str, float], dict[str, int], int]:
    """A radial tree: each screen's angle (the middle of its wedge; a screen's children share its wedge by how many
    screens end their branches), its steps from the hub, and how many branch ends there are."""
    children: dict[str, list[str]] = {s: [] for s in order}
    for s in order[1:]:
        children[parent[s]].append(s)
    ends: dict[str, int] = {}
    for s in reversed(order):
        ends[s] = sum(ends[c] for c in children[s]) or 1
    wedge = {order[0]: (-math.pi / 2 - math.pi, -math.pi / 2 + math.pi)}  # the hub's: all round, the top first
    depth = {order[0]: 0}
    for s in order:
        lo, hi = wedge[s]
        for c in children[s]:
            share = (hi - lo) * ends[c] / ends[s]
            wedge[c], lo = (lo, lo + share), lo + share
            depth[c] = depth[s] + 1
    return {s: (a + b) / 2 for s, (a, b) in wedge.items()}, depth, ends[order[0]]


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


def _clear(a: Point, b: Point) -> bool:
    """Two boxes centred here stand apart by a gap, across or down."""
    return abs(a[0] - b[0]) >= BOX_W + GAP or abs(a[1] - b[1]) >= BOX_H + GAP


def _on_ring(radius: float, a: float) -> Point:
    return radius * ASPECT * math.cos(a), radius * math.sin(a)


def _spread(ring: list[str], angle: dict[str, float], radius: float, inner: list[Point]) -> dict[str, Point] | None:
    """The ring's boxes at their angles where they clear one another and every box inside the ring: round the
    ring in angle order, each moved on (SLIDE at a time) past the one before it and past inner boxes; None when
    the ring is too short to hold them (the last would run into the first)."""
    ordered = sorted(ring, key=angle.__getitem__)
    start = angle[ordered[0]]
    at: dict[str, Point] = {}
    prev: Point | None = None
    a = start
    for s in ordered:
        a = max(a, angle[s])
        while (prev is not None and not _clear(_on_ring(radius, a), prev)) or \
                not all(_clear(_on_ring(radius, a), p) for p in inner):
            a += SLIDE
            if a >= start + 2 * math.pi:
                return None
        prev = at[s] = _on_ring(radius, a)
    first = at[ordered[0]]
    return at if len(ordered) == 1 or _clear(first, prev or first) else None


def _rings(order: list[str], angle: dict[str, float], depth: dict[str, int], first: float) -> dict[str, Point]:
    """Each screen on its ring near its angle, the rings from the middle out: a ring's boxes slide round it until
    they clear one another and the boxes inside it, and a ring too short for that moves out (RING_GROW at a time).
    Wedges shared by branch ends alone put boxes of one ring onto each other on most 10-30-screen maps."""
    where: dict[str, Point] = {order[0]: (0.0, 0.0)}
    radius = 0.0
    for d in range(1, max(depth.values()) + 1):
        ring = [s for s in order if depth[s] == d]
        radius += first if d == 1 else RING_STEP
        inner = list(where.values())
        at = _spread(ring, angle, radius, inner)
        while at is None:
            radius += RING_GROW
            at = _spread(ring, angle, radius, inner)
        where.update(at)
    return where


def place(m: ScreenMap, shown: list[str]) -> tuple[dict[str, Point], float, float]:
    """Each screen's box centre, and the picture's width and height (the boxes' extent, a margin round it)."""
    order, parent = tree(m, shown)
    angle, depth, ends = _angles(order, parent)
    # the first ring far enough out that neighbouring branch ends clear a box's width where they are closest
    first = max(RING_STEP, ends * (BOX_W + GAP) / (2 * math.pi * ASPECT))
    where = _rings(order, angle, depth, first)
    left = min(x for x, _ in where.values()) - BOX_W / 2 - MARGIN
    top = min(y for _, y in where.values()) - BOX_H / 2 - MARGIN - TITLE_H
    where = {s: (x - left, y - top) for s, (x, y) in where.items()}
    width = max(x for x, _ in where.values()) + BOX_W / 2 + MARGIN
    loose = [s for s in shown if s not in where]  # no way joins them to the hub: a row below
    per_row = max(1, int((width - MARGIN) // (BOX_W + GAP)))
    below = max(y for _, y in where.values()) + BOX_H + GAP
    for k, s in enumerate(loose):
        where[s] = (MARGIN + BOX_W / 2 + (k % per_row) * (BOX_W + GAP), below + (k // per_row) * (BOX_H + GAP))
    width = max(width, max(x for x, _ in where.values()) + BOX_W / 2 + MARGIN)
    return where, width, max(y for _, y in where.values()) + BOX_H / 2 + MARGIN


def _arrow(ways: list[WayOut], start: Point, end: Point, most: int) -> str:
    """The ways out from one screen to another (several actions may lead there), as one bowed line from box to box,
    as thick as their uses together, its head drawn as a polygon; a loop when they stay on the screen. Its tooltip
    lists each action with its figures; the busiest are named beside it."""
    count, fails = sum(w.count for w in ways), sum(w.fails for w in ways)
    stroke = EDGE_MIN + (EDGE_MAX - EDGE_MIN) * math.sqrt(count / most)
    colour = "#b00020" if fails * 2 > count else "#d98a00" if fails else "#5a7fa8"
    first = ways[0]
    tip = escape("\n".join(
        f"{w.src_name} --{w.action}--> {w.dst_name}: {w.count} use(s), {w.fails} failed"
        + (f", mean {w.seconds_mean:.1f} s" if w.seconds_mean is not None else "") for w in ways))
    line = f'fill="none" stroke="{colour}" stroke-width="{stroke:.1f}" stroke-opacity="0.8"'
    (x0, y0), (x1, y1) = start, end
    if first.stays:  # a page turned, a list scrolled: a loop on the box's corner
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
    if count * 4 >= most:  # the busiest are named, beside their bow (A->B and B->A on opposite sides)
        bow = math.hypot(qx - (x0 + x1) / 2, qy - (y0 + y1) / 2) or 1.0
        nx, ny = (qx - (x0 + x1) / 2) / bow, (qy - (y0 + y1) / 2) / bow
        anchor = "start" if nx > LABEL_SIDE else "end" if nx < -LABEL_SIDE else "middle"
        lx, ly = (sx + 2 * qx + ex) / 4 + nx * LABEL_OFF, (sy + 2 * qy + ey) / 4 + ny * LABEL_OFF + 4
        words = _cut(first.action) + (f" +{len(ways) - 1}" if len(ways) > 1 else "")
        label = f'<text x="{lx:.1f}" y="{ly:.1f}" text-anchor="{anchor}" class="edge">{escape(words)}</text>'
    return (f'<g><title>{tip}</title><path d="M{sx:.1f},{sy:.1f} Q{qx:.1f},{qy:.1f} {bx:.1f},{by:.1f}" {line}/>'
            f'<polygon points="{ex:.1f},{ey:.1f} {bx + px:.1f},{by + py:.1f} {bx - px:.1f},{by - py:.1f}" '
            f'fill="{colour}"/></g>{label}')


def _box(m: ScreenMap, s: str, at: Point) -> str:
    """A screen's box; an interruption's (a hazard, a popup: it came over other screens) dashed."""
    x, y = at
    seen = m.screens[s].seen
    came = sum(i.count for i in m.interruptions if i.screen == s)
    tip = f"{name_of(m, s)} [{s}]: seen {seen}" + (f"; came over other screens {came} time(s)" if came else "")
    dash = ' stroke-dasharray="5 3"' if came else ""
    return (f'<g class="screen"><title>{escape(tip)}</title>'
            f'<rect x="{x - BOX_W / 2:.1f}" y="{y - BOX_H / 2:.1f}" width="{BOX_W:.0f}" height="{BOX_H:.0f}" rx="6" '
            f'fill="#ffffff" stroke="#2e5f8a" stroke-width="1.5"{dash}/>'
            f'<text x="{x:.1f}" y="{y - 2:.1f}" text-anchor="middle" class="ct">{escape(_cut(name_of(m, s)))}</text>'
            f'<text x="{x:.1f}" y="{y + 12:.1f}" text-anchor="middle">seen {seen:,}</text></g>')


def map_svg(m: ScreenMap) -> str:
    """The picture, or "" when the map holds no screen."""
    shown = ordered_screens(m)[:MAX_SCREENS]
    if not shown:
        return ""
    where, width, height = place(m, shown)
    pairs: dict[tuple[str, str], list[WayOut]] = {}
    for t in m.transitions:
        if t.src in where and t.dst in where:
            pairs.setdefault((t.src, t.dst), []).append(way_out(m, t))
    arrows = sorted((sorted(ws, key=lambda w: (-w.count, w.action)) for ws in pairs.values()),
                    key=lambda ws: (sum(w.count for w in ws), ws[0].src, ws[0].dst))  # the most used drawn last
    most = max((sum(w.count for w in ws) for ws in arrows), default=1) or 1
    drawn = f" (the {len(shown)} most seen drawn)" if len(shown) < len(m.screens) else ""
    parts = [f'<text x="8" y="18" class="ct">Screen map: {len(m.screens)} screens, {len(m.transitions)} ways out'
             f"{drawn}; arrows as thick as their use, orange: some failed, red: most failed; dashed: an interruption "
             "(came over other screens)</text>"]
    parts += [_arrow(ws, where[ws[0].src], where[ws[0].dst], most) for ws in arrows]
    parts += [_box(m, s, at) for s, at in where.items()]  # boxes over every arrow
    head = (f'<svg viewBox="0 0 {width:.0f} {height:.0f}" width="100%" style="max-width:{width:.0f}px" role="img" '
            'aria-label="the screen map" class="map">')  # a small map is not blown up
    return head + "".join(parts) + "</svg>"
