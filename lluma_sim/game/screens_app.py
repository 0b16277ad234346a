"""Screens of the game as an app: the phone's launcher, the title screen, Android's "isn't responding" dialog,
the data download, the career setup (scenario, trainee, legacy, deck) and the career's end (summary, results).

Words as the Global client and Android draw them (FACTS). The hard style draws the launcher and Android's dialog
in the dark theme, as many phones are set.
"""

from __future__ import annotations

from lluma_sim.game.content import STATS
from lluma_sim.game.draw import CREAM, EDGE, GREEN, GREEN_EDGE, INK, INK_SOFT, WHITE, Painter, Widget
from lluma_sim.game.state import DialogState, GameState
from lluma_sim.words import APP_LABEL
from lluma_vision.models import Box

OTHER_APPS = ("Phone", "Messages", "Chrome", "Camera", "Settings", "Photos", "Clock")
TRAINEES = ("Special Week", "Silence Suzuka", "Tokai Teio")
PARENTS = ("Maruzensky", "Oguri Cap")
DECK = ("Kitasan Black", "Fine Motion", "Super Creek", "Tazuna Hayakawa", "Sakura Bakushin O")
FRIEND_CARD = "Twin Turbo"
def draw_launcher(p: Painter, g: GameState) -> None:
    """The phone's home screen: a clock, a grid of app icons with their names, the game's among them."""
    dark = g.style == "hard"
    if dark:
        p.gradient((28, 44, 74), (70, 40, 86))
    else:
        p.gradient((120, 170, 230), (250, 200, 170))
    ink = (236, 236, 240) if dark else WHITE
    p.text(p.w * 0.5, p.h * 0.12, "12:00", 120, ink, register=False)
    p.text(p.w * 0.5, p.h * 0.18, "Thursday, November 26", 36, ink, register=False)
    apps = (APP_LABEL, *OTHER_APPS)
    for i, name in enumerate(apps):
        col, row = i % 4, i // 4
        cx, cy = p.w * (0.14 + 0.24 * col), p.h * (0.62 + 0.13 * row)
        r = p.w * 0.075
        if p.d:
            fill = (250, 140, 170) if name == APP_LABEL else (90 + 20 * i, 150, 200 - 10 * i)
            p.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
            if name == APP_LABEL:  # a horseshoe on the game's icon
                p.d.arc((cx - r * 0.5, cy - r * 0.5, cx + r * 0.5, cy + r * 0.6), 200, 340, fill=WHITE,
                        width=max(3, round(12 * p.s)))
        label = p.text(cx, cy + r * 1.55, name, 34, ink, register=False)
        action = ("launch",) if name == APP_LABEL else None
        icon = Box(x0=round(cx - r * 1.3), y0=round(cy - r), x1=round(cx + r * 1.3), y1=label.y1)
        p.widgets.append(Widget(name, "button", icon, True, action))


def draw_title(p: Painter, g: GameState) -> None:
    """The game's title screen: its logo and "Tap to Start"; a tap anywhere starts."""
    p.backdrop((255, 236, 244), (214, 232, 255), 2, 30)
    p.character(p.w * 0.5, p.h * 0.42, p.w * 0.16)
    p.rrect(p.box(0.1, 0.08, 0.9, 0.24), WHITE, (232, 196, 96), radius=60 * p.s)
    p.text(p.w * 0.5, p.h * 0.14, "LLuMa Derby", 96, (200, 80, 120), bold=True)
    p.text(p.w * 0.5, p.h * 0.2, "Pretty Derby", 44, INK_SOFT)
    p.hotspot(p.box(0.0, 0.0, 1.0, 1.0), ("title_tap",))
    p.text(p.w * 0.5, p.h * 0.8, "Tap to Start", 60, INK, bold=True)
    p.text(p.w * 0.96, p.h * 0.975, "Ver. 1.20.3", 30, INK_SOFT, anchor="rm")


def draw_anr(p: Painter, dialog: DialogState, dark: bool) -> None:
    """Android's "isn't responding" dialog: a title and a list of text actions with icons (no plates)."""
    card, ink = ((48, 48, 52), (236, 236, 240)) if dark else (WHITE, (32, 32, 36))
    p.rrect(p.box(0.08, 0.38, 0.92, 0.62), card, None, radius=40 * p.s, shadow=False)
    p.text(p.w * 0.14, p.h * 0.43, dialog.title, 46, ink, anchor="lm", bold=True)
    for i, (label, _, action) in enumerate(dialog.buttons):
        row = p.box(0.08, 0.475 + 0.065 * i, 0.92, 0.535 + 0.065 * i)
        cy = row.center[1]
        if p.d:  # the action's icon: a cross, a clock
            r = p.w * 0.025
            x = p.w * 0.16
            if i == 0:
                p.d.line((x - r, cy - r, x + r, cy + r), fill=ink, width=max(2, round(5 * p.s)))
                p.d.line((x - r, cy + r, x + r, cy - r), fill=ink, width=max(2, round(5 * p.s)))
            else:
                p.d.ellipse((x - r, cy - r, x + r, cy + r), outline=ink, width=max(2, round(5 * p.s)))
                p.d.line((x, cy, x, cy - r * 0.7), fill=ink, width=max(2, round(4 * p.s)))
        p.text(p.w * 0.24, cy, label, 42, ink, anchor="lm", register=False)
        p.widgets.append(Widget(label, "button", row, True, action))


