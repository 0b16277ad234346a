"""The hub's turn actions besides training and races: Rest (after its confirm), Recreation (an outing's cutscene),
the Infirmary (lit only with a condition). Each ends the turn."""

from __future__ import annotations

from lluma_sim.game.flow import Play


def rest_prompt(g: Play) -> None:
    g.confirm("Rest", ["Rest for this turn?", "Energy will recover."], ("rest",))


def rest(g: Play) -> None:
    g.state.dialog = None
    g.live().rest()
    g.end_turn()


def recreation(g: Play) -> None:
    g.live().recreation()
    g.play([("anim", "cutscene", "outing"), ("end_turn",)])


def infirmary(g: Play) -> None:
    g.live().infirmary()
    g.end_turn()
