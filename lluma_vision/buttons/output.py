"""The reading's parts as output models: working-space blocks, icons and lines -> device-pixel Buttons and TextLines.

Every box leaves through `Work.to_device` (the one crossing into device pixels); what is named here is how a
block becomes a Button (its box, its region, its confidence) and how names are made unique.
"""

from __future__ import annotations

from lluma_vision.buttons import resolve
from lluma_vision.geometry import Rect
from lluma_vision.models import Button, Region, TextLine
from lluma_vision.pixels.icons import Icon
from lluma_vision.pixels.layout import Block, ButtonScore, clean_name, split_annotation
from lluma_vision.pixels.ocr import Work

# A point's band within the viewport: the top and bottom 15% hold a screen's header and its action row (the
# regions the model is told; hub and dialog layouts of the labelled screens put their bars there)
TOP_BAND = 0.15
BOTTOM_BAND = 0.85

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# An icon's caption: a short label (at most CAPTION_WORDS words, at most CAPTION_WIDTH icon widths wide) centred on
# the icon (within CAPTION_CENTRE of its width), just under or over it: its gap from CAPTION_OVERLAP (overlapping)
# to CAPTION_GAP of the icon's height (the hub's "Log"/"Menu" captions sit 0.1-0.4 heights under their icons)
# tried 0.5x and 1.5x on 64 screens (45 read it): readings identical at 0.5x and 1.5x; kept 3
CAPTION_WORDS = 3
# swept 0.5x-1.5x on 64 screens (45 read it): screens2 flat 0.75x-1.5x (0.5x -2), held out screens flat 0.75x-1.25x
#   (0.5x -1, 1.5x +3); kept 2.5
CAPTION_WIDTH = 2.5
# tried 0.5x and 1.5x on 64 screens (45 read it): readings identical at 0.5x and 1.5x; kept 0.3
CAPTION_CENTRE = 0.3
# tried 0.5x and 1.5x on 64 screens (45 read it): readings identical at 0.5x and 1.5x; kept -0.25
CAPTION_OVERLAP = -0.25
# swept 0.5x-1.5x on 64 screens (45 read it): screens2 flat 0.75x-1.5x (0.5x -1), held out screens flat 0.5x-1.5x; kept
#   0.6
CAPTION_GAP = 0.6
# A leading icon's label: a list row as Android draws one (AOSP's app-error dialog, Material's list items: a 24 dp
# icon, the label 32 dp after it, both centred on the row), named by the words, not the glyph. The label starts
# LEAD_GAP icon widths after the icon (the sim's "isn't responding" rows 1.1, AOSP 1.33) and is centred on it within
# LEAD_CENTRE of its height. Near misses on the labelled real screens, left as they were: words tight against a
# stepper's plate ("Obtained" 0.14 widths after a Minus, "Friend Points" 0.07 after a Menu), or off its centre
# ("Energy" under an Info 0.59 heights off, a clock 0.31 off)
# tried 0.5x and 1.5x on 64 screens (45 read it): readings identical at 0.5x and 1.5x; kept (0.5, 2.0)
LEAD_GAP = (0.5, 2.0)
# swept 0.5x-1.5x on 64 screens (45 read it): screens2 flat 0.5x-1.25x (1.5x -2), held out screens flat 0.5x-1.5x; kept
#   0.25
LEAD_CENTRE = 0.25


ICON_RULE = "icon.glyph"  # a bare icon: its glyph matched a template (icons.find_icons)


def region_of(view: Rect, x: float, y: float, tab: bool = False) -> Region:
    """Coarse position of a working-space point: beside the game's viewport (PC captures), or its band."""
    if tab:
        return "menu"
    if x < view.x0:
        return "left"
    if x > view.x1:
        return "right"
    f = (y - view.y0) / max(1, view.y1 - view.y0)
    return "top" if f < TOP_BAND else "bottom" if f > BOTTOM_BAND else "middle"


