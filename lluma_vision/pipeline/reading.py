"""The offline reading of a frame: OCR + layout + pixel heuristics -> VisionOutput (device pixels).

`read_frame` runs `STAGES` in order over one `Reading`, which each stage fills: the list below is the one place
that says what the reading does and what each step contributes. Adding a detector is a function in its own file,
a line in `STAGES`, and the output field it fills (in `output_stage`, or a stage after it).

`Reading` keeps the working-space intermediates (OCR lines with their ids, blocks) so the VLM backend can ground
its answer on the same lines and fall back to this reading when it fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lluma_vision.buttons import resolve
from lluma_vision.buttons.output import block_button, block_text, icon_buttons, region_of, unique_names
from lluma_vision.buttons.rules.gauge import READOUT
from lluma_vision.evidence import ButtonScore
from lluma_vision.facts import cinematic as cine
from lluma_vision.facts.captioned import line_values
from lluma_vision.facts.captions import captions_stage, gauge_label
from lluma_vision.facts.checks import checks_stage
from lluma_vision.facts.raised import raised
from lluma_vision.facts.reread import numbers_without_icons, widened_numbers, without_icon_letter
from lluma_vision.facts.supports import supports
from lluma_vision.geometry import Rect
from lluma_vision.models import Button, CaptionedValue, Gauge, MenuState, Scrollbar, Support, TextLine, VisionOutput
from lluma_vision.pixels.bonds import find_bonds
from lluma_vision.pixels.cards import find_cards
from lluma_vision.pixels.faces import has_face
from lluma_vision.pixels.gauges import GaugePx, badge, find_gauges
from lluma_vision.pixels.heuristics import ScrollbarPx, scrollbar, viewport
from lluma_vision.pixels.icons import Icon, find_icons
from lluma_vision.pixels.layout import (
    Block,
    Edges,
    attach_badges,
    clean_name,
    group_lines,
    letters,
)
from lluma_vision.pixels.menu import TabBarPx, TabMemory
from lluma_vision.pixels.ocr import Line, Work, read_lines
from lluma_vision.pixels.portraits import find_portraits

# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# an upscaled frame's edges are soft over two pixels: from this scale on the edge maps compare pixels two apart
# (frames of 420-540 px wide come in at 1.3-1.7)
# swept 0.5x-1.5x on 64 screens (64 read it): screens2 flat 1x-1.5x (0.75x -17), held out screens flat 1x-1.5x (0.75x
#   -4); kept 1.2
SOFT_EDGE_SCALE = 1.2
SUPPORT_CARD = "Support card"  # a support card's portrait as a button: no words on it, so named by what it is


@dataclass
class Reading:
    """One frame's reading as the stages fill it (working pixels inside; `output` in device pixels)."""

    work: Work
    det_limit: int = 960
    threads: int = 0
    memory: TabMemory | None = None  # lets a blurred tab bar be recognised from a sharp one (updated by `buttons`)
    lines: list[Line] = field(default_factory=list)  # OCR lines; a line's id is its index here
    doubtful: list[Line] = field(default_factory=list)  # two-letter words OCR dropped for its doubt (a plate may keep)
    blocks: list[Block] = field(default_factory=list)
    view: Rect = Rect(0, 0, 0, 0)
    edges: Edges | None = None
    tabs: TabBarPx | None = None
    cinematic: str = "none"
    scroll: ScrollbarPx | None = None
    cards: list[Rect] = field(default_factory=list)  # a list's cards (working pixels)
    icons: list[Icon] = field(default_factory=list)
    gauges: list[GaugePx] = field(default_factory=list)
    mood: str | None = None
    values: list[CaptionedValue] = field(default_factory=list)  # device pixels (read off the output's lines)
    value_lines: set[int] = field(default_factory=set)  # id() of the lines read as captioned values (not texts)
    output: VisionOutput = field(init=False)  # the OCR backend's answer, built by `output_stage`

    def __post_init__(self) -> None:
        self.output = VisionOutput(width=self.work.device_width, height=self.work.device_height)


