"""Career screens: hub, training, event, skills list, races, and a race's own screens.

A race after its entry is confirmed goes as the bots people use walk it on the real client (umaplay's
`core/actions/race.py`, auto-derby's `single_mode/commands/race.py`): a pre-race lobby with View Results (white:
the result without watching) and Race (green: watch it, skippable); the placing, left by a green Next; then a
second Next (the race's rewards) back to the career."""

from __future__ import annotations

from lluma_sim.game import goals as goal_rules
from lluma_sim.game import races as race_rules
from lluma_sim.game.calendar import summer_camp
from lluma_sim.game.content import HINT_OFF, MAX_ENERGY, PLACES, SHOP_ITEMS, SKILLS, STATS, bond_level
from lluma_sim.game.draw import CREAM, EDGE, GREEN, GREEN_EDGE, INK, INK_SOFT, MOOD_BADGES, WHITE, Painter, Widget
from lluma_sim.game.state import CareerData, GameState, RaceResult
from lluma_sim.game.truth import TruthScrollbar
from lluma_vision.models import Box

FAIL_RED = (176, 40, 40)  # the failure line's red (a display choice, not measured)
# the "!" hint badge's pink, as the bots read the real one (Umaplay's hint detector: HSB about 339 deg, 71%, 100%)
HINT_PINK = (255, 74, 137)
# a MAX bond plate's letters stand out over the bar, as the real plate's (about twice the bar's height on
# dhrpf__training_guts); at 22 the OCR read them "MA" or "MAL" on the 420x936 frame
MAX_LETTERS = 32
SKILL_ROW = 0.1  # row height as a fraction of screen height
SKILLS_TOP, SKILLS_BOTTOM = 0.17, 0.75


def _background(p: Painter, seed: int) -> None:
    p.backdrop((236, 246, 255), (252, 246, 236), seed, 18)


def _header(p: Painter, g: GameState, title: str, cost: int = 0) -> None:
    """Title, turn counter and energy: the strip every career screen shares. The hard style draws it as the real
    game does: energy as a bar only (no digits), the mood as a coloured badge word right of it. `cost` (the
    training screen's selected training) is previewed at the end of the bar's coloured run, paler (FACTS)."""
    c = g.career
    p.rect(p.box(0.0, 0.0, 1.0, 0.1), WHITE)
    p.rect(p.box(0.0, 0.1, 1.0, 0.103), EDGE)
    p.text(p.w * 0.04, p.h * 0.03, title, 44, anchor="lm", bold=True)
    if not c:
        return
    p.rrect(p.box(0.66, 0.01, 0.96, 0.05), CREAM, (232, 196, 96), shadow=False)
    p.text(p.w * 0.81, p.h * 0.03, f"Turn {min(c.turn, c.max_turns)}/{c.max_turns}", 40, bold=True)
    p.text(p.w * 0.04, p.h * 0.075, "Energy", 36, anchor="lm")
    frac = c.energy / MAX_ENERGY
    color = GREEN if frac > 0.5 else (250, 200, 80) if frac > 0.25 else (240, 120, 100)
    p.bar(p.box(0.22, 0.062, 0.66, 0.088), frac, color, min(cost, c.energy) / MAX_ENERGY)
    if g.style == "hard":
        p.badge(p.box(0.7, 0.058, 0.96, 0.092), c.mood_word, MOOD_BADGES[c.mood_word])
    else:
        p.text(p.w * 0.69, p.h * 0.075, f"{c.energy}/{MAX_ENERGY}", 36, anchor="lm", bold=True)


GOAL_RED = (226, 76, 76)  # the real client's "Goal" badge


def goal_status(c: CareerData) -> str:
    """The line under the current goal ("" when none)."""
    now = c.goal_now()
    return goal_rules.status(now[1], c.goal_met(now[0])) if now else ""


