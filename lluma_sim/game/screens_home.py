"""Screens outside the career loop: home with tab bar, loading, cutscenes, dialogs, career end."""

from __future__ import annotations

import math

from lluma_sim.game.content import STATS
from lluma_sim.game.draw import CREAM, EDGE, GREEN, GREEN_EDGE, INK, INK_SOFT, WHITE, Painter, Widget
from lluma_sim.game.state import DialogState, GameState

TABS = ("Enhance", "Story", "Home", "Race", "Scout")
TAB_BLURBS = {
    "Enhance": ["Train support cards and", "raise their limit breaks."],
    "Story": ["Main story chapters unlock", "as you finish careers."],
    "Race": ["Races are entered from a", "career: tap Home, then Career."],
    "Scout": ["New trainees arrive", "with every season."],
}


def draw_home(p: Painter, g: GameState) -> None:
    p.backdrop((255, 252, 240), (222, 238, 252), 7, 26)
    p.text(p.w * 0.5, p.h * 0.07, "LLuMa Derby", 72, bold=True)
    p.text(p.w * 0.5, p.h * 0.115, f"Trainer Lv {12 + g.seed % 7}", 38, INK_SOFT)
    p.hamburger(p.box(0.84, 0.03, 0.96, 0.03 + 0.12 * p.w / p.h), ("menu",))
    if g.style == "hard":  # content runs on under the tab bar, as in the real game
        p.rrect(p.box(0.04, 0.8, 0.96, 0.99), (246, 236, 220), (222, 200, 170), shadow=False)
        for k in range(4):
            p.character(p.w * (0.16 + 0.23 * k), p.h * 0.86, p.w * 0.05, hair=(90 + 30 * k, 60, 40))
    if g.tab == "Home":
        p.rrect(p.box(0.18, 0.2, 0.82, 0.62), (246, 250, 255), EDGE, radius=60 * p.s, shadow=False)
        p.character(p.w * 0.5, p.h * 0.34, p.w * 0.13)
        if g.careers and not g.career_open:
            p.text(p.w * 0.5, p.h * 0.66, f"Last career score {g.careers[-1].score}", 38, INK_SOFT)
        p.button(p.box(0.22, 0.7, 0.78, 0.78), "Career", ("career_prompt",), "green", size=56)
    else:
        panel = p.box(0.08, 0.2, 0.92, 0.5)
        p.rrect(panel, WHITE, EDGE)
        p.text(p.w * 0.5, p.h * 0.26, g.tab, 56, bold=True)
        for i, line in enumerate(TAB_BLURBS[g.tab]):
            p.text(p.w * 0.5, p.h * (0.34 + 0.04 * i), line, 38, INK_SOFT)
    if g.style == "hard":
        draw_tab_bar_over_content(p, g.tab)
    else:
        draw_tab_bar(p, g.tab)


def draw_tab_bar_over_content(p: Painter, selected: str) -> None:
    """A translucent bar over the content, each tab an icon with its label under it; the selected one raised."""
    p.veil(p.box(0.0, 0.9, 1.0, 1.0), WHITE, 0.55)
    n = len(TABS)
    for i, name in enumerate(TABS):
        on = name == selected
        cell = p.box(i / n + 0.01, 0.895 if on else 0.91, (i + 1) / n - 0.01, 0.995)
        if on:
            p.rrect(cell, GREEN, GREEN_EDGE, shadow=False)
        if p.d:
            cx, r = cell.center[0], cell.height * 0.18
            cy = cell.y0 + cell.height * 0.32
            p.d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=INK if on else INK_SOFT, width=max(2, round(4 * p.s)))
        p.text(cell.center[0], cell.y0 + cell.height * 0.75, name, 30, INK if on else INK_SOFT, register=False, bold=on)
        p.widgets.append(Widget(name, "tab", cell, True, ("tab", name)))


def draw_tab_bar(p: Painter, selected: str) -> None:
    bar = p.box(0.0, 0.915, 1.0, 1.0)
    p.rect(bar, WHITE)
    p.rect(p.box(0.0, 0.913, 1.0, 0.916), EDGE)
    n = len(TABS)
    for i, name in enumerate(TABS):
        cell = p.box(i / n + 0.008, 0.925, (i + 1) / n - 0.008, 0.99)
        on = name == selected
        if on:
            p.rrect(cell, GREEN, GREEN_EDGE, shadow=False)
        p.text(cell.center[0], cell.center[1], name, 36, INK if on else INK_SOFT, register=False, bold=on)
        p.widgets.append(Widget(name, "tab", cell, True, ("tab", name)))


def draw_settings(p: Painter, dialog: DialogState, settings: dict[str, bool]) -> None:
    """A settings modal: one row per option with an On / Off toggle pair, and Close."""
    rows = dialog.lines
    top, row_h = 0.3, 0.08
    bottom = top + 0.09 + row_h * len(rows) + 0.09
    p.rrect(p.box(0.07, top, 0.93, bottom), WHITE, EDGE, radius=36 * p.s)
    p.rrect(p.box(0.07, top, 0.93, top + 0.05), GREEN, GREEN_EDGE, radius=36 * p.s, shadow=False)
    p.text(p.w * 0.5, p.h * (top + 0.025), dialog.title, 44, bold=True)
    for i, name in enumerate(rows):
        y = top + 0.09 + row_h * i
        p.text(p.w * 0.12, p.h * (y + 0.03), name, 38, anchor="lm")
        on = settings.get(name, True)
        p.toggle_pair(p.box(0.52, y, 0.88, y + 0.055), on, ("set", name, True), ("set", name, False), row=i)
    label, style, action = dialog.buttons[0]
    p.button(p.box(0.32, bottom - 0.075, 0.68, bottom - 0.02), label, action, style)


