"""Why the reading is what it is: `lluma vision IMAGE --explain [NAME]`.

`explain` lists each element of a reading (button, text, tab, gauge, value, mood, scrollbar) with what it is and
the rules that made it so, with the signed score each contributed (resolve.py's trace on the blocks).
`explain_name` says why no button of a given name was found: the texts that read like it (fuzzy), the rules that
fired on each and its score against the button line, or that no text reads like it at all.
"""

from __future__ import annotations

import difflib

from lluma_vision.evidence import ButtonScore, Step
from lluma_vision.models import Button, VisionOutput
from lluma_vision.pixels.layout import Block, clean_name, letters, split_annotation

# evidence: PART: 10bfa57 (what --explain NAME shows (a display choice, not measured)); the others: each on its own line
#   (a bench/knobs.py sweep, or docs/knob_debt.md)
# not measured: what --explain prints about a miss, which the reading never uses (docs/knob_debt.md)
ALIKE = 0.6  # a text reads like a name from this similarity on (difflib ratio over casefolded letters) on
# not measured: what --explain prints about a miss, which the reading never uses (docs/knob_debt.md)
NEAREST = 3  # how many of the nearest texts a miss shows
# not measured: what --explain prints about a miss, which the reading never uses (docs/knob_debt.md)
SHOWN = 60  # characters of a long text shown
PART = 4  # a text of this many letters or more found inside the name reads like a part of it ("Scout")
WHY = {  # what made the elements no block rule judges
    "icon.glyph": "an icon: its glyph matched a template (icons.py)",
    "supports.portrait": "a support card: a portrait with a face in the right column (facts/supports.py)",
    "disabled.greyer": "drawn disabled: its plate greyer or darker than its row's (rules/disabled.py)",
}


def _name(b: Block) -> str:
    return clean_name(split_annotation(b)[0])


def _trace(steps: list[Step], indent: str = "      ") -> list[str]:
    return [indent + s.line() for s in steps]


def _block_of(button: Button, blocks: list[Block]) -> Block | None:
    """The block an OCR button stands for: the k-th button block of its name, top to bottom (names are made unique
    with #k in that order)."""
    base, _, k = button.name.partition("#")
    alike = sorted((b for b in blocks if b.is_button and _name(b) == base), key=lambda b: (b.y0, b.x0))
    i = int(k) - 1 if k.isdigit() else 0
    return alike[i] if 0 <= i < len(alike) else (alike[0] if alike else None)


def _text_block(text: str, blocks: list[Block]) -> Block | None:
    return next((b for b in blocks if b.text == text), None) or next(
        (b for b in blocks if any(ln.text == text for ln in b.lines)), None)


def _other_rules(rules: list[str], shown: list[Step]) -> list[str]:
    """Rules named on an element that its block's trace does not hold (icons, disabled)."""
    seen = {s.rule for s in shown}
    return [f"      {r:<18} {WHY.get(r, '')}".rstrip() for r in rules if r not in seen]


