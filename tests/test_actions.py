import pytest

from lluma_agent.actions import ActionError, execute, plan, resolve_button
from lluma_vision.models import Box, Button, Scrollbar, TextLine, VisionOutput


def _b(name, x0, y0, x1, y1, **kw):
    return Button(name=name, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1), **kw)


SCREEN = VisionOutput(
    width=1080,
    height=1920,
    buttons=[
        _b("Rest", 60, 1300, 300, 1400),
        _b("Training", 400, 1300, 680, 1400),
        _b("Learn", 800, 400, 1000, 470),
        _b("Learn#2", 800, 600, 1000, 670),
        _b("Back", 40, 1750, 240, 1840),
        _b("OK", 600, 1100, 900, 1200, region="dialog"),
        _b("Let's go for a run together!", 100, 900, 980, 980),
    ],
    texts=[TextLine(text="Energy 52", bounds=Box(x0=100, y0=200, x1=400, y1=250))],
)


def test_exact_then_normalised_then_fuzzy():
    assert resolve_button("Rest", SCREEN.buttons).name == "Rest"
    assert resolve_button("training", SCREEN.buttons).name == "Training"
    assert resolve_button("lets go for a run together", SCREEN.buttons).name == "Let's go for a run together!"
    assert resolve_button("Trainig", SCREEN.buttons).name == "Training"


def test_unknown_name_lists_candidates_and_plans_nothing():
    with pytest.raises(ActionError) as err:
        plan("pressButton", {"name": "Gacha"}, SCREEN)
    assert "no button named 'Gacha'" in str(err.value) and "'Rest'" in str(err.value)


def test_ambiguous_name_is_an_error():
    with pytest.raises(ActionError, match="ambiguous"):
        resolve_button("Learn#", SCREEN.buttons)


class RecordingDevice:
    def __init__(self):
        self.calls = []

    def tap(self, box):
        self.calls.append(("tap", box))
        return box.center

    def scroll(self, region, direction):
        self.calls.append(("scroll", region, direction))
        return (500, 1200, 500, 700)

    def back(self):
        self.calls.append(("back",))


def test_back_prefers_visible_back_button_else_key():
    dev = RecordingDevice()
    done = execute(plan("back", {}, SCREEN), dev)
    assert dev.calls[0][0] == "tap" and done.planned.target == "Back"
    nothing = VisionOutput(width=1080, height=1920)
    dev2 = RecordingDevice()
    done2 = execute(plan("back", {}, nothing), dev2)
    assert dev2.calls == [("back",)] and done2.planned.key == "KEYCODE_BACK"


def test_confirm_finds_ok_and_errors_without_one():
    assert plan("confirm", {}, SCREEN).target == "OK"
    with pytest.raises(ActionError, match="no confirming button"):
        plan("confirm", {}, VisionOutput(width=1080, height=1920, buttons=[_b("Rest", 0, 0, 10, 10)]))


def test_scroll_uses_scrollbar_region():
    sb = Scrollbar(track=Box(x0=1040, y0=300, x1=1050, y1=1500), thumb=Box(x0=1040, y0=300, x1=1050, y1=600),
                   up=False, down=True)
    screen = SCREEN.model_copy(update={"scrollbar": sb})
    p = plan("scrollDown", {}, screen)
    assert p.kind == "swipe" and p.direction == "down"
    assert p.box.y0 == 300 and p.box.y1 == 1500 and p.box.x1 <= 1040
    assert "no scrollbar" in plan("scrollUp", {}, SCREEN).note


def test_advance_dialogue_avoids_buttons():
    p = plan("advanceDialogue", {}, SCREEN)
    cx, cy = p.box.center
    assert not any(b.bounds.contains(cx, cy) for b in SCREEN.buttons)