def ocr_stage(r: Reading) -> None:
    # a number whose box cut off its last glyph is read again over it before anything takes its text
    # (and a grade badge read as a digit beside a number goes)
    lines = read_lines(r.work, det_limit=r.det_limit, threads=r.threads, doubtful=r.doubtful)
    r.lines = widened_numbers(r.work, numbers_without_icons(lines))


def layout_stage(r: Reading) -> None:
    rgb = r.work.rgb
    r.edges = Edges.soft(rgb) if r.work.scale > SOFT_EDGE_SCALE else Edges(rgb)
    r.blocks = group_lines(r.lines, rgb)
    r.view = viewport(rgb)
    r.cards = find_cards(rgb, r.lines, span=2 if r.work.scale > SOFT_EDGE_SCALE else 1)


def buttons_stage(r: Reading) -> None:
    """Which blocks are buttons (resolve.py: the rules' evidence, kept on each block), the tab bar, badges attached
    to their buttons."""
    assert r.edges is not None  # layout_stage ran
    r.lines, r.blocks, r.tabs = resolve.buttons(r.work, r.lines, r.blocks, r.doubtful, r.edges, r.view, r.memory,
                                                r.cards)
    if r.memory is not None and r.tabs is not None and r.tabs.usable and r.tabs.tabs:
        r.memory.remember(r.work, r.tabs)
    r.blocks = attach_badges(r.blocks)


def cinematic_stage(r: Reading) -> None:
    r.cinematic = cine.classify(r.work.rgb, r.blocks, r.view)


def scrollbar_stage(r: Reading) -> None:
    """A bar on the frame; else a thin bar beside a list's cards, however short the list."""
    r.scroll = scrollbar(r.work.rgb)
    if r.scroll is None and r.cards:
        r.scroll = scrollbar(r.work.rgb, beside=Rect(r.cards[0].x0, r.cards[0].y0, r.cards[-1].x1, r.cards[-1].y1))


def icons_stage(r: Reading) -> None:
    r.icons = find_icons(r.work.rgb, r.lines)


def gauges_stage(r: Reading) -> None:
    r.gauges = find_gauges(r.work.rgb, r.lines)


def mood_stage(r: Reading) -> None:
    found = badge(r.gauges, r.lines, r.work.w)
    r.mood = without_icon_letter(r.work, *found) if found else None


def values_stage(r: Reading) -> None:
    r.values, r.value_lines = line_values(r.work, r.lines)


def output_stage(r: Reading) -> None:
    """The VisionOutput of what the stages found, in device pixels."""
    work, blocks, view, tabs = r.work, r.blocks, r.view, r.tabs
    icons = icon_buttons(work, view, r.icons, blocks)
    bars = [work.to_device(g) for g in r.gauges]
    judged = [b for b in blocks if b.is_button]
    looks = [block_button(work, view, b) for b in judged]
    readers = ({letters(g.label) for g in r.gauges} | {letters(r.mood or "")}) - {""}  # "": a name of no letters
    icons = resolve.readouts_and_greyed(work, judged, looks, icons, readers, bars)
    buttons = [block_button(work, view, b) for b in blocks if b.is_button] + icons
    if tabs is not None and not tabs.usable:  # the bar is blurred/dimmed behind a pop-up: what is sharp is in it
        buttons = [b if b.region == "menu" else b.model_copy(update={"region": "dialog"}) for b in buttons]
    # a readout is shown as the button it was read as (its name and plate), after the other texts
    readouts = [(b, look) for b, look in zip(judged, looks, strict=True) if READOUT in b.rules]
    texts = [t for b in blocks if not b.is_button and all(b is not o for o, _ in readouts)
             and (t := block_text(work, b, r.value_lines)) is not None]
    texts += [TextLine(text=look.name, bounds=look.bounds, confidence=look.confidence, rules=b.rules)
              for b, look in readouts]
    menu = None
    if tabs is not None:
        names = [clean_name(t.text) for t in tabs.tabs]
        sel = names[tabs.selected] if tabs.selected is not None else None
        menu = MenuState(usable=tabs.usable, selected=sel, tabs=names)
    sb = None
    if r.scroll is not None:
        sb = Scrollbar(track=work.to_device(r.scroll.track), thumb=work.to_device(r.scroll.thumb),
                       up=r.scroll.up, down=r.scroll.down)
    out = VisionOutput(
        width=work.device_width, height=work.device_height, buttons=unique_names(buttons), texts=texts,
        menu=menu, scrollbar=sb, cards=[work.to_device(c) for c in r.cards], cinematic=r.cinematic, backend="ocr",
        mood=r.mood, values=r.values,
        gauges=[Gauge(label=gauge_label(clean_name(g.label)), fill=min(1.0, g.fill), bounds=bar)
                for g, bar in zip(r.gauges, bars, strict=True)],
    )
    r.output = out


