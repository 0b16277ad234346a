"""A story page: its text box, and an event's choices the reading did not frame as buttons.

One reading of it serves four places: `advanceDialogue` taps the text box (lluma_agent/tools/actions.py), screen
identity tells an event's last page (its choices shown) from a plain page (screen.py), and a routine pass never
moves a story on past its choices (lluma_agent/loop/navigate.py); an event's title and choices key what each choice
did (lluma_agent/loop/eventbook.py).
"""

from __future__ import annotations

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
    """An event's choices on screen, top first: buttons that read as sentences, or on a story page the sentences
    read as text outside its text box (`choices_as_text`)."""
    found = [(b.name, b.bounds) for b in vision.buttons if sentence(b.name)]
    if not found and (picks := set(choices_as_text(vision))):
        found = [(t.text, t.bounds) for t in vision.texts if t.text in picks]
    return sorted(found, key=lambda c: c[1].y0)


def event_title(vision: VisionOutput) -> str:
    """The event's title: the lowest short line of read text above its top choice, near the left edge (the title
    band under the header: the sim's event name at 0.04 of the width; a real support card event's at 0.26, under
    "Support Card Event", the date and the goal above it). "" when there are no choices or no such line."""
    choices = event_choices(vision)
    if not choices:
        return ""
    top = choices[0][1].y0
    lines = [t for t in vision.loose_texts if t.bounds.y1 <= top and t.bounds.x0 <= TITLE_LEFT * vision.width
             and t.confidence >= TITLE_CONFIDENCE and _title_words(t.text)]
    return max(lines, key=lambda t: t.bounds.y1).text.strip() if lines else ""


def _title_words(text: str) -> bool:
    """A name of a few words, with no digits (a date's day, a count, a goal's number)."""
    words = text.split()
    return 1 <= len(words) <= TITLE_WORDS and not any(c.isdigit() for c in text) and not sentence(text)
