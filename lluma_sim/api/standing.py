"""The stand-in's standing event choices, as a model would keep them: told by the request that a memory file
`event_choices.yaml` holds answers the agent presses for it, and shown what an event's choices did before
(`<events>NAME, what each choice did before ...</events>`), it writes its own answer to that event there, once.

Decided from the request alone: the file's current content is the latest the conversation shows (its own write,
a person's edit note) or the memory snapshot in `system`; the rule is the stand-in's own choice rule (the choice it
ranks first with energy high, and with energy low when they differ, as `energy_below` at its own threshold).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import yaml

from lluma_sim.api.recall import WRITES, memory_file

FILE = "event_choices.yaml"
LOW_ENERGY = 50  # percent: the policy's own threshold for an easy choice over a training one (policy._choice_score)
_EVENT = re.compile(r"<events>(.*?), what each choice did before", re.DOTALL)


def _text(content: Any) -> str:
    return json.dumps(content) if not isinstance(content, str) else content


def offered(request: dict[str, Any]) -> str | None:
    """The tool that writes the file (writeMemoryFile first) when the request tells of it (the map's system prompt)
    and offers one, else None."""
    tools = {t.get("name") for t in request.get("tools") or []}
    return next((w for w in WRITES if w in tools), None) if FILE in _text(request.get("system") or "") else None


def write(request: dict[str, Any], said: list[str], choices: list[str],
          rank: Callable[[list[str], float], str], new_id: Callable[[], str]) -> dict[str, Any] | None:
    """A memory write keeping this event's answer, or None (no history shown yet, not offered, already kept).
    `rank(choices, energy)` is the policy's first choice at an energy (share of full)."""
    event = next((m.group(1).strip() for t in said if (m := _EVENT.search(t))), "")
    if not event or not choices or (name := offered(request)) is None:
        return None
    text = memory_file(request, FILE)
    try:
        rules = yaml.safe_load(text) if text else {}
    except yaml.YAMLError:
        rules = {}
    rules = rules if isinstance(rules, dict) else {}
    if event in rules:
        return None
    high, low = rank(choices, 1.0), rank(choices, 0.0)
    rules[event] = high if high == low else {"choose": high, "energy_below": LOW_ENERGY, "then": low}
    body = "# my answers to events I have met (pressed for me when they show again)\n" + yaml.safe_dump(
        rules, allow_unicode=True, sort_keys=False, width=200)
    return {"type": "tool_use", "id": new_id(), "name": name, "input": {"name": FILE, "content": body}}
