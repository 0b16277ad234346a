"""When a screen asks to spend (issue 51): `screen.spends`, read from the sense of its words.

The bodies a spend dialog shows in the three clients (Global, Japan, Korea), as printed and as OCR glues them, each
read as a spend with what it spends; the words a player meets where nothing is spent (a settings "Use", a race's
"uses a turn", a login bonus received, an item count owned) read as none. Then `lluma vision --json` on the
simulator's drawn dialogs: the spend's `screen.spends`, and null on a harmless "Use".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_cli.vision import main
from lluma_sim.game.draw import Painter
from lluma_sim.game.screens_home import draw_dialog
from lluma_sim.game.state import DialogState
from lluma_vision.facts.screen import identify
from lluma_vision.facts.spends import asks, spends, unglued
from lluma_vision.models import Box, Button, CaptionedValue, MenuState, TextLine, VisionOutput

# (body, amount, item): the 17 spend bodies of the issue, the 7 the word list caught and the 10 it let through
SPENDS: list[tuple[str, int | float | None, str | None]] = [
    ("Use 1 Alarm Clock to try again?", 1, "Alarm Clock"),
    ("Spend 50 Carats to recover 1 TP?", 50, "Carats"),
    ("Exchange 100 Shop Coins for this item?", 100, "Shop Coins"),
    ("Use Vita 20?", None, "Vita 20"),
    ("Spend 50 Carats, 10 TP received", 50, "Carats"),
    ("Purchase 1,000 Carats for $7.99?", 1000, "Carats"),
    ("Buy 1 Toughness 30 for 50 Carats?", 1, "Toughness 30"),
    # ...the ten the word list let through
    ("Use1AlarmClock?", 1, "Alarm Clock"),
    ("Consumes 30 Trainer Points.", 30, "Trainer Points"),
    ("Trainer Points 30 -> 0", 30, "Trainer Points"),
    ("Special Pack $4.99", 4.99, "$"),
    ("Trade 200 Shop Coins", 200, "Shop Coins"),
    ("Drink Vita 20", None, "Vita 20"),
    ("Retry for 50?", 50, None),
    ("150 Carats will be deducted; bonus Carats received", 150, "Carats"),
    ("目覚まし時計を1個使用してコンティニューしますか？", 1, "目覚まし時計"),
    ("쥬얼을 50개 사용하여 엔트리합니다", 50, "쥬얼"),
]
MORE: list[tuple[str, int | float | None, str | None]] = [
    ("Consumes30TrainerPoints.", 30, "Trainer Points"),  # OCR's glue, every boundary
    ("Retryfor50?", 50, None),  # a phrase glued whole
    ("Trainer Points 30 → 0", 30, "Trainer Points"),
    ("Use 1 Royal Kale Juice?", 1, "Royal Kale Juice"),  # an item the table does not name, by its amount
    ("Spend 15 TP to begin training?", 15, "TP"),  # the real career start's confirm (screens2: 04_final_check)
    ("Spend performance points to learn this technique?", None, "points"),  # screens2: 29_lesson_detail_learnable
    ("ジュエルを50個消費します", 50, "ジュエル"),
    ("TP不足の場合ジュエルを使って回復します", None, "ジュエル"),  # the thing before the verb is the one spent
    ("ＴＰ回復に目覚まし時計を１個使用", 1, "目覚まし時計"),  # full-width letters and digits
    ("SP와 머니를 소비하고 Lv강화를 하겠습니까?", None, "머니"),
    ("₩1,200 쥬얼 팩", 1200, "₩"),
    ("480円", 480, "円"),
]
HARMLESS = [
    "Use high quality graphics",
    "Use default settings",
    "Use the stairs",
    "Use 3D character models",
    "Racing uses a turn and energy.",
    "Rest for this turn?",
    "Energy will recover.",
    "Please try again later.",
    "Day 3 of 7 Carats x 50 received!",
    "Alarm Clocks owned: 3",
    "Carats 1,500",
    "Skill Pts 920",
    "Energy 62 → 42",  # energy is no resource spent
    "Trainer Points 0 -> 30",  # a count going up
    "Spend time with friends",  # an event's choice
    "Enter the Japanese Derby?",
    "Place 1st in Japan Cup",
    "高画質を使用する",  # Japanese settings: use high quality
    "体力が回復した",  # energy recovered
    "오늘의 엔트리 가능 횟수",  # today's entries left
    "Trainee Exchange Pts",  # a label: the Scout page's currency (screens: lluma__cinematics__aggressive_static_1)
    "Performance Point Cost",  # a column's caption (screens2: mrhorseshoe__22_lesson_shop)
    "Don't use race recommendations.",  # screens: lluma__primary_scrollbars__missions_scrollbar_top
]


@pytest.mark.parametrize(("body", "amount", "item"), SPENDS + MORE, ids=[b for b, _, _ in SPENDS + MORE])
def test_a_spend_body_is_read_with_what_it_spends(body: str, amount: int | float | None, item: str | None) -> None:
    found = asks(body)
    assert found is not None, body
    assert (found.amount, found.item) == (amount, item)
    assert found.words == unglued(body)


@pytest.mark.parametrize("body", HARMLESS)
def test_words_that_spend_nothing_are_no_spend(body: str) -> None:
    assert asks(body) is None


def test_glued_words_are_parted_where_case_and_digits_turn_but_a_model_name_stays_whole() -> None:
    assert unglued("Use1AlarmClock?") == "Use 1 Alarm Clock?"
    assert unglued("Consumes30TrainerPoints.") == "Consumes 30 Trainer Points."
    assert unglued("Use 3D models, 4th place, 2nd") == "Use 3D models, 4th place, 2nd"


def _reading(texts: list[tuple[str, Box]], buttons: list[tuple[str, Box, str]] | None = None,
             values: list[CaptionedValue] | None = None, menu: MenuState | None = None,
             cinematic: str = "none") -> VisionOutput:
    return VisionOutput.model_validate({
        "width": 1080, "height": 1920, "texts": [TextLine(text=t, bounds=b) for t, b in texts],
        "buttons": [Button(name=n, bounds=b, region=r) for n, b, r in buttons or []], "values": values or [],
        "menu": menu, "cinematic": cinematic})


def _said(out: VisionOutput) -> tuple[int | float | None, str | None] | None:
    found = spends(out)
    return None if found is None else (found.amount, found.item)


def test_the_screen_reads_its_texts_values_and_sentences_not_its_tabs_story_or_way_buttons() -> None:
    box = Box(x0=100, y0=900, x1=980, y1=960)
    asked = _reading([("Alarm Clocks owned: 3", Box(x0=100, y0=980, x1=980, y1=1020)), ("Use 1 Alarm Clock?", box)])
    assert spends(asked) == asks("Use 1 Alarm Clock?") and identify(asked).spends == spends(asked)
    # a way to a shop named on a button (the real Menu panel's "Purchase Carats"), a tab: no spend asked
    ways = _reading([], [("Purchase Carats", box, "right"), ("Use 1 Alarm Clock to try again", box, "menu")],
                    menu=MenuState(usable=True, selected="Home", tabs=["Home"]))
    assert spends(ways) is None
    # ...but a question read on a plate is read
    plate = _reading([], [("Use 1 Alarm Clock to try again?", box, "dialog")])
    assert _said(plate) == (1, "Alarm Clock")
    # a story's text box is a story
    story = _reading([("I'll use 1 Alarm Clock to wake up early!", Box(x0=100, y0=1500, x1=980, y1=1560))],
                     cinematic="dialogue")
    assert spends(story) is None
    # a count going down with its caption on the same row, read as a captioned value or as two texts
    value = _reading([], values=[CaptionedValue(caption="Trainer Points", value="30 → 0", bounds=box)])
    assert _said(value) == (30, "Trainer Points")
    row = _reading([("Trainer Points", Box(x0=100, y0=900, x1=400, y1=960)),
                    ("30 → 0", Box(x0=700, y0=905, x1=980, y1=955))])
    assert _said(row) == (30, "Trainer Points")
    apart = _reading([("Trainer Points", Box(x0=100, y0=700, x1=400, y1=760)),
                      ("30 → 0", Box(x0=700, y0=905, x1=980, y1=955))])
    assert _said(apart) is None  # a count going down with no thing spent beside it


def test_a_confirm_whose_button_is_the_verb_spends_what_its_body_names() -> None:
    body = [("Toughness 30 (owned: 2): +30 TP.", Box(x0=100, y0=800, x1=980, y1=860)),
            ("TP 10/100.", Box(x0=300, y0=880, x1=780, y1=930))]
    plates = [(Box(x0=90, y0=1100, x1=500, y1=1200)), Box(x0=580, y0=1100, x1=990, y1=1200)]
    recover = _reading(body, [("Cancel", plates[0], "middle"), ("Use", plates[1], "middle")])  # the sim's Recover TP
    assert _said(recover) == (None, "Toughness 30")
    assert _said(_reading(body, [("Cancel", plates[0], "middle"), ("OK", plates[1], "middle")])) is None
    # the sim's Daily Sale: its agreeing button asks by itself, beside Close (the real Menu panel's has no way out)
    sale = [("Today only: 1,500 Carats pack.", body[0][1])]
    assert _said(_reading(sale, [("Close", plates[0], "middle"), ("Purchase Carats", plates[1], "middle")])) == (
        None, "Carats")
    assert _said(_reading(sale, [("To Title Screen", plates[0], "right"), ("Purchase Carats", plates[1], "right")])
                 ) is None
    # a shop's rows of "Exchange" beside the screen's Back ask nothing yet: the confirm each opens does
    row = [("Vita 20", Box(x0=60, y0=400, x1=300, y1=440)), ("100 coins", Box(x0=400, y0=400, x1=600, y1=440))]
    rows = _reading(row, [("Exchange", Box(x0=700, y0=390, x1=990, y1=450), "middle"), ("Back", plates[0], "bottom")])
    assert _said(rows) is None


def _dialog(title: str, body: tuple[str, ...], size: tuple[int, int], path: Path) -> Path:
    p = Painter(*size, render=True)
    p.gradient((236, 240, 250), (214, 226, 246))
    p.text(p.w * 0.04, p.h * 0.02, "Career", 48, anchor="lt", bold=True)
    p.cover()
    draw_dialog(p, DialogState(kind="confirm", title=title, lines=body,
                               buttons=(("Cancel", "white", ("close",)), ("OK", "green", ("close",)))))
    assert p.img is not None
    p.img.save(path)
    return path


@pytest.mark.ocr
def test_lluma_vision_json_says_what_a_drawn_dialog_spends_and_null_where_nothing_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _dialog("Try Again", ("Use 1 Alarm Clock to try again?", "Alarm Clocks owned: 3"), (1080, 1920),
            tmp_path / "a_alarm_1080.png")
    _dialog("Try Again", ("Use 1 Alarm Clock to try again?", "Alarm Clocks owned: 3"), (720, 1280),
            tmp_path / "b_alarm_720.png")
    _dialog("Shop", ("Trade 200 Shop Coins for Vita 20?",), (1080, 1920), tmp_path / "c_coins.png")
    _dialog("Settings", ("Use high quality graphics?", "Uses more battery."), (1080, 1920), tmp_path / "d_settings.png")
    assert main([str(tmp_path), "--json"]) == 0
    read = {Path(e["image"]).stem: e["screen"]["spends"] for e in json.loads(capsys.readouterr().out)}
    for name in ("a_alarm_1080", "b_alarm_720"):
        assert read[name] == {"words": "Use 1 Alarm Clock to try again?", "amount": 1, "item": "Alarm Clock"}, name
    assert read["c_coins"] is not None and (read["c_coins"]["amount"], read["c_coins"]["item"]) == (200, "Shop Coins")
    assert read["d_settings"] is None
