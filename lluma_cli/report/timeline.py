"""`lluma report --gif`: the run as a short animation, one frame per turn whose screenshot is kept: the
screenshot with the tap marked and a caption under it (turn, action, effect, the person's word if any)."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from lluma_agent.runlog.logread import Run, action_label, effect_words
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.report.marks import mark_action

FILE = "timeline.gif"
FRAME_MS = 800  # a turn per 0.8 s: a 30-turn run plays in 24 s
WIDTH = 360  # px: a 1080x1920 screenshot at a third, where the game's own text still reads
LINES_PER_PART = 2  # the caption's two parts (action; effect and person) get two lines each, wrapped by words
CAPTION_CHARS = 400  # what is wrapped at most: a longer caption is cut first, so no work grows with a log string


def caption(log: TurnLog) -> tuple[str, str]:
    """Two lines: the turn and its action; what it did (and what a person said)."""
    effect = effect_words(log.action.effect) if log.action else ""
    second = (f"-> {effect}" if effect else "") + (f"  person: {log.person}" if log.person else "")
    if log.navigation:  # a goTo walk: how far it got
        last = log.navigation[-1]
        second = f"goTo {last.target}: step {last.step} of {last.of}{'' if last.ok else ' stopped'}  {second}"
    elif log.routine is not None:
        second = f"routine pass, no model call  {second}"
    return f"T{log.turn}  {action_label(log) or 'no action'}", second


def _cut(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
         width: float) -> int:
    """The longest prefix of `text` that fits `width` (binary search: log n measurements)."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if draw.textlength(text[:mid], font=font) <= width:
            lo = mid
        else:
            hi = mid - 1
    return max(lo, 1)


def wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: float,
         lines: int) -> list[str]:
    """`text` in at most `lines` lines of `width` pixels, broken between words (a word wider than a line is cut);
    what does not fit ends the last line with an ellipsis at a word's end. Linear in the (bounded) text."""
    words = " ".join(text[:CAPTION_CHARS].split()).split(" ")
    out: list[str] = []
    current = ""
    rest = len(text) > CAPTION_CHARS
    for word in words:
        trial = f"{current} {word}" if current else word
        if draw.textlength(trial, font=font) <= width:
            current = trial
            continue
        if current:
            out.append(current)
        current = word
        while draw.textlength(current, font=font) > width and len(out) < lines:
            n = _cut(draw, current, font, width)
            out.append(current[:n])
            current = current[n:]
        if len(out) >= lines:
            rest = True
            current = ""
            break
    if current:
        out.append(current)
    if rest or len(out) > lines:
        out = out[:lines]
        last = out[-1] if out else ""
        while last and draw.textlength(last + " …", font=font) > width:
            last = last.rsplit(" ", 1)[0] if " " in last else last[: _cut(draw, last, font, width) - 2]
        out[-1:] = [f"{last} …" if last else "…"]
    return out


def frame(run: Run, log: TurnLog, width: int = WIDTH) -> Image.Image | None:
    if not log.frame.path:
        return None
    try:
        with Image.open(run.folder / log.frame.path) as src:
            img = src.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None  # no longer kept (logs.keep_screenshots), or too large to decode
    a = log.action
    mark_action(img, a.point if a else None, a.swipe if a else None)
    img = img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)
    size = max(13, width // 24)
    font = ImageFont.load_default(size=size)
    band = Image.new("RGB", (width, 2 * LINES_PER_PART * (size + 4) + 10), (24, 24, 24))
    draw = ImageDraw.Draw(band)
    rows = [line for part in caption(log) for line in wrap(draw, part, font, width - 12, LINES_PER_PART)]
    for row, text in enumerate(rows):
        draw.text((6, 5 + row * (size + 4)), text, fill=(255, 255, 255), font=font)
    out = Image.new("RGB", (img.width, img.height + band.height))
    out.paste(img, (0, 0))
    out.paste(band, (0, img.height))
    return out


def make(run: Run, width: int = WIDTH) -> bytes | None:
    """The animated GIF's bytes (`width` pixels wide), or None when no screenshot of the run is kept."""
    frames = [f for log in run.turns if (f := frame(run, log, width)) is not None]
    if not frames:
        return None
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=FRAME_MS, loop=0,
                   optimize=True)
    return buf.getvalue()
