"""`lluma knowledge [--dir DIR] [--match IMAGE] [--json]`: the knowledge entries, or which match a screenshot.

Without --match: every entry (id, priority, estimated tokens, file) and the files that did not load.
With --match: OCR reads the screenshot offline, and the matching entries are listed highest priority
first, marked `sent` when they fit knowledge.budget_tokens (what a turn on that screen would get).
Exit status 1 when a file did not load (it is named on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from lluma_agent.config import ConfigError, load_config
from lluma_agent.context import knowledge
from lluma_cli.errors import one_line


def _row(e: knowledge.Entry, kb: knowledge.Knowledge) -> dict[str, Any]:
    return {"id": e.id, "priority": e.priority, "tokens": e.tokens, "file": kb.sources.get(e.id, ""), "text": e.text}


def _read(image: Path) -> knowledge.ScreenFacts:
    with Image.open(image) as im:
        frame = im.convert("RGB")
    from lluma_vision.config import VisionConfig
    from lluma_vision.pipeline import Vision

    return knowledge.ScreenFacts.of(Vision(VisionConfig(backend="ocr")).analyze(frame))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma knowledge", description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="knowledge folder (default knowledge.dir: the starter set)")
    ap.add_argument("--config", type=Path, help="config file (default: config.yaml if present)")
    ap.add_argument("--match", type=Path, metavar="IMAGE", help="show the entries that match this screenshot")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    try:
        implicit = Path("config.yaml")
        cfg = load_config(args.config or (implicit if implicit.exists() else None))
    except ConfigError as exc:
        print(f"lluma knowledge: {exc}", file=sys.stderr)
        return 2
    kb = knowledge.load(args.dir or cfg.knowledge.dir)
    for problem in kb.problems:
        print(f"lluma knowledge: {problem}", file=sys.stderr)
    status = 1 if kb.problems else 0
    if args.match is None:
        rows = [_row(e, kb) for e in sorted(kb.entries, key=lambda e: (-e.priority, e.id))]
        if args.json:
            print(json.dumps({"folder": kb.folder, "entries": rows, "problems": kb.problems}, ensure_ascii=False))
        else:
            print(f"{len(rows)} entries in {kb.folder}")
            for r in rows:
                print(f"  {r['priority']:>3}  {r['id']:<32} ~{r['tokens']:>3} tok  {r['file']}")
        return status
    try:
        screen = _read(args.match)
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError) as exc:
        print(f"lluma knowledge: cannot read {args.match}: {one_line(exc)}", file=sys.stderr)
        return 2
    sent = {e.id for e in kb.select(screen, cfg.knowledge.budget_tokens)}
    rows = [_row(e, kb) | {"sent": e.id in sent} for e in kb.matching(screen)]
    if args.json:
        print(json.dumps({"image": str(args.match), "screen": screen.model_dump(), "matched": rows,
                          "budget_tokens": cfg.knowledge.budget_tokens, "problems": kb.problems}, ensure_ascii=False))
        return status
    print(f"{args.match}: {len(rows)} matching entries, {len(sent)} sent within {cfg.knowledge.budget_tokens} tokens")
    for r in rows:
        print(f"  {'sent' if r['sent'] else 'over':<4} {r['priority']:>3}  {r['id']:<32} ~{r['tokens']:>3} tok")
    return status
