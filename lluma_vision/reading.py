"""The offline reading of a frame: OCR + layout + pixel heuristics -> VisionOutput (device pixels).

`Reading` keeps the working-space intermediates (OCR lines with their ids, blocks) so the VLM
backend can ground its answer on the same lines and fall back to this reading when it fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from lluma_vision import cinematic as cine
from lluma_vision.heuristics import Rect, ScrollbarPx, scrollbar, viewport
from lluma_vision.layout import Block, Edges, attach_badges, classify, clean_name, group_lines
from lluma_vision.menu import TabBarPx, TabMemory, tab_bar
from lluma_vision.models import Button, MenuState, Region, Scrollbar, TextLine, VisionOutput
from lluma_vision.ocr import Line, Work, read_lines


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
    if b.frame is not None and b.score >= 0.9:
        return b.frame
    return (b.x0, b.y0, b.x1, b.y1)


def block_button(work: Work, view: Rect, b: Block, weight: float = 1.0) -> Button:
    """The Button an OCR block stands for (device pixels); `weight` scales its confidence."""
    return Button(
        name=clean_name(b.text),
        meta=", ".join(b.meta),
        region=region_of(view, b.cx, b.cy, b.tab),
        bounds=work.to_device(*_button_box(b)),
        source="ocr",
        confidence=round(weight * b.conf * b.score, 3),
    )


def block_text(work: Work, b: Block) -> TextLine:
    return TextLine(text=b.text, bounds=work.to_device(b.x0, b.y0, b.x1, b.y1), confidence=round(b.conf, 3))


def build_output(work: Work, blocks: list[Block], view: Rect, tabs: TabBarPx | None,
                 scroll: ScrollbarPx | None, kind: str) -> VisionOutput:
    buttons = [block_button(work, view, b) for b in blocks if b.is_button]
    if tabs is not None and not tabs.usable:  # the bar is blurred/dimmed behind a pop-up: what is sharp is in it
        buttons = [b if b.region == "menu" else b.model_copy(update={"region": "dialog"}) for b in buttons]
    texts = [block_text(work, b) for b in blocks if not b.is_button]
    menu = None
    if tabs is not None:
        names = [clean_name(t.text) for t in tabs.tabs]
        sel = names[tabs.selected] if tabs.selected is not None else None
        menu = MenuState(usable=tabs.usable, selected=sel, tabs=names)
    sb = None
    if scroll is not None:
        sb = Scrollbar(track=work.to_device(*scroll.track), thumb=work.to_device(*scroll.thumb),
                       up=scroll.up, down=scroll.down)
    return VisionOutput(
        width=work.width, height=work.height, buttons=unique_names(buttons), texts=texts,
        menu=menu, scrollbar=sb, cinematic=kind, backend="ocr",
    )


def read_frame(work: Work, det_limit: int = 960, threads: int = 0, memory: TabMemory | None = None) -> Reading:
    """Read a frame offline. `memory` (updated here) lets a blurred tab bar be recognised from a sharp one."""
    lines = read_lines(work, det_limit=det_limit, threads=threads)
    edges = Edges(work.rgb, span=2 if work.scale > 1.2 else 1)
    blocks = group_lines(lines, work.rgb)
    view = viewport(work.rgb)
    classify(blocks, edges, view)
    tabs = tab_bar(work, blocks, view, edges, memory)
    if memory is not None and tabs is not None and tabs.usable and tabs.tabs:
        memory.remember(work, tabs)
    blocks = attach_badges(blocks)
    kind = cine.classify(work.rgb, blocks, view)
    # a scrolling list only matters when the player can act; scenery makes false tracks
    scroll = scrollbar(work.rgb) if kind == "none" else None
    out = build_output(work, blocks, view, tabs, scroll, kind)
    return Reading(work=work, lines=lines, blocks=blocks, view=view, tabs=tabs, scroll=scroll,
                   cinematic=kind, output=out)

