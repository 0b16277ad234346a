"""The autopilot never spends (issue 40): drawn confirms that share a title and buttons, read by the real reading.

A "Confirm" whose body spends an alarm clock, carats or shop coins is never the screen of the "Confirm" of a rest
(a dialog's identity holds its body's fixed words), and the spend gate that every press the coordinator makes alone
asks (`SpendGate`, reading the screen's `spends`) keeps it for the model; the rest's confirm stays passable. At two
frame sizes the demo uses.
"""

from __future__ import annotations

import pytest
from PIL import Image

from lluma_agent.config import LoopConfig
from lluma_agent.tools.spending import SpendGate
from lluma_sim.game.draw import Painter
from lluma_sim.game.screens_home import draw_dialog
from lluma_sim.game.state import DialogState
from lluma_vision.config import VisionConfig
from lluma_vision.facts.screen import identify
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

BODIES = {
    "rest": ("Rest for this turn?", "Energy will recover."),
    "alarm": ("Use 1 Alarm Clock to try again?",),
    "carats": ("Spend 50 Carats to recover 1 TP?",),
    "coins": ("Exchange 100 Shop Coins for this item?",),
    "drink": ("Use Vita 20?", "Energy +20"),  # an item by its own name: the question's "Use" says it is spent
    "race": ("Enter the Japanese Derby?", "Racing uses a turn and energy."),  # a turn is no item
    "maintenance": ("The game is currently under maintenance.", "Please try again later."),  # no Try Again button
    "bonus": ("Day 3 of 7 Carats x 50 received!",),  # a login bonus: carats given, none spent
    "bonus_spend": ("Spend 50 Carats, 10 TP received",),  # given and spent in one line: a spend
}
SPENDS = ("alarm", "carats", "coins", "drink", "bonus_spend")
PASSABLE = ("rest", "race", "maintenance", "bonus")
CLOSE = ("close",)


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr", cache_size=0))


def _confirm(body: tuple[str, ...], size: tuple[int, int]) -> Image.Image:
    p = Painter(*size, render=True)
    p.gradient((236, 240, 250), (214, 226, 246))
    p.text(p.w * 0.04, p.h * 0.02, "Career", 48, anchor="lt", bold=True)
    p.cover()
    draw_dialog(p, DialogState(kind="confirm", title="Confirm", lines=body,
                               buttons=(("Cancel", "white", CLOSE), ("OK", "green", CLOSE))))
    assert p.img is not None
    return p.img


@pytest.fixture(scope="module", params=[(1080, 1920), (720, 1280)], ids=["1080x1920", "720x1280"])
def reads(request: pytest.FixtureRequest, vision: Vision) -> dict[str, VisionOutput]:
    return {name: vision.analyze(_confirm(body, request.param)) for name, body in BODIES.items()}


def test_confirms_that_share_a_title_are_other_screens_when_their_bodies_differ(reads: dict[str, VisionOutput]
                                                                                 ) -> None:
    ids = {name: identify(out) for name, out in reads.items()}
    assert {i.kind for i in ids.values()} == {"dialog"} and {i.name for i in ids.values()} == {"Confirm"}
    assert len({i.id for i in ids.values()}) == len(BODIES)  # a spend is never the rest's screen


def test_the_spend_gate_keeps_every_spend_for_the_model_and_lets_the_rest_pass(reads: dict[str, VisionOutput]
                                                                              ) -> None:
    gate = SpendGate(LoopConfig())
    for name in PASSABLE:
        assert gate.why(reads[name]) == "", name
        assert reads[name].screen is not None and reads[name].screen.spends is None, name
    for name in SPENDS:
        assert "it asks to spend" in gate.why(reads[name]), name
