"""`lluma memory [--dir DIR] [list|show NAME|budget]`: the agent's memory files and their token budget.

Counts come from MemoryStore, so they are the estimates the agent itself is held to. The folder
and budget default to memory.dir and memory.budget_tokens of config.yaml (when present).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.memory.store import ALLOWED_SUFFIXES, RESERVED_NAMES, MemoryStore
from lluma_agent.runlog.runs import runs_newest_first


def _memory_files(folder: Path) -> list[Path]:
    """The files a MemoryStore there would show (read without creating anything)."""
    if not folder.is_dir():
        return []
    return [p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
            and p.name.lower().endswith(ALLOWED_SUFFIXES) and p.name.lower() not in RESERVED_NAMES]


def newest_run_memory(logs: Path) -> Path | None:
    """The memory folder of the newest run under `logs` that has memory files (`lluma demo` and the tests keep
    theirs in the run's log folder, `logs/demo-<time>/memory/`; the newest as `lluma logs` means it); None when
    there is none."""
    return next((d / "memory" for d in runs_newest_first(logs) if _memory_files(d / "memory")), None)


def _summary(store: MemoryStore) -> dict[str, Any]:
    files = []
    for f in store.files:
        st = (store.folder / f.name).stat()
        files.append({"name": f.name, "tokens": f.tokens, "bytes": st.st_size, "modified": st.st_mtime})
    used = store.total_tokens()
    return {
        "dir": str(store.folder),
        "budget_tokens": store.budget_tokens,
        "total_tokens": used,
        "free_tokens": max(store.budget_tokens - used, 0),
        "files": files,
    }


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def format_list(s: dict[str, Any]) -> str:
    head = (f"{s['dir']}: {len(s['files'])} file(s), ~{s['total_tokens']:,} of {s['budget_tokens']:,} tokens "
            f"({_pct(s['total_tokens'], s['budget_tokens'])})")
    if not s["files"]:
        return head + "\n  (no memory files yet)"
    width = max(12, *(len(f["name"]) for f in s["files"]))
    lines = [head, f"  {'name':<{width}}  {'tokens':>7}  {'bytes':>8}  modified"]
    for f in s["files"]:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(f["modified"]))
        lines.append(f"  {f['name']:<{width}}  {f['tokens']:>7,}  {f['bytes']:>8,}  {when}")
    return "\n".join(lines)


def format_budget(s: dict[str, Any]) -> str:
    budget = s["budget_tokens"]
    lines = [
        f"budget: {budget:,} tokens (memory.budget_tokens); used ~{s['total_tokens']:,} "
        f"({_pct(s['total_tokens'], budget)}), free ~{s['free_tokens']:,}",
        "a write that would go over the budget is refused and changes nothing",
    ]
    width = max([12, *(len(f["name"]) for f in s["files"])])
    for f in sorted(s["files"], key=lambda f: -f["tokens"]):
        bar = "#" * round(40 * f["tokens"] / budget) if budget else ""
        lines.append(f"  {f['name']:<{width}}  {f['tokens']:>7,}  {_pct(f['tokens'], budget):>6}  {bar}".rstrip())
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma memory", description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="memory folder (default memory.dir from the config, i.e. memory)")
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("--budget", type=int, help="token budget (default memory.budget_tokens)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("action", nargs="?", default="list", choices=["list", "show", "budget"])
    ap.add_argument("name", nargs="?", help="file name for `show`")
    args = ap.parse_args(argv)
    try:
        cfg = load_config(find_config(args.config))
    except ConfigError as exc:
        print(f"lluma memory: {exc}", file=sys.stderr)
        return 2
    folder = args.dir or cfg.memory.dir
    if args.dir is None and not _memory_files(folder):
        # Nothing in memory.dir yet: a demo's memory is in its log folder. Say where we looked and what we show.
        run_memory = newest_run_memory(cfg.logs.dir)
        if run_memory is not None:
            print(f"lluma memory: {folder} (memory.dir) holds no memory files yet; showing the newest run's, "
                  f"{run_memory} (looked in {cfg.logs.dir}/*/memory; --dir picks a folder)", file=sys.stderr)
            folder = run_memory
    if not folder.is_dir():  # MemoryStore would create it; a read-only command should not
        print(f"lluma memory: no memory folder at {folder} (it is created by the first run)", file=sys.stderr)
        return 1
    store = MemoryStore(folder, args.budget if args.budget is not None else cfg.memory.budget_tokens)
    if args.action == "show":
        if not args.name:
            ap.error("show needs a file name")
        f = next((f for f in store.files if f.name == args.name), None)
        if f is None:
            names = ", ".join(x.name for x in store.files) or "(none)"
            print(f"lluma memory: no memory file {args.name!r} in {folder}; files: {names}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps({"name": f.name, "tokens": f.tokens, "content": f.content}, ensure_ascii=False))
        else:
            print(f"# {f.name} (~{f.tokens:,} tokens)", file=sys.stderr)  # stderr: stdout is the file, pipeable
            sys.stdout.write(f.content if f.content.endswith("\n") or not f.content else f.content + "\n")
        return 0
    s = _summary(store)
    if args.json:
        print(json.dumps(s, indent=2, ensure_ascii=False))
    else:
        print(format_budget(s) if args.action == "budget" else format_list(s))
    return 0
