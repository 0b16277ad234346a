"""Every rule id of the reading, on a drawn case it fires on and a near miss it must not (issue 38, item 3).

Each screen is drawn with Pillow at 720x1280 (the working size: no rescale) and read by the reading's stages after
the OCR one, with the text lines given as the OCR would give them (the words drawn where the line says): the rules
see real pixels and real blocks, and no recogniser time is spent. The near miss changes one thing the rule's
docstring names. `RULES` lists the ids; `test_every_rule_id_has_a_case` holds it to the ids the package says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

import lluma_vision
from lluma_vision.geometry import Rect
from lluma_vision.pipeline.reading import STAGES, Reading
from lluma_vision.pixels.ocr import Line, prepare
from tests.vision.test_vision_shapes import OUTLINE, canvas

Draw = ImageDraw.ImageDraw
INK = (40, 40, 60)


def write(d: Draw, text: str, x: float, cy: float, h: float = 30, at: str = "mm", fill=INK) -> Line:
    """`text` drawn about `h` px tall, centred on (x, cy) (`at` "lm": starting at x); its OCR line."""
    font = ImageFont.load_default(size=round(0.8 * h))
    d.text((x, cy), text, font=font, fill=fill, anchor=at)
    x0, _, x1, _ = d.textbbox((x, cy), text, font=font, anchor=at)
    return Line(text=text, conf=0.95, box=Rect(float(x0 - 2), cy - h / 2, float(x1 + 2), cy + h / 2))


def plate(d: Draw, x0: float, y0: float, x1: float, y1: float, fill=(250, 250, 250)) -> None:
    d.rounded_rectangle((round(x0), round(y0), round(x1), round(y1)), radius=10, fill=fill, outline=OUTLINE, width=2)


Screen = Callable[[Draw], list[Line]]


def read(draw: Screen, blur: tuple[float, float, float, float] | None = None) -> Reading:
    img, d, _ = canvas(720)
    lines = draw(d)
    if blur is not None:
        box = tuple(round(v) for v in blur)
        img.paste(img.crop(box).filter(ImageFilter.GaussianBlur(3)), box[:2])
    r = Reading(work=prepare(img))
    r.lines = sorted(lines, key=lambda ln: (ln.y0, ln.x0))
    for stage in STAGES:
        if stage.name != "ocr" and not (stage.still_only and r.cinematic != "none"):
            stage.run(r)
    return r


def rules(r: Reading, text: str) -> list[str]:
    """The rules that judged the element named `text`: a block's trace, or an output button or text line's."""
    for b in r.blocks:
        if b.text == text or any(ln.text == text for ln in b.lines):
            return b.rules + _output_rules(r, text)
    return _output_rules(r, text)


def _output_rules(r: Reading, text: str) -> list[str]:
    out = r.output
    return [rule for e in [*out.buttons, *out.texts] if getattr(e, "name", getattr(e, "text", "")) == text
            for rule in e.rules]


def body(d: Draw) -> list[Line]:
    """A few lines of body text low on the screen: the frame's usual text size (30 px)."""
    return [write(d, t, 80, 1000 + 50 * i, at="lm") for i, t in enumerate(("Turn 12", "Goal: Fans", "Rank C"))]


# -- text ------------------------------------------------------------------------------------------------------------
def bare(text: str) -> Screen:
    return lambda d: [*body(d), write(d, text, 360, 300)]


PARAGRAPH = ("The wind was cold that day", "and the track was heavy", "after the rain of the night")


def lines_of(texts: tuple[str, ...]) -> Screen:
    return lambda d: [*body(d), *(write(d, t, 60, 300 + 34 * i, at="lm") for i, t in enumerate(texts))]


# -- plates ----------------------------------------------------------------------------------------------------------
def on_plate(text: str, x0: float = 240, x1: float = 480, top: float = 14, bottom: float = 14,
             at: str = "mm", y: float = 450) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plate(d, x0, y - 15 - top, x1, y + 15 + bottom)
        x = (x0 + x1) / 2 if at == "mm" else x0 + 16
        return [*body(d), write(d, text, x, y, at=at)]
    return draw


def card(with_button: bool) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plate(d, 60, 240, 660, 380, fill=(245, 240, 225))
        out = [*body(d), write(d, "Derby Cup", 90, 280, at="lm"), write(d, "Turf 2400m", 90, 340, h=24, at="lm")]
        if with_button:
            plate(d, 520, 318, 630, 362, fill=(120, 200, 90))
            out.append(write(d, "Enter", 575, 340))
        return out
    return draw


