"""Files a person, another run or a crash may have left in any state, read with limits: the one way in.

The memory folder's files (the memory files, the model's procedures and standing choices, the folder's state
file) and the screen map and event book beside it are read here, so whatever a file holds, reading it gives the
data or one line naming the file and what is wrong (`Refused`), never a hang, a traceback or memory spent:

- what it is: a regular file, anything else refused at once (`atomic.read_regular`: a FIFO would block the read
  for ever, a link to /dev/zero would never end);
- its size: at most `limit` bytes; past it refused, the rest never read;
- its encoding: UTF-8, else the encoding named (`yamlsafe.decode`: UTF-16 from a Windows editor);
- its depth: YAML within yamlsafe's limits (depth, aliases, duplicate keys); JSON at most yamlsafe.MAX_DEPTH levels
  deep, its numbers finite (Python's json reads NaN, Infinity and 1e999, which JSON has not: printed again they
  are invalid JSON, and a mean of them is no number);
- its shape: a pydantic model's, `fault` saying where it found the data wrong and what.

A missing file is FileNotFoundError, left to the caller: "no file yet" means something different to each.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from lluma_agent import yamlsafe
from lluma_agent.atomic import NotRegular, read_regular

MAX_BYTES = 32 * 2**20  # a 300-turn demo's map is 7 KB (16 ways, 10 screens: ~400 bytes each); 32 MiB holds some
# 80,000 ways and a whole game's events many times over, and is read and parsed in about a second


class Refused(ValueError):
    """A file that cannot be used: `<path>: <problem>`, one line."""

    def __init__(self, path: Path | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path, self.problem = Path(path), problem


def read_text(path: Path | str, what: str = "a regular", limit: int = MAX_BYTES) -> str:
    """The text of `path`, a regular UTF-8 file of at most `limit` bytes (`what` names the file it should be, for
    the message: "a FIFO (named pipe), not a screen map file")."""
    try:
        data = read_regular(path, limit + 1)
    except FileNotFoundError:
        raise
    except NotRegular as exc:
        raise Refused(path, f"{exc.kind}, not {what} file") from None
    except OSError as exc:
        raise Refused(path, f"cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > limit:
        raise Refused(path, f"larger than {limit:,} bytes, not read")
    try:
        return yamlsafe.decode(data)
    except ValueError as exc:
        raise Refused(path, str(exc)) from None


def read_shown(path: Path | str, limit: int) -> tuple[str, str, bool]:
    """A file a person and the model read as it is (a memory file): its text up to `limit` bytes, what is wrong
    with its encoding ("" when it is UTF-8: a file that is not is still shown, with replacement characters, never
    dropped) and whether it was cut. A regular file only: NotRegular at once for anything else."""
    data = read_regular(path, limit + 1)
    cut, data = len(data) > limit, data[:limit]
    try:
        yamlsafe.decode(data, final=not cut)
        problem = ""
    except ValueError as exc:
        problem = str(exc)
    return data.decode("utf-8", errors="replace"), problem, cut


def read_yaml(path: Path | str, what: str = "a regular", limit: int = MAX_BYTES) -> Any:
    """The YAML document in `path` (read_text, then yamlsafe's limits)."""
    text = read_text(path, what, limit)
    try:
        return yamlsafe.load(text)
    except yaml.YAMLError as exc:
        raise Refused(path, f"not YAML: {yamlsafe.problem(exc)}") from None


def read_json(path: Path | str, what: str = "a regular", limit: int = MAX_BYTES) -> Any:
    """The JSON value in `path` (read_text, then `parse_json`)."""
    text = read_text(path, what, limit)
    try:
        return parse_json(text)
    except ValueError as exc:
        raise Refused(path, f"not JSON: {exc}") from None


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is no number JSON has")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number")
    return value


def parse_json(text: str) -> Any:
    """JSON with finite numbers only, at most yamlsafe.MAX_DEPTH levels deep; ValueError says what is wrong."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise ValueError(f"nested more than {yamlsafe.MAX_DEPTH} levels deep") from None
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > yamlsafe.MAX_DEPTH:
                raise ValueError(f"nested more than {yamlsafe.MAX_DEPTH} levels deep")
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return data


def fault(exc: ValidationError) -> tuple[str, str]:
    """A model's first complaint about some data: where it is ("choices.Rest.sums", "" for the whole) and what."""
    first = exc.errors()[0]
    return ".".join(str(x) for x in first["loc"]), str(first["msg"])
