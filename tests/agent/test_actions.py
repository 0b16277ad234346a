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


def _core_of(box: Box, text: Box) -> bool:
    """`box` is the central part of the read text's box (where a press on a text aims)."""
    return (text.x0 < box.x0 < box.x1 < text.x1 and text.y0 < box.y0 < box.y1 < text.y1
            and box.center == text.center)


def test_press_reaches_a_read_text_after_the_buttons():
    p = plan("pressButton", {"name": "summer camp"}, TEXTS)
    assert (p.target, p.target_kind) == ("Summer Camp", "text") and _core_of(p.box, TEXTS.texts[2].bounds)
    assert plan("pressButton", {"name": "Sumer Camp"}, TEXTS).target == "Summer Camp"  # fuzzy, like buttons
    # a button and a text of the same name: the button
    assert plan("pressButton", {"name": "Rest"}, TEXTS).target_kind == "button"


def test_repeated_texts_are_named_top_to_bottom_and_ambiguity_lists_them():
    assert _core_of(plan("pressButton", {"name": "Speed"}, TEXTS).box, TEXTS.texts[1].bounds)  # y 400
    assert _core_of(plan("pressButton", {"name": "Speed#2"}, TEXTS).box, TEXTS.texts[0].bounds)  # y 900
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


def _t(text, x0, y0, x1, y1):
    return TextLine(text=text, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))


# The reading of the event screen at turn 131 of the faulted 200-turn demo on seed 11 (hard style, 1080x1920): the
# first choice read as a button, the other two as texts, the story's question below them in its panel.
EVENT_CHOICES = VisionOutput(
    width=1080, height=1920, cinematic="none",
    buttons=[_b("It looks great, let's go for a run in it!", 45, 770, 1034, 898), _b("Skip", 240, 1730, 514, 1840),
             _b("Quick", 564, 1730, 838, 1840)],
    texts=[_t("Event", 36, 30, 168, 90), _t("Turn 9/24", 784, 32, 972, 86), _t("NORMAL", 758, 112, 1034, 174),
           _t("Energy", 32, 120, 168, 174), _t("Fashion Advice", 38, 242, 352, 300),
           _t("Maybe something more comfortable for training.", 74, 974, 910, 1028),
           _t("Let's take the afternoon off and go shopping.", 74, 1132, 852, 1192),
           _t("What do you think, Trainer? Does it look", 186, 1316, 898, 1356),
           _t("grown-up enough?", 360, 1396, 716, 1452)],
)
# The game's choice plates there (lluma_sim draw_event: x 0.04-0.96, y 0.40 + 0.085 i, 0.07 high): a plate is
# larger than its text, so a tap a few pixels below "Let's take the afternoon off..." still chooses it.
CHOICE_PLATES = [Box(x0=43, y0=round((0.4 + 0.085 * i) * 1920), x1=1037, y1=round((0.47 + 0.085 * i) * 1920))
                 for i in range(3)]


def _overlaps(a: Box, b: Box) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_advance_dialogue_beside_choices_read_as_texts_never_taps_a_choice():
    """The faulted 200-turn demo on seed 11, under load (turn 131): a device dropped under the choice's
    pressButton, the model then tried advanceDialogue; "the dialogue box" was every text line in the lower part,
    the two choices read as texts included, and the tap (638,1227) landed on the third choice's plate."""
    try:
        box = plan("advanceDialogue", {}, EVENT_CHOICES).box
    except ActionError:
        return  # refused: nothing tapped
    assert box is not None
    assert not any(_overlaps(box, plate) for plate in CHOICE_PLATES), box


def test_advance_dialogue_taps_the_story_lines_not_the_texts_above_them():
    dialogue = EVENT_CHOICES.model_copy(update={"cinematic": "dialogue"})
    assert plan("advanceDialogue", {}, dialogue).box == Box(x0=186, y0=1316, x1=898, y1=1452)  # the question


def test_advance_dialogue_refuses_when_a_text_it_did_not_mean_lies_next_to_the_tap():
    """A choice read as a text a few pixels above the story line: its plate may reach into the tap."""
    screen = VisionOutput(width=1080, height=1920, cinematic="none", texts=[
        _t("Let's take the afternoon off and go shopping.", 74, 1230, 852, 1290),
        _t("What do you think, Trainer?", 186, 1316, 898, 1356)])
    with pytest.raises(ActionError, match="no dialogue on this screen: the text box tap would land on the text"):
        plan("advanceDialogue", {}, screen)


@pytest.mark.ocr
@pytest.mark.parametrize("variant", range(4))
def test_a_pressed_text_is_aimed_where_its_letters_are_not_at_the_readers_padding(variant: int) -> None:
    """The title's "Tap to Start" has no plate: the read box is padded around the letters, so a tap anywhere in it
    could miss them; the planned box (every tap lands inside it) lies within the drawn text on every frame size."""
    from lluma_sim.game.flows import app
    from lluma_sim.game.game import HARD_VARIANTS, SimGame
    from lluma_vision.config import VisionConfig
    from lluma_vision.pipeline import Vision

    g = SimGame(seed=4, style="hard", **HARD_VARIANTS[variant])
    app.to_title(g)
    out = Vision(VisionConfig(backend="ocr", cache_size=0)).analyze(g.capture())
    planned = default_tools().get("pressButton").plan(  # type: ignore[union-attr]
        default_tools().get("pressButton").args(name="Tap to Start"), out)  # type: ignore[union-attr]
    drawn = next(e.box for e in g.truth().elements if e.name == "Tap to Start")
    assert planned.target_kind == "text" and planned.box is not None
    b = planned.box
    assert drawn.x0 <= b.x0 and b.x1 <= drawn.x1 and drawn.y0 <= b.y0 and b.y1 <= drawn.y1, (b, drawn)
