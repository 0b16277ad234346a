"""Skills: the "Learn" list, bought with skill points (FACTS: the Learn screen).

hub Skills -> the list ("Skill Points N" on top; per row the name, a description, the cost between "-" and "+", a
hint's "Hint Lvl N" / "N% OFF!", greyed "Obtained" rows; it scrolls) -> "+" marks a skill, "-" unmarks it -> Confirm
-> the "Learn" dialog (Cancel / Learn) -> "Skills Learned" (Close) -> the list. No turn passes.
"""

from __future__ import annotations

import random

from lluma_sim.game.content import MAX_HINT, SKILLS
from lluma_sim.game.flow import Play
from lluma_sim.game.state import CareerData, DialogState


def open_skills(g: Play) -> None:
    g.state.pending, g.state.scroll = [], 0


def scroll(g: Play, by: int, top: int) -> None:
    """A swipe on the list: its offset moves by `by` device px, within 0 to `top` (the list's end at the bottom)."""
    g.state.scroll = max(0, min(top, g.state.scroll + by))


def plus(g: Play, name: str) -> None:
    """Mark a skill to learn, when the points left reach its cost."""
    c = g.live()
    left = c.skill_points - sum(c.skill_cost(n) for n in g.state.pending)
    if name not in g.state.pending and name not in c.learned and c.skill_cost(name) <= left:
        g.state.pending.append(name)


def minus(g: Play, name: str) -> None:
    if name in g.state.pending:
        g.state.pending.remove(name)


def reset(g: Play) -> None:
    g.state.pending = []


def confirm_skills(g: Play) -> None:
    c = g.live()
    cost = sum(c.skill_cost(n) for n in g.state.pending)
    n = len(g.state.pending)
    g.state.dialog = DialogState(
        kind="learn", title="Learn",
        lines=(f"Learn {n} skill{'s' if n > 1 else ''}?", f"Skill Points: {c.skill_points} -> {c.skill_points - cost}"),
        buttons=(("Cancel", "white", ("close",)), ("Learn", "green", ("learn_commit",))))


def learn_commit(g: Play) -> None:
    names = list(g.state.pending)
    learn(g.live(), names)
    g.state.pending = []
    g.state.dialog = DialogState(
        kind="skills_learned", title="Skills Learned",
        lines=tuple(s.name for s in SKILLS if s.name in names)[:4] or ("No skill learned.",),
        buttons=(("Close", "white", ("close",)),))


def learn(c: CareerData, names: list[str]) -> None:
    """The skills `names` the points reach, in the list's order, each for its cost; each adds its stat bonus."""
    learned = 0
    for skill in SKILLS:
        cost = c.skill_cost(skill.name)
        if skill.name in names and skill.name not in c.learned and cost <= c.skill_points:
            c.skill_points -= cost
            c.learned = c.learned | {skill.name}
            c.add(skill.stat, skill.bonus)
            learned += 1
    c.status = f"Learned {learned} skill(s)"


def hint(c: CareerData, rng: random.Random, stat: str | None = None) -> str:
    """A skill hint: a level more on a skill (one of `stat`'s, when given), each level 10% off its cost."""
    pool = [s.name for s in SKILLS if stat is None or s.stat == stat] or [s.name for s in SKILLS]
    name = rng.choice(pool)
    c.skill_hints = {**c.skill_hints, name: min(MAX_HINT, c.skill_hints.get(name, 0) + 1)}
    return name