def unique_names(buttons: list[Button]) -> list[Button]:
    """Make names unique: the second 'OK' becomes 'OK#2' (top-to-bottom, left-to-right order)."""
    seen: dict[str, int] = {}
    out = []
    for b in sorted(buttons, key=lambda b: (b.bounds.y0, b.bounds.x0)):
        key = b.name.casefold()
        seen[key] = seen.get(key, 0) + 1
        out.append(b if seen[key] == 1 else b.model_copy(update={"name": f"{b.name}#{seen[key]}"}))
    return out


def _button_box(b: Block) -> Rect:
    # the enclosing shape when it is clearly the button's own; otherwise the text itself
    if b.frame is not None and b.score >= ButtonScore.PLATE:
        return Rect.of(b.frame)
    return Rect.of(b)


def block_button(work: Work, view: Rect, b: Block, weight: float = 1.0) -> Button:
    """The Button an OCR block stands for (device pixels); `weight` scales its confidence."""
    name, notes = split_annotation(b)
    return Button(
        name=clean_name(name),
        meta=", ".join(notes + b.meta + b.marks),
        region=region_of(view, b.cx, b.cy, b.tab),
        bounds=work.to_device(_button_box(b)),
        source="ocr",
        confidence=round(weight * b.conf * b.score, 3),
        rules=b.rules,
    )


def block_text(work: Work, b: Block, skip: set[int] | None = None) -> TextLine | None:
    """The block as read text, without the lines in `skip` (id()s of lines shown as captioned values)."""
    lines = [ln for ln in b.lines if id(ln) not in (skip or ())]
    if not lines:
        return None
    part = b if len(lines) == len(b.lines) else Block(lines=lines)
    return TextLine(text=part.text, bounds=work.to_device(part), confidence=round(part.conf, 3), rules=b.rules)


def _caption(icon: Icon, blocks: list[Block]) -> Block | None:
    """A short label just under or over an icon, centred on it: the icon's name ("Log")."""
    ic = Rect.of(icon)
    ih, iw = ic.height, ic.width
    for b in blocks:
        if len(b.text.split()) > CAPTION_WORDS or b.x1 - b.x0 > CAPTION_WIDTH * iw or \
                abs(b.cx - ic.cx) > CAPTION_CENTRE * iw:
            continue
        if CAPTION_OVERLAP * ih <= b.y0 - ic.y1 <= CAPTION_GAP * ih or \
                CAPTION_OVERLAP * ih <= ic.y0 - b.y1 <= CAPTION_GAP * ih:
            return b
    return None


def _leading(icon: Icon, blocks: list[Block]) -> Block | None:
    """A short label in words starting a little after an icon on its row: the icon leads a list row ("Wait")."""
    ic = Rect.of(icon)
    for b in blocks:
        if len(b.text.split()) > CAPTION_WORDS or not any(c.isalpha() for c in b.text) or \
                abs(b.cy - ic.cy) > LEAD_CENTRE * ic.height:
            continue
        if LEAD_GAP[0] * ic.width <= b.x0 - ic.x1 <= LEAD_GAP[1] * ic.width:
            return b
    return None


def icon_buttons(work: Work, view: Rect, icons: list[Icon], blocks: list[Block]) -> list[Button]:
    """Icons as buttons: a captioned icon, or one leading a label on its row, makes the label a button spanning
    both (the words name it); a bare icon is named by its glyph. Icons inside a labelled button's shape belong to
    that button."""
    out: list[Button] = []
    shapes = [Rect.of(b.frame or b) for b in blocks if b.is_button]
    for ic in icons:
        r = Rect.of(ic)
        if any(f.contains(r.cx, r.cy) for f in shapes):
            continue
        cap, how = _caption(ic, blocks), "caption"
        if cap is None:
            cap, how = _leading(ic, blocks), "label"
        if cap is not None and cap.is_button:
            continue
        if cap is not None:
            resolve.icon_caption(cap, ic, how)
            continue
        out.append(Button(name=ic.name, region=region_of(view, r.cx, r.cy), bounds=work.to_device(r),
                          source="heuristic", confidence=round(ic.score, 3), rules=[ICON_RULE]))
    return out

