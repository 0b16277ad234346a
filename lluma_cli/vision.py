"""`lluma vision IMAGE_or_FOLDER [--backend ...] [--json|--compact] [--annotate OUT] [--explain [NAME]]`: read
screenshots."""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image, UnidentifiedImageError

from lluma_agent.atomic import write_output
from lluma_agent.config import ConfigError, check_base_url
from lluma_agent.model.reply import ModelError, check_key
from lluma_cli.errors import disk_line, one_line
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import model_view
from lluma_vision.models import VisionOutput

if TYPE_CHECKING:
    import anthropic

    from lluma_vision.pipeline.reading import Reading


def _vision_config(backend: str) -> VisionConfig:
    """The `vision:` settings a run in this folder uses (./config.yaml and LLUMA_* as `lluma run` finds them), so
    `--compact` applies the caps a turn applies. The backend is the command line's. Raises ConfigError."""
    from lluma_agent.config import find_config, load_config

    return load_config(find_config(None)).vision.model_copy(update={"backend": backend})


def _client(base_url: str | None) -> anthropic.Anthropic | None:
    """An anthropic client when the environment allows one (API key or a stand-in base_url), else None."""
    key = os.environ.get("ANTHROPIC_API_KEY")
    base_url = base_url or os.environ.get("ANTHROPIC_BASE_URL")
    if not key and not base_url:
        return None
    if key:
        check_key("ANTHROPIC_API_KEY", key)
    if base_url:
        try:
            check_base_url(base_url)
        except ValueError as exc:
            raise ModelError(f"the base URL {base_url!r} {exc}") from None
    import anthropic  # only when a VLM may be called: importing the SDK takes 2-3 s (model/reply.py)

    return anthropic.Anthropic(api_key=key or "stand-in", base_url=base_url)


def table(out: VisionOutput) -> str:
    """A readable listing: buttons with bounds, then texts, menu, scrollbar, cinematic, and the facts the model is
    given (gauges, captioned values, gains, mood, disabled buttons)."""
    rows = [f"{out.width}x{out.height}  backend={out.backend}  cinematic={out.cinematic}  {out.elapsed_ms:.0f} ms"]
    if out.screen is not None:
        rows.append(f"screen: {out.screen.name}  (id {out.screen.id})")
        if (spent := out.screen.spends) is not None:  # what it asks to spend (facts/spends.py)
            what = ", ".join(f"{k} {v}" for k, v in (("amount", spent.amount), ("item", spent.item)) if v is not None)
            rows.append(f"spends: {spent.words!r}" + (f"  ({what})" if what else ""))
    rows.append(f"{'button':<34} {'bounds':<22} {'region':<7} {'conf':>5}  meta")
    for b in out.buttons:
        box = ",".join(str(v) for v in b.bounds.as_list())
        rows.append(f"{b.name[:34]:<34} {box:<22} {b.region:<7} {b.confidence:>5.2f}  {b.meta}")
    if out.texts:
        rows.append("texts:")
        rows += [f"  {t.text[:100]}" + (f"  (meta of {t.meta_of})" if t.meta_of else "") for t in out.texts]
    if out.menu is not None:
        state = "usable" if out.menu.usable else "blocked"
        rows.append(f"menu: {state}, selected={out.menu.selected}, tabs={', '.join(out.menu.tabs) or '-'}")
    if out.scrollbar is not None:
        rows.append(f"scrollbar: up={out.scrollbar.up} down={out.scrollbar.down} track={out.scrollbar.track.as_list()}")
    rows += _facts(out)
    rows += [f"error: {e}" for e in out.errors]
    return "\n".join(rows)


def _facts(out: VisionOutput) -> list[str]:
    """What the model is given besides buttons and texts: gauges, captioned values, gains, mood, disabled."""
    rows = []
    if out.gauges:
        rows.append("gauges:")
        rows += [f"  {g.label[:34]:<34} {round(100 * g.fill):>3}%   {','.join(map(str, g.bounds.as_list()))}"
                 for g in out.gauges]
    for kind, title in (("value", "values"), ("gain", "gains")):
        shown = [v for v in out.values if v.kind == kind]
        if shown:
            rows.append(f"{title}:")
            rows += [f"  {v.caption[:34]:<34} {v.value[:20]:<8} {','.join(map(str, v.bounds.as_list()))}"
                     for v in shown]
    if out.mood:
        rows.append(f"mood: {out.mood}")
    disabled = [b.name for b in out.buttons if "disabled" in b.meta]
    if disabled:
        rows.append(f"disabled: {', '.join(disabled)}")
    return rows


def explanation(out: VisionOutput, reading: Reading | None, name: str) -> str:
    """`--explain`: every element and the rules behind it, or (`name`) why no button of that name was found.
    `reading` is the OCR reading the output came from (its blocks carry the rules' scores)."""
    from lluma_vision.buttons.explain import explain, explain_name

    blocks = reading.blocks if reading is not None else []
    return explain_name(name, out, blocks) if name else explain(out, blocks)


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")


class InputError(ValueError):
    """A path that cannot be read as a screenshot or a folder of them; exit 2."""


SKIPPED_NAMED = 5  # the files a folder's skipped line names; the rest are counted


def images_at(path: Path) -> tuple[list[Path], list[Path]]:
    """The screenshot itself, or a folder's images sorted by name (not recursive); and the folder's other files,
    not read (a GIF too: a report's timeline.gif is an animation of a run, not a screenshot)."""
    if path.is_file():
        return [path], []
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file())
        found = [p for p in files if p.suffix.lower() in IMAGE_SUFFIXES]
        skipped = [p for p in files if p not in found]
        if not found:
            raise InputError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {path}" + (
                f"; {skipped_line(skipped)}" if skipped else ""))
        return found, skipped
    raise InputError(f"no such file or folder: {path}")


