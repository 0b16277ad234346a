"""Gauges, captioned values, the badge word and disabled buttons: the facts a rest-or-train decision needs."""

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from lluma_vision.buttons.rules.disabled import mark_disabled
from lluma_vision.facts.associate import associate
from lluma_vision.facts.captioned import line_values
from lluma_vision.facts.compact import compact, summarize
from lluma_vision.facts.reread import (
    numbers_over,
    numbers_over_caps,
    numbers_without_icons,
    widened_numbers,
    without_icon_letter,
)
from lluma_vision.facts.values import keyed, read_values, split_words
from lluma_vision.geometry import Rect
from lluma_vision.models import Box, Button, CaptionedValue, Gauge, TextLine, VisionOutput
from lluma_vision.pixels.gauges import badge_word, find_gauges
from lluma_vision.pixels.ocr import Line, Work, _one_spaced

GREY, TRACK = (245, 245, 245), (117, 117, 117)


def _work(img: Image.Image) -> Work:
    """A drawn frame at working size (scale 1)."""
    return Work(rgb=np.asarray(img), scale=1.0, device_width=img.width, device_height=img.height)


def _bar_frame(scale: float, fill: float, coloured: bool = True) -> tuple[np.ndarray, Line]:
    """A 720-wide frame with a bordered track (coloured run, grey rest) and a caption line to its left."""
    w, h = round(720 * scale), round(1280 * scale)
    img = Image.new("RGB", (w, h), GREY)
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = (round(v * scale) for v in (230, 150, 510, 176))
    d.rounded_rectangle((x0 - 4, y0 - 4, x1 + 4, y1 + 4), radius=round(14 * scale), fill=(255, 255, 255))
    d.rectangle((x0, y0, x1 - 1, y1 - 1), fill=TRACK)
    if coloured:
        d.rectangle((x0, y0, x0 + round((x1 - x0) * fill) - 1, y1 - 1), fill=(40, 200, 255))
    caption = Line("Energy", 0.9, Rect(150 * scale, 150 * scale, 226 * scale, 178 * scale))
    return np.asarray(img), caption


@pytest.mark.parametrize("scale", [1.0, 0.4, 1.5])
@pytest.mark.parametrize("fill", [0.12, 0.55, 0.9])
def test_a_gauge_is_found_by_shape_at_any_scale_and_named_by_its_caption(scale, fill):
    rgb, caption = _bar_frame(scale, fill)
    gauges = find_gauges(rgb, [caption])
    assert [g.label for g in gauges] == ["Energy"]
    assert abs(gauges[0].fill - fill) < 0.05


@pytest.mark.parametrize("fill", [0.28, 0.6])
def test_a_gauge_whose_grey_rim_a_rescale_blurred_into_its_empty_run_is_still_found(fill):
    """The real track has a thin grey rim; upscaled then brought back to the working size, the rim blurs into the
    grey run and wraps the coloured one in a sparse ring."""
    img = Image.new("RGB", (720, 1280), (60, 50, 40))
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = 230, 150, 510, 170
    d.rounded_rectangle((x0 - 6, y0 - 6, x1 + 6, y1 + 6), radius=14, fill=(255, 255, 255))
    d.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=12, outline=TRACK, width=2)
    d.rectangle((x0, y0, x1 - 1, y1 - 1), fill=TRACK)
    d.rectangle((x0, y0, x0 + round((x1 - x0) * fill) - 1, y1 - 1), fill=(40, 200, 255))
    blurred = img.resize((1080, 1920), Image.BICUBIC).resize((720, 1280), Image.BILINEAR)
    gauges = find_gauges(np.asarray(blurred), [Line("Energy", 0.9, Rect(150, 148, 222, 172))])
    assert [g.label for g in gauges] == ["Energy"] and abs(gauges[0].fill - fill) < 0.05


@pytest.mark.parametrize("fill", [0.3, 0.66, 0.89])
def test_a_gauge_whose_light_rim_a_rescale_joined_to_the_grey_around_it_is_still_found(fill):
    """On a grey screen the track's thin white rim is all that parts the empty run from its surroundings; a
    rescale blurs it to grey too, and the empty run joins the scenery as one shapeless component. Read as a lone
    coloured strip, the bar would be full."""
    img = Image.new("RGB", (720, 1280), (84, 80, 78))
    d = ImageDraw.Draw(img)
    x0, y0, x1, y1 = 230, 150, 420, 168
    d.rounded_rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), radius=10, outline=(245, 245, 245), width=1)
    d.rounded_rectangle((x0, y0, x1 - 1, y1 - 1), radius=9, fill=TRACK)
    d.rectangle((x0 + 4, y0, x0 + round((x1 - x0) * fill) - 1, y1 - 1), fill=(40, 200, 255))
    blurred = img.resize((1080, 1920), Image.BICUBIC).resize((720, 1280), Image.BILINEAR)
    gauges = find_gauges(np.asarray(blurred), [Line("Energy", 0.9, Rect(150, 148, 222, 172))])
    assert [g.label for g in gauges] == ["Energy"] and abs(gauges[0].fill - fill) < 0.05


