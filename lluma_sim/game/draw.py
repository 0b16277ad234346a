"""Drawing and layout in one pass: every drawn label registers a Widget, so ground truth is what was drawn.

A Painter with render=False lays out without drawing (truth() after a tap, before any capture).
Coordinates are device pixels; layout code passes fractions of width/height through `box()`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from lluma_sim.game.state import Action, dice
from lluma_sim.game.truth import ElementKind, TruthScrollbar
from lluma_vision.models import Box

RGB = tuple[int, int, int]

# the painters' colours: display choices (not measured)
INK: RGB = (62, 44, 32)  # dark brown text, like the game's
INK_SOFT: RGB = (110, 92, 80)  # the painters' colours below: display choices, not measured
GREEN: RGB = (160, 218, 92)
GREEN_EDGE: RGB = (96, 158, 44)
WHITE: RGB = (255, 255, 255)
EDGE: RGB = (196, 196, 214)
GREY: RGB = (212, 212, 216)
GREY_INK: RGB = (128, 128, 134)
SHADOW: RGB = (186, 184, 204)
TRACK: RGB = (150, 150, 158)
CREAM: RGB = (255, 246, 206)
LAVENDER: RGB = (238, 236, 250)
PASTELS: tuple[RGB, ...] = ((214, 240, 196), (208, 222, 250), (255, 230, 190), (250, 214, 228))

STYLES: dict[str, tuple[RGB, RGB, RGB]] = {  # fill, edge, text
    "green": (GREEN, GREEN_EDGE, INK),
    "white": (WHITE, EDGE, INK),
    "cream": (CREAM, (232, 196, 96), INK),
    "disabled": (GREY, (182, 182, 188), GREY_INK),
}


MOOD_BADGES: dict[str, RGB] = {  # the real game's mood badge colours, worst to best
    "Awful": (150, 110, 200),
    "Bad": (90, 150, 230),
    "Normal": (240, 180, 40),
    "Good": (250, 140, 60),
    "Great": (240, 90, 140),
}


def greyed(c: RGB) -> RGB:
    """A colour as the real game greys out a disabled button: a dark veil over it, most of its colour gone."""
    lum = 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2]
    return tuple(round(0.68 * (lum + 0.3 * (v - lum))) for v in c)  # type: ignore[return-value]


def paler(c: RGB) -> RGB:
    """The same hue, paler: half way to white (the energy bar's preview of a training's cost)."""
    return tuple(round((v + 255) / 2) for v in c)  # type: ignore[return-value]


@lru_cache(maxsize=64)
def font(px: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=max(8, px))  # type: ignore[return-value]


@dataclass
class Widget:
    name: str
    kind: ElementKind
    box: Box
    enabled: bool = True
    action: Action | None = None
    row: int | None = None
    truth: bool = True  # False for tap-only hotspots (e.g. the whole dialogue box)


@lru_cache(maxsize=8)  # ~6 MB each at 1080x1920
def _backdrop(w: int, h: int, top: RGB, bottom: RGB, seed: int, n: int) -> Image.Image:
    p = Painter(w, h, render=True)
    p.gradient(top, bottom)
    p.bubbles(seed, n)
    assert p.img is not None
    return p.img


class Painter:
    def __init__(self, width: int, height: int, render: bool) -> None:
        self.w, self.h = width, height
        self.s = width / 1080  # font/stroke scale; layouts use fractions so other aspect ratios work
        self.render = render
        self.img = Image.new("RGB", (width, height), LAVENDER) if render else None
        self.d = ImageDraw.Draw(self.img) if self.img else None
        self.widgets: list[Widget] = []
        self.scrollbar: TruthScrollbar | None = None  # set by screens that draw one
        self.dim_disabled = False  # hard style: a disabled button is its own look greyed out, not a grey plate

    # --- geometry -------------------------------------------------------------------------

    def box(self, fx0: float, fy0: float, fx1: float, fy1: float) -> Box:
        return Box(x0=round(fx0 * self.w), y0=round(fy0 * self.h), x1=round(fx1 * self.w), y1=round(fy1 * self.h))

    def fs(self, size: float) -> int:
        """Font pixels for a size given at 1080 px width."""
        return max(8, round(size * self.s))

    # --- primitives -----------------------------------------------------------------------

    def gradient(self, top: RGB, bottom: RGB, box: Box | None = None) -> None:
        if not self.img:
            return
        b = box or Box(x0=0, y0=0, x1=self.w, y1=self.h)
        col = Image.linear_gradient("L").resize((1, b.height))  # one column, stretched sideways: cheap
        bands = [col.point(lambda v, t=t, e=e: round(t + (e - t) * v / 255)) for t, e in zip(top, bottom, strict=True)]
        self.img.paste(Image.merge("RGB", bands).resize((b.width, b.height), Image.Resampling.NEAREST), (b.x0, b.y0))

    def backdrop(self, top: RGB, bottom: RGB, seed: int, n: int) -> None:
        """Static gradient plus rings, cached per size: most screens share a handful of these."""
        if self.img:
            self.img.paste(_backdrop(self.w, self.h, top, bottom, seed, n))

    def bubbles(self, seed: int, n: int, phase: float = 0.0, box: Box | None = None) -> None:
        """Soft pastel rings, like the horseshoes on the game's backgrounds; `phase` drifts them."""
        if not self.d:
            return
        b = box or Box(x0=0, y0=0, x1=self.w, y1=self.h)
        rng = dice(seed)  # a fixed pattern per seed (art, not the game's dice)
        for _ in range(n):
            r = rng.uniform(0.02, 0.05) * self.w
            x = b.x0 + (rng.random() * b.width + phase * r * 3) % b.width
            y = b.y0 + (rng.random() * b.height - phase * r * 2) % b.height
            color = rng.choice(PASTELS)
            start = rng.randint(0, 359)
            self.d.arc((x - r, y - r, x + r, y + r), start, start + 280, fill=color, width=max(2, round(r / 3)))

    def rrect(
        self, b: Box, fill: RGB, edge: RGB | None = None, radius: float | None = None, shadow: bool = True
    ) -> None:
        if not self.d:
            return
        r = radius if radius is not None else min(b.height / 2, 28 * self.s)
        if shadow:
            o = max(2, round(5 * self.s))
            self.d.rounded_rectangle((b.x0, b.y0 + o, b.x1 - 1, b.y1 - 1 + o), r, fill=SHADOW)
        w = max(1, round(3 * self.s)) if edge else 0
        self.d.rounded_rectangle((b.x0, b.y0, b.x1 - 1, b.y1 - 1), r, fill=fill, outline=edge, width=w)

    def rect(self, b: Box, fill: RGB) -> None:
        if self.d:
            self.d.rectangle((b.x0, b.y0, b.x1 - 1, b.y1 - 1), fill=fill)

    def text(
        self,
        x: float,
        y: float,
        label: str,
        size: float = 38,
        fill: RGB = INK,
        anchor: str = "mm",
        register: bool = True,
        row: int | None = None,
        bold: bool = False,
    ) -> Box:
        """Draw one line; registers it as a "text" element. `size` is at 1080 px width."""
        f = font(self.fs(size))
        stroke = round(self.s) if bold and f.size >= 36 else 0  # thin glyphs + stroke blur "i" into "l" for OCR
        bb = f.getbbox(label, anchor=anchor, stroke_width=stroke)
        b = Box(x0=round(x + bb[0]), y0=round(y + bb[1]), x1=round(x + bb[2]) + 1, y1=round(y + bb[3]) + 1)
        if self.d:
            self.d.text((x, y), label, font=f, fill=fill, anchor=anchor, stroke_width=stroke, stroke_fill=fill)
        if register:
            self.widgets.append(Widget(label, "text", b, row=row))
        return b

    def button(
        self,
        b: Box,
        label: str,
        action: Action | None,
        style: str = "white",
        enabled: bool = True,
        kind: ElementKind = "button",
        size: float = 44,
        row: int | None = None,
        align: str = "center",
    ) -> Widget:
        fill, edge, ink = STYLES[style if enabled or self.dim_disabled else "disabled"]
        if not enabled and self.dim_disabled:
            fill, edge, ink = greyed(fill), greyed(edge), greyed(ink)
        self.rrect(b, fill, edge)
        if align == "left":
            self.text(b.x0 + 36 * self.s, b.center[1], label, size, ink, anchor="lm", register=False, bold=True)
        else:
            self.text(b.center[0], b.center[1], label, size, ink, register=False, bold=True)
        w = Widget(label, kind, b, enabled, action if enabled else None, row)
        self.widgets.append(w)
        return w

    def tile(
        self, b: Box, label: str, action: Action | None, enabled: bool = True, size: float = 54, seed: int = 0
    ) -> Widget:
        """An illustrated button with no plate or border: a picture and a caption under it (the career hub's
        tiles in the real game, whose captions are drawn about 1.4x the body text). The whole tile is the button."""
        cap_h = round(size * 1.5 * self.s)
        art = Box(x0=b.x0 + b.width // 6, y0=b.y0, x1=b.x1 - b.width // 6, y1=b.y1 - cap_h)
        if self.d:
            rng = dice(seed)  # a fixed pattern per seed (art, not the game's dice)
            col: RGB = PASTELS[seed % len(PASTELS)]
            dark: RGB = tuple(max(0, c - 70) for c in col)  # type: ignore[assignment]
            if not enabled:
                col, dark = (greyed(col), greyed(dark)) if self.dim_disabled else (GREY, GREY_INK)
            self.d.ellipse((art.x0, art.y0, art.x1 - 1, art.y1 - 1), fill=col)
            for _ in range(3):  # a few strokes of "illustration"
                x, y = rng.uniform(art.x0, art.x1), rng.uniform(art.y0, art.y1)
                r = art.width * rng.uniform(0.08, 0.16)
                self.d.ellipse((x - r, y - r, x + r, y + r), outline=dark, width=max(2, round(5 * self.s)))
        ink = INK if enabled else greyed(GREY_INK) if self.dim_disabled else GREY_INK
        self.text(b.center[0], b.y1 - cap_h / 2, label, size, ink, register=False, bold=True)
        w = Widget(label, "button", b, enabled, action if enabled else None)
        self.widgets.append(w)
        return w

    def icon_label(self, b: Box, label: str, action: Action | None, color: RGB, selected: bool = False) -> Widget:
        """A round icon with its label under it, no plate (the training screen's stat row)."""
        cap_h = round(34 * 1.4 * self.s)
        r = min(b.width, b.height - cap_h) * 0.42
        cx, cy = b.center[0], b.y0 + (b.height - cap_h) / 2
        if self.d:
            if selected:
                self.d.ellipse((cx - r * 1.12, cy - r * 1.12, cx + r * 1.12, cy + r * 1.12), fill=(255, 214, 80))
            self.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=color)
            self.d.polygon(
                [(cx, cy - r * 0.5), (cx + r * 0.45, cy + r * 0.35), (cx - r * 0.45, cy + r * 0.35)], fill=WHITE
            )
        self.text(cx, b.y1 - cap_h / 2, label, 34, INK, register=False, bold=True)
        w = Widget(label, "button", b, True, action)
        self.widgets.append(w)
        return w

    def toggle_pair(self, b: Box, on: bool, action_on: Action, action_off: Action, row: int) -> None:
        """Two adjacent options, On and Off: the chosen one filled, the other only outlined."""
        half = b.width // 2
        for i, (label, chosen, action) in enumerate((("On", on, action_on), ("Off", not on, action_off))):
            cell = Box(x0=b.x0 + i * half, y0=b.y0, x1=b.x0 + (i + 1) * half - round(6 * self.s), y1=b.y1)
            if self.d:
                fill = GREEN if chosen else WHITE
                r = cell.height / 2
                self.d.rounded_rectangle(
                    (cell.x0, cell.y0, cell.x1 - 1, cell.y1 - 1),
                    r,
                    fill=fill,
                    outline=EDGE,
                    width=max(1, round(2 * self.s)),
                )
            self.text(
                cell.center[0], cell.center[1], label, 34, INK if chosen else INK_SOFT, register=False, bold=chosen
            )
            self.widgets.append(Widget(label, "button", cell, True, action, row))

    def veil(self, b: Box, color: RGB, alpha: float) -> None:
        """Blend a colour over what is drawn in `b` (a translucent bar over content)."""
        if self.img:
            region = self.img.crop((b.x0, b.y0, b.x1, b.y1))
            self.img.paste(Image.blend(region, Image.new("RGB", region.size, color), alpha), (b.x0, b.y0))

    def hotspot(self, b: Box, action: Action) -> None:
        self.widgets.append(Widget("hotspot", "text", b, True, action, truth=False))

    def bar(self, b: Box, frac: float, color: RGB, preview: float = 0.0) -> None:
        """A gauge as the real game's energy bar: in a light rim, a coloured run with a square end, then the grey
        empty part, both the track's full height. `preview` (a share of full) draws the end of the coloured run
        that much paler in the same hue: the training screen's preview of the selected training's energy cost."""
        if not self.d:
            return
        self.rrect(b, WHITE, EDGE, shadow=False)
        pad = max(2, round(5 * self.s))
        x0, y0, x1, y1 = b.x0 + pad, b.y0 + pad, b.x1 - 1 - pad, b.y1 - 1 - pad
        r = (y1 - y0) / 2
        self.d.rounded_rectangle((x0, y0, x1, y1), r, fill=TRACK)
        end = x0 + (x1 - x0) * max(0.0, min(1.0, frac))
        if end - x0 > 2 * r:
            self.d.rounded_rectangle((x0, y0, end, y1), r, fill=color)
            self.d.rectangle((end - r, y0, end, y1), fill=color)
        elif end - x0 > 2:  # a sliver (a few points of energy): no room for the rounded end
            self.d.rectangle((x0 + min(r / 2, end - x0 - 2), y0, end, y1), fill=color)
        if preview > 0 and end - x0 > 2:
            start = max(x0 + min(r / 2, end - x0 - 2), end - (x1 - x0) * preview)
            self.d.rectangle((start, y0, end, y1), fill=paler(color))

    def badge(self, b: Box, word: str, color: RGB) -> None:
        """A status word in capitals on a coloured pill (the game's mood badge): read text, not a button."""
        self.rrect(b, color, tuple(max(0, v - 50) for v in color), shadow=False)  # type: ignore[arg-type]
        self.text(b.center[0], b.center[1], word.upper(), 34, WHITE, bold=True, register=False)
        # its truth is the pill, as an OCR reads a badge: a status under it is within reach of the badge's height
        self.widgets.append(Widget(word.upper(), "text", b))

    def star(self, cx: float, cy: float, r: float, name: str = "Aptitude", row: int | None = None) -> None:
        """A five-pointed gold star (a race row's aptitude mark): an icon, no text."""
        if self.d:
            points = [(cx + (r if k % 2 == 0 else r * 0.45) * math.sin(math.pi * k / 5),
                       cy - (r if k % 2 == 0 else r * 0.45) * math.cos(math.pi * k / 5)) for k in range(10)]
            self.d.polygon(points, fill=(250, 196, 40), outline=(200, 140, 20))
        self.widgets.append(Widget(name, "icon", Box(x0=round(cx - r), y0=round(cy - r), x1=round(cx + r),
                                                    y1=round(cy + r)), row=row))

    def hamburger(self, b: Box, action: Action, name: str = "Menu") -> None:
        """Icon-only button (no text for OCR), like the game's bottom-right menu."""
        self.rrect(b, WHITE, EDGE)
        if self.d:
            cx, cy, half = b.center[0], b.center[1], b.width * 0.28
            for k in (-1, 0, 1):
                y = cy + k * b.height * 0.2
                self.d.line((cx - half, y, cx + half, y), fill=(150, 96, 40), width=max(3, round(8 * self.s)))
        self.widgets.append(Widget(name, "icon", b, True, action))

    def spinner(self, cx: float, cy: float, r: float, step: int) -> None:
        if not self.d:
            return
        for k in range(8):  # the bright dot moves one position per frame
            a = 2 * math.pi * k / 8
            x, y = cx + r * math.cos(a), cy + r * math.sin(a)
            on = k == step % 8
            rr = r * (0.22 if on else 0.15)
            self.d.ellipse((x - rr, y - rr, x + rr, y + rr), fill=GREEN_EDGE if on else (200, 226, 170))

    # --- layers ---------------------------------------------------------------------------

    def cover(self) -> None:
        """Blur and dim everything drawn so far (a dialog opens on top). Tabs stay in truth, disabled."""
        self.scrollbar = None
        if self.img:
            # blur and dim at 1/12 size, then scale back up: ~15 ms instead of ~60 for a full-size blur
            small = self.img.reduce(12).filter(ImageFilter.BoxBlur(1)).point(lambda v: round(v * 0.58 + 18))
            self.img.paste(small.resize((self.w, self.h), Image.Resampling.BILINEAR))
        self.widgets = [
            Widget(w.name, w.kind, w.box, False, None, w.row) for w in self.widgets if w.kind == "tab" and w.truth
        ]

    def layer(self) -> Painter:
        """A same-size scratch painter for scrolled content; merge it back with `clip_into`."""
        p = Painter(self.w, self.h, render=False)
        if self.img:
            p.render, p.img = True, self.img.copy()
            p.d = ImageDraw.Draw(p.img)
        return p

    def clip_into(self, layer: Painter, view: Box, min_visible: float = 0.6) -> None:
        """Paste the layer's viewport, keep widgets mostly inside it (clipped), drop the rest."""
        if self.img and layer.img:
            self.img.paste(layer.img.crop((view.x0, view.y0, view.x1, view.y1)), (view.x0, view.y0))
        for w in layer.widgets:
            y0, y1 = max(w.box.y0, view.y0), min(w.box.y1, view.y1)
            if y1 - y0 >= min_visible * w.box.height and y1 > y0:
                clipped = Box(x0=w.box.x0, y0=y0, x1=w.box.x1, y1=y1)
                self.widgets.append(Widget(w.name, w.kind, clipped, w.enabled, w.action, w.row, w.truth))

    def wrap(self, label: str, size: float, width: float) -> list[str]:
        """Greedy word wrap to `width` device pixels."""
        f = font(self.fs(size))
        lines: list[str] = []
        for word in label.split():
            if lines and f.getlength(lines[-1] + " " + word) <= width:
                lines[-1] += " " + word
            else:
                lines.append(word)
        return lines

    def fit(self, label: str, size: float, width: float, smallest: float = 34) -> float:
        """Largest size <= `size` (down to `smallest`) at which the label fits on one line."""
        while size > smallest and font(self.fs(size)).getlength(label) > width:
            size -= 2
        return size

    def character(self, cx: float, cy: float, r: float, hair: RGB = (120, 72, 48)) -> None:
        """A simple chibi trainee (head, ears, eyes, body) so screens have the game's look; not an element."""
        d = self.d
        if not d:
            return
        d.rounded_rectangle(
            (cx - r * 0.9, cy + r * 0.8, cx + r * 0.9, cy + r * 2.6),
            r * 0.5,
            fill=(250, 250, 255),
            outline=(120, 96, 170),
            width=max(2, round(6 * self.s)),
        )
        d.polygon(
            [(cx - r * 0.2, cy + r * 0.85), (cx + r * 0.2, cy + r * 0.85), (cx, cy + r * 1.4)], fill=(160, 40, 70)
        )
        for side in (-1, 1):  # horse ears
            d.polygon(
                [
                    (cx + side * r * 0.35, cy - r * 0.7),
                    (cx + side * r * 0.85, cy - r * 0.6),
                    (cx + side * r * 0.75, cy - r * 1.45),
                ],
                fill=hair,
            )
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 228, 210))
        d.chord((cx - r * 1.05, cy - r * 1.05, cx + r * 1.05, cy + r * 0.5), 180, 360, fill=hair)
        for side in (-1, 1):
            ex = cx + side * r * 0.38
            d.ellipse((ex - r * 0.14, cy + r * 0.05, ex + r * 0.14, cy + r * 0.4), fill=(90, 50, 40))
            d.ellipse((ex - r * 0.05, cy + r * 0.1, ex + r * 0.03, cy + r * 0.2), fill=WHITE)
        d.arc(
            (cx - r * 0.2, cy + r * 0.45, cx + r * 0.2, cy + r * 0.7),
            20,
            160,
            fill=(170, 70, 70),
            width=max(2, round(4 * self.s)),
        )
