"""The tree says what it holds: one meaning per public class name, and commands only in lluma_cli."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p.parent for p in ROOT.glob("lluma_*/__init__.py"))


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for pkg in PACKAGES for p in sorted(pkg.rglob("*.py"))]


def test_no_public_class_name_is_defined_twice() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for path, tree in _modules():
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].append(str(path.relative_to(ROOT)))
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert not twice, f"one meaning per name: {twice}"


def test_commands_live_in_lluma_cli() -> None:
    """A command is a module-level `main(argv)`; only lluma_cli has them (and the packages' __main__ hooks)."""
    found = [
        str(path.relative_to(ROOT)) for path, tree in _modules()
        if not path.relative_to(ROOT).parts[0] == "lluma_cli"
        and any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body)
    ]
    assert not found, f"command modules outside lluma_cli: {found}"