def test_a_tracks_rim_is_not_a_second_empty_bar():
    """Upscaled from a small frame, the grey border along a track's top is thick enough to pass for an empty bar
    beside the same caption: it is that gauge's rim, and the badge word is still read off the gauge's row."""
    img = Image.new("RGB", (720, 1280), GREY)
    d = ImageDraw.Draw(img)
    d.rectangle((230, 139, 510, 143), fill=TRACK)  # the rim, one white row over the track
    d.rectangle((230, 145, 509, 163), fill=TRACK)
    d.rectangle((230, 145, 379, 163), fill=(40, 200, 255))
    lines = [Line("Energy", 0.9, Rect(150, 136, 222, 172)), Line("GOOD", 0.9, Rect(540, 140, 620, 168))]
    gauges = find_gauges(np.asarray(img), lines)
    assert [(g.label, round(g.fill, 2)) for g in gauges] == [("Energy", 0.54)]
    assert badge_word(gauges, lines, 720) == "GOOD"


def test_a_full_bar_counts_only_beside_a_caption():
    rgb, caption = _bar_frame(1.0, 1.0)
    assert [(g.label, g.fill) for g in find_gauges(rgb, [caption])] == [("Energy", 1.0)]
    assert find_gauges(rgb, []) == []  # a lone coloured strip with no caption may be any plate


def test_the_badge_word_is_the_upper_case_word_on_the_gauge_row():
    rgb, caption = _bar_frame(1.0, 0.5)
    gauges = find_gauges(rgb, [caption])
    lines = [caption, Line("↑GOOD", 0.9, Rect(530, 145, 640, 182)), Line("NEW", 0.9, Rect(530, 600, 600, 630))]
    assert badge_word(gauges, lines, 720) == "GOOD"
    assert badge_word([], lines, 720) is None


def test_run_together_words_get_their_spaces_back_by_case_and_digits():
    assert split_words("SkillPts 667") == "Skill Pts 667"
    assert split_words("turn(s)left") == "turn(s) left"
    assert split_words("Lvl2") == "Lvl 2"
    assert split_words("GREAT") == "GREAT"


def test_a_lone_lower_case_o_ending_a_line_is_a_zero():
    assert split_words("Lvl o") == "Lvl 0"  # the recogniser's "o" for a level 0
    assert split_words("Type O") == "Type O" and split_words("o no") == "o no" and split_words("Polo") == "Polo"
    read = [("Support Chain", 511, 396, 652, 431), ("EventFrequency", 505, 423, 663, 453),
            ("Lvl o", 548, 464, 621, 497), ("+0+5", 301, 465, 419, 493)]
    values, _gains = _facts([_t(split_words(text), *box) for text, *box in read])  # as line_values reads them
    assert values == {"Support Chain Event Frequency": "Lvl 0"}  # not a caption "Lvl o" taking a "+5"


def test_an_icon_read_as_a_capital_before_a_caption_goes_an_acronym_stays():
    assert split_words("MGuts") == "Guts"  # the selected training's flame icon, read as "M"
    assert split_words("CGoal") == "Goal"
    assert split_words("HTMLParser") == "HTML Parser"
    assert split_words("M Guts") == "M Guts"  # read apart, the letter may be a word: nothing to tell them by
    assert split_words("Skill Pts") == "Skill Pts"


def _t(text, x0, y0, x1, y1):
    return TextLine(text=text, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))


def test_captions_join_their_values_and_gains_join_the_caption_under_them():
    out = VisionOutput(width=720, height=1280, texts=[
        _t("+23", 290, 795, 350, 830), _t("Speed", 60, 830, 130, 855), _t("Power", 285, 830, 355, 855),
        _t("434 /1200", 70, 860, 140, 905), _t("349 /1200", 290, 860, 360, 905),
        _t("Failure 0%", 450, 905, 525, 955), _t("SkillPts", 605, 830, 690, 855), _t("667", 610, 860, 680, 895),
    ])
    got = associate(out)
    values = {v.caption: v.value for v in got.values if v.kind == "value"}
    gains = {v.caption: v.value for v in got.values if v.kind == "gain"}
    assert values == {"Speed": "434/1200", "Power": "349/1200", "Failure": "0%", "Skill Pts": "667"}
    assert gains == {"Power": "+23"}
    view = compact(got, max_texts=0)  # kept whatever the cap on loose texts
    assert view.values == values and view.gains == gains and view.texts == []