def draw_dialog(p: Painter, dialog: DialogState, settings: dict[str, bool] | None = None) -> None:
    if dialog.kind == "settings":
        draw_settings(p, dialog, settings or {})
        return
    lines = [ln for text in dialog.lines for ln in p.wrap(text, 40, p.w * 0.74)]
    line_h = 0.035
    top = 0.5 - (0.16 + line_h * len(lines)) / 2
    bottom = top + 0.16 + line_h * len(lines)
    panel = p.box(0.07, top, 0.93, bottom)
    p.rrect(panel, WHITE, EDGE, radius=36 * p.s)
    p.rrect(p.box(0.07, top, 0.93, top + 0.05), GREEN, GREEN_EDGE, radius=36 * p.s, shadow=False)
    p.text(p.w * 0.5, p.h * (top + 0.025), dialog.title, 44, bold=True)
    for i, line in enumerate(lines):
        p.text(p.w * 0.5, p.h * (top + 0.075 + line_h * i), line, 40)
    n = len(dialog.buttons)
    # OK sits right of Cancel, as in the game
    for i, (label, style, action) in enumerate(dialog.buttons):
        x0 = 0.5 - 0.2 * n + 0.4 * i + 0.02
        p.button(p.box(x0, bottom - 0.075, x0 + 0.36, bottom - 0.02), label, action, style)


def draw_loading(p: Painter, g: GameState) -> None:
    step = g.anim.step if g.anim else 0
    total = g.anim.total if g.anim else 1
    p.gradient((255, 255, 255), (250, 250, 255))
    p.bubbles(11, 34, phase=step)
    p.text(p.w * 0.93, p.h * 0.955, "Now Loading...", 44, (150, 90, 40), anchor="rm", bold=True)
    p.spinner(p.w * 0.2, p.h * 0.955, p.w * 0.04, step)
    p.bar(p.box(0.2, 0.9, 0.8, 0.915), step / max(1, total), GREEN)


CUTSCENE_SKY = {
    "intro": ((255, 196, 140), (120, 70, 60)),
    "race": ((150, 200, 255), (70, 150, 70)),
    "outing": ((255, 210, 230), (140, 100, 150)),
}


def draw_cutscene(p: Painter, g: GameState) -> None:
    anim = g.anim
    step = anim.step if anim else 0
    theme = anim.theme if anim else "intro"
    top, ground = CUTSCENE_SKY.get(theme, CUTSCENE_SKY["intro"])
    shade = step * 12  # the light changes every frame, so each capture differs clearly
    sky_top = tuple(max(0, c - shade) for c in top)
    p.gradient(sky_top, (255, 244, 220))  # type: ignore[arg-type]
    d = p.d
    if d:
        sx, sy = p.w * (0.15 + 0.12 * step), p.h * (0.25 - 0.02 * step)
        r = p.w * 0.1
        d.ellipse((sx - r, sy - r, sx + r, sy + r), fill=(255, 236, 150))
        d.rectangle((0, p.h * 0.62, p.w, p.h), fill=ground)
        for k in range(4):  # runners crossing the frame
            x = (p.w * (0.1 + 0.23 * k) + step * p.w * 0.09) % (p.w * 1.1) - p.w * 0.05
            y = p.h * (0.66 + 0.06 * k)
            body = (60 + 40 * k, 50, 90 - 10 * k)
            d.ellipse((x - p.w * 0.09, y - p.h * 0.025, x + p.w * 0.09, y + p.h * 0.025), fill=body)
            d.ellipse((x + p.w * 0.06, y - p.h * 0.05, x + p.w * 0.12, y - p.h * 0.01), fill=body)
            for leg in range(2):
                lx = x + (leg - 0.5) * p.w * 0.1
                swing = math.sin(step * 1.7 + k + leg * 3) * p.w * 0.03
                d.line((lx, y, lx + swing, y + p.h * 0.05), fill=body, width=max(3, round(10 * p.s)))
    p.button(p.box(0.72, 0.03, 0.95, 0.075), "Skip", ("skip_anim",), "green")


def draw_career_end(p: Painter, g: GameState) -> None:
    p.backdrop((255, 250, 232), (232, 244, 255), 5, 20)
    p.text(p.w * 0.5, p.h * 0.08, "Career Complete", 64, bold=True)
    p.rrect(p.box(0.15, 0.13, 0.85, 0.24), CREAM, (232, 196, 96))
    p.text(p.w * 0.5, p.h * 0.185, f"Score {g.score}", 72, bold=True)
    c = g.career
    if c:
        p.rrect(p.box(0.1, 0.28, 0.9, 0.72), WHITE, EDGE)
        for i, stat in enumerate(STATS):
            y = p.h * (0.33 + 0.055 * i)
            p.text(p.w * 0.18, y, stat, 42, anchor="lm")
            p.text(p.w * 0.82, y, str(c.stats[stat]), 42, anchor="rm", bold=True)
        p.text(p.w * 0.18, p.h * 0.61, "Race Wins", 42, anchor="lm")
        p.text(p.w * 0.82, p.h * 0.61, str(c.wins), 42, anchor="rm", bold=True)
        p.text(p.w * 0.18, p.h * 0.665, "Skills", 42, anchor="lm")
        p.text(p.w * 0.82, p.h * 0.665, str(len(c.learned)), 42, anchor="rm", bold=True)
    p.button(p.box(0.25, 0.8, 0.75, 0.87), "To Home", ("finish",), "green", size=52)
