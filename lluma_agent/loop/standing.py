"""Standing event choices (issue 40, items 3 and 4): the model's own answer to an event, kept in its memory file
`event_choices.yaml` and pressed by the coordinator whenever that event shows again, without a model call.

An event's choice is the model's decision. The bots carry a table of preferred choices per event; the model builds
its own: having seen what each choice did (the event book's `<events>` line), it may write

    Festival Spirit: "Just the takoyaki, then back to training."
    A Night Run:
      choose: "One lap, then straight home."
      energy_below: 40          # optional: below this energy (percent, as read on the event screen) ...
      then: "Skip it and sleep." # ... press this instead

and the coordinator presses it as a routine pass (the same gate: the spend gate (tools/spending.py), the guard, a
person in the loop, the stale-frame and on-target checks). The file is the model's and a person's: a bad one is one
clear error to the model on the next event, and nothing is pressed from it. A rule whose choice is not on the
screen (another event read under the same title), or whose condition needs an energy the reading did not show,
leaves the event to the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lluma_agent import safeload, yamlsafe
from lluma_agent.loop.eventbook import event_name, same_name
from lluma_agent.navmap.events import state_of
from lluma_vision.facts.story import event_choices
from lluma_vision.models import VisionOutput

MEMORY_FILE = "event_choices.yaml"  # in the model's memory folder
MAX_RULES = 200  # events one file may name (a career meets a few dozen; a person's file stays readable)


class StandingError(ValueError):
    """A standing-choices file that cannot be used (told to the model; nothing is pressed from it)."""


class Standing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    choose: str = Field(min_length=1, max_length=200)
    energy_below: float | None = Field(None, gt=0, le=100)
    then: str | None = Field(None, min_length=1, max_length=200)

    @model_validator(mode="after")
    def _both_or_neither(self) -> Standing:
        if (self.energy_below is None) != (self.then is None):
            raise ValueError("energy_below and then go together")
        return self

    def pick(self, energy: float | None) -> str | None:
        """The choice for a reading with `energy` (percent; None: not read), or None when the rule needs it."""
        if self.energy_below is None:
            return self.choose
        if energy is None:
            return None
        return self.then if energy < self.energy_below else self.choose


def parse(text: str) -> dict[str, Standing]:
    """The file's rules by event title; StandingError naming what is wrong."""
    try:
        data = yamlsafe.load(text)
    except yaml.YAMLError as exc:
        raise StandingError(f"memory file {MEMORY_FILE} is no YAML ({yamlsafe.problem(exc)})") from None
    return rules_of(data)


def rules_of(data: Any) -> dict[str, Standing]:
    """The rules a YAML document holds; StandingError naming what is wrong."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise StandingError(f"memory file {MEMORY_FILE} must map event titles to a choice")
    if len(data) > MAX_RULES:
        raise StandingError(f"memory file {MEMORY_FILE} names {len(data)} events (at most {MAX_RULES})")
    rules: dict[str, Standing] = {}
    for title, rule in data.items():
        try:
            rules[str(title)] = Standing(choose=rule) if isinstance(rule, str) else Standing.model_validate(rule)
        except ValidationError as exc:
            where, what = safeload.fault(exc)
            raise StandingError(f"memory file {MEMORY_FILE}: {title!r}{': ' + where if where else ''}: "
                                f"{what} (a choice, or {{choose, energy_below, then}})") from None
    return rules


class StandingChoices:
    """The model's standing choices, read from its memory folder each time an event's choices show (a person's or
    the model's edit counts at once)."""

    def __init__(self, folder: Path, limit: int = safeload.MAX_BYTES) -> None:
        self.path, self.limit = folder / MEMORY_FILE, limit  # limit: bytes (a memory file's most, memory.store)

    def pick(self, out: VisionOutput) -> tuple[str | None, str]:
        """(the choice to press on this event's choices, the rule's words) or (None, a problem for the model or
        "" when no rule applies)."""
        choices = [name for name, _ in event_choices(out)]
        if not choices:
            return None, ""
        try:  # the hardened loader: what the file is, its size, encoding and depth
            rules = rules_of(safeload.read_yaml(self.path, limit=self.limit))
        except FileNotFoundError:
            return None, ""
        except safeload.Refused as exc:
            return None, f"memory file {MEMORY_FILE}: {exc.problem}; no standing choice was used"
        except StandingError as exc:
            return None, f"{exc}; no standing choice was used"
        known = same_name(event_name(out, choices), rules)  # the event book's name for it
        rule = rules.get(known)
        want = rule.pick(state_of(out).energy) if rule is not None else None
        if want is None:
            return None, ""
        on_screen = same_name(want, choices)
        if on_screen not in choices:
            return None, ""  # another event under the same title, or the choice's words changed: the model's
        return on_screen, f"your standing choice for {known!r} ({MEMORY_FILE})"