def list_cards(with_button: bool) -> Screen:
    """Two cards of a list (issue 54), each a name, two small captions and a detail: more texts than a card title's
    frame search takes; with a button on each card, the near miss (the row is tapped there)."""
    def draw(d: Draw) -> list[Line]:
        out = body(d)
        for k, (name, y) in enumerate((("Derby Cup", 240), ("Oaks Cup", 420))):
            plate(d, 60, y, 660, y + 160, fill=(245, 240, 225))
            out += [write(d, name, 90, y + 36, at="lm"), write(d, "Friends", 420, y + 36, h=22, at="lm"),
                    write(d, "Progress", 90, y + 96, h=22, at="lm"), write(d, "Turf Mile", 300, y + 96, h=22, at="lm")]
            if with_button:
                plate(d, 520, y + 100, 630, y + 144, fill=(120, 200, 90))
                out.append(write(d, f"Enter{k}", 575, y + 122))
        return out
    return draw


def disc(d: Draw) -> list[Line]:
    d.ellipse((295, 235, 425, 365), fill=(250, 250, 250), outline=OUTLINE, width=3)
    return [*body(d), write(d, "Statistics", 360, 300)]


SENTENCES = ("We should go to the beach", "Maybe rest a little longer")


def stacked(n: int) -> Screen:
    def draw(d: Draw) -> list[Line]:
        out = body(d)
        for i, text in enumerate(SENTENCES[:n]):
            y = 450 + 90 * i
            plate(d, 60, y - 32, 520, y + 32)
            out.append(write(d, text, 290, y))
        return out
    return draw


# -- the tab bar -----------------------------------------------------------------------------------------------------
TABS = ("Enhance", "Story", "Home", "Race", "Scout")


def tab_bar(n: int) -> Screen:
    def draw(d: Draw) -> list[Line]:
        d.rectangle((0, 1200, 720, 1280), fill=(250, 250, 250))
        return [*body(d), *(write(d, t, 72 + 144 * i, 1245, h=28) for i, t in enumerate(TABS[:n]))]
    return draw


# -- rows ------------------------------------------------------------------------------------------------------------
CELLS = ("Rest", "Work", "Shop")


def cells(n: int, values: bool = False) -> Screen:
    def draw(d: Draw) -> list[Line]:
        out = body(d)
        for i, text in enumerate(CELLS[:n]):
            cx = 140 + 220 * i
            out.append(write(d, text, cx, 900, h=40))
            if values:
                out.append(write(d, str(90 + 31 * i), cx, 950, h=40))
        return out
    return draw


def toggle(gap: float) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plate(d, 200, 280, 320, 320, fill=(120, 200, 90))
        return [*body(d), write(d, "Auto", 260, 300), write(d, "Manual", 320 + gap + 50, 300)]
    return draw


# -- icons -----------------------------------------------------------------------------------------------------------
def plus(d: Draw, cx: float, cy: float, cross: bool = True) -> None:
    """The Plus glyph on a green disc (tests/vision/test_vision_shapes.py's icon screen)."""
    d.ellipse((cx - 22, cy - 22, cx + 22, cy + 22), fill=(110, 190, 40), outline=OUTLINE, width=2)
    if cross:
        d.rectangle((cx - 14, cy - 3, cx + 14, cy + 3), fill=(250, 250, 250))
        d.rectangle((cx - 3, cy - 14, cx + 3, cy + 14), fill=(250, 250, 250))


def captioned_icon(gap: float) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plus(d, 360, 300)
        return [*body(d), write(d, "Shop", 360, 322 + gap + 15, h=26)]
    return draw


def leading_icon(gap: float) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plus(d, 100, 300)
        return [*body(d), write(d, "Wait a while", 122 + gap, 300, h=26, at="lm")]
    return draw


def bare_icon(cross: bool) -> Screen:
    def draw(d: Draw) -> list[Line]:
        plus(d, 360, 300, cross)
        return body(d)
    return draw


# -- the output's own rules ------------------------------------------------------------------------------------------
def row_of_plates(grey: bool) -> Screen:
    def draw(d: Draw) -> list[Line]:
        out = body(d)
        for i, text in enumerate(("Speed", "Stamina", "Power")):
            x0 = 60 + 210 * i
            plate(d, x0, 270, x0 + 180, 330, fill=(150, 150, 150) if grey and i == 1 else (240, 150, 50))
            out.append(write(d, text, x0 + 90, 300))
        return out
    return draw


