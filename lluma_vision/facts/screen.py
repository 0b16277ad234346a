"""Screen identity: which screen a reading shows, from its structure, not its pixels.

The same for what a player calls the same screen (the training screen at another turn, with other numbers, another
stat selected; a list scrolled elsewhere; an event with other text), different for screens a player calls different.
The id is a short hash of a canonical signature string, so it is the same across runs and processes; `identify` is a
pure function of a `VisionOutput`, so old run logs can be identified again.

The signature keys on the most reliable parts of a reading, in this order:
1. a cinematic (loading, cutscene, dialogue) with nothing to press: its kind (a story page that shows its event's
   choices apart: lluma_vision/facts/story.py);
2. a panel chosen in a side tab bar (the PC layout's menu): that tab;
3. a dialog: its title, a short text centred over the dialog's closing button(s), and its body's fixed words (a
   "Confirm" that spends an alarm clock is not the "Confirm" of a rest);
4. the screen's header: the title in the frame's top-left band (or centred at the top), with the body's
   structure where one header names several screens (the career hub and a career event are both "Career":
   an event shows a stack of choice plates);
5. else the tab selected in a bottom tab bar, else the fixed words of its buttons.
Numbers and the variable words of a date ("Junior Year Late Dec") are never part of it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from lluma_vision.facts.plates import INSET, NEXT_PLATE, stacked, wide_plates
from lluma_vision.facts.spends import spends
from lluma_vision.facts.story import choice_page
from lluma_vision.models import Box, ScreenIdentity, VisionOutput


@dataclass(frozen=True)
class Knobs:
    """The thresholds bench/vision.py chooses with one labelled source held out (its `screen_identity` figures)."""

    header_band: float = 0.06  # a header's top edge lies in this top fraction (real: 0.00-0.03, sim: 0.02)
    centred: float = 0.05  # a centred text's centre is this fraction of the width from the reference centre
    min_confidence: float = 0.5  # items read below this are OCR noise more often than not: not keyed on


KNOBS = Knobs()
# Measured on the hand-grouped real screens (bench/labels/screen_groups.json) and the simulator's screens:
HEADER_LEFT = 0.35  # a header's left edge lies in this left fraction (real titles start at 0.02-0.17: PC margins)
TOP_TITLE_BAND = 0.12  # a title centred at the top (the sim's result screens: its centre at 0.07-0.08)
MAX_TITLE_WORDS = 4  # titles are short ("Active Concert Bonuses"); a longer line is body text
MIN_TABS = 2  # a bar of one tab has no direction to tell
ALONE_REACH = 1.0  # a title has no other text within its own width left or right on its row
EDGE = 0.15  # a dialog's title is centred at least this fraction of the width in from the frame's edges
LONGEST_WORD = 14  # letters; a longer "word" is words OCR ran together (a goal line), not a title
ID_CHARS = 10  # hex digits of the signature's hash kept as the id
BODY_WORDS = 16  # the first words of a dialog's body key it: a confirm's question is a line or two ("Use 1 Alarm
# Clock to try again?" is 7); a long notice's later lines add nothing and would split it on one misread word
BODY_REACH = 0.5  # a dialog's body text is centred within its closing row's span, widened by half of it each side
# (the sim's and drawn confirms: the question centred over a Cancel/OK pair spanning 0.12-0.88 of the width)

# words of the in-game date and counters: the same screen shows them with other values
VARIABLE_WORDS = frozenset(
    "junior classic senior year early late pre debut predebut jan feb mar apr may jun jul aug sep oct nov dec "
    "turn turns left".split()
)


@dataclass(frozen=True)
class _Item:
    """A read text or button, reduced to what identity needs."""

    text: str
    box: Box
    button: bool


def _words(text: str) -> list[str]:
    """The fixed words of a text: lower case letters only, without numbers and date/counter words."""
    out = []
    for raw in re.split(r"[\s/·:,()\[\]!?.]+", text.casefold()):
        if not raw or any(c.isdigit() for c in raw):
            continue
        word = "".join(c for c in raw if c.isalpha() and c.isascii())
        if len(word) >= 2 and word not in VARIABLE_WORDS:
            out.append(word)
    return out


def _items(out: VisionOutput, k: Knobs) -> list[_Item]:
    # an icon's name is the reader's word for its glyph ("Info", "Plus"), not a text of the screen
    items = [_Item(b.name.split("#")[0], b.bounds, True) for b in out.buttons
             if b.confidence >= k.min_confidence and b.source != "heuristic"]
    items += [_Item(t.text, t.bounds, False) for t in out.texts if t.confidence >= k.min_confidence]
    return sorted(items, key=lambda i: (i.box.y0, i.box.x0))


def _title_like(item: _Item) -> bool:
    words = _words(item.text)
    return (bool(words) and len(item.text.split()) <= MAX_TITLE_WORDS and len(words) == len(item.text.split())
            and max(map(len, words)) <= LONGEST_WORD)


def _rows(out: VisionOutput) -> tuple[int, int]:
    """The rows the read content spans. A letterboxed frame's bars hold nothing read, so heights measured in this
    span are the game's own whatever bars the phone adds (a reading's boxes are the whole frame's)."""
    boxes = [b.bounds for b in out.buttons] + [t.bounds for t in out.texts] + [g.bounds for g in out.gauges]
    if not boxes:
        return 0, out.height
    return min(b.y0 for b in boxes), max(max(b.y1 for b in boxes), min(b.y0 for b in boxes) + 1)


