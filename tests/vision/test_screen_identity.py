"""Screen identity (lluma_vision.screen): the same for what a player calls the same screen, different otherwise."""

from __future__ import annotations

import hashlib

from lluma_vision.models import Box, Button, MenuState, TextLine, VisionOutput
from lluma_vision.screen import identify, signature


def _text(text: str, x0: float, y0: float, x1: float, y1: float, w: int = 1080, h: int = 1920) -> TextLine:
    return TextLine(text=text, bounds=Box(x0=round(x0 * w), y0=round(y0 * h), x1=round(x1 * w), y1=round(y1 * h)))


def _button(name: str, x0: float, y0: float, x1: float, y1: float, w: int = 1080, h: int = 1920) -> Button:
    return Button(name=name, bounds=Box(x0=round(x0 * w), y0=round(y0 * h), x1=round(x1 * w), y1=round(y1 * h)),
                  region="top" if y0 < 0.15 else "bottom" if y0 > 0.85 else "middle")


def training(title: str = "Training", turn: int = 12, speed: int = 434, date: str = "Classic Year Late Dec",
             selected: str = "Guts") -> VisionOutput:
    """A training screen as the offline reading gives it: header, date, goal, stats, the five trainings."""
    return VisionOutput(
        width=1080, height=1920,
        texts=[_text(title, 0.03, 0.01, 0.15, 0.03), _text(f"{turn} turn(s) left", 0.02, 0.06, 0.2, 0.1),
               _text(f"Speed {speed}/1200", 0.02, 0.7, 0.2, 0.73), _text(f"{selected} Lvl 3", 0.02, 0.18, 0.2, 0.2)],
        buttons=[_button(date, 0.22, 0.03, 0.53, 0.06), _button("Details", 0.85, 0.06, 0.98, 0.09)]
        + [_button(s, 0.05 + 0.19 * i, 0.8, 0.2 + 0.19 * i, 0.85) for i, s in
           enumerate(("Speed", "Stamina", "Power", "Guts", "Wit"))]
        + [_button("Back", 0.02, 0.9, 0.15, 0.95)],
        menu=MenuState(usable=True, tabs=["Back", "Skip", "Quick", "Log"]),
    )


def test_numbers_date_and_selection_changed_keep_the_identity() -> None:
    a, b = training(), training(turn=3, speed=1021, date="Senior Year Early Jan", selected="Speed")
    assert identify(a) == identify(b)
    assert identify(a).name == "Training"


def test_another_header_is_another_screen() -> None:
    assert identify(training()).id != identify(training(title="Race List")).id


def test_the_id_is_a_stable_hash_of_the_signature_not_pythons_hash() -> None:
    sig, _name = signature(training())
    assert identify(training()).id == hashlib.sha1(sig.encode(), usedforsecurity=False).hexdigest()[:10]
    assert identify(training()) == identify(training().model_copy(deep=True))
