"""One resolver for "is this block a button": runs the rule families in their stage order, applies what they say,
and keeps the trace on each block (`Block.trace`: rule, signed score, why).

The rules, one file per family, each yielding `Evidence` (evidence.py) and never writing a block:
- `rules_text`: what the words say (numbers, prose, stats, a short label);
- `rules_plate`: the shape around the words (a plate, a closed shape, a card, a stack of alike plates, a banner);
- `rules_row`: the words' neighbours (a row of equal cells, a stat grid, a toggle pair);
- `rules_menu`: the tab bar (menu.py finds it);
- `rules_icon`: a caption under an icon, or a label an icon leads on its row (icons.py finds the icons).

Rules yield evidence and never write a block; evidence is applied as it is said, so a rule that reads a block's
score reads every earlier stage's evidence (and its own earlier words). The stages, and what each reads:

1. own look (`text`, `plate`): per block, a number/annotation is prose; else its own plate (centred or loose,
   then message or banner), else bare words (short label or prose); then paragraphs, long texts and stats capped.
   Reads nothing earlier; marks `edges.owner` for every block.
2. card titles (`plate.card`): reads stage 1: short labels, and the buttons (a card with its own button is not one).
   Two-letter words the recogniser doubted are judged in stages 1-2 too and kept only on a plate of their own.
   Then list items (`plate.list_item`): a card of a list found by its borders (pixels/cards.py) with no button is
   named by its biggest short label.
3. closed shapes (`plate.shape`): reads stages 1-2: short labels still without a frame.
4. tab bar (`menu`): found from the texts alone; the tabs rise to a plate, or fall to text when the bar is blurred.
5. rows (`row.cell`, `row.stat_grid`): reads stage 4 (tabs are not cells) and every score (a plated cell keeps its own).
6. stacks (`plate.stack`): reads the frames and scores: lifts doubted text on one of a stack of alike plates.
7. pairs (`row.toggle`): reads which blocks are plated buttons by now.
8. icon captions and labels (`icon.caption`, `icon.label`): after the icons are found (output.icon_buttons), reads
   whether the caption is a button already. The cinematic classifier and the badges read the scores after stage 7,
   before this one.
9. readouts (`gauge.readout`): after the gauges and the mood are read, a button named as a gauge's caption or the
   mood, beside the bar, falls to text.
10. greyed plates (`disabled.greyer`): judged with stage 9 on the buttons as they stood before it (a readout's plate
   still stands for its row's look), on device boxes; the block stays a button marked "disabled". An icon button is
   no block: its Button is marked the same way.
"""

from __future__ import annotations

from lluma_vision.buttons.rules import disabled as rules_disabled
from lluma_vision.buttons.rules import gauge as rules_gauge
from lluma_vision.buttons.rules import icon as rules_icon
from lluma_vision.buttons.rules import menu as rules_menu
from lluma_vision.buttons.rules import plate as rules_plate
from lluma_vision.buttons.rules import row as rules_row
from lluma_vision.buttons.rules import text as rules_text
from lluma_vision.evidence import ButtonScore, Step
from lluma_vision.geometry import Rect
from lluma_vision.models import Box, Button
from lluma_vision.pixels.icons import Icon
from lluma_vision.pixels.layout import Block, Edges, Said
from lluma_vision.pixels.menu import TabBarPx, TabMemory, tab_bar
from lluma_vision.pixels.ocr import Line, Work


def apply(said: Said) -> None:
    """Apply a rule's evidence in the order it is said (each before the rule goes on), keeping the trace."""
    for b, ev in said:
        before = b.score
        b.trace.append(Step(ev, before, ev.after(before)))


def _own_look(blocks: list[Block], edges: Edges, view: Rect) -> Said:
    """Stage 1 (see the module's docstring)."""
    edges.mark(blocks)
    for i, b in enumerate(blocks):
        first = rules_text.not_a_label(b)
        if first is not None:
            yield b, first
            continue
        for ev in rules_plate.own_plate(b, i + 1, edges, view):
            yield b, ev
        if b.score == 0.0:
            yield b, rules_text.bare(b)
        last = rules_text.not_a_button(b)
        if last is not None:
            yield b, last


def judge(blocks: list[Block], edges: Edges, view: Rect) -> None:
    """Stages 1 and 2 over `blocks`: each block's own look, then card titles."""
    apply(_own_look(blocks, edges, view))
    apply(rules_plate.card_titles(blocks, edges))


def buttons(work: Work, lines: list[Line], blocks: list[Block], doubtful: list[Line], edges: Edges,
            view: Rect, memory: TabMemory | None = None, cards: list[Rect] | None = None
            ) -> tuple[list[Line], list[Block], TabBarPx | None]:
    """Stages 1-7 (see the module's docstring). `doubtful` are two-letter words the recogniser dropped as marks:
    each is kept (a line and a block of its own) when it sits centred in a plate of its own ("On" on a toggle).
    Returns the lines and blocks with those kept, and the tab bar."""
    extra = [Block(lines=[ln]) for ln in doubtful]
    judge(blocks + extra, edges, view)
    kept = [b for b in extra if b.score >= ButtonScore.PLATE]
    if len(kept) < len(extra):
        edges.mark(blocks + kept)  # the dropped ones own no pixels for the steps after
    if kept:
        lines = sorted(lines + [b.lines[0] for b in kept], key=lambda ln: (ln.y0, ln.x0))
        blocks = blocks + kept
    width = int(view[2] - view[0])
    apply(rules_plate.list_items(blocks, cards or []))
    apply(rules_plate.closed_shapes(blocks, edges))
    tabs = tab_bar(work, blocks, view, edges, memory)
    apply(rules_menu.tabs(tabs, blocks))
    apply(rules_row.cells(blocks, width, work.rgb))
    apply(rules_plate.stacks(blocks, width))
    apply(rules_row.pairs(blocks))
    return lines, blocks, tabs


def icon_caption(cap: Block, ic: Icon, how: str = "caption") -> None:
    """Stage 8 for one icon: `cap` names it, as its caption or as the label it leads on its row (`how`)."""
    apply(rules_icon.label(cap, ic) if how == "label" else rules_icon.caption(cap, ic))


def readouts_and_greyed(work: Work, blocks: list[Block], looks: list[Button], icons: list[Button], names: set[str],
                        bars: list[Box]) -> list[Button]:
    """Stages 9 and 10 over the button blocks and their `looks` (their buttons as read so far, device pixels, in
    order), beside the icon buttons; `names` are the letters of the gauges' captions and the mood, `bars` the
    gauges. Returns the icon buttons, those drawn disabled marked."""
    found = rules_disabled.greyed(work, looks + icons, bars)
    apply(rules_gauge.readouts(blocks, looks, names, bars))
    apply(rules_disabled.greyer(blocks, looks, found))
    return [rules_disabled.mark(b) if len(looks) + k in found else b for k, b in enumerate(icons)]
