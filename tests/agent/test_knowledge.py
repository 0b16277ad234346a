"""Knowledge files: the starter set loads, rules match what vision read, the budget and priorities hold,
a bad file is named and skipped, `lluma knowledge` lists and matches."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from setuptools import find_namespace_packages

from lluma_agent.context import knowledge
from lluma_agent.context.knowledge import Entry, Knowledge, ScreenFacts
from lluma_cli import knowledge as knowledge_cli
from lluma_sim.game import SimGame
from lluma_sim.game.state import CareerData
from lluma_vision.models import Box, CaptionedValue, Gauge, VisionOutput

REPO = Path(__file__).resolve().parents[2]
STARTER = REPO / "lluma_knowledge"


def test_the_starter_set_is_at_the_top_and_every_entry_parses_and_compiles() -> None:
    assert knowledge.default_folder() == STARTER  # the installed package name points at the top-level folder
    kb = knowledge.load()
    assert kb.problems == []
    files = sorted(p.name for p in STARTER.glob("*.yaml"))
    assert len(files) >= 4 and set(kb.sources.values()) == set(files)  # every file contributed entries
    assert len(kb.entries) == len({e.id for e in kb.entries}) >= 12
    for e in kb.entries:
        assert all(isinstance(p, re.Pattern) for p in e.match.texts + e.match.buttons)
        assert 10 <= e.tokens <= 120, e.id  # short: several fit the default budget


def test_the_package_build_ships_the_knowledge_folder_and_every_package() -> None:
    """An installed LLuMa finds the starter set: the top-level lluma_knowledge/ folder is a real package whose
    YAML is package data; `package-dir` maps nothing but "" to the top (any other mapping, or none, makes
    setuptools print its "Editable installation" warning box on every editable install); every package is
    listed."""
    tool = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert tool["package-dir"] == {"": "."} and (STARTER / "__init__.py").is_file()
    assert "*.yaml" in tool["package-data"]["lluma_knowledge"]
    # every importable folder, data folders too (one left out makes setuptools print "Package would be ignored")
    found = find_namespace_packages(str(REPO), include=["lluma_*"], exclude=["*__pycache__*"])
    assert set(found) == set(tool["packages"])


def _entry(id_: str, priority: int = 50, text: str = "hint", **match) -> Entry:
    return Entry.model_validate({"id": id_, "priority": priority, "match": match, "text": text})


def test_every_rule_given_must_hold_and_regexes_ignore_case() -> None:
    screen = ScreenFacts(texts=["Energy 35/100", "Fail 24%"], buttons=["Speed", "Wit", "Back"], kinds=["none", "home"])
    assert knowledge.matches(_entry("a", texts=[r"energy\s*[0-3]?\d/"]), screen)
    assert knowledge.matches(_entry("b", buttons=["^speed$", "^wit$"], texts="Fail 2\\d%"), screen)
    assert not knowledge.matches(_entry("c", buttons=["^speed$", "^guts$"]), screen)  # every regex must find one
    assert not knowledge.matches(_entry("d", buttons=["^speed$"], texts=["Fail [3-9]\\d%"]), screen)
    assert knowledge.matches(_entry("e", screen=["dialogue", "Home"]), screen)  # any kind
    assert not knowledge.matches(_entry("f", screen=["dialogue"], buttons=["Speed"]), screen)


def test_when_matches_a_gauge_or_a_captioned_value_against_its_bounds() -> None:
    """The real game prints energy as a bar only: a hint about it has to match the reading's gauge."""
    hub = ScreenFacts(buttons=["Rest"], gauges={"energy": 0.35}, values={"failure": "24%", "fans": "11,219"})
    assert knowledge.matches(_entry("low", buttons=["^Rest$"], when={"gauge": "Energy", "below": 0.4}), hub)
    assert not knowledge.matches(_entry("high", when={"gauge": "Energy", "above": 0.4}), hub)
    assert knowledge.matches(_entry("fail", when={"value": "Failure", "above": 20}), hub)
    assert not knowledge.matches(_entry("fail30", when={"value": "failure", "above": 30}), hub)
    assert knowledge.matches(_entry("fans", when={"value": "Fans", "above": 10000, "below": 20000}), hub)
    both = [{"gauge": "Energy", "below": 0.4}, {"value": "Failure", "above": 30}]
    assert not knowledge.matches(_entry("all", when=both), hub)  # a list means every condition
    # a fact the screen does not show never matches, whichever way the bound points
    assert not knowledge.matches(_entry("none", when={"gauge": "Friendship", "below": 2}), hub)
    assert not knowledge.matches(_entry("nov", when={"value": "Speed", "above": -1}), hub)


def test_screen_facts_take_gauges_and_values_from_the_reading() -> None:
    bar = Box(x0=1, y0=1, x1=50, y1=5)
    out = VisionOutput(width=100, height=100, gauges=[Gauge(label="Energy", fill=0.62, bounds=bar)],
                       values=[CaptionedValue(caption="Failure", value="0%", bounds=Box(x0=1, y0=10, x1=30, y1=20)),
                               CaptionedValue(caption="Power", value="+23", kind="gain",
                                              bounds=Box(x0=40, y0=10, x1=60, y1=20))])
    facts = ScreenFacts.of(out)
    assert facts.gauges == {"energy": 0.62} and facts.values == {"failure": "0%"}  # a gain is not the stat's value


