"""`lluma vision IMAGE [--backend ocr|claude|hybrid] [--json]`: read one screenshot."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput


def _client(base_url: str | None):
    """An anthropic client when the environment allows one (API key or a stand-in base_url), else None."""
    key = os.environ.get("ANTHROPIC_API_KEY")
    base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL")
    if not key and not base_url:
        return None
    import anthropic

    return anthropic.Anthropic(api_key=key or "stand-in", base_url=base_url)


def table(out: VisionOutput) -> str:
    """A readable listing: buttons with bounds, then texts, menu, scrollbar, cinematic."""
    rows = [f"{out.width}x{out.height}  backend={out.backend}  cinematic={out.cinematic}  {out.elapsed_ms:.0f} ms"]
    rows.append(f"{'button':<34} {'bounds':<22} {'region':<7} {'conf':>5}  meta")
    for b in out.buttons:
        box = ",".join(str(v) for v in b.bounds.as_list())
        rows.append(f"{b.name[:34]:<34} {box:<22} {b.region:<7} {b.confidence:>5.2f}  {b.meta}")
    if out.texts:
        rows.append("texts:")
        rows += [f"  {t.text[:100]}" for t in out.texts]
    if out.menu is not None:
        state = "usable" if out.menu.usable else "blocked"
        rows.append(f"menu: {state}, selected={out.menu.selected}, tabs={', '.join(out.menu.tabs) or '-'}")
    if out.scrollbar is not None:
        rows.append(f"scrollbar: up={out.scrollbar.up} down={out.scrollbar.down} track={out.scrollbar.track.as_list()}")
    rows += [f"error: {e}" for e in out.errors]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="lluma vision", description="Read one screenshot: buttons, menu, scrollbar.")
    ap.add_argument("image", type=Path, help="PNG/JPEG screenshot")
    ap.add_argument("--backend", choices=["auto", "ocr", "claude", "hybrid"], default="auto",
                    help="ocr works offline; claude/hybrid need ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL; "
                    "auto = hybrid when one is set, else ocr")
    ap.add_argument("--json", action="store_true", help="print the VisionOutput as JSON (bounds in image pixels)")
    ap.add_argument("--base-url", default=None, help="Messages API base URL (e.g. the lluma sim api stand-in)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)

    if not args.image.is_file():
        print(f"lluma vision: no such file: {args.image}", file=sys.stderr)
        return 2
    try:
        with Image.open(args.image) as im:
            image = im.convert("RGB")
    except (UnidentifiedImageError, OSError) as exc:
        print(f"lluma vision: not an image: {args.image} ({exc})", file=sys.stderr)
        return 2

    client = _client(args.base_url) if args.backend != "ocr" else None
    try:
        from lluma_vision.pipeline import Vision

        vision = Vision(VisionConfig(backend=args.backend), client=client)
    except ValueError as exc:
        print(f"lluma vision: {exc}", file=sys.stderr)
        return 2
    out = vision.analyze(image)
    print(out.model_dump_json(indent=1) if args.json else table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
