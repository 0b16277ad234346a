"""The career's shop: items for shop coins (the races pay them), each bought through a confirm that spends them.

hub "Shop" -> the item list (coins on top; per row the name, its effect, its cost, "Exchange") -> the confirm
("Exchange": Cancel / Exchange) -> the item is used and the coins spent (a spend the game records: SimGame._stock)
-> the list. No turn passes. FACTS is silent on a career's shop; the words are the Trackblazer shop's.
"""

from __future__ import annotations

from lluma_sim.game.content import SHOP_ITEMS
from lluma_sim.game.flow import Play
from lluma_sim.game.state import DialogState


def open_shop(g: Play) -> None:
    g.state.dialog, g.state.screen = None, "shop"


def exchange_prompt(g: Play, index: int) -> None:
    item, coins = SHOP_ITEMS[index], g.live().coins
    g.state.dialog = DialogState(
        kind="exchange",
        title="Exchange",
        lines=(f"Exchange {item.cost} coins for {item.name}?", f"Shop Coins: {coins} -> {coins - item.cost}"),
        buttons=(("Cancel", "white", ("close",)), ("Exchange", "green", ("exchange", index))),
    )


def exchange(g: Play, index: int) -> None:
    g.state.dialog = None
    c, item = g.live(), SHOP_ITEMS[index]
    if c.coins < item.cost:
        return
    c.coins -= item.cost
    c.status = f"Bought {item.name}: " + ", ".join(c.apply(item.effects))
