"""The loop's cross-cutting parts are tables: a recovery rung, a notify event and a tool are each added in one place
(issue 38). Each test adds one entry to its table and shows the loop takes it with nothing else changed, and that
the names said elsewhere (the README, the sentences) are the table's."""

from __future__ import annotations

import ast
import json
import re
import shlex
import sys
from pathlib import Path

import pytest
from fakes import FakePhone, FakeScreen, ScriptedModel, button, call, loop

from lluma_agent.config import NotifyConfig
from lluma_agent.context import stuck
from lluma_agent.context.stuck import LADDER, OWN_RUNGS, RUNGS, Climb, Rung, ladder_words
from lluma_agent.loop.acting import LADDER_TOOLS
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog.turnlog import read_turns
from lluma_agent.sentences import templates
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.toolkit import Tool

ROOT = Path(__file__).resolve().parents[2]


def _stuck_phone() -> FakePhone:
    """A screen whose Training leads nowhere (the model stuck on it), with a Back the ladder can press."""
    return FakePhone({"home": FakeScreen(buttons=[button("Training", 100, 1300, 500, 1400),
                                                  button("Shop", 600, 1300, 1000, 1400)])}, "home")


# ---- a recovery rung -----------------------------------------------------------------------------------------------
def test_a_new_input_rung_is_one_entry_of_the_ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rung added to LADDER alone is climbed by the coordinator in its place, sent through the actor with its tool,
    told to the model in its sentence, logged and counted: no Literal, chain or actor to touch."""
    extra = Rung("scroll", "input", "scrolling the list", "rung_ran", tool="scrollDown")
    ladder = (*LADDER[:3], extra, *LADDER[3:])
    monkeypatch.setattr(stuck, "LADDER", ladder)
    phone = _stuck_phone()
    model = ScriptedModel([[call("pressButton", name="Training")]] * 30)
    c = loop(tmp_path, phone, model, settings={"recovery__wait_s": 0}, max_turns=12, stuck_after=2, stuck_force_after=3,
             stuck_pause_after=4)
    totals = c.run()
    logs = read_turns(tmp_path / "logs")
    own = [t.recovery.rung for t in logs if t.recovery is not None and t.recovery.rung in ("back", "scroll",
                                                                                             "safe_tap", "wait")]
    assert own[:3] == ["back", "scroll", "safe_tap"], own  # no app: restart is left out, as before
    scrolled = next(t for t in logs if t.recovery is not None and t.recovery.rung == "scroll")
    assert scrolled.action is not None and scrolled.action.tool == "scrollDown" and scrolled.response is None
    assert any("recovery rung scroll: the coordinator ran scrollDown itself" in e for e in scrolled.errors)
    assert totals.recoveries.get("scroll") == 1  # counted like every rung
    assert ("scroll", "down") in phone.calls  # sent to the phone
    over = [n for t in logs for n in t.notes if "the whole recovery ladder" in n]
    assert over and "(warning, forced action, back, scrolling the list, a safe tap, restarting the game, waiting)" in (
        over[0])  # the ladder told whole, when it failed, names it in its place


def test_every_name_and_sentence_of_the_ladder_comes_from_its_table() -> None:
    assert RUNGS == tuple(r.name for r in LADDER) and OWN_RUNGS == tuple(r.name for r in LADDER if r.own)
    for r in LADDER:
        assert r.said in templates(), r  # the sentence it tells the model is one of sentences.yaml
        if r.does == "input":  # an input rung's tool is the registry's or the ladder's own
            assert r.tool in default_tools() or r.tool in LADDER_TOOLS, r
    for name in (*OWN_RUNGS, "over", "pause"):
        assert Climb(rung=name).rung == name
    with pytest.raises(ValueError):
        Climb(rung="warn")  # the model's rungs are not the coordinator's to climb
    # the ladder told whole is the table's words, in order (the bytes the model read before the table)
    assert ladder_words() == "warning, forced action, back, a safe tap, restarting the game, waiting"


# ---- a notify event ------------------------------------------------------------------------------------------------
def test_every_notify_event_is_a_member_of_one_enum_and_the_readme_lists_them(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    told = readme[readme.index("`notify.command` is run on each event"):][:800]
    assert set(re.findall(r"`([a-z_]+)`", told)) >= {e.value for e in NotifyEvent}
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "lluma_agent").rglob("*.py")
                     if p.name != "notify.py")
    assert not re.search(r"""(send|notify)\(\s*["']""", code)  # every event sent is a member, never a free string
    with pytest.raises(ValueError):
        Notifier(NotifyConfig(command="true")).send("run_finished")  # type: ignore[arg-type]
    out, script = tmp_path / "events.jsonl", tmp_path / "hook.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write(sys.stdin.read())\n", encoding="utf-8")
    n = Notifier(NotifyConfig(command=f"{shlex.quote(sys.executable)} {script} {out}", timeout_s=10.0))
    for event in NotifyEvent:
        n.send(event, {})
    assert n.close() == []
    assert [json.loads(line)["event"] for line in out.read_text().splitlines()] == [e.value for e in NotifyEvent]


