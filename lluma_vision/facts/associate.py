"""Put loose OCR text where it belongs, so the model reads "Speed 90", not "Speed" ... "90".

Two layout rules, in device pixels, for any backend's reading:
- a number under a short label (a stat grid), or to the right of it on the same row with nothing
  in between ("Energy [bar] 100/100"), joins the label;
- text on a button's row, beside it with no other button in between (a training's "Fail 12%",
  a skill's name and cost next to its Learn button), becomes that button's `meta`. It stays a read
  text line too (`meta_of` names the button): it may be the thing to tap (a list row's title beside
  a tag, a dialog's second button the detector missed). Speech is not state: prose (whole sentences) taller than
  the button, a paragraph running past its row (a speech bubble beside "Full Stats", a story's line beside a
  skill's "Effects"), stays text of its own.
"""

from __future__ import annotations

import re

from lluma_vision.facts.values import GAIN, SAME_COLUMN, fact_of, read_values, split_words
from lluma_vision.models import Box, Button, TextLine, VisionOutput
from lluma_vision.pixels.layout import PROSE_WORDS

# evidence: 29bec38 (values joined to their labels (Speed 90, Energy 100/100) on the sim's hub and training screens)
VALUE = re.compile(r"^[+\-]?\d[\d.,/%+\- ]{0,10}(pt|pts)?$")
LABEL_MAX_CHARS = 24
META_MAX_CHARS = 90
ROW_GAP_FRACTION = 0.6  # how far (of the screen width) a value or a meta text may sit from its anchor
# a number under a label starts within 1.5 of their heights under it, centres within 0.6 of the wider one's width
# (values.SAME_COLUMN); a button taller than 15% of the frame is a panel, not a row's button (29bec38: the stat grid's
# "Speed 90" and the training row's "Fail 12%" on the simulator's hub and training screens)
LABEL_OVER = 1.5
ROW_BUTTON_MAX = 0.15
SPEECH_END = (".", "?", "!", "…")  # a sentence's end: with PROSE_WORDS words or more, speech


def _speech(t: TextLine, beside: Box) -> bool:
    """Whole sentences taller than the button beside them: a paragraph (a speech bubble), no label of its row. On
    the labelled real screens the bubble, a skill's description and an event's line stand 1.5-2.3 buttons tall;
    sentences on one line ("Place top 5 in Hanshin J.F.", "Hint Lvl 1. 10% OFF!") 0.5-0.9 and keep their button."""
    return (len(t.text.split()) >= PROSE_WORDS and t.text.rstrip().endswith(SPEECH_END)
            and t.bounds.height > beside.height)


def _vcenter(b: Box) -> float:
    return (b.y0 + b.y1) / 2


def _same_row(a: Box, b: Box) -> bool:
    return abs(_vcenter(a) - _vcenter(b)) < 0.5 * max(a.height, b.height)


def _between(left: Box, right: Box, other: Box) -> bool:
    """`other` sits on the row between `left` and `right`."""
    return left.x1 <= other.center[0] <= right.x0 and other.y0 < _vcenter(left) < other.y1


def _label_for(value: TextLine, texts: list[TextLine], taken: set[int], width: int) -> int | None:
    v = value.bounds
    best: tuple[float, int] | None = None
    for i, t in enumerate(texts):
        # a label is words: "Turn 1/24" above "100/100" is a counter, not the value's name
        if i in taken or t is value or any(c.isdigit() for c in t.text) or len(t.text) > LABEL_MAX_CHARS:
            continue
        b = t.bounds
        # a signed number is a gain printed over its caption (values.read_values), never the value of the words above
        above = (not GAIN.match(value.text.strip()) and 0 <= v.y0 - b.y1 < LABEL_OVER * max(b.height, v.height)
                 and abs(b.center[0] - v.center[0]) < SAME_COLUMN * max(b.width, v.width))
        left = _same_row(b, v) and 0 <= v.x0 - b.x1 < ROW_GAP_FRACTION * width
        if left and any(_between(b, v, o.bounds) for o in texts if o is not t and o is not value):
            left = False
        if above or left:
            dist = (v.y0 - b.y1) if above else (v.x0 - b.x1)
            if best is None or dist < best[0]:
                best = (dist, i)
    return best[1] if best else None


def pair_values(texts: list[TextLine], width: int) -> list[TextLine]:
    ordered = sorted(texts, key=lambda t: (t.bounds.y0, t.bounds.x0))
    merged: dict[int, TextLine] = {}
    taken: set[int] = set()
    for value in ordered:
        if not VALUE.match(value.text.strip()):
            continue
        i = _label_for(value, ordered, taken | set(merged), width)
        if i is None:
            continue
        label = merged.get(i, ordered[i])
        merged[i] = TextLine(
            text=f"{label.text} {value.text.strip()}",
            bounds=label.bounds.union(value.bounds),
            confidence=min(label.confidence, value.confidence),
        )
        taken.add(ordered.index(value))
    return [merged.get(i, t) for i, t in enumerate(ordered) if i not in taken]


def _owner(t: TextLine, buttons: list[Button], width: int, height: int) -> int | None:
    best: tuple[int, int] | None = None
    cy = _vcenter(t.bounds)
    # a number or a captioned value is a fact of its own, never the meta of an icon that happens to sit beside it
    numeric = bool(VALUE.match(t.text.strip())) or fact_of(t.text) is not None
    for i, b in enumerate(buttons):
        box = b.bounds
        if numeric and b.source == "heuristic":
            continue
        if b.region == "menu" or box.height > ROW_BUTTON_MAX * height or not box.y0 <= cy <= box.y1 or \
                _speech(t, box):
            continue
        gap = t.bounds.x0 - box.x1 if t.bounds.x0 >= box.x1 else box.x0 - t.bounds.x1 if t.bounds.x1 <= box.x0 else -1
        if gap < 0 or gap > ROW_GAP_FRACTION * width:
            continue
        lo, hi = (box, t.bounds) if t.bounds.x0 >= box.x1 else (t.bounds, box)
        if any(o is not b and _between(lo, hi, o.bounds) for o in buttons):
            continue
        if best is None or gap < best[0]:
            best = (gap, i)
    return best[1] if best else None


def associate(out: VisionOutput) -> VisionOutput:
    if not out.texts:
        return out
    spaced = [t.model_copy(update={"text": split_words(t.text)}) for t in out.texts]
    texts = pair_values(spaced, out.width)
    # the reading's values come from single OCR lines; a reading without them (another backend) is read from its texts
    values = out.values or read_values(texts, out.width)[0]
    metas: dict[int, list[str]] = {}
    loose: list[TextLine] = []
    for t in texts:
        owner = _owner(t, out.buttons, out.width, out.height)
        if owner is None:
            loose.append(t)
        else:
            metas.setdefault(owner, []).append(t.text.strip())
            loose.append(t.model_copy(update={"meta_of": out.buttons[owner].name}))
    buttons = []
    for i, b in enumerate(out.buttons):
        if i in metas:
            meta = ", ".join(([b.meta] if b.meta else []) + metas[i])
            b = b.model_copy(update={"meta": meta if len(meta) <= META_MAX_CHARS else meta[: META_MAX_CHARS - 1] + "…"})
        buttons.append(b)
    return out.model_copy(update={"buttons": buttons, "texts": loose, "values": values})
