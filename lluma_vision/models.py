"""Data that crosses the vision boundary.

`VisionOutput` is the full reading (device-pixel bounds, for the input layer);
`VisionData` is the compact form the model sees (no bounds, no empty fields).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from lluma_facts.retry import Attempt

Region = Literal["top", "middle", "bottom", "dialog", "menu", "left", "right"]
Cinematic = Literal["none", "loading", "cutscene", "cutscene_paused", "dialogue"]
Source = Literal["ocr", "vlm", "hybrid", "heuristic", "sim"]

class Box(BaseModel):
    """A rectangle in device pixels, x1/y1 exclusive. The only coordinates the input layer takes."""

    model_config = ConfigDict(frozen=True)

    x0: int
    y0: int
    x1: int
    y1: int

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, data: Any) -> Any:
        """Accept [x0, y0, x1, y1] as well as {"x0": ...}: boxes serialise as 4-lists."""
        if isinstance(data, (list, tuple)):
            if len(data) != 4:
                raise ValueError(f"a box is [x0, y0, x1, y1], got {list(data)!r}")
            return {"x0": data[0], "y0": data[1], "x1": data[2], "y1": data[3]}
        return data

    @model_serializer(mode="plain")
    def _to_list(self) -> list[int]:
        return self.as_list()

    @model_validator(mode="after")
    def _ordered(self) -> Box:
        if self.x1 <= self.x0 or self.y1 <= self.y0:
            raise ValueError(f"empty or inverted box {self.as_list()}")
        return self

    def as_list(self) -> list[int]:
        return [self.x0, self.y0, self.x1, self.y1]

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def center(self) -> tuple[int, int]:
        return ((self.x0 + self.x1) // 2, (self.y0 + self.y1) // 2)

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x < self.x1 and self.y0 <= y < self.y1

    def scaled(self, sx: float, sy: float) -> Box:
        """Convert from another pixel space (e.g. a downscaled image) into this one."""
        return Box(
            x0=round(self.x0 * sx),
            y0=round(self.y0 * sy),
            x1=max(round(self.x1 * sx), round(self.x0 * sx) + 1),
            y1=max(round(self.y1 * sy), round(self.y0 * sy) + 1),
        )

    def union(self, other: Box) -> Box:
        return Box(
            x0=min(self.x0, other.x0),
            y0=min(self.y0, other.y0),
            x1=max(self.x1, other.x1),
            y1=max(self.y1, other.y1),
        )


class Button(BaseModel):
    """Something tappable. `name` is unique within one VisionOutput (duplicates get `#2`...)."""

    name: str
    meta: str = ""  # hints such as "NEW", "10% OFF", "disabled"
    region: Region = "middle"
    bounds: Box
    source: Source = "ocr"
    confidence: float = 1.0
    # the rules that made it a button (resolve.py; `lluma vision --explain` says why): never in the compact JSON
    rules: list[str] = Field(default_factory=list)


class TextLine(BaseModel):
    """A read text line: dialogue, stats, titles, labels not taken for buttons. pressButton can tap it."""

    text: str
    bounds: Box
    confidence: float = 1.0
    meta_of: str | None = None  # the button whose `meta` shows this text (the compact JSON lists it there only)
    rules: list[str] = Field(default_factory=list)  # the rules that judged it (as Button.rules)


class MenuState(BaseModel):
    """The bottom tab bar."""

    usable: bool  # False when blurred/dimmed behind a dialog
    selected: str | None = None
    tabs: list[str] = Field(default_factory=list)


class Scrollbar(BaseModel):
    track: Box
    thumb: Box
    up: bool  # content above (can scroll up)
    down: bool  # content below (can scroll down)


class Gauge(BaseModel):
    """A horizontal bar with a filled run and an empty run in one track (energy, friendship), named by its caption."""

    label: str
    fill: float = Field(ge=0.0, le=1.0)  # filled length / track length
    bounds: Box
    doubtful: bool = False  # failed a plausibility check (jumped with nothing done): not passed on as sure


class CaptionedValue(BaseModel):
    """A caption and the number printed under or beside it, as one fact ("Speed" "796/1200");
    kind "gain" for a signed number printed over the caption's column ("Power" "+23")."""

    caption: str
    value: str
    kind: Literal["value", "gain"] = "value"
    bounds: Box
    doubtful: bool = False  # a value the game could not show, even re-read (checks.py, context/plausible.py)


class Support(BaseModel):
    """A support card on the raised training (the right-hand column): its bond bar's level ("none": a portrait drawn
    without a bar) and its hint badge."""

    bond: Literal["grey", "blue", "green", "orange", "MAX", "none"]
    hint: bool = False
    bounds: Box  # its portrait (where a tap opens the card)