def explain(out: VisionOutput, blocks: list[Block]) -> str:
    """Every element of `out` with what it is and the rules behind it; `blocks` are the reading's blocks (their
    traces give each rule's score)."""
    rows = [f"{out.width}x{out.height}  backend={out.backend}  cinematic={out.cinematic}  "
            f"(a block is a button from score {ButtonScore.BUTTON:.2f})"]
    for b in out.buttons:
        kind = "tab" if b.region == "menu" else "icon button" if b.source == "heuristic" else "button"
        block = _block_of(b, blocks) if b.source != "heuristic" else None
        score = f"score {block.score:.2f}, " if block is not None else ""
        rows.append(f"{kind:<11} {b.name!r}  ({score}confidence {b.confidence:.2f}{', ' + b.meta if b.meta else ''})")
        steps = block.trace if block is not None else []
        rows += _trace(steps) + _other_rules(b.rules, steps)
    for t in out.texts:
        block = _text_block(t.text, blocks)
        what = f"text of {t.meta_of!r}" if t.meta_of else "text"
        score = f"  (score {block.score:.2f})" if block is not None and block.trace else ""
        rows.append(f"{what:<11} {t.text[:SHOWN]!r}{score}")
        steps = block.trace if block is not None else []
        rows += _trace(steps) + _other_rules(t.rules, steps)
    if out.menu is not None:
        state = "usable" if out.menu.usable else "blocked (blurred or dimmed behind a dialog)"
        rows.append(f"menu        tabs {', '.join(out.menu.tabs) or '-'}; selected {out.menu.selected}; {state}"
                    "  (menu.py: a row of short distinct labels across the bottom or the side)")
    rows += [f"gauge       {g.label!r} {round(100 * g.fill)}%  (gauges.py: a filled run in a track, named by its "
             "caption)" for g in out.gauges]
    rows += [f"{v.kind:<11} {v.caption!r} = {v.value!r}  (values.py: a number printed under or beside its caption)"
             for v in out.values]
    if out.mood:
        rows.append(f"mood        {out.mood!r}  (gauges.py: the badge word beside the first gauge)")
    if out.scrollbar is not None:
        rows.append(f"scrollbar   up={out.scrollbar.up} down={out.scrollbar.down}  (heuristics.py: a thin track with "
                    "a thumb of another shade)")
    return "\n".join(rows)


def _key(text: str) -> str:
    """What two spellings of a name share: its letters, or for a name of none (a number) its letters and digits."""
    return letters(text) or "".join(c for c in text.casefold() if c.isalnum())


def _similarity(name: str, text: str) -> float:
    a, b = _key(name), letters(text) if letters(name) else _key(text)
    if not a or not b:
        return 0.0
    if a in b:  # the name read inside a longer text (joined with another line, or with a badge)
        return 1.0 if a == b else max(ALIKE, len(a) / len(b))
    if b in a and len(b) >= PART:  # a word of the name read alone (the rest unread, or read apart)
        return max(ALIKE, len(b) / len(a))
    return difflib.SequenceMatcher(None, a, b).ratio()


def _verdict(b: Block, name: str) -> str:
    """Why this block, which reads like `name`, is not a button named `name`."""
    if b.is_button:
        return f"it is a button, named {_name(b)!r} (the text reads differently)"
    if len(b.lines) > 1 and all(letters(name) != letters(ln.text) for ln in b.lines) and \
            letters(name) != letters(b.text):
        return f"read as part of the {len(b.lines)}-line text {b.text!r}"
    return f"score {b.score:.2f} is under the button line {ButtonScore.BUTTON:.2f}: read as text"


def explain_name(name: str, out: VisionOutput, blocks: list[Block]) -> str:
    """Why there is (or is not) a button called `name` in `out`."""
    found = [b for b in out.buttons if b.name.partition("#")[0].casefold() == name.casefold()]
    if found:
        rows = []
        for b in found:
            block = _block_of(b, blocks) if b.source != "heuristic" else None
            score = f"score {block.score:.2f}, " if block is not None else ""
            rows.append(f"{b.name!r} is a button ({score}confidence {b.confidence:.2f})")
            steps = block.trace if block is not None else []
            rows += _trace(steps) + _other_rules(b.rules, steps)
        return "\n".join(rows)
    near = sorted(((_similarity(name, b.text), i) for i, b in enumerate(blocks)), reverse=True)
    alike = [(s, blocks[i]) for s, i in near if s >= ALIKE][:NEAREST]
    if not alike:
        closest = ", ".join(f"{blocks[i].text[:SHOWN]!r} ({s:.2f})" for s, i in near[:NEAREST] if s > 0)
        return f"no button {name!r}: no text reads like {name!r}" + (f"; nearest: {closest}" if closest else "")
    rows = [f"no button {name!r}; texts that read like it:"]
    for s, blk in alike:
        rows.append(f"  {blk.text[:SHOWN]!r} (alike {s:.2f}): {_verdict(blk, name)}")
        rows += _trace(blk.trace)
    return "\n".join(rows)
