"""docs/ARCHITECTURE.md's "One turn" list is the order in which `Coordinator._play` calls the turn's stages (issue 55):
a stage moved, added or renamed in one and not the other fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def listed_stages() -> list[str]:
    """The first word of each unindented line of the code block under "## One turn"."""
    section = (ROOT / "docs/ARCHITECTURE.md").read_text(encoding="utf-8").split("\n## One turn\n", 1)[1]
    block = section.split("\n## ", 1)[0].split("```", 2)[1]
    return [line.split()[0] for line in block.splitlines() if line.strip() and not line[0].isspace()]


def played_stages() -> list[str]:
    """The stages `_play` names, in source order: each `self.<...>.<stage>` reference (called, or handed to `_timed`),
    its outermost name, the coordinator's own helpers (`_timed`) left out."""
    tree = ast.parse((ROOT / "lluma_agent/loop/coordinator.py").read_text(encoding="utf-8"))
    play = next(f for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "Coordinator"
                for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "_play")
    inner = {id(n.value) for n in ast.walk(play) if isinstance(n, ast.Attribute)}

    def on_self(node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id == "self"

    refs = [n for n in ast.walk(play) if isinstance(n, ast.Attribute) and id(n) not in inner and on_self(n)]
    return [n.attr for n in sorted(refs, key=lambda n: (n.lineno, n.col_offset)) if not n.attr.startswith("_")]


def test_the_one_turn_list_is_the_order_the_coordinator_plays_the_stages() -> None:
    listed, played = listed_stages(), played_stages()
    assert len(played) >= 8, played  # the walk found the stages (keep_game_up ... remember)
    assert listed == played
