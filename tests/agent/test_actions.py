import pytest

from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction, execute, resolve
from lluma_agent.tools.registry import default_tools
from lluma_vision.models import Box, Button, Scrollbar, TextLine, VisionOutput


def plan(tool: str, args: dict, vision: VisionOutput) -> PlannedAction:
    t = default_tools().get(tool)
    assert isinstance(t, InputTool)
    return t.plan(t.args.model_validate(args), vision)


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
    assert resolve("Rest", SCREEN).name == "Rest"
    assert resolve("training", SCREEN).name == "Training"
    assert resolve("lets go for a run together", SCREEN).name == "Let's go for a run together!"
    assert resolve("Trainig", SCREEN).name == "Training"


def test_unknown_name_lists_candidates_and_plans_nothing():
    with pytest.raises(ActionError) as err:
        plan("pressButton", {"name": "Gacha"}, SCREEN)
    assert "no button or text named 'Gacha'" in str(err.value) and "'Rest'" in str(err.value)
    assert "texts: 'Energy 52'" in str(err.value)


def test_ambiguous_name_is_an_error():
    with pytest.raises(ActionError, match="ambiguous"):
        resolve("Learn#", SCREEN)


TEXTS = VisionOutput(
    width=1080,
    height=1920,
    buttons=[_b("Rest", 60, 1300, 300, 1400)],
    texts=[
        TextLine(text="Speed", bounds=Box(x0=100, y0=900, x1=250, y1=950)),
        TextLine(text="Speed", bounds=Box(x0=100, y0=400, x1=250, y1=450)),
        TextLine(text="Summer Camp", bounds=Box(x0=300, y0=600, x1=700, y1=660)),
        TextLine(text="Rest", bounds=Box(x0=60, y0=1410, x1=300, y1=1440)),
    ],
)


def test_press_reaches_a_read_text_after_the_buttons():
    p = plan("pressButton", {"name": "summer camp"}, TEXTS)
    assert (p.target, p.target_kind, p.box) == ("Summer Camp", "text", TEXTS.texts[2].bounds)
    assert plan("pressButton", {"name": "Sumer Camp"}, TEXTS).target == "Summer Camp"  # fuzzy, like buttons
    # a button and a text of the same name: the button
    assert plan("pressButton", {"name": "Rest"}, TEXTS).target_kind == "button"


def test_repeated_texts_are_named_top_to_bottom_and_ambiguity_lists_them():
    assert plan("pressButton", {"name": "Speed"}, TEXTS).box.y0 == 400
    assert plan("pressButton", {"name": "Speed#2"}, TEXTS).box.y0 == 900
    with pytest.raises(ActionError, match=r"text name 'Speed#' is ambiguous: 'Speed#2', 'Speed'"):
        plan("pressButton", {"name": "Speed#"}, TEXTS)


def test_the_result_says_a_text_was_tapped():
    tool = default_tools().get("pressButton")
    assert isinstance(tool, InputTool)
    done = execute(plan("pressButton", {"name": "Summer Camp"}, TEXTS), RecordingDevice())
    assert tool.describe(done) == "tapped text 'Summer Camp' at (500,630)"
    assert tool.brief(done) == "pressed text 'Summer Camp'"
    button = execute(plan("pressButton", {"name": "Rest"}, TEXTS), RecordingDevice())
    assert (tool.describe(button), tool.brief(button)) == ("tapped 'Rest' at (180,1350)", "pressed Rest")


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


def test_advance_dialogue_on_a_screen_without_dialogue_does_not_tap_a_text():
    """The soak's tap off target (seed 11, turn 186): an event's second choice, read as a text and not a
    button, sat where "the dialogue box" was computed; advanceDialogue tapped the choice."""
    choice = TextLine(text="Let's take the afternoon off and go shopping.",
                      bounds=Box(x0=120, y0=1130, x1=1000, y1=1200))
    screen = VisionOutput(width=1080, height=1920, cinematic="none", texts=[choice],
                          buttons=[Button(name="It looks great!", bounds=Box(x0=120, y0=980, x1=1000, y1=1060))])
    with pytest.raises(ActionError, match="no dialogue on this screen: the text box tap would land on the text"):
        plan("advanceDialogue", {}, screen)
    dialogue = screen.model_copy(update={"cinematic": "dialogue"})
    assert plan("advanceDialogue", {}, dialogue).target == "dialogue box"  # a story line: tapping it is meant