def _goal(p: Painter, g: GameState, top: float, status: bool = True) -> None:
    """The date, and the current goal as the real client shows it on the hub, the training screen and the race
    list: a "Goal" badge ("EX" in the finale), its text, "N turn(s) left" counting to it, the status under it."""
    c = g.career
    assert c is not None
    camp = "  Summer Camp" if summer_camp(c.real_turn) else ""
    p.text(p.w * 0.04, p.h * (top + 0.015), c.date + camp, 34, INK, anchor="lm", bold=True)
    now = c.goal_now()
    if now is None:
        return
    _, goal, turn = now
    y = top + 0.05
    p.badge(p.box(0.03, y - 0.016, 0.15, y + 0.016), "EX" if goal.grade == "EX" else "Goal", GOAL_RED)
    left = goal_rules.turns_left(turn - min(c.turn, c.max_turns))
    p.text(p.w * 0.96, p.h * (top + 0.015), left, 34, INK, anchor="rm", bold=True)
    p.text(p.w * 0.17, p.h * y, goal.text, p.fit(goal.text, 34, p.w * 0.8), INK, anchor="lm")
    line = goal_status(c)
    if status and line:
        p.text(p.w * 0.17, p.h * (y + 0.03), line, 32, GREEN_EDGE, anchor="lm", bold=True)


def _back(p: Painter) -> None:
    p.button(p.box(0.03, 0.91, 0.3, 0.97), "Back", ("goto", "hub"))


def draw_hub(p: Painter, g: GameState) -> None:
    c = g.career
    assert c is not None
    _background(p, 3)
    _header(p, g, "Career")
    _goal(p, g, 0.11)
    if g.style != "hard":  # the hard style's mood is the header's badge
        p.rrect(p.box(0.62, 0.215, 0.96, 0.255), CREAM, (232, 196, 96), shadow=False)
        p.text(p.w * 0.79, p.h * 0.235, f"Mood: {c.mood_word}", 38, bold=True)
    if c.condition:
        p.text(p.w * 0.04, p.h * 0.345, f"Condition: {c.condition}", 36, FAIL_RED, anchor="lm")
    p.character(p.w * 0.5, p.h * 0.29, p.w * 0.07)
    bubble = p.box(0.05, 0.37, 0.95, 0.45)
    p.rrect(bubble, WHITE, EDGE)
    lines = p.wrap(c.status, 36, bubble.width * 0.92)[:2]  # the last action's outcome, at most two lines
    for i, line in enumerate(lines):
        p.text(bubble.center[0], bubble.center[1] + (i - (len(lines) - 1) / 2) * p.h * 0.026, line, 36)
    # stats panel: label over value, like the game's stat row
    p.rrect(p.box(0.03, 0.47, 0.97, 0.6), WHITE, EDGE)
    for i, stat in enumerate(STATS):
        x = p.w * (0.03 + 0.94 * (i + 0.5) / 5)
        p.text(x, p.h * 0.5, stat, 36, INK_SOFT)
        p.text(x, p.h * 0.555, str(c.stats[stat]), 48, bold=True)
    p.text(p.w * 0.04, p.h * 0.625, "Skill Pts", 38, anchor="lm")
    p.text(p.w * 0.3, p.h * 0.625, str(c.skill_points), 40, anchor="lm", bold=True)
    p.text(p.w * 0.55, p.h * 0.625, "Fans", 38, anchor="lm")
    p.text(p.w * 0.7, p.h * 0.625, f"{c.fans:,}", 40, anchor="lm", bold=True)
    free = c.race_day() is None  # on Race Day the goal's race is the only way to end the turn
    grid = (
        ("Rest", ("rest_prompt",), "white", free),
        ("Training", ("goto", "training"), "green" if free else "white", free),
        ("Skills", ("goto", "skills"), "white", True),
        ("Infirmary", ("infirmary",), "white", free and c.condition is not None),
        ("Recreation", ("recreation",), "white", free),
        # greyed before the debut, when the list opens (FACTS: Races greyed when locked)
        ("Races" if free else "Race Day", ("goto", "races"), "white" if free else "green",
         not free or bool(race_rules.on_turn(c.turn, c.max_turns))),
    )
    for i, (label, action, style, enabled) in enumerate(grid):
        col, row = i % 3, i // 3
        x0 = 0.04 + col * 0.31
        if g.style == "hard":  # the real hub: illustrated tiles with a caption, no plate
            y0 = 0.645 + row * 0.125
            p.tile(p.box(x0, y0, x0 + 0.29, y0 + 0.115), label, action, enabled, seed=i)
        else:
            y0 = 0.67 + row * 0.1
            p.button(p.box(x0, y0, x0 + 0.29, y0 + 0.08), label, action, style, enabled)
    # the shop (lluma_sim.game.flows.shop): a small plate right of the trainee, as a scenario's shop button sits
    p.button(p.box(0.7, 0.27, 0.96, 0.33), "Shop", ("shop",), "cream", size=p.fit("Shop", 38, p.w * 0.22))
    p.hamburger(p.box(0.86, 0.965 - 0.1 * p.w / p.h, 0.96, 0.965), ("menu",))


