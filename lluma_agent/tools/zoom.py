"""The `zoom` tool: a region of the frame the model decided on, cropped at full resolution, for small print.

The screenshot in each turn is downscaled (`context.screenshot_max_side`); a stat row's digits or a failure
percentage may need more pixels than that. The model names a button or text (resolved like pressButton,
with some margin around it) or a box in fractions of the frame, and gets the crop as the tool result's
image. It runs at once, like the memory tools: no input is sent, and its result (text and image) travels
with the next request; history keeps only the one-line summary, and a turn kept verbatim keeps the image
until the next fold.
"""

from __future__ import annotations

from PIL import Image
from pydantic import Field, model_validator

from lluma_agent.tools.actions import ActionError, resolve
from lluma_agent.tools.toolkit import Args, Outcome, Tool, ToolContext, ToolFailed
from lluma_vision.jpeg import jpeg_base64

MAX_SIDE = 1568  # the long edge the API keeps without shrinking (Haiku 4.5 and older): a larger crop is shrunk
MARGIN = 0.5  # a named element's crop extends this fraction of its height on every side (its neighbours read)
MIN_SIDE = 64  # px: a crop is never smaller than this on either side


class ZoomArgs(Args):
    name: str | None = Field(None, min_length=1, description="a button or text name from <vision>")
    box: list[float] | None = Field(
        None, min_length=4, max_length=4,
        description="[left, top, right, bottom] as fractions of the frame (0..1), e.g. [0, 0.6, 1, 0.75]",
    )

    @model_validator(mode="after")
    def _one_region(self) -> ZoomArgs:
        if (self.name is None) == (self.box is None):
            raise ValueError("give either name or box")
        if self.box is not None:
            x0, y0, x1, y1 = self.box
            if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
                raise ValueError("box is [left, top, right, bottom], 0 <= left < right <= 1, 0 <= top < bottom <= 1")
        return self


def _grow(x0: int, x1: int, size: int) -> tuple[int, int]:
    """Widen [x0, x1) to at least MIN_SIDE px, within [0, size)."""
    short = MIN_SIDE - (x1 - x0)
    if short > 0:
        x0, x1 = x0 - short // 2, x1 + short - short // 2
    shift = max(0, -x0) - max(0, x1 - size)
    return max(0, x0 + shift), min(size, x1 + shift)


def crop_region(image: Image.Image, args: ZoomArgs, ctx: ToolContext) -> tuple[tuple[int, int, int, int], str]:
    """The crop rectangle in frame pixels and what it is ("'Speed'" or "box [..]")."""
    w, h = image.size
    if args.box is not None:
        bx0, by0, bx1, by1 = args.box
        x0, y0, x1, y1 = round(bx0 * w), round(by0 * h), round(bx1 * w), round(by1 * h)
        what = "box [" + ", ".join(f"{v:g}" for v in args.box) + "]"
    else:
        try:
            target = resolve(args.name or "", ctx.vision)
        except ActionError as exc:
            raise ToolFailed(str(exc), log_prefix="zoom") from None
        b = target.box
        pad = round(MARGIN * (b.y1 - b.y0))
        x0, y0, x1, y1 = b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad
        what = repr(target.name)
    x0, x1 = _grow(max(0, x0), min(w, x1), w)
    y0, y1 = _grow(max(0, y0), min(h, y1), h)
    return (x0, y0, x1, y1), what


class ZoomTool(Tool):
    name = "zoom"
    description = (
        "See a region of the current screen at full resolution (the screenshot you get is downscaled): small "
        "print, digits of a stat row, a failure rate. Give a button or text name from <vision>, or box = "
        "[left, top, right, bottom] in fractions of the frame. Sends no input; the crop comes with your next turn."
    )
    args = ZoomArgs

    def run(self, args: ZoomArgs, ctx: ToolContext) -> Outcome:
        if ctx.frame is None:
            raise ToolFailed("no frame to zoom into this turn", log_prefix="zoom")
        rect, what = crop_region(ctx.frame, args, ctx)
        data, (cw, ch) = jpeg_base64(ctx.frame.crop(rect), MAX_SIDE, quality=90, resample=Image.Resampling.LANCZOS)
        x0, y0, x1, y1 = rect
        shrunk = "" if (cw, ch) == (x1 - x0, y1 - y0) else f", shown at {cw}x{ch}"
        return Outcome(
            content=f"zoom on {what} of turn {ctx.turn}'s frame: pixels ({x0},{y0})-({x1},{y1}) of "
            f"{ctx.frame.width}x{ctx.frame.height}{shrunk}; the crop is attached",
            short=f"zoom {what}: ok", image=data,
        )
