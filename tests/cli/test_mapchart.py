"""The report's picture of the screen map stays readable as the map grows: at 30 screens no box lies on another,
whatever the map's shape (a hub with spokes, long chains, branches with ways back and across)."""

from __future__ import annotations

import random
import re

import pytest

from lluma_agent.navmap import ScreenMap
from lluma_cli.report.mapchart import BOX_H, BOX_W, map_svg

SCREENS = 30


def grown(seed: int, n: int = SCREENS) -> ScreenMap:
    """A map grown as play grows one: each new screen reached from an earlier one (the hub more often), some with a
    way back, and a few ways across."""
    rng = random.Random(seed)
    m = ScreenMap()
    ids = [f"s{i:02d}" for i in range(n)]
    for i, s in enumerate(ids):
        m.see(s, f"Screen {i}", 0.0)
        m.screens[s].seen = rng.randint(1, 100)
    for i in range(1, n):
        parent = ids[0] if rng.random() < 0.35 else ids[rng.randrange(i)]
        m.record(parent, f"pressButton:Go {i}", ids[i], 1.0, 0.0)
        if rng.random() < 0.5:
            m.record(ids[i], "back", parent, 1.0, 0.0)
    for _ in range(rng.randint(0, 15)):
        a, b = rng.sample(ids, 2)
        m.record(a, f"pressButton:To {b}", b, 1.0, 0.0)
    return m


def spokes() -> ScreenMap:
    m = ScreenMap()
    m.see("hub", "Career", 0.0)
    for i in range(1, SCREENS):
        m.see(f"s{i}", f"Screen {i}", 0.0)
        m.record("hub", f"pressButton:Go {i}", f"s{i}", 1.0, 0.0)
        m.record(f"s{i}", "back", "hub", 1.0, 0.0)
    return m


def boxes(svg: str) -> list[tuple[float, float]]:
    """The top-left corner of every screen's box in the picture."""
    found = re.findall(r'<g class="screen"><title>[^<]*</title><rect x="([-\d.]+)" y="([-\d.]+)"', svg)
    return [(float(x), float(y)) for x, y in found]


@pytest.mark.parametrize("m", [spokes(), *(grown(seed) for seed in range(20))])
def test_no_box_of_a_30_screen_map_lies_on_another(m: ScreenMap) -> None:
    at = boxes(map_svg(m))
    assert len(at) == SCREENS
    on = [(a, b) for i, a in enumerate(at) for b in at[i + 1:] if abs(a[0] - b[0]) < BOX_W and abs(a[1] - b[1]) < BOX_H]
    assert not on, on
