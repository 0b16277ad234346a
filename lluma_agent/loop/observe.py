"""The first stage of a turn: capture until the screen is still, read it, wait out loading screens."""

from __future__ import annotations

import time
from typing import Protocol

from PIL import Image

from lluma_agent.config import DeviceConfig
from lluma_agent.device.protocol import Phone
from lluma_agent.device.settle import Settle
from lluma_agent.loop.turn import Observation
from lluma_agent.runlog.turnlog import FrameInfo
from lluma_vision.models import VisionOutput
from lluma_vision.phash import short_id

WAIT_KINDS = ("loading", "cutscene")
MAX_WAITS = 8  # captures spent waiting out a loading screen or cutscene before the model gets it anyway


class VisionLike(Protocol):
    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput: ...


def observe(device: Phone, vision: VisionLike, settle: Settle, dev: DeviceConfig) -> Observation:
    """Capture until the screen is still and not a loading screen or cutscene (bounded).

    DeviceError (a bad frame, a dropped device) is the caller's: the turn sees nothing."""
    t0 = time.monotonic()
    capture_s = vision_s = 0.0
    captures, waited = 0, None
    for waits in range(MAX_WAITS + 1):
        t1 = time.monotonic()
        settled = settle(device, dev.settle_timeout_s, dev.settle_interval_s, dev.settle_threshold)
        t2 = time.monotonic()
        out = vision.analyze(settled.frame.image, settled.frame.phash)
        capture_s, vision_s = capture_s + t2 - t1, vision_s + time.monotonic() - t2
        captures += settled.captures
        if out.cinematic not in WAIT_KINDS or waits == MAX_WAITS:
            break
        waited = f"{out.cinematic} ({waits + 1} waits)"
        time.sleep(dev.settle_interval_s)
    frame = settled.frame
    info = FrameInfo(phash=short_id(frame.phash), width=frame.image.width, height=frame.image.height,
                     settled=settled.settled, settle_captures=captures, cinematic=out.cinematic)
    return Observation(frame, out, info, waited, capture_s, vision_s, time.monotonic() - t0 - vision_s - capture_s)
