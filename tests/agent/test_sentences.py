"""What the turn loop tells the model comes from one file beside the system prompt (lluma_agent/sentences.yaml)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lluma_agent.context.stuck import ladder_words
from lluma_agent.sentences import SentenceError, say, templates

ROOT = Path(__file__).resolve().parents[2]


def test_every_sentence_is_used_and_every_use_has_its_sentence() -> None:
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "lluma_agent").rglob("*.py"))
    said = set(re.findall(r"""\bsay\(\s*["'](\w+)["']""", code))
    assert said <= set(templates()), said - set(templates())  # a sentence asked for by a name the file lacks
    unused = [name for name in templates() if not re.search(rf"""["']{name}["']""", code)]
    assert not unused, f"sentences no code says: {unused}"


def test_a_missing_or_unknown_field_is_an_error_not_an_empty_word() -> None:
    assert say("vetoed", what="pressButton(Rest)").startswith("not executed: a person watching the run vetoed press")
    with pytest.raises(SentenceError, match="takes \\['what'\\]"):
        say("vetoed")
    with pytest.raises(SentenceError, match="given \\['what', 'why'\\]"):
        say("vetoed", what="x", why="y")
    with pytest.raises(SentenceError, match="no sentence 'nonsense'"):
        say("nonsense")


def test_a_folded_sentence_reads_as_one_line() -> None:
    note = say("ladder_over", reason="screen unchanged", ladder=ladder_words(), failed=1, max_cycles=3, window_s=3600.0)
    assert "\n" not in note and "restarting the game, waiting) did not" in note and "within 3600 s)." in note