# ---- a tool --------------------------------------------------------------------------------------------------------
def test_every_tool_offered_is_the_registrys_goto_included(tmp_path: Path) -> None:
    """The tools a request carries are `default_tools`' list, in its order: goTo and runPlan come from there too
    (after the other input tools, with the map on), not spliced in by the coordinator."""
    for on in (True, False):
        model = ScriptedModel([[call("pressButton", name="Shop")]])
        c = loop(tmp_path / str(on), _stuck_phone(), model, settings={"map__enabled": on}, max_turns=1)
        c.run()
        offered = [t["name"] for t in model.requests[0]["tools"]]
        assert offered == [t["name"] for t in default_tools(router=c.nav if on else None,
                                                            planner=c.plans if on else None).definitions()]
        assert ("goTo" in offered) is on and ("runPlan" in offered) is on
        if on:
            assert offered.index("goTo") == 1 + max(offered.index(t) for t in default_tools().names(acts=True))
            assert offered.index("runPlan") == offered.index("goTo") + 1


def test_no_tool_is_made_outside_the_registry() -> None:
    """A tool is constructed in tools/registry.py's list only (the ladder's safe tap, never offered, aside), so a new
    tool is one line there: no module of the loop builds or splices one."""
    tools = {cls.__name__ for cls in _subclasses(Tool)}
    made: list[str] = []
    for path in (ROOT / "lluma_agent").rglob("*.py"):
        if path.parent.name == "tools" and path.name in ("registry.py", "actions.py", "memory.py"):
            continue  # the registry, and the lists it is made of
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in tools:
                made.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert [m.split()[-1] for m in made] == ["SafeTap"] and made[0].startswith("lluma_agent/loop/acting.py"), made


def _subclasses(cls: type) -> list[type]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))]


# ---- built in one place ----------------------------------------------------------------------------------------
def test_no_part_is_attached_to_a_coordinator_after_it_is_built() -> None:
    """Every part of the loop is given to the Coordinator when it is built (build(), the demo's wiring, the tests'
    loop()): no module assigns one afterwards (`coordinator.careers =`, `model.turn =`, `coordinator.actor =`...).
    checkpoint.restore sets the resumed state and totals: a resume's values, not parts."""
    init = next(f for f in ast.parse((ROOT / "lluma_agent/loop/coordinator.py").read_text(encoding="utf-8")).body
                if isinstance(f, ast.ClassDef) and f.name == "Coordinator")
    parts = {t.attr for n in ast.walk(init) for t in _targets(n)
             if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"}
    parts |= {"sleep", "turn", "before_turn", "before_step"}  # what was attached before issue 38
    # the run's values (restore, run) are not parts: `before` is the totals a resumed sitting's limits count from
    parts -= {"state", "totals", "ending", "started", "before"}
    attached = []
    for folder in ("lluma_agent", "lluma_cli", "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                for t in _targets(node):
                    if (isinstance(t, ast.Attribute) and t.attr in parts and isinstance(t.value, ast.Name)
                            and t.value.id in ("coordinator", "c", "c2", "model")):
                        attached.append(f"{path.relative_to(ROOT)}:{node.lineno} {t.value.id}.{t.attr}")
    assert attached == [], attached


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment assigns to, a tuple's items one by one."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
