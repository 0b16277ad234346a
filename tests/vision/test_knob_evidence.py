"""Every knob of the reading carries its evidence (issue 38, item 3).

A module-level numeric constant in `lluma_vision` (a number, a negative one, a tuple of numbers) is a threshold
someone chose. It must say what it was measured on: a comment on its own lines, or the comment block over the run
of constants it belongs to (no blank line between), naming a commit with what it measured ("7d24b09 (chosen on
screens2 79 -> 80/113)": a bare hash says nothing), the labelled screens (`screens`, `screens2`), the simulator, a
bench figure or a test, or saying why it is "not measured" (a format, a display choice). The refactoring's stamp
("named in ... from inline values ... not re-measured") is no evidence: such a knob is swept (bench/knobs.py) or
listed in docs/knob_debt.md (issue 55). A new knob without one fails here with its file and line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import lluma_vision

PACKAGE = Path(lluma_vision.__file__).parent
EVIDENCE = re.compile(
    r"\b[0-9a-f]{7,40}\b \("  # a commit, with what it measured
    r"|\bscreens2?\b|\blabelled\b|\bsim(ulator)?('s)?\b"  # the screens it was measured on
    r"|bench/|tests/|\bmeasured\b|\.png\b"  # a figure, a test, a named capture
    r"|not measured"  # a definition or a display choice, said so
)
STAMP = re.compile(r"not re-measured|from inline values")  # a renaming, not a measurement (issue 55)


def _numeric(v: ast.expr) -> bool:
    if isinstance(v, ast.Constant):
        return isinstance(v.value, (int, float)) and not isinstance(v.value, bool)
    if isinstance(v, ast.UnaryOp):
        return _numeric(v.operand)
    if isinstance(v, ast.BinOp):
        return _numeric(v.left) and _numeric(v.right)
    if isinstance(v, ast.Tuple):
        return bool(v.elts) and all(_numeric(e) for e in v.elts)
    return False


def knobs(source: str) -> Iterator[tuple[str, int, str]]:
    """(name, line, its comments) for each module-level numeric constant of `source`."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target if isinstance(
            node, ast.AnnAssign) else None
        if not isinstance(target, ast.Name) or node.value is None or not _numeric(node.value):  # type: ignore[union-attr]
            continue
        said = [ln.partition("#")[2] for ln in lines[node.lineno - 1:node.end_lineno] if "#" in ln]
        k = node.lineno - 2  # up through its run of constants: the block comments over them speak for the run
        while k >= 0 and lines[k].strip() and not lines[k].startswith(("def ", "class ", "@")):
            if lines[k].lstrip().startswith("#"):
                said.append(lines[k])
            k -= 1
        yield target.id, node.lineno, " ".join(said)


def without_evidence(source: str) -> list[str]:
    return [f"{name} (line {line})" for name, line, said in knobs(source)
            if STAMP.search(" ".join(said.replace("#", " ").split())) or not EVIDENCE.search(said)]


def test_the_check_sees_a_knob_without_evidence_and_one_with() -> None:
    source = (
        "import re\n"
        "PATTERN = re.compile('x')  # not a number: not a knob\n"
        "FLAG = True\n"
        "\n"
        "BARE = 0.4  # a share of the width\n"
        "\n"
        "# greyed plates sat 45-101 under on screens2\n"
        "DIMMER = 30\n"
        "PALE = 0.5  # ... with the one above: one run, one comment block\n"
        "\n"
        "PAIR = (0.8, 1.25)  # 4eee93a (pairs on screens2 12 -> 14/20)\n"
        "NEG = -0.25\n"
        "\n"
        "HASH = 7  # 4eee93a\n"
        "\n"
        "# evidence: named in 6f8e42f from inline values; readings identical on screens 43/43 (not re-measured\n"
        "#   one by one)\n"
        "STAMPED = 0.3\n"
        "\n"
        "def f() -> None:\n"
        "    LOCAL = 3\n"
    )
    assert [name for name, _, _ in knobs(source)] == ["BARE", "DIMMER", "PALE", "PAIR", "NEG", "HASH", "STAMPED"]
    assert without_evidence(source) == ["BARE (line 5)", "NEG (line 12)", "HASH (line 14)", "STAMPED (line 18)"]


def test_every_knob_of_the_reading_names_its_evidence() -> None:
    missing = {p.relative_to(PACKAGE).as_posix(): found for p in sorted(PACKAGE.rglob("*.py"))
               if (found := without_evidence(p.read_text(encoding="utf-8")))}
    assert not missing, "knobs without evidence (a commit, the screens, a figure; or 'not measured' and why):\n" + \
        "\n".join(f"  {f}: {', '.join(v)}" for f, v in missing.items())
