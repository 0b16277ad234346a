"""The command that runs this `lluma`, as a person types it again: every printed next step starts with it, so it
runs as printed. `make` installs `lluma` into `.venv/bin`, which is not on PATH: there a hint says `.venv/bin/lluma`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _typed(path: str) -> str:
    """A path as a person would type it here: relative when it lies under the current folder (`.venv/bin/lluma`)."""
    p = Path(path)
    if p.is_absolute():
        try:
            p = p.relative_to(Path.cwd())
        except ValueError:
            return shlex.quote(path)
    text = p.as_posix()
    return shlex.quote(text if "/" in text else f"./{text}")


def lluma(argv0: str | None = None) -> str:
    """`lluma` when the `lluma` on PATH is the one running; else the path it was started by (`.venv/bin/lluma`).
    Started as `python -m lluma_cli`: `lluma` when the one on PATH is this environment's, else this interpreter with
    `-m lluma_cli`. Called in-process by another program: `lluma`, the name it installs."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    on_path = shutil.which("lluma")
    if Path(argv0).name == "lluma":
        return "lluma" if on_path and _same(on_path, argv0) else _typed(argv0)
    if Path(argv0).name != "__main__.py" or Path(argv0).parent.name != "lluma_cli":
        return "lluma"
    if on_path and Path(os.path.abspath(on_path)).parent == Path(os.path.abspath(sys.executable)).parent:
        return "lluma"
    return f"{_typed(sys.executable)} -m lluma_cli"


def command(*args: str) -> str:
    """`lluma ARGS...` as it runs here (each argument quoted where a shell needs it)."""
    return " ".join([lluma(), *(shlex.quote(a) for a in args)])
