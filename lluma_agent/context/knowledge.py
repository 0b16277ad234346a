"""Knowledge files: short hints a person writes in YAML, matched to what vision read on the screen.

Each file is a list of entries:

    - id: rest-when-energy-low        # unique across all files
      priority: 80                    # 0-100, higher first when the budget is tight
      match:                          # every rule given must hold
        texts: ['Energy\\s*[0-3]?\\d\\b']   # each regex finds some text read (text lines, button hints)
        buttons: ['^Rest$']           # each regex finds some button name
        screen: [dialogue, Home]      # any of: the cinematic kind or the selected tab
        when: {gauge: Energy, below: 0.4}   # a gauge's fill (0..1), or a captioned value's number:
                                            # {value: Failure, above: 20}; a list means all of them
      text: Energy is under 40: rest (or go to Recreation if mood is low) before training.

Regexes are Python `re`, case-insensitive, compiled when the file is loaded. A file that does not
parse, or has an entry that does not validate, is reported by name and skipped; the others load.
Matching entries go into the current turn only, never into the cached prefix.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lluma_agent import yamlsafe
from lluma_agent.context.tokens import estimate_text_tokens
from lluma_vision.models import VisionOutput

SUFFIXES = (".yaml", ".yml")
PACKAGE = "lluma_knowledge"  # the starter set: the repository's top-level lluma_knowledge/ folder (YAML as data)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _compile(patterns: list[str]) -> list[re.Pattern[str]]:
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p, re.IGNORECASE))
        except re.error as exc:
            raise ValueError(f"regex {p!r} does not compile: {exc}") from None
    return out


class Condition(_Strict):
    """A fact of the reading against a bound: a gauge's fill (0..1) or the number a captioned value starts with
    ("Failure" "25%" -> 25, "Speed" "796/1200" -> 796). A fact the screen does not show never matches."""

    gauge: str | None = None
    value: str | None = None
    below: float | None = None
    above: float | None = None

    @model_validator(mode="after")
    def _complete(self) -> Condition:
        if (self.gauge is None) == (self.value is None):
            raise ValueError("a condition names exactly one of gauge, value")
        if self.below is None and self.above is None:
            raise ValueError("a condition needs below, above or both")
        return self

    def holds(self, screen: ScreenFacts) -> bool:
        if self.gauge is not None:
            found = screen.gauges.get(self.gauge.casefold())
        else:
            found = _number(screen.values.get(str(self.value).casefold(), ""))
        return (found is not None and (self.below is None or found < self.below)
                and (self.above is None or found > self.above))


_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")  # "11,219" fans


def _number(text: str) -> float | None:
    m = _NUMBER.search(_THOUSANDS.sub("", text))
    return float(m.group()) if m else None


class Match(_Strict):
    texts: list[re.Pattern[str]] = Field(default_factory=list)
    buttons: list[re.Pattern[str]] = Field(default_factory=list)
    screen: list[str] = Field(default_factory=list)
    when: list[Condition] = Field(default_factory=list)

    @field_validator("when", mode="before")
    @classmethod
    def _conditions(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @field_validator("texts", "buttons", mode="before")
    @classmethod
    def _regexes(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return _compile(value)
        return value

    @field_validator("screen", mode="before")
    @classmethod
    def _kinds(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _not_empty(self) -> Match:
        if not (self.texts or self.buttons or self.screen or self.when):
            raise ValueError(
                "match needs at least one of texts, buttons, screen, when (an entry must not match everything)")
        return self


class Entry(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    priority: int = Field(50, ge=0, le=100)
    match: Match
    text: str = Field(min_length=1)

    @property
    def tokens(self) -> int:
        return estimate_text_tokens(self.text)


class ScreenFacts(BaseModel):
    """What knowledge rules look at: texts read (lines and button hints), button names, screen kinds, gauges
    and captioned values (keys casefolded)."""

    texts: list[str] = Field(default_factory=list)
    buttons: list[str] = Field(default_factory=list)
    kinds: list[str] = Field(default_factory=list)  # lowercase: the cinematic kind, the selected tab
    gauges: dict[str, float] = Field(default_factory=dict)  # label -> fill
    values: dict[str, str] = Field(default_factory=dict)  # caption -> value as printed (not gains)

    @classmethod
    def of(cls, out: VisionOutput) -> ScreenFacts:
        kinds: list[str] = [out.cinematic]
        if out.menu is not None and out.menu.selected:
            kinds.append(out.menu.selected)
        return cls(
            texts=[t.text for t in out.loose_texts] + [b.meta for b in out.buttons if b.meta],
            buttons=[b.name for b in out.buttons],
            kinds=[k.lower() for k in kinds],
            gauges={g.label.casefold(): g.fill for g in out.gauges},
            values={v.caption.casefold(): v.value for v in out.values if v.kind == "value"},
        )


def matches(entry: Entry, screen: ScreenFacts) -> bool:
    m = entry.match
    return (
        all(any(p.search(t) for t in screen.texts) for p in m.texts)
        and all(any(p.search(b) for b in screen.buttons) for p in m.buttons)
        and (not m.screen or any(k.lower() in screen.kinds for k in m.screen))
        and all(c.holds(screen) for c in m.when)
    )


class Knowledge(BaseModel):
    """All entries of a folder, and the files that were skipped (with why)."""

    folder: str = ""
    entries: list[Entry] = Field(default_factory=list)
    sources: dict[str, str] = Field(default_factory=dict)  # entry id -> file name
    problems: list[str] = Field(default_factory=list)  # "name.yaml: what is wrong"

    def matching(self, screen: ScreenFacts) -> list[Entry]:
        """Every entry that matches, highest priority first (ties by id, so the order is stable)."""
        return sorted((e for e in self.entries if matches(e, screen)), key=lambda e: (-e.priority, e.id))

    def select(self, screen: ScreenFacts, budget_tokens: int) -> list[Entry]:
        """The matching entries that fit the budget, taken by priority; one that does not fit is passed over."""
        chosen, used = [], 0
        for e in self.matching(screen):
            if used + e.tokens <= budget_tokens:
                chosen.append(e)
                used += e.tokens
        return chosen


def note(entries: list[Entry]) -> str:
    """The text block added to the current turn."""
    return "<knowledge>\n" + "\n".join(f"- {e.text.strip()}" for e in entries) + "\n</knowledge>"


def _load_file(path: Path) -> list[Entry]:
    try:
        data = yamlsafe.load(yamlsafe.decode(path.read_bytes()))  # limits: a bomb or a duplicate id key is refused
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ValueError(f"not readable YAML ({' '.join(str(exc).split())})") from None
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValueError("the top level must be a list of entries")
    entries = []
    for i, item in enumerate(data):
        try:
            entries.append(Entry.model_validate(item))
        except ValidationError as exc:
            where = f"entry {i + 1}" + (f" ({item.get('id')})" if isinstance(item, dict) and item.get("id") else "")
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"]) or "(entry)"
            raise ValueError(f"{where}: {loc}: {err['msg']}") from None
    return entries


def default_folder() -> Path | None:
    """The starter set: the checkout's lluma_knowledge/ folder (editable install), or the copy installed with
    the package (its YAML is package data). None if neither is there."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    return Path(locations[0]) if locations else None


def load(folder: Path | None = None) -> Knowledge:
    """Every *.yaml in `folder` (default: the starter set), in name order. Bad files are reported, not fatal."""
    folder = default_folder() if folder is None else Path(folder)
    kb = Knowledge(folder=str(folder or ""))
    if folder is None:
        kb.problems.append(f"the starter set ({PACKAGE}) is not installed; set knowledge.dir")
        return kb
    if not folder.is_dir():
        kb.problems.append(f"{folder}: no knowledge folder there")
        return kb
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file()):
        try:
            entries = _load_file(path)
            ids = [e.id for e in entries]
            dup = next((i for i in ids if i in kb.sources or ids.count(i) > 1), None)
            if dup:
                also = f" (also in {kb.sources[dup]})" if dup in kb.sources else ""
                raise ValueError(f"id {dup!r} is used twice{also}")
        except ValueError as exc:
            kb.problems.append(f"{path.name}: {exc}; file skipped")
            continue
        kb.sources.update({e.id: path.name for e in entries})
        kb.entries += entries
    return kb