# stat icons' colours (a display choice, not measured)
STAT_COLORS = ((90, 160, 230), (230, 120, 90), (230, 170, 60), (220, 110, 170), (110, 190, 120))


def draw_training(p: Painter, g: GameState) -> None:
    """The real training screen (FACTS): one tile raised; only its facts show: its gains as "+N" over the stats it
    raises (Skill Pts too), "Failure N%" in a pill over it, the support cards on it in the right-hand column (a
    portrait, a bond bar, a "!" hint badge), its energy cost previewed on the bar. A tap on another tile raises that
    one; a tap on the raised one trains. The hard style draws the tiles as icons with a label, the plain as plates."""
    c = g.career
    assert c is not None
    sel = c.sel
    _background(p, 4)
    _header(p, g, "Training", max(0, -c.energy_change(sel)))
    _goal(p, g, 0.11)
    p.character(p.w * 0.4, p.h * 0.33, p.w * 0.11)
    _supports(p, c, sel)
    p.rrect(p.box(0.03, 0.5, 0.97, 0.89), WHITE, EDGE)
    gains = c.gains(sel)
    columns = (*STATS, "Skill Pts")
    for i, stat in enumerate(columns):
        x = p.w * (0.05 + 0.9 * (i + 0.5) / len(columns))
        if gains.get(stat):
            p.text(x, p.h * 0.53, f"+{gains[stat]}", 34, GREEN_EDGE, bold=True)
        p.text(x, p.h * 0.565, stat, p.fit(stat, 30, p.w * 0.14), INK_SOFT)
        p.text(x, p.h * 0.6, str(c.stats[stat] if stat in c.stats else c.skill_points), 40, bold=True)
    n = len(STATS)
    for i, stat in enumerate(STATS):
        x0, x1 = 0.05 + 0.9 * i / n, 0.05 + 0.9 * (i + 1) / n
        raised = stat == sel
        lift = 0.015 if raised else 0.0
        if raised:
            fail = c.fail_chance(stat)
            pill = p.box(x0 - 0.02, 0.628, x1 + 0.02, 0.66)
            p.rrect(pill, (255, 236, 236) if fail >= 20 else WHITE, FAIL_RED if fail >= 20 else EDGE, shadow=False)
            p.text(pill.center[0], pill.center[1], f"Failure {fail}%", p.fit(f"Failure {fail}%", 30, pill.width * 0.92),
                   FAIL_RED if fail >= 20 else INK, bold=True)
        if g.style == "hard":
            p.icon_label(p.box(x0 + 0.01, 0.67 - lift, x1 - 0.01, 0.8 - lift), stat, ("tile", stat), STAT_COLORS[i],
                         raised)
        else:
            # 0.07 of the height, as the old full-width rows' plates (0.08): a label's plate within two text
            # heights above and below it, as the stand-in VLM's visual cue reads a button (lluma_sim/api/vlm.py)
            p.button(p.box(x0 + 0.005, 0.69 - lift, x1 - 0.005, 0.76 - lift), stat, ("tile", stat),
                     "green" if raised else "white", size=p.fit(stat, 38, p.w * 0.16))
        p.text(p.w * (x0 + x1) / 2, p.h * 0.83, f"Lv {c.level(stat)}", 30, INK_SOFT)
    _back(p)


BOND_COLORS = {"grey": (170, 170, 178), "blue": (80, 150, 235), "green": (100, 200, 90), "orange": (250, 160, 50),
               "MAX": (250, 120, 40)}