def test_a_number_is_never_the_meta_of_an_icon_beside_it():
    out = VisionOutput(width=720, height=1280,
                       buttons=[Button(name="Info", source="heuristic", bounds=Box(x0=148, y0=860, x1=181, y1=898))],
                       texts=[_t("434 /1200", 200, 860, 270, 900), _t("Settings", 200, 40, 300, 80)])
    got = associate(out)
    assert got.buttons[0].meta == ""


def test_compact_and_summary_carry_gauges_and_mood():
    out = VisionOutput(width=720, height=1280, mood="GREAT",
                       gauges=[Gauge(label="Energy", fill=0.624, bounds=Box(x0=230, y0=150, x1=510, y1=176))])
    assert compact(out).to_json() == '{"gauges":{"Energy":0.62},"mood":"GREAT"}'
    assert summarize(out).startswith("Energy 62%")


def test_a_plate_greyer_and_darker_than_its_row_is_disabled():
    img = Image.new("RGB", (720, 1280), (250, 250, 250))
    d = ImageDraw.Draw(img)
    plates = {"Skip": (120, 210, 60), "Quick": (150, 150, 150), "Log": (255, 255, 255)}
    buttons = []
    for i, (name, colour) in enumerate(plates.items()):
        x0 = 40 + 220 * i
        d.rectangle((x0, 1200, x0 + 180, 1260), fill=colour, outline=(90, 90, 90))
        buttons.append(Button(name=name, bounds=Box(x0=x0, y0=1200, x1=x0 + 181, y1=1261)))
    got = mark_disabled(_work(img), buttons)
    assert [b.name for b in got if "disabled" in b.meta] == ["Quick"]  # a white plate is pale but not greyed out


def _row(plates: dict[str, tuple[int, int, int, int]], y0: int, region: str = "middle") -> tuple[Image.Image,
                                                                                          list[Button]]:
    """Plates on one row, each named with (x0, r, g, b)."""
    img = Image.new("RGB", (720, 1280), (250, 250, 250))
    d = ImageDraw.Draw(img)
    buttons = []
    for name, (x0, *colour) in plates.items():
        d.rectangle((x0, y0, x0 + 100, y0 + 50), fill=tuple(colour))
        buttons.append(Button(name=name, region=region, bounds=Box(x0=x0, y0=y0, x1=x0 + 101, y1=y0 + 51)))
    return img, buttons


def test_a_greyed_tile_of_a_menu_row_is_disabled_against_its_menu_siblings():
    img, buttons = _row({"Infirmary": (20, 120, 110, 130), "Recreation": (200, 250, 150, 40),
                         "Lessons": (380, 230, 90, 200), "Races": (560, 125, 115, 125)}, 1100, region="menu")
    got = mark_disabled(_work(img), buttons)
    assert [b.name for b in got if "disabled" in b.meta] == ["Infirmary", "Races"]


def test_a_pale_plate_a_little_dimmer_than_its_siblings_is_live_a_greyed_one_is_not():
    """A white "Details" beside a gold "Goal" and a pure white plate is pale and 16 under their brightness: a plate
    of another colour, not a greyed-out one (greyed plates sit 45 and more under)."""
    img, buttons = _row({"Goal": (20, 255, 215, 20), "Details": (200, 234, 234, 234), "Run": (380, 250, 200, 30),
                         "Quick": (560, 200, 200, 200)}, 100)
    got = mark_disabled(_work(img), buttons)
    assert [b.name for b in got if "disabled" in b.meta] == ["Quick"]


def test_a_gauges_caption_and_badge_are_readouts_never_disabled():
    img, buttons = _row({"Energy": (10, 140, 140, 140), "GOOD": (330, 250, 150, 40), "Details": (450, 130, 130, 130),
                         "Goal": (590, 60, 180, 60)}, 100)
    gauge = Box(x0=120, y0=110, x1=320, y1=140)  # between the caption and the badge, on their row
    assert [b.name for b in mark_disabled(_work(img), buttons) if "disabled" in b.meta] == [
        "Energy", "Details"]
    got = mark_disabled(_work(img), buttons, [gauge])
    assert [b.name for b in got if "disabled" in b.meta] == ["Details"]


