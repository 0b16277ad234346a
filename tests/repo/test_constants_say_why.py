"""Every module-level number outside the reading says what it is (issue 55: 62 had no comment at all): a knob where
it came from, a definition that it is one ("Android's KEYCODE_BACK", "a display choice", README's exit statuses).
The reading's knobs are held to more (tests/vision/test_knob_evidence.py: named evidence); here a comment of its own
or over its run of constants is enough, and a new bare number fails with its file and line."""

from __future__ import annotations

from pathlib import Path

from tests.vision.test_knob_evidence import knobs

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("lluma_agent", "lluma_sim", "lluma_cli", "lluma_facts", "lluma_knowledge")


def bare(source: str) -> list[str]:
    return [f"{name} (line {line})" for name, line, said in knobs(source) if not said.replace("#", "").strip()]


def test_the_check_sees_a_bare_number_and_one_that_says_why() -> None:
    source = "A = 1\nB = 2  # a definition\n\n# a run's comment\nC = 3\nD = (4, 5)\n"
    assert bare(source) == ["A (line 1)"]


def test_every_number_outside_the_reading_says_what_it_is() -> None:
    found = {str(p.relative_to(ROOT)): b for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))
             if (b := bare(p.read_text(encoding="utf-8")))}
    assert not found, "numbers with no comment:\n" + "\n".join(f"  {f}: {', '.join(v)}" for f, v in found.items())
