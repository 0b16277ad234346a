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


def caption(log: TurnLog) -> tuple[str, str]:
    """Two lines: the turn and its action; what it did (and what a person said)."""
    effect = effect_words(log.action.effect) if log.action else ""
    second = (f"-> {effect}" if effect else "") + (f"  person: {log.person}" if log.person else "")
    return f"T{log.turn}  {action_label(log) or 'no action'}", second


def frame(run: Run, log: TurnLog, long_side: int) -> Image.Image | None:
    if not log.frame.path:
        return None
    try:
        with Image.open(run.folder / log.frame.path) as src:
            img = src.convert("RGB")
    except (OSError, ValueError):
        return None  # no longer kept (logs.keep_screenshots)
    a = log.action
    mark_action(img, a.point if a else None, a.swipe if a else None)
    img.thumbnail((long_side, long_side))
    size = max(11, img.width // 24)
    font = ImageFont.load_default(size=size)
    band = Image.new("RGB", (img.width, 2 * size + 16), (24, 24, 24))
    draw = ImageDraw.Draw(band)
    for row, text in enumerate(caption(log)):
        while len(text) > 4 and draw.textlength(text, font=font) > img.width - 12:  # each line cut to fit
            text = text[:-4] + "..."
        draw.text((6, 5 + row * (size + 4)), text, fill=(255, 255, 255), font=font)
    out = Image.new("RGB", (img.width, img.height + band.height))
    out.paste(img, (0, 0))
    out.paste(band, (0, img.height))
    return out


def make(run: Run, long_side: int = 360) -> bytes | None:
    """The animated GIF's bytes, or None when no screenshot of the run is kept."""
    frames = [f for log in run.turns if (f := frame(run, log, long_side)) is not None]
    if not frames:
        return None
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=FRAME_MS, loop=0,
                   optimize=True)
    return buf.getvalue()
