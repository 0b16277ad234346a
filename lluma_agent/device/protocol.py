"""What the agent needs of a phone: the one device seam, with the frame it gives and the errors it raises.

`Device` (android.py, adbutils) is the real one; tests drive the loop with fakes that have the same methods.
Each stage asks for exactly this type and handles exactly these errors, so a new device kind (a recording
driver, another transport) has one list of methods to provide and one set of errors to raise, and the loop
imports nothing of adbutils.
"""

from __future__ import annotations

import time
from typing import Literal, Protocol

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field

from lluma_vision.models import Box
from lluma_vision.phash import phash


class DeviceError(Exception):
    """Base of every device failure; the message says what to do."""


class DeviceNotFound(DeviceError):
    """The serial is not attached (the message lists what is)."""


class DeviceDisconnected(DeviceError):
    """The device dropped during a command. Reconnection was already attempted; retry or give up."""

    def __init__(self, message: str, reconnected: bool) -> None:
        super().__init__(message)
        self.reconnected = reconnected


class InputUnknown(DeviceError):
    """An input command was sent and its answer never came: it may have run, late. Never resend blindly.

    `point` / `swipe` say what was sent, so the log records it and the next frame can tell if it happened."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.point: tuple[int, int] | None = None
        self.swipe: tuple[int, int, int, int] | None = None


class FrameError(DeviceError):
    """A capture that cannot be used: cut short, size mismatch, undecodable or all black."""


class BlackFrame(FrameError):
    """An all-black picture: the screen is off or mid-transition. The capture path worked; do not blame it."""


class Frame(BaseModel):
    """One screen capture in device pixels."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    image: Image.Image = Field(description="RGB picture, device pixels.")
    taken_at: float = Field(description="time.time() when the capture was complete.")
    phash: str = Field(description="Perceptual hash (lluma_vision.phash) for change detection.")
    source: Literal["raw", "png"] = Field("raw", description="Which screencap path produced it.")

    @classmethod
    def of(cls, image: Image.Image, source: Literal["raw", "png"]) -> Frame:
        if image.getbbox() is None:  # every pixel 0: a secure screen, a dead display, a bad read
            raise BlackFrame(f"{source} screencap returned an all-black {image.width}x{image.height} frame")
        return cls(image=image, taken_at=time.time(), phash=phash(image), source=source)

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size


class Phone(Protocol):
    def capture(self) -> Frame: ...
    def tap(self, box: Box) -> tuple[int, int]: ...
    def scroll(self, region: Box, direction: Literal["up", "down"]) -> tuple[int, int, int, int]: ...
    def back(self) -> None: ...