def test_read_values_ignores_words_without_a_number():
    values, used = read_values([_t("Dance Practice", 90, 230, 440, 280)])
    assert values == [] and used == set()


def test_a_number_joins_the_caption_its_layout_gives_it():
    texts = [
        _t("Training", 20, 7, 105, 37), _t("12", 19, 71, 93, 123),  # big day count left of a two-line caption
        _t("turn(s)", 89, 75, 151, 99), _t("left", 89, 96, 127, 120),
        _t("Points", 44, 328, 100, 355), _t("Da", 16, 371, 47, 392),  # a heading over a column of stacked values
        _t("10", 81, 357, 123, 388), _t("/200", 71, 385, 121, 409),
        _t("Stamina", 168, 828, 251, 856), _t("6", 271, 835, 295, 849),  # a speck beside a caption is no value
        _t("316", 195, 856, 252, 885), _t("/1200", 187, 879, 255, 909),
    ]
    values, used = read_values(texts, 720)
    assert {v.caption: v.value for v in values} == {"turn(s) left": "12", "Da": "10/200", "Stamina": "316/1200"}
    assert 9 not in used and 0 not in used  # the speck and the unrelated heading stay read text


def _big_yellow_digit(at: tuple[int, int], size: int) -> Work:
    """A calendar's day count: a big yellow digit on a pale plate, which the detector misses."""
    img = Image.new("RGB", (400, 300), (250, 250, 250))
    ImageDraw.Draw(img).text(at, "7", fill=(235, 200, 30), font=ImageFont.load_default(size=size), stroke_width=2,
                             stroke_fill=(200, 150, 20))
    return Work(rgb=np.asarray(img), scale=1.0, device_width=400, device_height=300)


def test_a_big_number_the_detector_missed_is_re_read_digit_only_over_its_caption():
    work = _big_yellow_digit((160, 60), 72)
    caption = Rect(140.0, 150.0, 240.0, 180.0)
    [found] = numbers_over(work, [caption], [])
    assert found is not None and found[0] == "7" and found[1][3] <= caption[1]  # read in the band over it
    assert numbers_over(work, [caption], [Line("Year", 0.9, Rect(150, 90, 230, 140))]) == [None]  # read text there
    blank = Work(rgb=np.full((300, 400, 3), 250, np.uint8), scale=1.0, device_width=400, device_height=300)
    assert numbers_over(blank, [caption], []) == [None]


def test_a_digits_flat_top_over_a_narrow_caption_is_no_plates_edge():
    """Over a caption about as wide as the digit, the "7"'s bar fills most of the band's rows at its top; it keeps
    clear of the band's sides, so it stays the digit's."""
    work = _big_yellow_digit((165, 60), 72)
    [found] = numbers_over(work, [Rect(160.0, 150.0, 210.0, 180.0)], [])
    assert found is not None and found[0] == "7"


def test_a_big_number_touching_its_calendars_header_is_still_re_read():
    """A rescale can close the gap between a calendar's coloured header and its day count: the header's
    full-width rows are a plate's edge, not part of the glyph."""
    img = Image.new("RGB", (400, 300), (250, 250, 250))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=64)
    top = d.textbbox((170, 70), "2", font=font)[1]
    d.rectangle((110, 60, 290, top), fill=(245, 205, 20))  # the header, meeting the digit's top
    d.text((170, 70), "2", fill=(235, 170, 20), font=font)
    caption = Rect(150.0, 160.0, 250.0, 190.0)
    [found] = numbers_over(Work(rgb=np.asarray(img), scale=1.0, device_width=400, device_height=300), [caption], [])
    assert found is not None and found[0] == "2"


def test_a_big_number_missed_just_left_of_its_caption_is_re_read_there():
    work = _big_yellow_digit((95, 88), 72)
    caption = Rect(150.0, 110.0, 230.0, 160.0)  # "turn(s)" over "left", right of the day count
    [found] = numbers_over(work, [caption], [])
    assert found is not None and found[0] == "7" and found[1][2] <= caption[0]  # read in the band left of it
    assert numbers_over(work, [caption], [Line("Goal", 0.9, Rect(60, 105, 140, 150))]) == [None]  # read text there


def _badge(arrow: bool) -> tuple[Work, Line]:
    img = Image.new("RGB", (240, 60), (250, 140, 40))
    d = ImageDraw.Draw(img)
    if arrow:  # a badge's icon just before its word
        d.polygon([(12, 48), (30, 30), (22, 30), (22, 12), (2, 12), (2, 30), (-6, 30)], fill=(255, 255, 255))
        d.line((8, 46, 34, 14), fill=(255, 255, 255), width=8)
    d.text((44, 8), "GOOD", fill=(255, 255, 255), font=ImageFont.load_default(size=40), stroke_width=2,
           stroke_fill=(180, 80, 10))
    return Work(rgb=np.asarray(img), scale=1.0, device_width=240, device_height=60), Line("x", 0.9, Rect(0, 0, 240, 60))