def draw_download(p: Painter, g: GameState) -> None:
    step = g.anim.step if g.anim else 0
    total = g.anim.total if g.anim else 1
    p.gradient((255, 255, 255), (240, 246, 255))
    p.text(p.w * 0.5, p.h * 0.4, "Downloading data...", 52, INK, bold=True)
    p.bar(p.box(0.15, 0.46, 0.85, 0.485), step / max(1, total), GREEN)
    p.text(p.w * 0.5, p.h * 0.53, f"{round(48.2 * step / max(1, total), 1)} / 48.2 MB", 40, INK_SOFT)
    p.spinner(p.w * 0.5, p.h * 0.62, p.w * 0.04, step)


def _setup_frame(p: Painter, title: str) -> None:
    p.backdrop((236, 246, 255), (252, 246, 236), 12, 18)
    p.rect(p.box(0.0, 0.0, 1.0, 0.09), WHITE)
    p.rect(p.box(0.0, 0.09, 1.0, 0.093), EDGE)
    p.text(p.w * 0.04, p.h * 0.045, title, 48, anchor="lm", bold=True)


def draw_setup(p: Painter, g: GameState) -> None:
    """A new career, step by step (FACTS): scenario, trainee, legacy (Auto-Select), support deck, Start Career!"""
    step = g.setup_step
    nxt = ("setup_next",)
    if step == 0:
        _setup_frame(p, "Select Scenario")
        p.button(p.box(0.06, 0.2, 0.94, 0.34), "URA Finale", None, "cream", size=56)
        p.text(p.w * 0.5, p.h * 0.39, f"A career of {g.max_turns} turns.", 40, INK_SOFT)
    elif step == 1:
        _setup_frame(p, "Select Trainee")
        for i, name in enumerate(TRAINEES):
            y0 = 0.16 + 0.13 * i
            sel = i == g.trainee
            p.button(p.box(0.06, y0, 0.94, y0 + 0.1), name, ("trainee", i), "cream" if sel else "white", size=46,
                     align="left", row=i)
            if sel:
                p.text(p.w * 0.9, p.h * (y0 + 0.05), "Selected", 34, GREEN_EDGE, "rm", row=i, bold=True)
    elif step == 2:
        _setup_frame(p, "Select Legacy")
        for i in range(2):
            y0 = 0.18 + 0.14 * i
            p.rrect(p.box(0.06, y0, 0.94, y0 + 0.11), WHITE, EDGE)
            who = PARENTS[i] if g.legacy_set else "Empty"
            p.text(p.w * 0.1, p.h * (y0 + 0.055), f"Legacy {i + 1}: {who}", 44, INK if g.legacy_set else INK_SOFT,
                   anchor="lm")
        p.button(p.box(0.3, 0.5, 0.7, 0.57), "Auto-Select", ("auto_select",), "white", size=44)
        nxt_enabled = g.legacy_set
    else:
        _setup_frame(p, "Support Deck")
        for i, name in enumerate(DECK):
            y0 = 0.13 + 0.075 * i
            p.text(p.w * 0.1, p.h * (y0 + 0.03), name, 40, anchor="lm")
        friend = FRIEND_CARD if g.friend_set else "Empty"
        p.rrect(p.box(0.06, 0.52, 0.94, 0.6), CREAM, (232, 196, 96), shadow=False)
        p.text(p.w * 0.1, p.h * 0.56, f"Friend: {friend}", 42, anchor="lm", bold=g.friend_set)
        if not g.friend_set:
            p.button(p.box(0.66, 0.535, 0.92, 0.585), "Borrow", ("borrow",), "white", size=40)
        p.text(p.w * 0.5, p.h * 0.66, f"TP {g.tp}/100 (a career uses 30)", 40, INK_SOFT)
        p.button(p.box(0.03, 0.88, 0.3, 0.95), "Back", ("setup_back",))
        p.button(p.box(0.36, 0.86, 0.96, 0.95), "Start Career!", ("start_press",), "green", g.friend_set, size=54)
        return
    p.button(p.box(0.03, 0.88, 0.3, 0.95), "Back", ("setup_back",))
    p.button(p.box(0.6, 0.88, 0.96, 0.95), "Next", nxt, "green", step != 2 or nxt_enabled, size=50)


