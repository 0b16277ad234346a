"""The sentences the turn loop tells the model, read from `sentences.yaml` beside the system prompt.

`say(name, **fields)` fills one: every {field} the template names must be given and nothing else, so a renamed
field fails at once instead of sending the model an empty or a literal "{reason}". The file is read once, at the
first sentence, and checked whole then (a name, a template with a field that does not parse: an error naming it).
"""

from __future__ import annotations

import string
from functools import cache
from importlib import resources

import yaml

FILE = "sentences.yaml"


class SentenceError(KeyError):
    """A sentence that does not exist, or fields that do not match its template."""


@cache
def templates() -> dict[str, tuple[str, frozenset[str]]]:
    """Every sentence by name: its template and the fields it takes."""
    data = yaml.safe_load(resources.files("lluma_agent").joinpath(FILE).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SentenceError(f"{FILE}: a mapping of names to sentences expected")
    out = {}
    for name, template in data.items():
        if not isinstance(name, str) or not isinstance(template, str):
            raise SentenceError(f"{FILE}: {name!r} must be a name and a sentence")
        fields = frozenset(field for _, field, _, _ in string.Formatter().parse(template) if field is not None)
        out[name] = (template, fields)
    return out


def say(name: str, **fields: object) -> str:
    """The sentence `name` with its fields filled in."""
    try:
        template, wanted = templates()[name]
    except KeyError:
        raise SentenceError(f"{FILE} has no sentence {name!r}") from None
    if set(fields) != wanted:
        raise SentenceError(f"{FILE}: {name!r} takes {sorted(wanted)}, given {sorted(fields)}")
    return template.format(**fields)