def _supports(p: Painter, c: CareerData, training: str) -> None:
    """The support cards on the raised training, top to bottom in the right-hand column: a portrait (a truth icon
    named "Support card" as the reading names it: nothing drawn says which card, the truth's supports do), a bond bar
    under it coloured by level ("MAX" written on it at the top level), and a "!" badge at its top right when the card
    has a hint."""
    for row, name in enumerate(c.cards_on(training)):
        y0 = 0.17 + row * 0.085
        box = p.box(0.8, y0, 0.96, y0 + 0.07)
        r = min(box.width, box.height) * 0.36
        cx, cy = box.center[0], box.y0 + r + 2
        p.rrect(Box(x0=round(cx - r), y0=round(cy - r), x1=round(cx + r), y1=round(cy + r)), CREAM, EDGE, radius=r,
                shadow=False)
        p.character(cx, cy - r * 0.35, r * 0.38, hair=((90 + 40 * row) % 200, 60, 50))
        portrait = Box(x0=round(cx - r), y0=box.y0, x1=round(cx + r), y1=round(cy + r))
        p.widgets.append(Widget("Support card", "icon", portrait, row=row))
        level = bond_level(c.bonds.get(name, 0))
        bar = Box(x0=box.x0, y0=round(cy + r + 4), x1=box.x1, y1=round(cy + r + 4 + p.h * 0.01))
        p.rect(bar, (226, 226, 232))
        fill = round(bar.width * min(100, c.bonds.get(name, 0)) / 100)
        if fill > 0:
            p.rect(Box(x0=bar.x0, y0=bar.y0, x1=bar.x0 + fill, y1=bar.y1), BOND_COLORS[level])
        if level == "MAX":
            p.text(bar.center[0], bar.center[1], "MAX", MAX_LETTERS, WHITE, bold=True, row=row)
        if name in c.hints:
            hint = Box(x0=round(cx + r * 0.55), y0=box.y0, x1=round(cx + r * 0.55 + p.w * 0.04), y1=box.y0 + round(
                p.w * 0.04))
            p.rrect(hint, HINT_PINK, HINT_PINK, radius=hint.width / 2, shadow=False)
            p.text(hint.center[0], hint.center[1], "!", 30, WHITE, bold=True, row=row)


def draw_event(p: Painter, g: GameState) -> None:
    ev = g.event
    assert ev is not None
    _background(p, 5)
    _header(p, g, "Event")
    p.rrect(p.box(0.0, 0.115, 0.8, 0.165), (150, 210, 250), (90, 160, 220), radius=0, shadow=False)
    p.text(p.w * 0.04, p.h * 0.14, ev.title, 44, anchor="lm", bold=True)
    p.character(p.w * 0.5, p.h * 0.27, p.w * 0.11, hair=(40, 30, 40))
    box = p.box(0.05, 0.66, 0.95, 0.85)
    p.rrect(box, WHITE, EDGE, radius=60 * p.s)
    showing = min(g.page, len(ev.pages) - 1)
    for i, line in enumerate(p.wrap(ev.pages[showing], 40, box.width * 0.88)[:3]):
        p.text(p.w * 0.5, p.h * (0.695 + 0.045 * i), line, 40)
    talking = g.page < len(ev.pages)
    if talking:
        p.hotspot(box, ("page",))  # tap anywhere on the box turns the page
        p.button(p.box(0.76, 0.805, 0.92, 0.84), "Next", ("page",), "cream", size=36)
    else:
        for i, choice in enumerate(ev.choices):
            y0 = 0.4 + i * 0.085
            b = p.box(0.04, y0, 0.96, y0 + 0.07)
            size = p.fit(choice.text, 38, b.width - 72 * p.s)
            p.button(b, choice.text, ("choose", i), "cream", kind="choice", size=size, row=i, align="left")
    p.button(p.box(0.22, 0.9, 0.48, 0.96), "Skip", ("skip",), "green", enabled=talking)
    p.button(p.box(0.52, 0.9, 0.78, 0.96), "Quick", ("quick",), "green" if g.quick else "white")


def skills_view(width: int, height: int) -> Box:
    return Box(
        x0=round(0.04 * width),
        y0=round(SKILLS_TOP * height),
        x1=round(0.94 * width),
        y1=round(SKILLS_BOTTOM * height),
    )


def max_scroll(width: int, height: int) -> int:
    row = round(SKILL_ROW * height)
    return max(0, row * len(SKILLS) - skills_view(width, height).height)


