"""The training screen (FACTS): a tap on another tile raises it (its gains, failure and cards show), a tap on the
raised one trains and ends the turn."""

from __future__ import annotations

from lluma_sim.game.flow import Play


def tile(g: Play, stat: str) -> None:
    c = g.live()
    if c.sel != stat:
        c.sel = stat
        return
    c.train(stat)
    g.end_turn()