def test_a_badge_icon_read_as_a_letter_is_dropped_from_the_word():
    work, line = _badge(arrow=True)
    assert without_icon_letter(work, "ZGOOD", line) == "GOOD"
    work, line = _badge(arrow=False)
    assert without_icon_letter(work, "GOOD", line) == "GOOD"  # a word read surely keeps every letter


def test_a_badge_letter_the_ocr_pass_doubted_is_its_icon_whatever_a_second_read_says():
    """The OCR pass read the badge's arrow as an "A" it doubted (0.15, its word's letters 0.97 or more): that is the
    icon, even where the line read again alone looks like a sure "AGOOD" (a rescaled frame reads differently)."""
    img = Image.new("RGB", (260, 60), (250, 140, 40))
    ImageDraw.Draw(img).text((8, 8), "AGOOD", fill=(255, 255, 255), font=ImageFont.load_default(size=40))
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=260, device_height=60)
    doubted = Line("AGOOD", 0.8, Rect(0, 0, 260, 60), scores=(0.15, 0.98, 0.97, 0.99, 0.97))
    assert without_icon_letter(work, "AGOOD", doubted) == "GOOD"
    assert without_icon_letter(work, "AGOOD", Line("AGOOD", 0.8, Rect(0, 0, 260, 60))) == "AGOOD"  # read alone: sure


def _facts(texts: list[TextLine]) -> tuple[dict[str, str], dict[str, str]]:
    values, _used = read_values(texts, 720)
    return ({v.caption: v.value for v in values if v.kind == "value"},
            {v.caption: v.value for v in values if v.kind == "gain"})


def test_an_icon_read_apart_as_a_capital_is_no_part_of_its_caption():
    """A rescaled frame's recogniser reads the flame before "Guts" as a letter of its own ("M Guts"): as a loose text
    it may be a word ("C Rank"), but a caption does not start with one, for its value and for its gain."""
    values, gains = _facts([_t("+72", 380, 797, 465, 836), _t("M Guts", 385, 828, 460, 855),
                            _t("489", 417, 856, 472, 887), _t("A Race", 60, 828, 140, 855),
                            _t("12", 80, 856, 120, 887)])
    assert values == {"Guts": "489", "A Race": "12"} and gains == {"Guts": "+72"}
    assert _facts([_t("M Guts 489", 385, 828, 490, 855)])[0] == {"Guts": "489"}  # a caption and its value as one line
    assert split_words("C Rank") == "C Rank"  # a loose text keeps it


def test_a_number_printed_before_its_words_is_a_fact_but_a_sentence_is_not():
    values, _ = _facts([_t("11,219 Fans", 80, 540, 240, 576), _t("2 options you could still pick", 80, 700, 600, 730)])
    assert values == {"Fans": "11,219"}


def test_a_value_and_its_change_read_as_one_line_are_cut_in_two():
    # "0+17": the value under a column heading but beside its row's caption, and its gain printed right after it
    values, gains = _facts([_t("Points", 44, 328, 100, 355), _t("Da", 16, 371, 47, 392),
                            _t("0+17", 95, 352, 196, 395), _t("/200", 71, 385, 121, 409)])
    assert values == {"Da": "0/200"} and gains == {"Da": "+17"}


def test_a_signed_number_under_a_value_is_its_captions_gain_and_under_a_bare_caption_its_value():
    values, gains = _facts([
        _t("Speed", 60, 415, 130, 440), _t("238", 75, 448, 140, 477), _t("(+ 5)", 65, 481, 115, 507),
        _t("Wit", 480, 411, 570, 443), _t("193", 520, 445, 585, 483), _t("+0", 510, 480, 550, 504),
        _t("Attribute gains over 1,200 will be halved.", 130, 519, 590, 549),  # a sentence is no caption
        _t("Specialty Priority", 280, 600, 440, 630), _t("+0", 330, 655, 380, 685),
    ])
    assert values == {"Speed": "238", "Wit": "193", "Specialty Priority": "+0"}
    assert gains == {"Speed": "+5", "Wit": "+0"}