def gauge(beside: bool) -> Screen:
    def draw(d: Draw) -> list[Line]:
        d.rounded_rectangle((226, 146, 514, 180), radius=14, fill=(255, 255, 255))
        d.rectangle((230, 150, 509, 175), fill=(110, 110, 120))
        d.rectangle((230, 150, 380, 175), fill=(40, 200, 255))
        y = 163 if beside else 400
        plate(d, 60, y - 22, 200, y + 22, fill=(230, 230, 240))
        return [*body(d), write(d, "Energy", 130, y)]
    return draw


# rule id -> (the screen it fires on, the near miss, the element judged)
RULES: dict[str, tuple[Screen, Screen, str]] = {
    "text.number": (bare("1200"), bare("Races"), ""),
    "text.annotation": (bare("Lv 3"), bare("Level"), ""),
    "text.no_letters": (bare("Q!"), bare("Go"), ""),
    "text.short_label": (bare("Details"), bare("Open the door and walk"), ""),
    "text.prose": (bare("Open the door and walk"), bare("Details"), ""),
    "text.paragraph": (lines_of(PARAGRAPH), lines_of(PARAGRAPH[:2]), ""),
    "text.long": (bare("one two three four five six seven eight nine"),
                  bare("one two three four five six seven eight"), ""),
    "text.stat": (bare("Energy -20"), bare("Energy"), ""),
    "plate.centred": (on_plate("Start"), bare("Start"), ""),
    "plate.loose": (on_plate("Start", top=4, bottom=26), on_plate("Start"), ""),
    "plate.message": (on_plate("We will meet again soon.", x0=120, x1=600),
                      on_plate("We will meet again soon.", x0=120, x1=600, at="lm"), ""),
    "plate.banner": (on_plate("Training", x0=30, x1=690), on_plate("Training"), ""),
    "plate.card": (card(False), card(True), "Derby Cup"),
    "plate.list_item": (list_cards(False), list_cards(True), "Derby Cup"),
    "plate.shape": (disc, bare("Statistics"), "Statistics"),
    "plate.stack": (stacked(2), stacked(1), SENTENCES[0]),
    "menu.tab": (tab_bar(5), tab_bar(2), "Story"),
    "menu.blurred": (tab_bar(5), tab_bar(5), "Story"),  # the bar blurred (BLUR) / sharp
    "row.cell": (cells(3), cells(2), "Work"),
    "row.stat_grid": (cells(3, values=True), cells(3), "Work"),
    "row.toggle": (toggle(10), toggle(200), "Manual"),
    "icon.caption": (captioned_icon(4), captioned_icon(80), "Shop"),
    "icon.label": (leading_icon(40), leading_icon(160), "Wait a while"),
    "icon.glyph": (bare_icon(True), bare_icon(False), "Plus"),
    "disabled.greyer": (row_of_plates(True), row_of_plates(False), "Stamina"),
    "gauge.readout": (gauge(True), gauge(False), "Energy"),
}
BLUR = {"menu.blurred": (0, 1200, 720, 1280)}  # the case drawn blurred; its near miss is the sharp bar


def _element(rule: str, case: str) -> str:
    if case:
        return case
    fires = RULES[rule][0]
    return next(ln.text for ln in fires(ImageDraw.Draw(Image.new("RGB", (720, 1280)))) if ln.text not in
                {"Turn 12", "Goal: Fans", "Rank C"})


@pytest.mark.parametrize("rule", sorted(RULES))
def test_a_rule_fires_on_its_drawn_case(rule: str) -> None:
    fires, _, case = RULES[rule]
    r = read(fires, BLUR.get(rule))
    assert rule in rules(r, _element(rule, case)), [(b.text, b.rules) for b in r.blocks]


@pytest.mark.parametrize("rule", sorted(RULES))
def test_a_rule_holds_back_on_its_near_miss(rule: str) -> None:
    _, near, case = RULES[rule]
    element = _element(rule, case) if case else next(
        ln.text for ln in near(ImageDraw.Draw(Image.new("RGB", (720, 1280)))) if ln.text not in
        {"Turn 12", "Goal: Fans", "Rank C"})
    r = read(near)
    said = rules(r, element)
    assert said or rule == "icon.glyph", f"{element!r} was not judged at all: the near miss tests nothing"
    assert rule not in said, [(b.text, b.rules) for b in r.blocks]


