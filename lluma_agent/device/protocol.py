"""What the agent needs of a phone: the one device seam.

`Device` (android.py, adbutils) is the real one; tests drive the loop with fakes that have the same
methods. Each stage asks for exactly this type, so a new device kind (a recording driver, another
transport) has one list of methods to provide.
"""

from __future__ import annotations

from typing import Literal, Protocol

from lluma_agent.device.android import Frame
from lluma_vision.models import Box


class Phone(Protocol):
    def capture(self) -> Frame: ...
    def tap(self, box: Box) -> tuple[int, int]: ...
    def scroll(self, region: Box, direction: Literal["up", "down"]) -> tuple[int, int, int, int]: ...
    def back(self) -> None: ...