def test_an_abbreviation_gets_the_bigger_number_the_detector_missed_at_the_other_end_of_its_cell():
    work = _big_yellow_digit((215, 92), 48)
    badge = Line("Da", 0.99, Rect(120, 110, 150, 135))  # the number sits 2-3 caption heights right of it
    values, _used = line_values(work, [badge])
    assert [(v.caption, v.value) for v in values] == [("Da", "7")]
    # a caption of words is not an abbreviation: its row is not searched (a number there is OCR's to read)
    assert line_values(work, [Line("Stats", 0.99, Rect(65, 110, 150, 135))])[0] == []
    # read text right of it: nothing was missed there
    assert line_values(work, [badge, Line("Vo", 0.99, Rect(190, 112, 215, 134))])[0] == []


def _hexagon_badge(word: str, colour: tuple[int, int, int]) -> Work:
    """A number with a coloured badge holding a short word just left of it, which the detector misses."""
    img = Image.new("RGB", (400, 120), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.regular_polygon((80, 60, 30), 6, fill=colour)
    d.text((80, 60), word, fill=(255, 255, 255), font=ImageFont.load_default(size=28), anchor="mm")
    d.text((130, 35), "73", fill=(120, 90, 200), font=ImageFont.load_default(size=48))
    return Work(rgb=np.asarray(img), scale=1.0, device_width=400, device_height=120)


@pytest.mark.parametrize("word,colour", [("Pa", (230, 70, 80)), ("Vi", (245, 175, 40))])  # white on a pale badge too
def test_a_bare_number_takes_the_word_on_the_badge_just_left_of_it_as_its_caption(word, colour):
    number = Line("73", 0.99, Rect(132, 40, 190, 82))
    values, _used = line_values(_hexagon_badge(word, colour), [number])
    assert [(v.caption, v.value) for v in values] == [(word, "73")]
    # a badge's single letter is an icon (a stat's grade), not a caption
    assert line_values(_hexagon_badge("F", (150, 110, 230)), [number])[0] == []
    # read text there: OCR read that caption itself, the badge is not read again
    values, _used = line_values(_hexagon_badge("Pa", (230, 70, 80)), [number, Line("Xy", 0.99, Rect(60, 45, 100, 75))])
    assert [(v.caption, v.value) for v in values] == [("Xy", "73")]


def test_a_number_leading_a_labels_second_line_takes_the_first_line_as_its_caption():
    values, _ = _facts([_t("Concertin", 41, 133, 127, 156), _t("19 turn(s)", 37, 151, 140, 183),
                        _t("Energy", 161, 147, 223, 184)])
    assert values == {"Concertin turn(s)": "19"}
    values, _ = _facts([_t("3turn(s)", 44, 152, 140, 180), _t("1st", 300, 152, 340, 180)])
    assert values == {"turn(s)": "3"}  # run together after the number; an ordinal is no fact


def test_a_prefixed_value_under_a_caption_and_a_signed_number_under_its_caption_are_its_values():
    values, gains = _facts([
        _t("Friendship Training", 44, 412, 228, 448), _t("Effectiveness", 72, 439, 201, 468),
        _t("+ 5%", 96, 480, 175, 517), _t("Active Songs", 15, 552, 136, 583),  # the next section's heading
        _t("Support Chain", 512, 416, 652, 447), _t("Event Frequency", 505, 439, 661, 471),
        _t("Lvl 1", 545, 479, 620, 517),
    ])
    assert values == {"Friendship Training Effectiveness": "+5%", "Support Chain Event Frequency": "Lvl 1"}
    assert gains == {}
    # a gain printed over its stat's caption still is one, though a label sits a little higher over it
    values, gains = _facts([_t("Metabolism", 36, 752, 137, 783), _t("+0", 52, 797, 112, 835),
                            _t("Speed", 63, 831, 128, 855), _t("434", 76, 853, 137, 887)])
    assert gains == {"Speed": "+0"} and values == {"Speed": "434"}


def test_a_grade_letter_read_with_its_number_is_cut_off():
    values, _ = _facts([_t("Wit", 483, 411, 569, 443), _t("F*193", 480, 439, 584, 483)])
    assert values == {"Wit": "193"}


def test_a_rows_missing_gain_is_re_read_where_its_siblings_have_theirs():
    img = Image.new("RGB", (720, 400), (250, 250, 250))
    ImageDraw.Draw(img).text((612, 162), "+6", fill=(230, 110, 20), font=ImageFont.load_default(size=34))
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=720, device_height=400)
    row = [Line("Speed", 0.99, Rect(60, 200, 130, 225)), Line("243", 0.99, Rect(70, 228, 130, 258)),
           Line("Power", 0.99, Rect(270, 200, 350, 225)), Line("91", 0.99, Rect(300, 228, 350, 258)),
           Line("Guts", 0.99, Rect(390, 200, 450, 225)), Line("144", 0.99, Rect(395, 228, 450, 258)),
           Line("Skill Pts", 0.99, Rect(600, 200, 690, 225)), Line("151", 0.99, Rect(620, 228, 672, 258)),
           Line("+18", 0.99, Rect(50, 162, 120, 198)), Line("+6", 0.99, Rect(285, 162, 335, 198))]
    values, _used = line_values(work, row)
    gains = {v.caption: v.value for v in values if v.kind == "gain"}
    assert gains == {"Speed": "+18", "Power": "+6", "Skill Pts": "+6"}  # Guts has none printed: none read