def _below_top(out: VisionOutput, item: _Item, fraction: float, y: float | None = None) -> bool:
    """Whether `y` (default the item's top edge) lies within `fraction` of the content's height from its top."""
    top, bottom = _rows(out)
    return (item.box.y0 if y is None else y) - top <= fraction * (bottom - top)


def _in_header(out: VisionOutput, item: _Item, k: Knobs) -> bool:
    return _below_top(out, item, k.header_band) and item.box.x0 <= HEADER_LEFT * out.width


def header(out: VisionOutput, k: Knobs = KNOBS) -> _Item | None:
    """The screen's header: a short text in the top-left band."""
    for item in _items(out, k):
        if not _below_top(out, item, k.header_band):
            return None
        if _in_header(out, item, k) and _title_like(item):
            return item
    return None


def top_title(out: VisionOutput, k: Knobs = KNOBS) -> _Item | None:
    """A title centred at the top of the frame (a result screen's)."""
    for item in _items(out, k):
        if not _below_top(out, item, TOP_TITLE_BAND, item.box.center[1]):
            return None
        if abs(item.box.center[0] - out.width / 2) <= k.centred * out.width and _title_like(item):
            return item
    return None


def _alone(item: _Item, items: list[_Item]) -> bool:
    """Nothing else on the item's row near it: a title stands by itself (a goal line sits between "Goal" and
    "Details")."""
    reach = ALONE_REACH * item.box.width
    cy = item.box.center[1]
    return not any(o is not item and o.box.y0 <= cy <= o.box.y1 and o.box.x0 < item.box.x1 + reach
                   and o.box.x1 > item.box.x0 - reach for o in items)


def _dialog(out: VisionOutput, k: Knobs = KNOBS) -> tuple[_Item, list[_Item]] | None:
    """A dialog's title and its closing row: the top-most short text standing alone with the dialog's closing
    button(s) centred under it (one button under its centre, or a pair of buttons on one row whose middle is its
    centre), away from the frame's edges (a header over a Back button at the left edge is not a dialog)."""
    items = _items(out, k)
    buttons = [i for i in items if i.button]
    for item in items:
        cx = item.box.center[0]
        if not _title_like(item) or min(cx, out.width - cx) < EDGE * out.width or not _alone(item, items):
            continue
        below = [b for b in buttons if b.box.y0 > item.box.y1]
        if not below:
            continue
        last = max(b.box.y0 for b in below)
        row = [b for b in below if abs(b.box.center[1] - (last + b.box.height / 2)) <= b.box.height]
        mid = (min(b.box.x0 for b in row) + max(b.box.x1 for b in row)) / 2
        if len(row) <= 2 and abs(mid - cx) <= k.centred * out.width:
            return item, row
    return None


def dialog_title(out: VisionOutput, k: Knobs = KNOBS) -> _Item | None:
    """A dialog's title (see `_dialog`), or None."""
    found = _dialog(out, k)
    return found[0] if found else None


def dialog_body(out: VisionOutput, k: Knobs = KNOBS) -> list[str]:
    """The fixed words of a dialog's body: read text between its title and its closing row, within the row's
    span widened by half its width each side (a confirm's question: "Rest for this turn?", "Use 1 Alarm Clock to
    try again?"). Two dialogs that share a title and buttons but ask other things are other screens: a spend is
    never the same screen as a rest (issue 40). Sorted and unique, so a body split over lines in another place
    keys the same."""
    found = _dialog(out, k)
    if found is None or out.scrollbar is not None:  # a body that scrolls is a list (options, terms): no question
        return []
    title, row = found
    top, bottom = title.box.y1, min(b.box.y0 for b in row)
    left, right = min(b.box.x0 for b in row), max(b.box.x1 for b in row)
    reach = BODY_REACH * (right - left)
    said = [w for i in _items(out, k) if not i.button and i is not title and top <= i.box.y0
            and i.box.y1 <= bottom and left - reach <= i.box.center[0] <= right + reach for w in _words(i.text)]
    return sorted(set(said[:BODY_WORDS]))


