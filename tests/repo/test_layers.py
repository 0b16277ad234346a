"""The package layering of docs/ARCHITECTURE.md ("Layers"), checked on the source itself.

Every import is read with `ast` (top-level and inside functions), and so is every string that names a
lluma module ("lluma_cli.sim:main" handed to importlib). An import that goes up a layer, or between the
siblings lluma_sim and lluma_agent, fails; so does an import cycle between files of one package.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# package -> the lluma packages it may import (itself included)
ALLOWED: dict[str, set[str]] = {
    "lluma_facts": {"lluma_facts"},
    "lluma_vision": {"lluma_facts", "lluma_vision"},
    "lluma_sim": {"lluma_facts", "lluma_vision", "lluma_sim"},
    "lluma_agent": {"lluma_facts", "lluma_vision", "lluma_agent", "lluma_knowledge"},
    "lluma_cli": {"lluma_facts", "lluma_vision", "lluma_sim", "lluma_agent", "lluma_cli", "lluma_knowledge"},
    "lluma_knowledge": {"lluma_knowledge"},  # data (the starter knowledge YAML); the agent finds it by name
}
# Inside a package, its subpackages are layers too: unit -> the units of that package it may import.
# A unit is a subpackage (`lluma_agent.loop`) or, for a package's own top-level modules, the package
# itself (`lluma_agent`: config, atomic writes, interrupts: the base every subpackage may use).
_AGENT_BASE = {"lluma_agent"}
_VISION_BASE = {"lluma_vision"}
SUBLAYERS: dict[str, dict[str, set[str]]] = {
    "lluma_agent": {
        "lluma_agent": _AGENT_BASE,
        "lluma_agent.device": _AGENT_BASE,
        "lluma_agent.model": _AGENT_BASE,
        "lluma_agent.context": _AGENT_BASE | {"lluma_agent.model"},
        "lluma_agent.memory": _AGENT_BASE | {"lluma_agent.context"},
        "lluma_agent.runlog": _AGENT_BASE | {"lluma_agent.model", "lluma_agent.context", "lluma_agent.memory"},
        "lluma_agent.tools": _AGENT_BASE | {"lluma_agent.device", "lluma_agent.model", "lluma_agent.context",
                                             "lluma_agent.memory", "lluma_agent.runlog"},
        # the screen map: its file and paths; an action's key is read from a turn log's ActionLog
        "lluma_agent.navmap": _AGENT_BASE | {"lluma_agent.runlog"},
        "lluma_agent.loop": _AGENT_BASE | {"lluma_agent.device", "lluma_agent.model", "lluma_agent.context",
                                            "lluma_agent.memory", "lluma_agent.runlog", "lluma_agent.tools",
                                            "lluma_agent.navmap"},
        # several devices from one command: a device's agent is the loop's, wired as `lluma run` wires it
        "lluma_agent.fleet": _AGENT_BASE | {"lluma_agent.device", "lluma_agent.model", "lluma_agent.runlog",
                                             "lluma_agent.loop", "lluma_agent.fleet"},
    },
    "lluma_sim": {
        # the top-level modules (fault_plan, taps, sight_of_truth) wire the phone and the API stand-in together
        "lluma_sim": {"lluma_sim", "lluma_sim.words", "lluma_sim.game", "lluma_sim.adb", "lluma_sim.api",
                      "lluma_sim.labelled"},
        "lluma_sim.words": set(),  # the game's words (FACTS): what the game draws and the stand-in reads
        "lluma_sim.game": {"lluma_sim.words"},
        "lluma_sim.adb": {"lluma_sim.words", "lluma_sim.game"},
        # the API stand-in answers as a model would, from the request: it never sees the game (a VLM reading is
        # handed what a perfect reader sees, by the wiring: sight_of_truth)
        "lluma_sim.api": {"lluma_sim.words"},
        "lluma_sim.labelled": set(),  # the labelled real screens and their scoring: vision only
    },
    # The reading's stages: the top-level modules are its base (geometry, the output models, the evidence scale,
    # config, the frame hash), then what is read from pixels, what is a button and why, the facts, the whole.
    "lluma_vision": {
        "lluma_vision": _VISION_BASE,
        "lluma_vision.pixels": _VISION_BASE,
        "lluma_vision.buttons": _VISION_BASE | {"lluma_vision.pixels"},
        "lluma_vision.facts": _VISION_BASE | {"lluma_vision.pixels"},
        "lluma_vision.pipeline": _VISION_BASE | {"lluma_vision.pixels", "lluma_vision.buttons", "lluma_vision.facts"},
    },
    "lluma_cli": {
        "lluma_cli": {"lluma_cli", "lluma_cli.report"},
        "lluma_cli.report": set(),
    },
    "lluma_knowledge": {  # data: the starter knowledge, and runPlan's procedures (read by name, no code)
        "lluma_knowledge": set(),
        "lluma_knowledge.procedures": set(),
    },
}
MODULE_STRING = re.compile(r"(lluma_[a-z]+(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?::[A-Za-z_][A-Za-z0-9_]*)?")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {
    module_name(p): p for pkg in ALLOWED if (ROOT / pkg).is_dir() for p in sorted((ROOT / pkg).rglob("*.py"))
}


def resolve(name: str) -> str | None:
    """The lluma module `name` refers to (a dotted name may end in an attribute: take its module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def references(module: str, source: str, is_package: bool = False) -> Iterator[tuple[int, str]]:
    """(line, module) for every lluma module a file's source imports or names in a string."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the file's own package upwards
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                yield node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if m := MODULE_STRING.fullmatch(node.value):
                yield node.lineno, m.group(1)


def edges() -> Iterator[tuple[str, int, str]]:
    """(importer, line, imported) between lluma modules."""
    for module, path in MODULES.items():
        for line, name in references(module, path.read_text(encoding="utf-8"), path.name == "__init__.py"):
            if name.split(".")[0] in ALLOWED and (target := resolve(name)) is not None:
                yield module, line, target


def test_the_layer_table_covers_every_package() -> None:
    on_disk = {p.parent.name for p in ROOT.glob("lluma_*/__init__.py")}
    assert on_disk == set(ALLOWED), "a new lluma package needs its place in ALLOWED and in docs/ARCHITECTURE.md"


def test_no_import_goes_up_a_layer() -> None:
    wrong = [
        f"{MODULES[src].relative_to(ROOT)}:{line} imports {dst}"
        for src, line, dst in edges()
        if dst.split(".")[0] not in ALLOWED[src.split(".")[0]]
    ]
    assert not wrong, "imports against the layering (docs/ARCHITECTURE.md, Layers):\n" + "\n".join(wrong)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one file (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_no_import_cycle_between_files_of_a_package(package: str) -> None:
    graph: dict[str, set[str]] = {}
    for src, _, dst in edges():
        if src != dst and src.split(".")[0] == package == dst.split(".")[0]:
            graph.setdefault(src, set()).add(dst)
    found = cycles(graph)
    assert not found, f"import cycles in {package}:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_checker_sees_what_it_must() -> None:
    """The rules above are only as good as the import reading: it must see these kinds of reference."""
    src = (
        "import lluma_sim.game\nfrom lluma_agent.config import Config\nfrom . import models\n"
        "def f():\n    from lluma_cli.demo import main\n    return 'lluma_cli.sim:main'\n"
    )
    seen = {name for _, name in references("lluma_vision.probe", src)}
    assert {"lluma_sim.game", "lluma_agent.config", "lluma_vision.models", "lluma_cli.demo", "lluma_cli.sim"} <= seen
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def unit(module: str) -> str:
    """The layer a module belongs to inside its package: its subpackage, or the package for top-level files."""
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and (ROOT / parts[0] / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return parts[0]


def test_the_sublayer_table_covers_every_subpackage() -> None:
    for package in ALLOWED:
        on_disk = {f"{package}.{p.parent.name}" for p in (ROOT / package).glob("*/__init__.py")}
        listed = set(SUBLAYERS.get(package, {})) - {package}
        assert on_disk == listed, f"{package}: every subpackage needs its row in SUBLAYERS (and docs/ARCHITECTURE.md)"


def test_no_import_goes_up_a_sublayer() -> None:
    wrong = []
    for src, line, dst in edges():
        package = src.split(".")[0]
        if package != dst.split(".")[0] or package not in SUBLAYERS:
            continue
        a, b = unit(src), unit(dst)
        if a != b and b not in SUBLAYERS[package][a]:
            wrong.append(f"{MODULES[src].relative_to(ROOT)}:{line} ({a}) imports {dst} ({b})")
    assert not wrong, "imports against the subpackage layers (docs/ARCHITECTURE.md, Layers):\n" + "\n".join(wrong)


def test_subpackages_have_no_cycle() -> None:
    graph: dict[str, set[str]] = {}
    for src, _, dst in edges():
        if src.split(".")[0] == dst.split(".")[0] and unit(src) != unit(dst):
            graph.setdefault(unit(src), set()).add(unit(dst))
    found = cycles(graph)
    assert not found, "cycles between subpackages:\n" + "\n".join(" <-> ".join(c) for c in found)
