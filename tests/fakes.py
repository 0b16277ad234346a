"""Fakes for unit tests of the turn loop: a phone of named screens, a vision that reads them, and a
deterministic model that plays back scripted replies (in the style of mini-swe-agent's test model).

No servers, no OCR: a loop test runs in milliseconds. The end-to-end tests (test_agent_e2e.py) run
the same loop on the simulated phone over adb and the Messages API stand-in over HTTP.
"""

from __future__ import annotations

import importlib
import itertools
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import numpy as np
from PIL import Image

from lluma_agent.config import Config
from lluma_agent.context.knowledge import Knowledge
from lluma_agent.device.app import GameApp
from lluma_agent.device.protocol import Frame, FrameError, InputUnknown
from lluma_agent.device.settle import settle
from lluma_agent.loop import parts
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.gated import InTheLoop
from lluma_agent.loop.layouts import ContextLayout
from lluma_agent.loop.turn import RunTotals
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.claude import ModelError, ModelReply
from lluma_agent.notify import Notifier
from lluma_agent.runlog.turnlog import TurnLog, TurnLogger
from lluma_agent.tools.toolkit import ToolRegistry
from lluma_facts import Usage
from lluma_facts.clock import Clock
from lluma_vision.models import Box, Button, CaptionedValue, Gauge, TextLine, VisionOutput
from lluma_vision.phash import phash

W, H = 1080, 1920


def button(name: str, x0: int, y0: int, x1: int, y1: int) -> Button:
    return Button(name=name, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))


def text(line: str, x0: int, y0: int, x1: int, y1: int) -> TextLine:
    return TextLine(text=line, bounds=Box(x0=x0, y0=y0, x1=x1, y1=y1))


@dataclass
class FakeScreen:
    buttons: list[Button] = field(default_factory=list)
    texts: list[TextLine] = field(default_factory=list)
    goes_to: dict[str, str] = field(default_factory=dict)  # tapped button or text -> next screen ("back": back key)
    values: list[CaptionedValue] = field(default_factory=list)  # captioned numbers and gains, as read
    gauges: list[Gauge] = field(default_factory=list)
    mood: str | None = None
    cinematic: Literal["none", "dialogue"] = "none"  # a story page reads as "dialogue"


class FakePhone:
    """Named screens, each a distinct picture; a tap inside an element follows `goes_to`."""

    def __init__(self, screens: dict[str, FakeScreen], start: str) -> None:
        self.screens, self.screen = screens, start
        rng = np.random.default_rng(5)
        # Small noise pictures (any two differ in every region of the perceptual hash); boxes are in W x H.
        self.images = {n: Image.fromarray(rng.integers(0, 255, (192, 108, 3), dtype=np.uint8)) for n in screens}
        self.hashes = {n: phash(img) for n, img in self.images.items()}
        self.calls: list[tuple[Any, ...]] = []
        self.fail_captures = 0  # the next N captures raise FrameError
        self.on_capture: list[str] = []  # screens shown by the next captures (the game moving on its own)
        self.unconfirmed = False  # the next input runs but its answer never comes (InputUnknown)

    def capture(self) -> Frame:
        if self.fail_captures:
            self.fail_captures -= 1
            raise FrameError("black frame")
        if self.on_capture:
            self.screen = self.on_capture.pop(0)
        return Frame(image=self.images[self.screen], taken_at=time.time(), phash=self.hashes[self.screen])

    def tap(self, box: Box) -> tuple[int, int]:
        x, y = box.center
        self.calls.append(("tap", x, y))
        s = self.screens[self.screen]
        hit = [b.name for b in s.buttons if b.bounds.contains(x, y)] + [t.text for t in s.texts
                                                                        if t.bounds.contains(x, y)]
        for name in hit:
            if name in s.goes_to:
                self.screen = s.goes_to[name]
                break
        if self.unconfirmed:  # like Device.tap: the point sent travels with the error
            self.unconfirmed = False
            exc = InputUnknown("tap: no answer within 10 s; the device may still run it")
            exc.point = (x, y)
            raise exc
        return x, y

    def scroll(self, region: Box, direction: str) -> tuple[int, int, int, int]:
        self.calls.append(("scroll", direction))
        return region.x0, region.y1, region.x0, region.y0

    def back(self) -> None:
        self.calls.append(("back",))
        self.screen = self.screens[self.screen].goes_to.get("back", self.screen)


