"""An event: its pages (a tap on the box or Next turns one; Skip jumps to the choices; Quick keeps skipping), then a
choice, whose outcome the career draws (Career.apply_choice); then the hub, or the career's end after its last
turn."""

from __future__ import annotations

from lluma_sim.game.flow import Play


def page(g: Play) -> None:
    if g.state.event and g.state.page < len(g.state.event.pages):
        g.state.page += 1


def skip(g: Play) -> None:
    if g.state.event:
        g.state.page = len(g.state.event.pages)


def quick(g: Play) -> None:
    g.state.quick = not g.state.quick
    skip(g)


def choose(g: Play, index: int) -> None:
    event = g.state.event
    assert event is not None
    g.live().apply_choice(event.choices[index], event)
    g.state.event = None
    if g.live().over:
        g.state.finished = True
        g.play([("anim", "loading"), ("goto", "career_summary")])
    else:
        g.state.screen = "hub"
