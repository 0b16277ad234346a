"""A story page: its text box, and an event's choices the reading did not frame as buttons.

One reading of it serves four places: `advanceDialogue` taps the text box (lluma_agent/tools/actions.py), screen
identity tells an event's last page (its choices shown) from a plain page (screen.py), and a routine pass never
moves a story on past its choices (lluma_agent/loop/navigate.py); an event's title and choices key what each choice
did (lluma_agent/loop/eventbook.py).
"""

from __future__ import annotations

import re

from lluma_vision.facts.plates import choice_plates
from lluma_vision.models import Box, TextLine, VisionOutput

# The story's text box and a cutscene's subtitles lie below this fraction of the height (of the game's viewport, for
# cinematic.py): the story's lines sit at 0.68-0.76 on the sim, 0.70-0.85 on real captures (screens: the two story
# dialogue frames' name plate at 0.76, line at 0.89). One band for both readers (issue 38: story.py had 0.45,
# cinematic.py 0.7): 0.6 is under every story line measured, and on screens and screens2 no frame has an element
# between 0.6 and 0.7 of its height that changes its cinematic kind (the before-snapshot of 5f90229).
STORY_BAND = 0.6
# evidence: MIN_PICKS: e49d33c (an event's choice page on the sim); TITLE_WORDS, TITLE_CONFIDENCE: ace7c95 (event
#   choices measured in play)
CHOICE_CHARS, CHOICE_WORDS = 18, 3  # an event's choice reads as a sentence, a button as a word or two
MIN_PICKS = 2  # sentences away from the story's text box: an event's choices the reader did not frame as buttons
TITLE_BAND = 0.2  # ...below the event's title (the sim's at 0.13-0.15 of the height, its choices from 0.42)
TITLE_LEFT = 0.35  # an event's title starts within this fraction of the width (sim 0.04; a real support card
# event's 0.26 with the PC layout's side margin; the same bound as a screen's header, screen.HEADER_LEFT)
TITLE_WORDS = 6  # an event's name is a few words ("Unforeseen Lunch", "Extra Training", "Premeditated Mischief")
TITLE_CONFIDENCE = 0.5  # as screen identity's floor: lines read below it are OCR noise more often than not
KIND_LABEL = re.compile(r"^(?:\S+\s+){0,2}Event\s+(?=\S)")  # "Support Card Event " before a real event's name
STORY_CONTROLS = frozenset({"skip", "quick", "log", "auto"})  # a story's own controls, under its text box or choices
KIND_ALONE = re.compile(r"(?:\S+\s+){0,2}Event")  # the label alone: "Trainee Event" (and the sim's header, "Event")


def story_controls(vision: VisionOutput) -> bool:
    """The screen shows a story's own controls (Skip, Quick, Log, Auto): an event's, and on a real phone every screen
    of a career's (its footer)."""
    return any(re.sub(r"\W+", "", b.name.split("#")[0]).casefold() in STORY_CONTROLS for b in vision.buttons)


def sentence(text: str) -> bool:
    """Reads as a sentence (an event's choice), not a button's word or two."""
    return len(text) >= CHOICE_CHARS and len(text.split()) >= CHOICE_WORDS


def story_lines(vision: VisionOutput) -> list[TextLine]:
    """The lowest block of text lines in the lower part of the screen: the story's text box. A line joins the
    block above it when the gap is at most a line's height (a paragraph); an event's choices, read as texts,
    stand further apart and are left out (their plates are larger than their text: a tap near one chooses it)."""
    lines = sorted((t for t in vision.loose_texts if t.bounds.center[1] > vision.height * STORY_BAND),
                   key=lambda t: t.bounds.y1)
    block: list[TextLine] = []
    for t in reversed(lines):
        top = min((b.bounds.y0 for b in block), default=None)
        if top is not None and top - t.bounds.y1 > max(t.bounds.height, block[-1].bounds.height):
            break
        block.append(t)
    return block


def choices_as_text(vision: VisionOutput) -> list[str]:
    """On a story page: the sentences below the title and outside the story's text box, when there are at least
    MIN_PICKS of them (an event's choices drawn as plates the reading took for text); else []."""
    if vision.cinematic != "dialogue":
        return []
    story = {(t.text, t.bounds) for t in story_lines(vision)}
    picks = [t.text for t in vision.texts if sentence(t.text) and (t.text, t.bounds) not in story
             and t.bounds.y0 > TITLE_BAND * vision.height]
    return picks if len(picks) >= MIN_PICKS else []


def choice_page(vision: VisionOutput) -> bool:
    """A story page that shows its event's choices: sentences read as buttons or as text outside the text box."""
    return vision.cinematic == "dialogue" and (any(sentence(b.name) for b in vision.buttons)
                                               or bool(choices_as_text(vision)))


def event_choices(vision: VisionOutput) -> list[tuple[str, Box]]:
    """An event's choices on screen, top first: its column of choice plates when one of them reads as a sentence or
    a story's controls show (all its plates: "Uh..." is a choice too), else the buttons below the title band that
    read as sentences, or on a story page the sentences read as text outside its text box (`choices_as_text`). The
    header's date and goal and the event's title plate above the column are no choices (real events read them as
    buttons)."""
    plates = choice_plates(vision, TITLE_CONFIDENCE)
    if plates and (any(sentence(b.name) for b in plates) or story_controls(vision)):
        return [(b.name, b.bounds) for b in plates]
    found = [(b.name, b.bounds) for b in vision.buttons if sentence(b.name) and b.region != "menu"
             and b.bounds.y0 > TITLE_BAND * vision.height]
    if not found and (picks := set(choices_as_text(vision))):
        found = [(t.text, t.bounds) for t in vision.texts if t.text in picks]
    return sorted(found, key=lambda c: c[1].y0)


def event_title(vision: VisionOutput) -> str:
    """The event's title: the lowest line above its top choice and below the header's plates, near the left edge
    (the title band: the sim's event name at 0.04 of the width, read as text; a real event's name plate at 0.25,
    read as a button, sometimes joined to its kind's label above it, "Support Card Event Unforeseen Lunch"). A
    kind's label alone ("Trainee Event") names no event. "" when there are no choices or no such line."""
    choices = event_choices(vision)
    if not choices:
        return ""
    top, named = choices[0][1].y0, {name for name, _ in choices}
    header = max((b.bounds.y1 for b in vision.buttons if b.region == "top"), default=0)
    lines = [(b.name, b.bounds) for b in vision.buttons if b.region == "middle" and b.name not in named
             and b.confidence >= TITLE_CONFIDENCE]
    lines += [(t.text, t.bounds) for t in vision.loose_texts if t.confidence >= TITLE_CONFIDENCE]
    names = [(name, box) for text, box in lines if box.y1 <= top and box.y0 >= header
             and box.x0 <= TITLE_LEFT * vision.width and (name := _title_of(text))]
    return max(names, key=lambda n: n[1].y1)[0] if names else ""


def _title_of(text: str) -> str:
    """The event's name a line holds: its kind's label before it taken off ("Support Card Event", "Trainee
    Event"); "" when the line is no name (a label alone, a line of many words, a number). A name may hold
    digits: a chain's step, "A Dream Spoken Aloud (1/2)", a year's, "At Summer Camp (Year 2)"."""
    name = KIND_LABEL.sub("", text.strip())
    if not 1 <= len(name.split()) <= TITLE_WORDS or KIND_ALONE.fullmatch(name) or not re.search(r"[^\W\d_]", name):
        return ""
    return name