class FakeVision:
    """Reads a FakePhone picture: the screen's buttons and texts, exactly."""

    def __init__(self, phone: FakePhone) -> None:
        self.phone = phone

    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput:
        name = next(n for n, h in self.phone.hashes.items() if h == phash)
        s = self.phone.screens[name]
        return VisionOutput(width=W, height=H, buttons=s.buttons, texts=s.texts, values=s.values, gauges=s.gauges,
                            mood=s.mood, screen_hash=phash or "", cinematic=s.cinematic)


def call(tool: str, /, **inp: Any) -> dict[str, Any]:
    """A tool_use block as the API returns it."""
    return {"type": "tool_use", "id": f"toolu_{tool}_{next(_ids)}", "name": tool, "input": inp}


_ids = itertools.count()


class ScriptedModel:
    """Plays back replies in order: a list of content blocks, or an exception to raise. Records requests.

    Running out of replies is an error: a test states every call the loop makes."""

    def __init__(self, replies: list[list[dict[str, Any]] | Exception]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def decide(self, request: dict[str, Any]) -> ModelReply:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError(f"ScriptedModel: no reply left for request {len(self.requests)}")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        calls = [ToolCall(id=b["id"], name=b["name"], input=b["input"]) for b in reply if b["type"] == "tool_use"]
        return ModelReply(
            content=reply, text="\n".join(b["text"] for b in reply if b["type"] == "text"), tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn", usage=Usage(input_tokens=1000, output_tokens=50),
        )

    def preflight(self, request: dict[str, Any]) -> tuple[bool, str] | None:
        return None  # a scripted model has no token count to check the prefix with


def model_error(message: str = "API error 529: overloaded") -> ModelError:
    return ModelError(message)


def bench_module(name: str) -> ModuleType:
    """A module of bench/, a folder of scripts that import each other by bare name (not a package)."""
    bench = str(Path(__file__).resolve().parents[1] / "bench")
    if bench not in sys.path:
        sys.path.append(bench)  # last: a script's name never hides a package's
    return importlib.import_module(name)


def loop(tmp: Path, phone: FakePhone, model: ScriptedModel, tools: ToolRegistry | None = None,
         layout: ContextLayout | None = None, logs: str = "logs", memory: str = "memory",
         settings: dict[str, Any] | None = None, app: bool = False, clock: Clock | None = None,
         notifier: Notifier | None = None, person: InTheLoop | None = None, knowledge: Knowledge | None = None,
         on_turn: Callable[[TurnLog, RunTotals], None] | None = None, **run: Any) -> Coordinator:
    """The real Coordinator on fakes, every part given when it is built; `run` overrides cfg.run keys (max_turns,
    stuck_after...); `settings` other sections' keys as "section__name"; `layout` the context layout (default the
    cached one); `logs` and `memory` folders under `tmp`; `app`: the phone is a game app (its shell answers as
    Android's); `clock`, `notifier`, `person`, `knowledge`, `on_turn` as the Coordinator takes them."""
    cfg = Config()
    cfg.device.settle_interval_s, cfg.device.settle_timeout_s = 0.0, 0.2
    cfg.run.max_cost_usd = 0
    for key, value in run.items():
        setattr(cfg.run, key, value)
    for key, value in (settings or {}).items():
        section, name = key.split("__")
        setattr(getattr(cfg, section), name, value)
    return Coordinator(parts.make(
        cfg, device=phone, vision=FakeVision(phone), model=model,
        memory=MemoryStore(tmp / memory, cfg.memory.budget_tokens), logger=TurnLogger(tmp / logs),
        system_prompt="You play the game.", tools=tools, settle=settle, layout=layout,
        app=GameApp(phone, cfg.game) if app else None, clock=clock, notifier=notifier, person=person,
        knowledge=knowledge,
    ), on_turn=on_turn)


class FakeClock(Clock):
    """The run's one clock for a test: sleeping advances time at once and records the wait (`at`: the time now)."""

    WALL = 1_700_000_000.0  # epoch seconds at `at` 0

    def __init__(self) -> None:
        self.at, self.waits = 0.0, []

    def now(self) -> float:
        return self.at

    def wall(self) -> float:
        return self.WALL + self.at

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.at += seconds


class IgnoresFoldAsk:
    """The stand-in's player, as a model that never writes the <summary> a fold note asks for: the fold then
    falls back to its summary call."""

    def __init__(self, seed: int = 1) -> None:
        from lluma_sim.api.policy import ScriptedPolicy

        self.player = ScriptedPolicy(seed=seed)
        self.requests: list[dict[str, Any]] = []

    def respond(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        reply = self.player.respond(request)
        for block in reply.content:
            if block.get("type") == "text":
                block["text"] = re.sub(r"<summary>.*?</summary>\s*", "", block["text"], flags=re.DOTALL)
        return reply