class CompactSupport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bond: str
    hint: bool = False


class CompactGoal(BaseModel):
    """The career's current goal as its header shows it (facts/career.py): its words and the status line under it."""

    model_config = ConfigDict(extra="forbid")

    text: str
    status: str | None = None  # "Entry criteria met!", "Goal Achieved!"; None when none shows


class Spend(BaseModel):
    """What a screen asks to spend (lluma_vision.facts.spends): the words that ask it, as read (glued words parted),
    and the amount and the item or currency they name (None where they name none)."""

    model_config = ConfigDict(extra="forbid")

    words: str
    amount: int | float | None = None
    item: str | None = None


class ScreenIdentity(BaseModel):
    """Which screen a reading shows (lluma_vision.facts.screen.identify): the same id for what a player calls the same
    screen, whatever its numbers or list position; `name` is readable (its title where it has one)."""

    id: str  # short hex hash of the screen's canonical signature, stable across runs and processes
    name: str
    # what the signature keyed on: "cinematic", "panel", "dialog", "title", "tab" or "buttons" ("" in old logs)
    kind: str = ""
    spends: Spend | None = None  # what the screen asks to spend (facts/spends.py); None: nothing (and in old logs)


class VisionOutput(BaseModel):
    """Full reading of one frame, in device pixels."""

    width: int
    height: int
    buttons: list[Button] = Field(default_factory=list)
    texts: list[TextLine] = Field(default_factory=list)
    menu: MenuState | None = None
    scrollbar: Scrollbar | None = None
    cards: list[Box] = Field(default_factory=list)  # a list's cards in view, top first (pixels/cards.py; rows.py)
    cinematic: Cinematic = "none"
    gauges: list[Gauge] = Field(default_factory=list)
    values: list[CaptionedValue] = Field(default_factory=list)
    mood: str | None = None  # a short upper-case word on a badge beside the first gauge (the trainee's mood)
    screen_hash: str = ""  # perceptual hash (hex) of the frame
    backend: str = "ocr"
    errors: list[str] = Field(default_factory=list)  # e.g. VLM output rejected, OCR used instead
    cached: bool = False
    elapsed_ms: float = 0.0  # time analyze() took for this frame (a cache hit reports the hit's time)
    vlm_usage: dict[str, int] = Field(default_factory=dict)  # Messages API usage of the VLM call(s), for cost
    vlm_retries: list[Attempt] = Field(default_factory=list)  # failed VLM tries that were retried (logged)
    screen: ScreenIdentity | None = None  # which screen this is (lluma_vision.facts.screen.identify)
    supports: list[Support] = Field(default_factory=list)  # the raised training's cards, top to bottom (supports.py)

    @property
    def loose_texts(self) -> list[TextLine]:
        """The texts not already shown in a button's meta: what the model reads as text of its own."""
        return [t for t in self.texts if t.meta_of is None]

    def button(self, name: str) -> Button | None:
        for b in self.buttons:
            if b.name == name:
                return b
        return None


class CompactButton(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    meta: str | None = None
    region: str | None = None


class CompactScroll(BaseModel):
    up: bool
    down: bool


class CompactMenu(BaseModel):
    usable: bool
    selected: str | None = None


class VisionData(BaseModel):
    """Compact form for the model. Serialise with `to_json()` (no empty fields, stable order)."""

    buttons: list[CompactButton] = Field(default_factory=list)
    texts: list[str] = Field(default_factory=list)
    menu: CompactMenu | None = None
    scroll: CompactScroll | None = None
    cinematic: str | None = None
    gauges: dict[str, float] = Field(default_factory=dict)  # label -> fill 0..1
    values: dict[str, str] = Field(default_factory=dict)  # caption -> value
    gains: dict[str, str] = Field(default_factory=dict)  # caption -> signed gain
    mood: str | None = None
    doubtful: list[str] = Field(default_factory=list)  # keys above whose reading failed a check (values end in "?")
    selected: str | None = None  # the raised option of a screen that selects before it commits (raised.py)
    supports: list[CompactSupport] = Field(default_factory=list)  # the raised training's cards (supports.py)
    date: str | None = None  # the career's date as printed, "Classic Year Early Apr" (career.py)
    goal: CompactGoal | None = None  # the career's current goal and its status (career.py)
    rows: list[str] = Field(default_factory=list)  # a scrolling list's rows, each its words together (rows.py)

    def to_json(self) -> str:
        return self.model_dump_json(exclude_none=True, exclude_defaults=True)
