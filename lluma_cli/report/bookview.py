"""The one `main` of the commands that show a book the agent keeps (`lluma map`, `lluma events`): find it from DIR,
read it, print it as text or JSON; a book that cannot be found or read is one line on stderr and exit 1."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

B = TypeVar("B")


@dataclass(frozen=True)
class BookView(Generic[B]):
    prog: str  # "lluma map"
    doc: str  # the command's module docstring: its first line is the description
    dir_help: str
    json_help: str
    find: Callable[[Path | None], Path]
    read: Callable[[Path], B]
    errors: tuple[type[Exception], ...]  # what `find` and `read` raise for a book that is not there or not good
    as_json: Callable[[B, Path], dict[str, Any]]
    as_text: Callable[[B, Path], str]

    def main(self, argv: list[str]) -> int:
        ap = argparse.ArgumentParser(prog=self.prog, description=self.doc.splitlines()[0])
        ap.add_argument("dir", nargs="?", type=Path, default=None, help=self.dir_help)
        ap.add_argument("--json", action="store_true", help=self.json_help)
        args = ap.parse_args(argv)
        try:
            path = self.find(args.dir)
            book = self.read(path)
        except self.errors as exc:
            print(f"{self.prog}: {exc}", file=sys.stderr)
            return 1
        print(json.dumps(self.as_json(book, path), indent=2, ensure_ascii=False) if args.json
              else self.as_text(book, path))
        return 0
