"""Skills: the "Learn" list, bought with skill points (FACTS: the Learn screen).

hub Skills -> the list ("Skill Points N" on top; per row the name, a description, the cost between "-" and "+", a
hint's "Hint Lvl N" / "N% OFF!", greyed "Obtained" rows; it scrolls) -> "+" marks a skill, "-" unmarks it -> Confirm
-> the "Learn" dialog (Cancel / Learn) -> "Skills Learned" (Close) -> the list. No turn passes.
"""

from __future__ import annotations

from lluma_sim.game.content import SKILLS
from lluma_sim.game.flow import Play
from lluma_sim.game.state import DialogState


def open_skills(g: Play) -> None:
    g.state.pending, g.state.scroll = [], 0


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
    g.live().learn(names)
    g.state.pending = []
    g.state.dialog = DialogState(
        kind="skills_learned", title="Skills Learned",
        lines=tuple(s.name for s in SKILLS if s.name in names)[:4] or ("No skill learned.",),
        buttons=(("Close", "white", ("close",)),))
