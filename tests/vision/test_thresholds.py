"""Every threshold of the reading is a named constant with the evidence behind it (issue 31, item 3).

A number written inside a function body is a threshold nobody can find, change in one place, or check against the
measurement it came from. This counts the numeric literals in function bodies of `lluma_vision` (nested functions
once; default argument values and module-level constants are not in a body) other than the few that are arithmetic,
not thresholds (0, 1, 2, 3, 4, 0.5, 100, 255), and holds the package to at most 60.
"""

from __future__ import annotations

import ast
from pathlib import Path

import lluma_vision

PACKAGE = Path(lluma_vision.__file__).parent
ARITHMETIC = {0, 1, 2, 3, 4, 0.5, 100, 255}  # halves, pairs, percent, a byte's top: not thresholds
MOST = 60  # issue 31's bound for the whole package


def inline_literals(source: str) -> list[tuple[int, int | float]]:
    """(line, value) of each numeric literal inside a function body of `source`, other than ARITHMETIC."""
    tree = ast.parse(source)
    seen: set[int] = set()
    found: list[tuple[int, int | float]] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for stmt in fn.body if isinstance(fn.body, list) else [fn.body]:
            for node in ast.walk(stmt):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
                    continue  # bool is not a number here (type, not isinstance)
                value = node.value
                assert isinstance(value, (int, float))
                if value not in ARITHMETIC:
                    found.append((node.lineno, value))
    return found


def test_the_counter_sees_a_threshold_in_a_body_and_not_a_named_one() -> None:
    source = (
        "LIMIT = 0.75  # named: not counted\n"
        "def f(x, y=0.3):  # a default: not counted\n"
        "    if x > 0.6 * y and x < LIMIT:\n"
        "        return x * 2 + 0.5\n"
        "    return (lambda z: z > 12)(x)\n"
    )
    assert inline_literals(source) == [(3, 0.6), (5, 12)]


def test_the_package_keeps_its_thresholds_named() -> None:
    per_file = {p.relative_to(PACKAGE).as_posix(): inline_literals(p.read_text(encoding="utf-8"))
                for p in sorted(PACKAGE.rglob("*.py"))}
    total = sum(len(v) for v in per_file.values())
    worst = sorted(((len(v), f) for f, v in per_file.items() if v), reverse=True)[:8]
    assert total <= MOST, f"{total} inline numeric thresholds in lluma_vision (at most {MOST}); most in {worst}"