def skipped_line(skipped: list[Path]) -> str:
    """`skipped 2 file(s) not read as screenshots (...): clip.gif, notes.txt`."""
    names = ", ".join(p.name for p in skipped[:SKIPPED_NAMED])
    more = f" and {len(skipped) - SKIPPED_NAMED} more" if len(skipped) > SKIPPED_NAMED else ""
    return (f"skipped {len(skipped)} file(s) not read as screenshots (only {', '.join(IMAGE_SUFFIXES)}): "
            f"{names}{more}")


def load_image(path: Path) -> Image.Image:
    try:
        with Image.open(path) as im:
            return im.convert("RGB")
    except Image.DecompressionBombError as exc:  # a 30000x30000 PNG: refused before it is decoded
        raise InputError(f"too large to read: {path} ({one_line(exc)})") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, MemoryError) as exc:
        raise InputError(f"not an image: {path} ({one_line(exc)})") from None


def save_png(image: Image.Image, path: Path) -> None:
    """Atomically (a reader never sees half a PNG, a failed save leaves no stray file), through a symlink, with
    the user's umask; a path that is not a regular file (a FIFO, a device) is refused (atomic.write_output)."""
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    write_output(path, buf.getvalue())


def annotation_path(target: Path, image: Path, folder: bool) -> Path:
    """`--annotate OUT.png` for one image; for a folder OUT is a folder of `<name>.png`."""
    return target / f"{image.stem}.png" if folder else target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="lluma vision", description="Read screenshots: buttons, texts, menu, scrollbar."
    )
    ap.add_argument("path", type=Path, help="a PNG/JPEG screenshot, or a folder of them (one entry per image)")
    ap.add_argument("--backend", choices=["auto", "ocr", "claude", "hybrid"], default="auto",
                    help="ocr works offline; claude/hybrid need ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL; "
                    "auto = ocr")
    ap.add_argument("--json", action="store_true",
                    help="print the VisionOutput as JSON (bounds in image pixels); a folder gives one JSON list")
    ap.add_argument("--compact", action="store_true",
                    help="print exactly the <vision> JSON the decision model receives for the image (the config's "
                    "vision.max_buttons and max_texts caps; a folder gives one line per image)")
    ap.add_argument("--annotate", type=Path, metavar="OUT",
                    help="write the screenshot with buttons, texts and scrollbar drawn on it to OUT.png "
                    "(for a folder, OUT is a folder: one PNG per image)")
    ap.add_argument("--explain", nargs="?", const="", default=None, metavar="NAME",
                    help="say why: each element with the rules that made it so and their scores; with NAME (after "
                    "the image), why no button of that name was found")
    ap.add_argument("--base-url", default=None, help="Messages API base URL (e.g. the lluma sim api stand-in)")
    args = ap.parse_args(sys.argv[1:] if argv is None else argv)

    folder = args.path.is_dir()
    try:
        paths, skipped = images_at(args.path)
        if folder and args.annotate is not None and args.annotate.suffix.lower() in IMAGE_SUFFIXES:
            raise InputError(f"--annotate {args.annotate}: for a folder of images, give a folder to write into")
    except InputError as exc:
        print(f"lluma vision: {exc}", file=sys.stderr)
        return 2

    if sum((args.json, args.compact, args.explain is not None)) > 1:
        print("lluma vision: --json, --compact and --explain are three outputs; choose one", file=sys.stderr)
        return 2
    try:
        client = _client(args.base_url) if args.backend != "ocr" else None
        from lluma_vision.pipeline import Vision

        vision = Vision(_vision_config(args.backend), client=client)
    except (ValueError, ConfigError, ModelError) as exc:
        print(f"lluma vision: {exc}", file=sys.stderr)
        return 2
    if skipped:
        print(f"lluma vision: {skipped_line(skipped)}", file=sys.stderr, flush=True)
    print(f"lluma vision: loading OCR, reading {len(paths)} image(s) with the {vision.backend} backend",
          file=sys.stderr, flush=True)

    entries: list[dict[str, Any]] = []
    failed = 0
    for i, path in enumerate(paths, 1):
        if folder:
            print(f"lluma vision: [{i}/{len(paths)}] {path.name}", file=sys.stderr, flush=True)
        try:
            image = load_image(path)
        except InputError as exc:  # one bad file in a folder: say so in its entry, read the rest
            if not folder:
                print(f"lluma vision: {exc}", file=sys.stderr)
                return 2
            failed += 1
            entries.append({"image": str(path), "error": str(exc)})
            continue
        out = vision.analyze(image)
        if args.annotate is not None:
            target = annotation_path(args.annotate, path, folder)
            from lluma_vision.pipeline.annotate import annotate

            try:
                save_png(annotate(image, out), target)
            except OSError as exc:
                print(f"lluma vision: {disk_line(target, exc)}", file=sys.stderr)
                return 1
            print(f"lluma vision: wrote {target}", file=sys.stderr)
        entries.append({"image": str(path), **out.model_dump(mode="json")})
        if args.compact:
            cfg = vision.cfg
            print((f"{path}\t" if folder else "") + model_view(out, cfg.max_buttons, cfg.max_texts), flush=True)
        elif args.explain is not None:
            print((f"== {path}\n" if folder else "") + explanation(out, vision.last_reading, args.explain), flush=True)
        elif not args.json:
            print((f"== {path}\n" if folder else "") + table(out), flush=True)
    if args.json:
        if folder:
            print(json.dumps(entries, indent=1, ensure_ascii=False))
        else:
            print(json.dumps(entries[0], indent=1, ensure_ascii=False))
    elif failed:
        for e in entries:
            if "error" in e:
                print(f"== {e['image']}\nerror: {e['error']}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
