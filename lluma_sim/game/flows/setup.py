"""A new career's setup (FACTS): Career, the scenario and the trainee, the legacy (Auto-Select), the support deck (a
friend's card borrowed), "Start Career!" for 30 TP, or a "Confirm" / "Recover TP" pair when TP is short."""

from __future__ import annotations

from lluma_sim.game.flow import CAREER_TP, MAX_TP, Play
from lluma_sim.game.flows import app, events
from lluma_sim.game.flows.training import deal
from lluma_sim.game.state import CareerData, DialogState


def career_prompt(g: Play) -> None:
    if g.state.career_open:  # the game never starts a second career over one in progress
        app.continue_prompt(g)
        return
    s = g.state
    s.screen, s.setup_step, s.trainee, s.legacy_set, s.friend_set = "setup", 0, 0, False, False


def setup_next(g: Play) -> None:
    g.state.setup_step = min(3, g.state.setup_step + 1)


def setup_back(g: Play) -> None:
    if g.state.setup_step == 0:
        g.state.screen = "home"
    g.state.setup_step = max(0, g.state.setup_step - 1)


def trainee(g: Play, index: int) -> None:
    g.state.trainee = index


def auto_select(g: Play) -> None:
    g.state.legacy_set = True


def borrow(g: Play) -> None:
    g.state.friend_set = True


def start_press(g: Play) -> None:
    if g.state.tp < CAREER_TP:
        g.state.dialog = DialogState(
            kind="tp_confirm",
            title="Confirm",
            lines=("Not enough TP to start a career.", f"TP {g.state.tp}/{MAX_TP}; a career uses {CAREER_TP}."),
            buttons=(("Cancel", "white", ("close",)), ("Recover TP", "green", ("recover_prompt",))),
        )
        return
    g.state.tp -= CAREER_TP
    start_career(g)


def recover_prompt(g: Play) -> None:
    g.state.dialog = DialogState(
        kind="recover_tp",
        title="Recover TP",
        lines=(f"Toughness 30 (owned: {g.state.tp_items}): +30 TP.", f"TP {g.state.tp}/{MAX_TP}."),
        buttons=(("Cancel", "white", ("close",)), ("Use", "green", ("use_item",))),
    )


def use_item(g: Play) -> None:
    g.state.dialog = None
    if g.state.tp_items > 0:
        g.state.tp_items -= 1
        g.state.tp = min(MAX_TP + 30, g.state.tp + 30)


def start_career(g: Play) -> None:
    g.state.dialog = None
    g.state.career = CareerData(max_turns=g.state.max_turns, trainee=g.state.trainee)
    deal(g.state.career, g.rng)
    events.plan(g.state.career, g.rng)
    g.state.finished, g.state.career_open, g.state.resume_screen = False, True, "hub"
    g.play([("anim", "loading"), ("anim", "cutscene", "intro"), ("goto", "hub")])