def supports_stage(r: Reading) -> None:
    """The raised training's support cards: the bond bars in the right column, kept where a tile is raised."""
    if raised(r.output) is None:  # no cards to read: the pixels' passes (0.1-0.3 s a frame) are not run
        r.output.supports = []
        return
    bars = [Support(bond=b.level, hint=b.hint, bounds=r.work.to_device(b))
            for b in find_bonds(r.work.rgb, r.lines)]
    portraits = [Support(bond=p.bar or "none", hint=p.hint, bounds=r.work.to_device(p))
                 for p in find_portraits(r.work.rgb) if has_face(r.work.rgb, p.cx, (p.y0 + p.y1) / 2, p.r)]
    r.output.supports = supports(r.output, bars, portraits)
    # each card is tappable (the game opens its details): an icon named by what it is, as a glyph names the others
    cards = [Button(name=SUPPORT_CARD, region=region_of(r.view, *r.work.from_device(c.bounds).center),
                    bounds=c.bounds, source="heuristic", confidence=ButtonScore.CARD, rules=["supports.portrait"])
             for c in r.output.supports]
    if cards:
        r.output.buttons = unique_names(r.output.buttons + cards)


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Reading], None]
    gives: str  # what it contributes to the reading / the output
    still_only: bool = False  # runs only on a frame the player can act on (no loading screen, cutscene, dialogue)


# The reading, in order. A stage reads what the ones before it filled in `Reading` and fills its own fields.
STAGES: tuple[Stage, ...] = (
    Stage("ocr", ocr_stage, "lines: every text line; numbers cut short re-read, grade badges cut off"),
    Stage("layout", layout_stage, "edges, blocks (lines read together), view (the game's viewport), cards (a list's, "
          "by their borders -> cards, rows)"),
    Stage("buttons", buttons_stage, "blocks' button scores, tabs (-> menu), badges as meta -> buttons, texts"),
    Stage("cinematic", cinematic_stage, "cinematic: loading, cutscene, dialogue or none"),
    # a scrolling list only matters when the player can act; scenery makes false tracks
    Stage("scrollbar", scrollbar_stage, "scroll -> scrollbar (a bar beside the cards too)", still_only=True),
    Stage("icons", icons_stage, "icons -> buttons named by their glyph", still_only=True),
    Stage("gauges", gauges_stage, "gauges: bars and their fill", still_only=True),
    Stage("mood", mood_stage, "mood: the badge word beside the first gauge"),
    Stage("values", values_stage, "values: captions and their numbers, gains", still_only=True),
    Stage("captions", captions_stage, "values' captions read a letter off the game's -> as printed",
          still_only=True),
    Stage("checks", checks_stage, "values the game could not show re-read, else marked doubtful", still_only=True),
    Stage("output", output_stage, "output: the VisionOutput of all the above, in device pixels"),
    Stage("supports", supports_stage, "supports: the raised training's cards (bond bars, portraits, hints) -> output",
          still_only=True),
)


def read_frame(work: Work, det_limit: int = 960, threads: int = 0, memory: TabMemory | None = None) -> Reading:
    """Read a frame offline. `memory` (updated here) lets a blurred tab bar be recognised from a sharp one."""
    r = Reading(work=work, det_limit=det_limit, threads=threads, memory=memory)
    for stage in STAGES:
        if stage.still_only and r.cinematic != "none":
            continue
        stage.run(r)
    return r