def test_a_cap_read_alone_gets_the_number_printed_over_it():
    """"/200" read with no number over it: the detector missed the big "7" right over it (a badge's "Da" beside
    them). The band over the cap is read digits-only, and "Da" gets 7/200. A cap whose number was read is left."""
    img = Image.new("RGB", (300, 200), (250, 250, 250))
    d = ImageDraw.Draw(img)
    d.text((96, 31), "7", fill=(140, 90, 200), font=ImageFont.load_default(size=30))
    d.text((70, 60), "/200", fill=(140, 90, 200), font=ImageFont.load_default(size=20))
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=300, device_height=200)
    seven = d.textbbox((96, 31), "7", font=ImageFont.load_default(size=30))
    cap = d.textbbox((70, 60), "/200", font=ImageFont.load_default(size=20))
    lines = [Line("Da", 0.99, Rect(17, 48, 47, 69)),
             Line("/200", 0.99, Rect(cap[0] - 1, cap[1] - 2, cap[2] + 1, cap[3] + 2))]
    values, _used = line_values(work, lines)
    assert {v.caption: v.value for v in values} == {"Da": "7/200"}
    read = Line("7", 0.99, Rect(seven[0] - 1, seven[1] - 2, seven[2] + 1, seven[3] + 2))
    assert numbers_over_caps(work, [*lines, read]) == []
    # a cap printed after its number on its row has its number, whatever ink is over it
    before = Line("4", 0.99, Rect(cap[0] - 28, cap[1] - 6, cap[0] - 11, cap[3] + 4))
    assert numbers_over_caps(work, [*lines, before]) == []


def test_a_bonus_printed_on_a_badge_over_a_gain_is_a_second_gain_of_its_caption():
    """A scenario's "+2" in white on a blue badge right over a training's "+26" (the detector sees neither white
    digits on their own colour): it is read from the band over the gain, and named after the gain, which keeps
    the caption's own name. A gain with nothing over it gets nothing."""
    img = Image.new("RGB", (720, 400), (250, 250, 250))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=30)
    d.rounded_rectangle((262, 112, 360, 156), radius=14, fill=(60, 150, 235))
    d.text((290, 116), "+2", fill=(255, 255, 255), font=font, stroke_width=2, stroke_fill=(20, 50, 120))
    rows = [Line("+26", 0.99, Rect(267, 160, 356, 198)), Line("Power", 0.99, Rect(285, 200, 350, 225)),
            Line("349", 0.99, Rect(300, 228, 350, 258)), Line("+0", 0.99, Rect(52, 160, 112, 198)),
            Line("Speed", 0.99, Rect(60, 200, 130, 225)), Line("434", 0.99, Rect(70, 228, 130, 258))]
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=720, device_height=400)
    values, _used = line_values(work, rows)
    assert compact(VisionOutput(width=720, height=400, values=values)).gains == {
        "Speed": "+0", "Power": "+26", "Power#2": "+2"}


def test_only_a_gain_printed_over_its_captions_gain_is_named_after_it():
    gains = [CaptionedValue(caption="Speed", value=v, kind="gain", bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))
             for v, x0, y0, x1, y1 in (("+26", 60, 797, 120, 836), ("+5", 140, 860, 170, 880))]
    assert keyed(gains, "gain") == {"Speed": "+26", "Speed#2": "+5"}  # a change after its value: reading order


def test_a_sentences_last_line_never_starts_a_caption_under_it():
    """A speech bubble's last line ("... by three rotations?") sits right over a stat's caption: the question ends
    there, so "Speed" is the caption of its value, alone."""
    values, _gains = _facts([_t("rotations?", 215, 517, 285, 539), _t("Speed", 209, 544, 281, 561),
                             _t("385", 231, 561, 274, 582), _t("/1200", 229, 578, 273, 595)])
    assert values == {"Speed": "385/1200"}
    values, _gains = _facts([_t("turn(s)", 89, 75, 151, 99), _t("left", 89, 96, 127, 120), _t("12", 19, 71, 80, 123)])
    assert values == {"turn(s) left": "12"}  # a label's first line still runs on