def test_every_rule_id_has_a_case() -> None:
    """The ids the package names (an `Evidence("family.name", ...)` or a `RULE = "family.name"`) are the ones here."""
    said = re.compile(r"""Evidence\(\s*"([a-z]+\.[a-z_]+)"|RULE\s*=\s*"([a-z]+\.[a-z_]+)"|"(gauge\.readout)\"""")
    found = {m for p in Path(lluma_vision.__file__).parent.rglob("*.py")
             for g in said.findall(p.read_text(encoding="utf-8")) for m in g if m}
    assert found == set(RULES)


@pytest.mark.parametrize("rule", ["gauge.readout", "disabled.greyer"])
def test_the_output_stage_decisions_are_steps_of_the_block_trace(rule: str) -> None:
    """A readout falling to text and a plate drawn disabled are evidence the resolver applied: steps of the block's
    trace (what `--explain` prints with its score), not a change made to the output behind it."""
    fires, _, case = RULES[rule]
    r = read(fires)
    [block] = [b for b in r.blocks if b.text == case]
    assert rule in [s.rule for s in block.trace]
    assert block.is_button == (rule == "disabled.greyer")  # a readout is text; a disabled plate is still a button


# -- a short row of captioned pictures (row.cell's other way in) -------------------------------------------------------
ICON_ROW = (("Club",), ("Concert", "Theater"), ("Shop",))  # the home screen's corner row; one caption in two lines
PAINT = ((200, 60, 40), (40, 120, 200), (240, 200, 60))


def icon_row(touching: bool) -> Screen:
    """Three pictures 100 px apart in a corner (a row 0.28 of the frame wide), each an illustration (a checker)
    with its caption drawn over its lower edge, the middle one in two lines, and a far label on the same row.
    Not touching: each caption stands a line height under a plain strip below its picture."""
    def draw(d: Draw) -> list[Line]:
        out = body(d)
        for i, words in enumerate(ICON_ROW):
            cx = 80 + 100 * i
            bottom = 880 if touching else 845
            for k in range(64):  # an illustration: a checker of three colours in 10 px squares
                x, y = cx - 40 + 10 * (k % 8), bottom - 80 + 10 * (k // 8)
                d.rectangle((x, y, x + 9, y + 9), fill=PAINT[(k % 8 + k // 8) % 3])
            # a caption's second line a little apart is read as a block of its own (as the real "Theater" was)
            out += [write(d, w, cx, 890 + 36 * j, h=24) for j, w in enumerate(words)]
        out.append(write(d, "Event", 600, 890, h=24))
        return out
    return draw


def test_a_short_row_of_captions_touching_their_pictures_is_a_row_of_cells() -> None:
    """An icon row too short to span the frame, broken by a far label, is a row of cells when each caption touches
    its picture (a caption in two lines is one cell); the far label is not one of them."""
    r = read(icon_row(True))
    for word in ("Club", "Concert", "Theater", "Shop"):
        assert "row.cell" in rules(r, word), [(b.text, b.rules) for b in r.blocks]
    assert "row.cell" not in rules(r, "Event")


def test_a_short_row_of_captions_apart_from_their_pictures_stays_text() -> None:
    r = read(icon_row(False))
    for word in ("Club", "Concert", "Shop"):
        said = rules(r, word)
        assert said and "row.cell" not in said, [(b.text, b.rules) for b in r.blocks]


# -- a label on a disc with its small print (plate.shape with a cost line under the label) ----------------------------
def disc_with(under: float) -> Screen:
    """"SKIP" on a disc with a line of `under` px high text under it on the same disc ("x10 TO SPIN", the roulette's
    cost of a skip, was 0.71 of the label's height)."""
    def draw(d: Draw) -> list[Line]:
        d.ellipse((270, 210, 450, 390), fill=(250, 250, 250), outline=OUTLINE, width=3)
        # the small print in its own ink, as the game draws a cost (read as a block of its own)
        return [*body(d), write(d, "SKIP", 360, 290, h=40),
                write(d, "x10 TO SPIN", 360, 310 + under / 2, h=under, fill=(150, 90, 40))]
    return draw


def test_a_label_on_a_disc_with_small_print_under_it_is_a_button() -> None:
    r = read(disc_with(24))
    assert "plate.shape" in rules(r, "SKIP"), [(b.text, b.rules) for b in r.blocks]


def test_a_disc_holding_two_labels_of_one_size_is_no_label_s_own() -> None:
    r = read(disc_with(40))
    said = rules(r, "SKIP")
    assert said and "plate.shape" not in said, [(b.text, b.rules) for b in r.blocks]