def test_highest_priority_first_within_the_budget() -> None:
    long_text = "word " * 60
    kb = Knowledge(entries=[
        _entry("low", 10, "low priority", buttons=["OK"]),
        _entry("big", 90, long_text, buttons=["OK"]),
        _entry("top", 95, "most important", buttons=["OK"]),
        _entry("other", 99, "another screen", buttons=["Rest"]),
    ])
    screen = ScreenFacts(buttons=["OK"])
    assert [e.id for e in kb.matching(screen)] == ["top", "big", "low"]
    assert [e.id for e in kb.select(screen, budget_tokens=1000)] == ["top", "big", "low"]
    # the big one does not fit: passed over, the smaller lower-priority one still goes
    assert [e.id for e in kb.select(screen, budget_tokens=20)] == ["top", "low"]
    assert kb.select(screen, budget_tokens=0) == []
    note = knowledge.note(kb.select(screen, 20))
    assert note.startswith("<knowledge>") and "most important" in note and long_text.strip() not in note


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("- id: x\n  match: {texts: ['(unclosed']}\n  text: t\n", "does not compile"),
        ("- id: x\n  match: {buttons: [OK]}\n", "text"),
        ("- id: x\n  match: {}\n  text: t\n", "at least one"),
        ("- id: x\n  match: {when: {gauge: Energy}}\n  text: t\n", "below, above"),
        ("- id: x\n  match: {when: {gauge: Energy, value: Failure, below: 1}}\n  text: t\n", "exactly one"),
        ("- id: x\n  match: {buttons: [OK]}\n  text: t\n  colour: red\n", "colour"),
        ("- id: x\n  priority: 500\n  match: {buttons: [OK]}\n  text: t\n", "priority"),
        ("id: x\n", "list of entries"),
        ("- id: x\n  match: [unclosed\n", "YAML"),
        ("- id: good-one\n  match: {buttons: [OK]}\n  text: t\n", "used twice"),
    ],
)
def test_a_bad_file_is_named_and_skipped_the_others_load(tmp_path: Path, content: str, why: str) -> None:
    (tmp_path / "a_good.yaml").write_text("- id: good-one\n  match: {buttons: [OK]}\n  text: fine\n")
    (tmp_path / "b_bad.yaml").write_text(content)
    (tmp_path / "notes.md").write_text("not a knowledge file")
    kb = knowledge.load(tmp_path)
    assert [e.id for e in kb.entries] == ["good-one"]
    assert len(kb.problems) == 1 and kb.problems[0].startswith("b_bad.yaml: ") and why in kb.problems[0]
    assert kb.problems[0].endswith("file skipped")


def _training_screenshot(tmp_path: Path) -> Path:
    game = SimGame(seed=1)
    game.state.career = CareerData(max_turns=game.max_turns)
    game.state.screen = "training"
    path = tmp_path / "training.png"
    game.capture().save(path)
    return path


def test_lluma_knowledge_lists_and_matches_a_screenshot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert knowledge_cli.main(["--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {e["id"] for e in listed["entries"]} == {e.id for e in knowledge.load().entries}
    assert knowledge_cli.main(["--match", str(_training_screenshot(tmp_path)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ids = [m["id"] for m in out["matched"]]
    assert "training-stat-priorities" in ids and "hub-when-to-rest" not in ids
    assert [m["priority"] for m in out["matched"]] == sorted((m["priority"] for m in out["matched"]), reverse=True)
    assert sum(m["tokens"] for m in out["matched"] if m["sent"]) <= out["budget_tokens"]


def test_lluma_knowledge_names_a_bad_file_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.yaml").write_text("- id: x\n  match: {texts: ['[']}\n  text: t\n")
    assert knowledge_cli.main(["--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "broken.yaml" in err and "file skipped" in err


def test_matching_entries_go_into_the_current_turn_only_and_the_log_lists_them(tmp_path: Path) -> None:
    from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop, text

    phone = FakePhone({
        "home": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400)],
                           texts=[text("Summer Camp", 300, 600, 700, 660)], goes_to={"Training": "training"}),
        "training": FakeScreen(buttons=[button("Speed", 100, 800, 400, 900), button("Back", 40, 1750, 240, 1840)],
                               goes_to={"Back": "home"}),
    }, start="home")
    model = ScriptedModel([[call("pressButton", name="Training")], [call("pressButton", name="Speed")], [call("back")]])
    coordinator = loop(tmp_path, phone, model, max_turns=3, knowledge=Knowledge(entries=[
        _entry("camp", 80, "CAMP-HINT enter with high energy", texts=["summer camp"]),
        _entry("speed", 70, "SPEED-HINT speed first", buttons=["^Speed$"]),
        _entry("never", 90, "NEVER-HINT", buttons=["^Rest$"]),
    ]))
    coordinator.run()
    logs = [json.loads((tmp_path / "logs" / f"turn_{n:06d}.json").read_text()) for n in (1, 2, 3)]
    assert [log["knowledge"] for log in logs] == [["camp"], ["speed"], ["speed"]]  # Speed stays on the screen
    first, second = model.requests[0], model.requests[1]
    assert "CAMP-HINT" in json.dumps(first["messages"][-1]) and "SPEED-HINT" in json.dumps(second["messages"][-1])
    for request in model.requests:  # never in the cached prefix: not in system, not in any past turn
        assert "<knowledge>" not in json.dumps(request["system"]) + json.dumps(request["messages"][:-1])
