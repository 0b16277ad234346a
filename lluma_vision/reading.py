"""The offline reading of a frame: OCR + layout + pixel heuristics -> VisionOutput (device pixels).

`Reading` keeps the working-space intermediates (OCR lines with their ids, blocks) so the VLM
backend can ground its answer on the same lines and fall back to this reading when it fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lluma_vision import cinematic as cine
from lluma_vision import resolve
from lluma_vision.checks import check
from lluma_vision.disabled import beside_gauge, mark_disabled
from lluma_vision.gauges import GaugePx, badge, find_gauges
from lluma_vision.heuristics import ScrollbarPx, scrollbar, viewport
from lluma_vision.icons import Icon, find_icons
from lluma_vision.layout import (
    Block,
    ButtonScore,
    Edges,
    attach_badges,
    clean_name,
    group_lines,
    split_annotation,
)
from lluma_vision.menu import TabBarPx, TabMemory
from lluma_vision.models import (
    Button,
    CaptionedValue,
    Gauge,
    MenuState,
    Rect,
    Region,
    Scrollbar,
    TextLine,
    VisionOutput,
)
from lluma_vision.ocr import Line, Work, read_lines
from lluma_vision.reread import (
    SHORT_CAPTION,
    badge_words,
    gains_like_siblings,
    numbers_over,
    numbers_over_caps,
    numbers_without_icons,
    stacked_gains,
    widened_numbers,
    without_icon_letter,
)
from lluma_vision.values import (
    CAP_TAIL,
    box_key,
    boxes_of,
    caption_stacks,
    caption_text,
    is_bare_number,
    read_values,
    split_words,
)

BUTTON_FLOOR = 0.0  # buttons below this confidence are reported as read text (bench/vision.py: held-out choice)
ICON_RULE = "icon.glyph"  # a bare icon: its glyph matched a template (icons.find_icons)


@dataclass
class Reading:
    work: Work
    lines: list[Line]  # OCR lines; a line's id is its index here
    blocks: list[Block]
    view: Rect
    tabs: TabBarPx | None
    scroll: ScrollbarPx | None
    cinematic: str
    output: VisionOutput  # the OCR backend's answer
    icons: list[Icon] = field(default_factory=list)
    value_lines: set[int] = field(default_factory=set)  # id() of the lines read as captioned values (not texts)


def region_of(view: Rect, x: float, y: float, tab: bool = False) -> Region:
    """Coarse position of a working-space point: beside the game's viewport (PC captures), or its band."""
    if tab:
        return "menu"
    if x < view[0]:
        return "left"
    if x > view[2]:
        return "right"
    vy0, vy1 = view[1], view[3]
    f = (y - vy0) / max(1, vy1 - vy0)
    return "top" if f < 0.15 else "bottom" if f > 0.85 else "middle"


def unique_names(buttons: list[Button]) -> list[Button]:
    """Make names unique: the second 'OK' becomes 'OK#2' (top-to-bottom, left-to-right order)."""
    seen: dict[str, int] = {}
    out = []
    for b in sorted(buttons, key=lambda b: (b.bounds.y0, b.bounds.x0)):
        key = b.name.casefold()
        seen[key] = seen.get(key, 0) + 1
        out.append(b if seen[key] == 1 else b.model_copy(update={"name": f"{b.name}#{seen[key]}"}))
    return out


def _button_box(b: Block) -> tuple[float, float, float, float]:
    # the enclosing shape when it is clearly the button's own; otherwise the text itself
    if b.frame is not None and b.score >= ButtonScore.PLATE:
        return b.frame
    return (b.x0, b.y0, b.x1, b.y1)