def draw_skills(p: Painter, g: GameState) -> None:
    """The "Learn" list (FACTS): "Skill Points N" on top; per row the name, a description, the cost between "-" and
    "+" plates, a hint's "Hint Lvl N" and "N% OFF!", greyed "Obtained" rows; it scrolls; Confirm, Reset, Back."""
    c = g.career
    assert c is not None
    _background(p, 6)
    _header(p, g, "Learn")
    spent = sum(c.skill_cost(n) for n in g.pending)
    left = c.skill_points - spent
    p.rrect(p.box(0.2, 0.115, 0.8, 0.155), WHITE, EDGE, shadow=False)
    p.text(p.w * 0.24, p.h * 0.135, "Skill Points", 38, anchor="lm")
    p.text(p.w * 0.76, p.h * 0.135, str(left), 44, (220, 120, 30), anchor="rm", bold=True)
    view = skills_view(p.w, p.h)
    p.rrect(Box(x0=view.x0 - 6, y0=view.y0 - 6, x1=view.x1 + 6, y1=view.y1 + 6), (244, 244, 250), EDGE, 12, False)
    layer = p.layer()
    row_h = round(SKILL_ROW * p.h)
    for i, skill in enumerate(SKILLS):
        y0 = view.y0 + i * row_h - g.scroll
        if y0 + row_h < view.y0 or y0 > view.y1:
            continue
        card = Box(x0=view.x0 + 8, y0=y0 + 8, x1=view.x1 - 8, y1=y0 + row_h - 8)
        owned, marked = skill.name in c.learned, skill.name in g.pending
        layer.rrect(card, (226, 226, 230) if owned else CREAM if marked else WHITE, EDGE, shadow=False)
        ink = INK_SOFT if owned else INK
        layer.text(card.x0 + 24 * p.s, card.y0 + card.height * 0.26, skill.name,
                   layer.fit(skill.name, 38, card.width * 0.5), ink, anchor="lm", row=i, bold=True)
        layer.text(card.x0 + 24 * p.s, card.y0 + card.height * 0.74, skill.text,
                   layer.fit(skill.text, 30, card.width * 0.55), INK_SOFT, "lm", row=i)
        level = c.skill_hints.get(skill.name, 0)
        if level and not owned:
            layer.text(card.x0 + card.width * 0.58, card.y0 + card.height * 0.26, f"Hint Lvl {level}", 28,
                       GREEN_EDGE, "lm", row=i, bold=True)
            layer.text(card.x0 + card.width * 0.58, card.y0 + card.height * 0.74, f"{HINT_OFF * level}% OFF!", 28,
                       FAIL_RED, "lm", row=i, bold=True)
        mid = card.center[1]
        if g.style != "hard":  # the plain style: one labelled plate a row (Learn, Added: tap to unmark, Obtained)
            btn = Box(x0=card.x1 - round(p.w * 0.24), y0=card.y0 + card.height // 5, x1=card.x1 - round(p.w * 0.02),
                      y1=card.y1 - card.height // 5)
            cost = c.skill_cost(skill.name)
            if not owned:
                layer.text(btn.x0 - round(p.w * 0.02), mid, f"{cost} pt", 36, ink, "rm", row=i)
            if owned:
                layer.button(btn, "Obtained", None, enabled=False, row=i, size=34)
            elif marked:
                layer.button(btn, "Added", ("minus", skill.name), "white", row=i, size=38)
            else:
                layer.button(btn, "Learn", ("plus", skill.name), "green", cost <= left, row=i, size=38)
            continue
        # the hard style, as the real list: the cost between "-" and "+" plates
        step = round(p.w * 0.08)
        plus = Box(x0=card.x1 - round(p.w * 0.02) - step, y0=mid - step // 2, x1=card.x1 - round(p.w * 0.02),
                   y1=mid + step // 2)
        minus = Box(x0=plus.x0 - round(p.w * 0.12) - step, y0=plus.y0, x1=plus.x0 - round(p.w * 0.12), y1=plus.y1)
        if owned:
            layer.text((minus.x0 + plus.x1) / 2, mid, "Obtained", 34, INK_SOFT, row=i, bold=True)
            continue
        cost = c.skill_cost(skill.name)
        layer.button(minus, "-", ("minus", skill.name), "white", marked, row=i, size=44)
        layer.text((minus.x1 + plus.x0) / 2, mid, str(cost), 38, ink, row=i, bold=True)
        layer.button(plus, "+", ("plus", skill.name), "green", not marked and cost <= left, row=i, size=44)
    p.clip_into(layer, view)
    # scrollbar: thin track on the right; thumb size = visible share, position = scroll share
    track = Box(x0=round(0.955 * p.w), y0=view.y0, x1=round(0.955 * p.w) + max(4, round(10 * p.s)), y1=view.y1)
    total, top = max_scroll(p.w, p.h), g.scroll
    thumb_h = max(round(track.height * view.height / (view.height + total)), round(40 * p.s))
    ty = track.y0 + round((track.height - thumb_h) * (top / total if total else 0))
    thumb = Box(x0=track.x0, y0=ty, x1=track.x1, y1=ty + thumb_h)
    p.rect(track, (222, 222, 230))
    p.rect(thumb, (140, 140, 160))
    p.widgets.append(Widget("Scrollbar", "scrollbar", track))
    p.scrollbar = TruthScrollbar(track=track, thumb=thumb, up=top > 0, down=top < total)
    p.button(p.box(0.3, 0.785, 0.64, 0.85), "Confirm", ("confirm_skills",), "green", bool(g.pending))
    p.button(p.box(0.68, 0.785, 0.95, 0.85), "Reset", ("reset",))
    _back(p)


GRADE_COLORS = {"EX": (120, 70, 170), "G1": (40, 110, 210), "G2": (220, 70, 90), "G3": (60, 160, 80),
                "OP": (240, 150, 40), "Pre-OP": (240, 150, 40), "Debut": (150, 150, 160)}


def draw_races(p: Painter, g: GameState) -> None:
    """The race list as the real one (FACTS): the raised race's details above; rows with a grade badge, the name
    plate, the track line ("Tokyo Turf 2400m (Med) Left"), "+N fans" and an aptitude star for a race the trainee is
    fit for; Race under them. A tap on a row raises it."""
    c = g.career
    _background(p, 8)
    _header(p, g, "Races")
    _goal(p, g, 0.11, status=False)
    day = c.race_day() if c else None
    if g.races:
        raised = g.races[min(g.race_sel, len(g.races) - 1)]
        panel = p.box(0.04, 0.2, 0.96, 0.33)
        p.rrect(panel, CREAM, (232, 196, 96), shadow=False)
        p.text(p.w * 0.08, p.h * 0.225, raised.name, p.fit(raised.name, 42, p.w * 0.6), INK, "lm", bold=True)
        p.text(p.w * 0.08, p.h * 0.265, raised.line, p.fit(raised.line, 34, p.w * 0.84), INK_SOFT, "lm")
        p.text(p.w * 0.08, p.h * 0.305, f"+{raised.points} pts", 34, INK, "lm")
        p.text(p.w * 0.92, p.h * 0.305, f"+{raised.fans:,} fans", 34, INK, "rm", bold=True)
    else:
        p.text(p.w * 0.5, p.h * 0.27, "No races today", 40, INK_SOFT)
    for i, race in enumerate(g.races):
        y0 = 0.35 + i * 0.115
        sel = i == g.race_sel
        p.badge(p.box(0.04, y0 + 0.01, 0.17, y0 + 0.045), race.grade, GRADE_COLORS.get(race.grade, GOAL_RED))
        b = p.box(0.19, y0, 0.96, y0 + 0.1)
        size = p.fit(race.name, 40, b.width * 0.6)
        p.button(b, race.name, ("select_race", i), "cream" if sel else "white", size=size, align="left", row=i)
        p.text(b.x0 + 30 * p.s, p.h * (y0 + 0.08), race.line, p.fit(race.line, 30, b.width * 0.62), INK_SOFT, "lm",
               row=i)
        p.text(b.x1 - 24 * p.s, p.h * (y0 + 0.08), f"+{race.fans:,} fans", 30, INK, "rm", row=i)
        if c is not None and race_rules.fits(c.trainee, race):
            p.star(b.x1 - p.w * 0.05, p.h * (y0 + 0.03), p.w * 0.025, row=i)
        if day is not None:
            p.badge(p.box(0.04, y0 + 0.055, 0.17, y0 + 0.09), "Goal", GOAL_RED)
    p.button(p.box(0.3, 0.72, 0.7, 0.79), "Race", ("race_prompt",), "green", bool(g.races), size=50)
    _back(p)


def draw_race_lobby(p: Painter, g: GameState) -> None:
    """The pre-race lobby (auto-derby's PaddockScene): the race, View Results or Race."""
    r = g.result
    assert r is not None
    _background(p, 10)
    _header(p, g, "Paddock")
    p.text(p.w * 0.5, p.h * 0.16, r.race.name, 48, bold=True)
    line = f"{r.race.grade}  {r.race.line}"
    p.text(p.w * 0.5, p.h * 0.21, line, p.fit(line, 36, p.w * 0.9), INK_SOFT)
    p.character(p.w * 0.5, p.h * 0.42, p.w * 0.12)
    p.button(p.box(0.06, 0.8, 0.47, 0.87), "View Results", ("view_results",), "white", size=44)
    p.button(p.box(0.53, 0.8, 0.94, 0.87), "Race", ("watch_race",), "green", size=50)


def _race_page(p: Painter, g: GameState, title: str, backdrop: int) -> RaceResult:
    """A page after the race: its title centred at the top, the race's name under it."""
    assert g.result is not None
    _background(p, backdrop)
    p.text(p.w * 0.5, p.h * 0.08, title, 60, bold=True)
    p.text(p.w * 0.5, p.h * 0.15, g.result.race.name, 46)
    return g.result


def draw_race_rewards(p: Painter, g: GameState) -> None:
    """After the placing, the race's rewards and a second Next (umaplay's "race_after" Next) back to the career."""
    r = _race_page(p, g, "Race Rewards", 11)
    p.text(p.w * 0.5, p.h * 0.3, f"Skill Points +{r.points}", 50, bold=True)
    p.text(p.w * 0.5, p.h * 0.37, f"Fans +{r.fans:,}", 44)
    p.character(p.w * 0.5, p.h * 0.55, p.w * 0.1)
    p.button(p.box(0.3, 0.84, 0.7, 0.91), "Next", ("end_turn",), "green", size=50)


def draw_race_result(p: Painter, g: GameState) -> None:
    r = _race_page(p, g, "Race Result", 9)
    medal = (250, 210, 90) if r.place == 1 else (220, 220, 230) if r.place <= 3 else (236, 226, 214)
    p.rrect(p.box(0.25, 0.22, 0.75, 0.42), medal, (200, 160, 60), radius=80 * p.s)
    p.text(p.w * 0.5, p.h * 0.32, PLACES[r.place - 1], 120, bold=True)
    p.text(p.w * 0.5, p.h * 0.5, f"Skill Points +{r.points}", 44)
    p.character(p.w * 0.5, p.h * 0.62, p.w * 0.08)
    p.button(p.box(0.3, 0.84, 0.7, 0.91), "Next", ("race_next",), "green", size=50)


def draw_shop(p: Painter, g: GameState) -> None:
    """The shop: "Shop Coins N" on top, a row per item (its name, effect and cost, an "Exchange" plate, greyed when
    the coins do not reach), Back."""
    c = g.career
    assert c is not None
    _background(p, 12)
    _header(p, g, "Shop")
    p.rrect(p.box(0.2, 0.115, 0.8, 0.155), WHITE, EDGE, shadow=False)
    p.text(p.w * 0.24, p.h * 0.135, "Shop Coins", 38, anchor="lm")
    p.text(p.w * 0.76, p.h * 0.135, str(c.coins), 44, (220, 120, 30), anchor="rm", bold=True)
    for i, item in enumerate(SHOP_ITEMS):
        y0 = 0.18 + i * 0.12
        card = p.box(0.04, y0, 0.96, y0 + 0.105)
        p.rrect(card, WHITE, EDGE, shadow=False)
        p.text(card.x0 + 30 * p.s, card.y0 + card.height * 0.3, item.name, 40, anchor="lm", row=i, bold=True)
        p.text(card.x0 + 30 * p.s, card.y0 + card.height * 0.72, item.effect, 34, INK_SOFT, "lm", row=i)
        p.text(card.x1 - p.w * 0.3, card.center[1], f"{item.cost} coins", 36, anchor="rm", row=i)
        btn = Box(x0=card.x1 - round(p.w * 0.27), y0=card.y0 + card.height // 5, x1=card.x1 - round(p.w * 0.02),
                  y1=card.y1 - card.height // 5)
        p.button(btn, "Exchange", ("exchange_prompt", i), "green", item.cost <= c.coins, row=i,
                 size=p.fit("Exchange", 38, btn.width * 0.9))
    _back(p)