def _stat_table(p: Painter, g: GameState, top: float) -> None:
    """The final stats as the hub's row (a caption over each value), then race wins and skill points."""
    c = g.career
    if not c:
        return
    p.rrect(p.box(0.03, top, 0.97, top + 0.17), WHITE, EDGE)
    for i, stat in enumerate(STATS):
        x = p.w * (0.03 + 0.94 * (i + 0.5) / 5)
        p.text(x, p.h * (top + 0.03), stat, 36, INK_SOFT)
        p.text(x, p.h * (top + 0.085), str(c.stats[stat]), 48, bold=True)
    p.text(p.w * 0.06, p.h * (top + 0.14), "Race Wins", 38, anchor="lm")
    p.text(p.w * 0.33, p.h * (top + 0.14), str(c.wins), 40, anchor="lm", bold=True)
    p.text(p.w * 0.55, p.h * (top + 0.14), "Skill Pts", 38, anchor="lm")
    p.text(p.w * 0.8, p.h * (top + 0.14), str(c.skill_points), 40, anchor="lm", bold=True)


def draw_career_summary(p: Painter, g: GameState) -> None:
    """The career's last screen before it is completed: the trainee's final stats, its goals and "Complete
    Career"."""
    p.backdrop((236, 246, 255), (252, 246, 236), 3, 18)
    p.text(p.w * 0.5, p.h * 0.06, "URA Finale", 60, bold=True)
    ended = bool(g.career and g.career.ended)
    p.text(p.w * 0.5, p.h * 0.11, "The career ended early." if ended else "The final race is over.", 40, INK_SOFT)
    p.character(p.w * 0.5, p.h * 0.21, p.w * 0.06)
    _stat_table(p, g, 0.3)  # where it was before the goals came (read on every frame size the demo uses there)
    _goal_table(p, g, 0.5)
    p.button(p.box(0.2, 0.88, 0.8, 0.94), "Complete Career", ("complete_prompt",), "green", size=50)


GOAL_WORDS = ("Achieved", "Missed", "Not Run")  # a goal's line on the summary: met, the one missed, after it


def _goal_table(p: Painter, g: GameState, top: float) -> None:
    """The career's fans and skills learned, then its goals, one line each with its outcome first ("Achieved:
    Place top 5 in Japanese Derby"): what the career came to. FACTS is silent on the summary's layout; the real
    client marks each goal met "Achieved"."""
    c = g.career
    if not c:
        return
    goals = c.goals()
    now = c.goal_now()
    missed = now[0] if c.ended and now else None
    row = min(0.05, (0.86 - top - 0.07) / max(1, len(goals)))  # every goal above Complete Career (at 0.88)
    p.rrect(p.box(0.03, top, 0.97, top + 0.07 + row * len(goals)), WHITE, EDGE)
    p.text(p.w * 0.06, p.h * (top + 0.03), f"Fans {c.fans:,}", 38, anchor="lm", bold=True)
    p.text(p.w * 0.94, p.h * (top + 0.03), f"Skills Learned {len(c.learned)}", 38, anchor="rm", bold=True)
    for i, (goal, _) in enumerate(goals):
        word = GOAL_WORDS[0] if c.goal_met(i) else GOAL_WORDS[1] if i == missed else GOAL_WORDS[2]
        line = f"{word}: {goal.text}"
        p.text(p.w * 0.06, p.h * (top + 0.085 + row * i), line, p.fit(line, 36, p.w * 0.88),
               GREEN_EDGE if word == GOAL_WORDS[0] else INK, anchor="lm", row=i)


def draw_career_results(p: Painter, g: GameState) -> None:
    """Result screens after a career is completed: its rank (Next), then the sparks it passed on (OK)."""
    p.backdrop((255, 250, 232), (232, 244, 255), 6, 20)
    last = g.careers[-1] if g.careers else None
    if g.results_page == 0:
        p.text(p.w * 0.5, p.h * 0.08, "Career Results", 60, bold=True)
        p.rrect(p.box(0.3, 0.15, 0.7, 0.33), CREAM, (232, 196, 96), radius=80 * p.s)
        p.text(p.w * 0.5, p.h * 0.24, last.rank if last else "", 120, bold=True)
        p.text(p.w * 0.5, p.h * 0.4, f"Rating {last.rating if last else 0}", 46)
        p.button(p.box(0.3, 0.84, 0.7, 0.91), "Next", ("results_next",), "green", size=50)
    else:
        p.text(p.w * 0.5, p.h * 0.08, "Sparks Acquired", 60, bold=True)
        for i, spark in enumerate(("Speed 2", "Turf 1", "Corner Adept 1")):
            p.text(p.w * 0.5, p.h * (0.22 + 0.07 * i), spark, 44)
        p.button(p.box(0.3, 0.84, 0.7, 0.91), "OK", ("results_next",), "green", size=50)