def block_button(work: Work, view: Rect, b: Block, weight: float = 1.0) -> Button:
    """The Button an OCR block stands for (device pixels); `weight` scales its confidence."""
    name, notes = split_annotation(b)
    return Button(
        name=clean_name(name),
        meta=", ".join(notes + b.meta),
        region=region_of(view, b.cx, b.cy, b.tab),
        bounds=work.to_device(*_button_box(b)),
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
    return TextLine(text=part.text, bounds=work.to_device(part.x0, part.y0, part.x1, part.y1),
                    confidence=round(part.conf, 3), rules=b.rules)


def line_values(work: Work, lines: list[Line]) -> tuple[list[CaptionedValue], set[int]]:
    """Captioned values from the single OCR lines (blocks may have stacked a caption, its number and the next
    row's words into one text), in device pixels; and the id()s of the lines joined across lines (not read text).
    A bare number's badge word (`badge_words`) joins the lines as a caption of its own."""
    lines = lines + numbers_over_caps(work, lines)
    lines = lines + badge_words(work, [ln for ln in lines if is_bare_number(ln.text)],
                                [ln for ln in lines if not CAP_TAIL.match(ln.text.strip())])  # a cap is the number's
    texts = [TextLine(text=split_words(ln.text), bounds=work.to_device(ln.x0, ln.y0, ln.x1, ln.y1),
                      confidence=round(ln.conf, 3)) for ln in lines]
    values, used = read_values(texts, work.width)
    # a caption left without a value may have one OCR missed: over it, or (a two-line caption) just left of it, or
    # (an abbreviation on one line) right of it at the other end of its cell;
    # a stack may have taken the next plate's words too ("turn(s) left" over "Support Card Event"), so its top line
    # is tried alone after the whole
    stacks = [(text, members) for text, _box, members in caption_stacks(texts) if not used & set(members)]
    for beside in (True, False):
        tries = [(t, m) for t, m in stacks if len(m) > 1] if beside else [
            (t, m) for t, m in stacks if len(m) == 1] + [
            (caption_text(texts[m[0]].text), m[:1]) for _t, m in stacks if len(m) > 1 and not used & set(m)]
        boxes = [(min(lines[i].x0 for i in m), min(lines[i].y0 for i in m), max(lines[i].x1 for i in m),
                  max(lines[i].y1 for i in m)) for _text, m in tries]
        short = [len(members) == 1 and len(text.replace(" ", "")) <= SHORT_CAPTION for text, members in tries]
        found_all = numbers_over(work, boxes, lines, beside, short)
        for (text, members), box, found in zip(tries, boxes, found_all, strict=True):
            if found is not None and not used & set(members):
                number, band = found
                values.append(CaptionedValue(caption=text, value=number, bounds=work.to_device(
                    min(box[0], band[0]), min(box[1], band[1]), max(box[2], band[2]), max(box[3], band[3]))))
                used.update(members)
    values += gains_like_siblings(work, values, lines)
    values += stacked_gains(work, [v for v in values if v.kind == "gain"], lines)
    # a line that is a fact or a gain by itself stays read text too (a training's "Fail 12%" is its button's meta)
    whole = boxes_of(values)
    return values, {id(lines[i]) for i in used if box_key(texts[i].bounds) not in whole}


def _caption(icon: Icon, blocks: list[Block]) -> Block | None:
    """A short label just under or over an icon, centred on it: the icon's name ("Log")."""
    ih = icon.y1 - icon.y0
    icx = (icon.x0 + icon.x1) / 2
    for b in blocks:
        iw = icon.x1 - icon.x0
        if len(b.text.split()) > 3 or b.x1 - b.x0 > 2.5 * iw or abs(b.cx - icx) > 0.3 * iw:
            continue
        if -0.25 * ih <= b.y0 - icon.y1 <= 0.6 * ih or -0.25 * ih <= icon.y0 - b.y1 <= 0.6 * ih:
            return b
    return None


def icon_buttons(work: Work, view: Rect, icons: list[Icon], blocks: list[Block]) -> list[Button]:
    """Icons as buttons: a captioned icon makes its caption a button spanning both (the caption names it);
    a bare icon is named by its glyph. Icons inside a labelled button's shape belong to that button."""
    out: list[Button] = []
    shapes = [b.frame or (b.x0, b.y0, b.x1, b.y1) for b in blocks if b.is_button]
    for ic in icons:
        cx, cy = (ic.x0 + ic.x1) / 2, (ic.y0 + ic.y1) / 2
        if any(f[0] <= cx <= f[2] and f[1] <= cy <= f[3] for f in shapes):
            continue
        cap = _caption(ic, blocks)
        if cap is not None and cap.is_button:
            continue
        if cap is not None:
            resolve.icon_caption(cap, ic)
            continue
        box = work.to_device(ic.x0, ic.y0, ic.x1, ic.y1)
        out.append(Button(name=ic.name, region=region_of(view, cx, cy), bounds=box, source="heuristic",
                          confidence=round(ic.score, 3), rules=[ICON_RULE]))
    return out


def demote(out: VisionOutput, floor: float) -> VisionOutput:
    """The reading with buttons below `floor` confidence reported as read text (still tappable by name)."""
    weak = [b for b in out.buttons if b.confidence < floor]
    if not weak:
        return out
    texts = out.texts + [TextLine(text=b.name.split("#")[0], bounds=b.bounds, confidence=b.confidence,
                                  rules=b.rules) for b in weak]
    return out.model_copy(update={"buttons": [b for b in out.buttons if b.confidence >= floor], "texts": texts})


def _letters(name: str) -> str:
    return "".join(c for c in name.casefold() if c.isascii() and c.isalpha())


def build_output(work: Work, blocks: list[Block], view: Rect, tabs: TabBarPx | None,
                 scroll: ScrollbarPx | None, kind: str, icons: list[Icon] | None = None,
                 gauges: list[GaugePx] | None = None, mood: str | None = None,
                 values: list[CaptionedValue] | None = None, value_lines: set[int] | None = None) -> VisionOutput:
    extra = icon_buttons(work, view, icons or [], blocks)
    bars = [work.to_device(g.x0, g.y0, g.x1, g.y1) for g in gauges or []]
    buttons = mark_disabled(work.rgb, work.scale, [block_button(work, view, b) for b in blocks if b.is_button] + extra,
                            bars)
    if tabs is not None and not tabs.usable:  # the bar is blurred/dimmed behind a pop-up: what is sharp is in it
        buttons = [b if b.region == "menu" else b.model_copy(update={"region": "dialog"}) for b in buttons]
    texts = [t for b in blocks if not b.is_button and (t := block_text(work, b, value_lines)) is not None]
    # a gauge's caption and its mood badge drawn on plates are readouts (the reading's gauges and mood), not buttons
    readouts = ({_letters(g.label) for g in gauges or []} | {_letters(mood or "")}) - {""}  # "": a name of no letters
    shown = [b for b in buttons if _letters(b.name) in readouts and beside_gauge(b.bounds, bars)]
    buttons = [b for b in buttons if b not in shown]
    texts += [TextLine(text=b.name, bounds=b.bounds, confidence=b.confidence, rules=[*b.rules, "gauge.readout"])
              for b in shown]
    menu = None
    if tabs is not None:
        names = [clean_name(t.text) for t in tabs.tabs]
        sel = names[tabs.selected] if tabs.selected is not None else None
        menu = MenuState(usable=tabs.usable, selected=sel, tabs=names)
    sb = None
    if scroll is not None:
        sb = Scrollbar(track=work.to_device(*scroll.track), thumb=work.to_device(*scroll.thumb),
                       up=scroll.up, down=scroll.down)
    out = VisionOutput(
        width=work.width, height=work.height, buttons=unique_names(buttons), texts=texts,
        menu=menu, scrollbar=sb, cinematic=kind, backend="ocr", mood=mood, values=values or [],
        gauges=[Gauge(label=clean_name(g.label), fill=min(1.0, g.fill), bounds=bar)
                for g, bar in zip(gauges or [], bars, strict=True)],
    )
    return demote(out, BUTTON_FLOOR)


def read_frame(work: Work, det_limit: int = 960, threads: int = 0, memory: TabMemory | None = None) -> Reading:
    """Read a frame offline. `memory` (updated here) lets a blurred tab bar be recognised from a sharp one."""
    doubtful: list[Line] = []
    # a number whose box cut off its last glyph is read again over it before anything takes its text
    # (and a grade badge read as a digit beside a number goes)
    lines = widened_numbers(work, numbers_without_icons(
        read_lines(work, det_limit=det_limit, threads=threads, doubtful=doubtful)))
    edges = Edges(work.rgb, span=2 if work.scale > 1.2 else 1)
    blocks = group_lines(lines, work.rgb)
    view = viewport(work.rgb)
    # which blocks are buttons: the rules' evidence, applied in resolve.py's stage order and kept on each block
    lines, blocks, tabs = resolve.buttons(work, lines, blocks, doubtful, edges, view, memory)
    if memory is not None and tabs is not None and tabs.usable and tabs.tabs:
        memory.remember(work, tabs)
    blocks = attach_badges(blocks)
    kind = cine.classify(work.rgb, blocks, view)
    # a scrolling list only matters when the player can act; scenery makes false tracks
    scroll = scrollbar(work.rgb) if kind == "none" else None
    icons = find_icons(work.rgb, [(ln.x0, ln.y0, ln.x1, ln.y1) for ln in lines]) if kind == "none" else []
    gauges = find_gauges(work.rgb, lines) if kind == "none" else []
    found = badge(gauges, lines, work.rgb.shape[1])
    mood = without_icon_letter(work, *found) if found else None
    values, used = line_values(work, lines) if kind == "none" else ([], set())
    values = check(work, lines, values)  # a value the game could not show: re-read, else marked doubtful
    out = build_output(work, blocks, view, tabs, scroll, kind, icons, gauges, mood, values, used)
    return Reading(work=work, lines=lines, blocks=blocks, view=view, tabs=tabs, scroll=scroll,
                   cinematic=kind, output=out, icons=icons, value_lines=used)