def choice_stack(out: VisionOutput, k: Knobs = KNOBS) -> bool:
    """A column of choice plates on a screen that does not scroll (a list's rows scroll): two wide plates, one
    under the other, with one left edge, or one wide plate with a line of text left-aligned in the next plate above
    or below it (a plate the reading took for text: the choices are drawn alike, read alike or not)."""
    if out.scrollbar is not None:
        return False
    if stacked(out, k.min_confidence):
        return True
    wide = [b.bounds for b in wide_plates(out, k.min_confidence)]
    texts = [t.bounds for t in out.texts if t.confidence >= k.min_confidence]
    return any(b.x0 <= t.x0 <= b.x0 + INSET * out.width and t.height <= b.height
               and (0 < t.y0 - b.y1 < NEXT_PLATE * b.height or 0 < b.y0 - t.y1 < NEXT_PLATE * b.height)
               for b in wide for t in texts)


def _side_panel(out: VisionOutput) -> str | None:
    """The tab chosen in a vertical tab bar (a side menu opens a panel over whatever is beside it)."""
    if out.menu is None or not out.menu.usable or out.menu.selected is None:
        return None
    tabs = [b for b in out.buttons if b.region == "menu"]
    if len(tabs) < MIN_TABS:
        return None
    xs = [b.bounds.center[0] for b in tabs]
    ys = [b.bounds.center[1] for b in tabs]
    return out.menu.selected if max(ys) - min(ys) > max(xs) - min(xs) else None


def _over(out: VisionOutput, head: _Item, dialog: _Item, k: Knobs) -> bool:
    """Whether a dialog covers the screen whose header still shows: its title is read text centred in the frame (a
    plate under a header is the screen's own, a trainee or a scenario to pick; a list's row sits at the left) and
    nothing between the header and it was read (the dim took the screen's body)."""
    centred = abs(dialog.box.center[0] - out.width / 2) <= k.centred * out.width
    return centred and not dialog.button and not any(head.box.y1 <= i.box.y0 and i.box.y1 <= dialog.box.y0
                                                     for i in _items(out, k))


def signature(out: VisionOutput, k: Knobs = KNOBS) -> tuple[str, str]:
    """(canonical signature, readable name) of the screen a reading shows."""
    panel = _side_panel(out)
    if out.cinematic != "none" and panel is None:
        if choice_page(out):  # an event's last page: its choices are a decision, its other pages move on alone
            return f"cinematic:{out.cinematic}|choices", f"{out.cinematic} (choices)"
        return f"cinematic:{out.cinematic}", out.cinematic.replace("_", " ")
    if panel is not None:
        return f"panel:{'-'.join(_words(panel))}", panel
    head, dialog = header(out, k), dialog_title(out, k)
    if dialog is not None and (head is None or head == dialog or _over(out, head, dialog, k)):
        asked = dialog_body(out, k)
        return f"dialog:{'-'.join(_words(dialog.text))}{'|' + '-'.join(asked) if asked else ''}", dialog.text
    if (title := head or top_title(out, k)) is not None:
        body = "|choices" if choice_stack(out, k) else ""
        name = title.text if not body else f"{title.text} (choices)"
        return f"title:{'-'.join(_words(title.text))}{body}", name
    if out.menu is not None and out.menu.selected is not None:
        # a screen reached from a tab and left by Back is not the tab's own screen (Scenario Select under Home)
        sub = "|back" if any(_words(b.name) == ["back"] for b in out.buttons if b.region != "menu") else ""
        return f"tab:{'-'.join(_words(out.menu.selected))}{sub}", out.menu.selected
    fixed = sorted({w for b in out.buttons if b.confidence >= k.min_confidence for w in _words(b.name)})
    return f"buttons:{'-'.join(fixed)}", "screen"


def identify(out: VisionOutput, k: Knobs = KNOBS) -> ScreenIdentity:
    """The identity of the screen a reading shows (a pure function of the reading), with what it asks to spend
    (facts/spends.py: not part of the id, a fact about the screen as shown)."""
    sig, name = signature(out, k)
    digest = hashlib.sha1(sig.encode("utf-8"), usedforsecurity=False).hexdigest()[:ID_CHARS]
    return ScreenIdentity(id=digest, name=name, kind=sig.split(":", 1)[0], spends=spends(out))