def test_a_number_whose_box_cut_off_its_last_glyph_is_read_again_over_it():
    """The detector's box for "+19" stopped before the "9" (a badge crowds it): the ink just past the box is read
    with it, digits only. A number whose box holds all of it is left as read, and so is one followed by a letter:
    read digits-only, the letter is no digit the recogniser is sure of."""
    img = Image.new("RGB", (420, 80), (250, 250, 250))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=48)
    d.text((20, 10), "+19", fill=(230, 120, 20), font=font, stroke_width=2, stroke_fill=(120, 60, 10))
    d.text((200, 10), "12", fill=(60, 40, 20), font=font)
    twelve = d.textbbox((200, 10), "12", font=font)
    d.text((twelve[2] + 4, 10), "G", fill=(60, 40, 20), font=font)
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=420, device_height=80)
    cut, whole = Line("+1", 0.97, Rect(16, 18, 80, 62)), Line("+19", 0.97, Rect(16, 18, 108, 62))
    lettered = Line("12", 0.97, Rect(twelve[0] - 2, 18, twelve[2] + 2, 62))
    # each read on its own: "+1" and "+19" are two readings of the same glyphs, never lines of one frame
    assert [widened_numbers(work, [ln])[0].text for ln in (cut, whole, lettered)] == ["+19", "+19", "12"]


def test_a_grade_badge_read_as_a_doubted_digit_beside_a_number_goes():
    """An "F" grade badge before "117" read as a "5" the recogniser doubts, set apart by a space: the number is 117,
    and its box starts after the badge. A sure glyph stays ("+ 5%"), and so do words ("Corners O")."""
    graded = Line("5 117", 0.79, Rect(156, 447, 251, 479), scores=(0.29, 0.67, 1.0, 1.0, 1.0))
    plus = Line("+ 5%", 0.9, Rect(10, 10, 60, 30), scores=(0.98, 0.65, 1.0, 1.0))
    words = Line("Front Runner Corners O", 0.98, Rect(10, 50, 300, 80), scores=(1.0,) * 21 + (0.47,))
    unknown = Line("5 117", 0.79, Rect(156, 447, 251, 479))  # no scores: nothing to tell by
    sign = Line("+ 5", 0.7, Rect(10, 10, 60, 30), scores=(0.3, 0.9, 1.0))  # a sign is the number's own, however doubted
    after = Line("12 B", 0.8, Rect(100, 10, 180, 30), scores=(1.0, 1.0, 0.9, 0.2))  # an icon after it
    out = numbers_without_icons([graded, plus, words, unknown, sign, after])
    assert [ln.text for ln in out] == ["117", "+ 5%", "Front Runner Corners O", "5 117", "+ 5", "12"]
    assert out[0].x0 == pytest.approx(156 + 2 / 5 * 95) and out[0].x1 == 251
    assert out[5].x0 == 100 and out[5].x1 == pytest.approx(180 - 2 / 4 * 80) and out[5].scores == (1.0, 1.0)


def test_each_read_character_keeps_its_score_through_the_spaces_made_single():
    assert _one_spaced("  Skill  Pts ", [0.1, 0.2, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.9, 0.05]) == (
        "Skill Pts", (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.3, 0.2, 0.9))
    assert _one_spaced("117", [0.0]) == ("117", ())  # scores that are not one per character: none


def test_a_number_is_not_read_into_the_next_read_line():
    """Ink just past a number that OCR read as a line of its own ("12" then "7", a column's next figure) was read
    already: the number is not re-read over it, and stays "12", not "127"."""
    img = Image.new("RGB", (400, 80), (250, 250, 250))
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=40)
    d.text((20, 15), "12", fill=(90, 50, 20), font=font)
    twelve = d.textbbox((20, 15), "12", font=font)
    d.text((twelve[2] + 6, 15), "7", fill=(90, 50, 20), font=font)
    seven = d.textbbox((twelve[2] + 6, 15), "7", font=font)
    work = Work(rgb=np.asarray(img), scale=1.0, device_width=400, device_height=80)
    lines = [Line("12", 0.99, Rect(twelve[0] - 1, twelve[1] - 3, twelve[2] + 1, twelve[3] + 3)),
             Line("7", 0.99, Rect(seven[0] - 1, seven[1] - 3, seven[2] + 1, seven[3] + 3))]
    assert [ln.text for ln in widened_numbers(work, lines)] == ["12", "7"]
