"""YAML a person wrote, read with limits: a config file, a memory file, a knowledge file.

PyYAML's safe loader builds what it is given: an alias bomb (a few lines whose aliases expand to billions of
values) runs for minutes and gigabytes once anything walks the result, nesting a few hundred levels deep is a
RecursionError, a duplicate key silently keeps the last value. Here each is a `YamlLimitError` (a
`yaml.YAMLError`) raised at once, with the line: at most MAX_DEPTH levels, MAX_ALIASES aliases, MAX_NODES
values once aliases are expanded, and no key twice in a mapping. `decode` names a file's encoding when it is
not UTF-8 (UTF-16 from a Windows editor reads as garbage otherwise).
"""

from __future__ import annotations

import codecs
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_DEPTH = 32  # nesting no hand-written file needs (ours are under 6 deep); the loader's bound (stop 57), not measured
MAX_ALIASES = 100  # a "billion laughs" file expands through aliases; ours use none
MAX_NODES = 100_000  # the largest map or book seen is a few thousand nodes; a bound, not measured


class YamlLimitError(yaml.YAMLError):
    """YAML refused before it could cost time or memory, or mean something else than it says."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        super().__init__(f"{problem}{where}")
        self.problem, self.problem_mark = problem, mark


class _Bounded(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def _mark(self) -> Any:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML's parser methods are untyped
        return event.start_mark

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise YamlLimitError(f"more than {MAX_ALIASES} aliases (*name)", self._mark())
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep", self._mark())
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, MappingNode | SequenceNode):
                key = self.construct_object(key_node, deep=True)
                if key in seen:
                    raise YamlLimitError(f"duplicate key {key!r}", key_node.start_mark)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node: Node, memo: dict[int, int]) -> int:
    """How many values `node` stands for once every alias is expanded (what a walk of the result visits)."""
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = 1  # a recursive alias counts once (construction keeps it one object)
    size = 1
    if isinstance(node, SequenceNode):
        size += sum(_expanded_size(child, memo) for child in node.value)
    elif isinstance(node, MappingNode):
        size += sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    memo[id(node)] = min(size, MAX_NODES + 1)
    return memo[id(node)]


def load(text: str) -> Any:
    """One YAML document, within the limits above (YamlLimitError, or PyYAML's own errors)."""
    loader = _Bounded(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_NODES:
            raise YamlLimitError(f"more than {MAX_NODES:,} values once its aliases are expanded (an alias bomb?)")
        return loader.construct_document(node)
    except RecursionError:
        raise YamlLimitError(f"nested more than {MAX_DEPTH} levels deep") from None
    finally:
        loader.dispose()


def problem(exc: Exception) -> str:
    """What is wrong with a YAML text (`load`'s error), on one line, with where it is when PyYAML knows."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{getattr(exc, 'problem', None) or (str(exc).splitlines() or [type(exc).__name__])[0]}{where}"


_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))


def decode(data: bytes, final: bool = True) -> str:
    """A file's text; ValueError naming the encoding (or the first bad byte) when it is not UTF-8. Not `final`: the
    file's first bytes, cut where they were read (a character cut in two at the end is no fault, and is left out)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            raise ValueError(f"the file is {name}, not UTF-8; save it as UTF-8")
    if data[:64].count(0) >= 8:  # every other byte zero: UTF-16 without a byte-order mark
        raise ValueError("the file looks like UTF-16, not UTF-8; save it as UTF-8")
    try:
        return codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=final)
    except UnicodeDecodeError as exc:
        raise ValueError(f"the file is not UTF-8 (byte 0x{data[exc.start]:02x} at position {exc.start}); "
                         "save it as UTF-8") from None
