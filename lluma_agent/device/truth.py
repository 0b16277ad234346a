"""vision.backend "truth": the reading a simulated phone (`lluma sim phone`) makes of its own frame, asked over adb.

For the process path of tests whose subject is not the reading (a fleet, a resume on the same phone): the phone
answers `lluma-truth PHASH` with the VisionOutput a perfect OCR would make of the frame on screen
(lluma_sim/truth_over_adb.py). A real phone has no such command: `check` says so before the first turn."""

from __future__ import annotations

from PIL import Image
from pydantic import ValidationError

from lluma_agent.config import ConfigError
from lluma_agent.device.android import Device
from lluma_agent.device.protocol import DeviceError
from lluma_vision.config import TRUTH_COMMAND
from lluma_vision.models import VisionOutput
from lluma_vision.phash import phash as hash_of


class PhoneTruth:
    """`analyze(image)` -> the phone's own reading of the frame it showed, its screen hash the frame's."""

    backend = "truth"

    def __init__(self, device: Device) -> None:
        self.device = device

    def check(self) -> None:
        """ConfigError unless the phone serves its truth (a simulated phone does, a real one never): the setting
        asks what this phone cannot give, so the run does not start (one line, exit 2, as any bad setting)."""
        out, err, _ = self.device.shell(TRUTH_COMMAND, "truth")
        # the simulated phone's own answer to no argument, looked for rather than a shell's "not found": a device
        # without shell v2 gives no exit code and hands its stderr back in stdout
        if f"usage: {TRUTH_COMMAND}" not in out + err:
            raise ConfigError(f"vision.backend 'truth' reads a simulated phone's own truth (`lluma sim phone`); "
                              f"{self.device.serial} has no `{TRUTH_COMMAND}` command: use backend auto or ocr")

    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput:
        out, err, code = self.device.shell(f"{TRUTH_COMMAND} {phash or hash_of(image)}", "truth")
        if code not in (0, None):
            raise DeviceError(f"`{TRUTH_COMMAND}` failed (exit {code}): {err.strip()[:300]}")
        try:
            read = VisionOutput.model_validate_json(out)
        except ValidationError as exc:
            raise DeviceError(f"`{TRUTH_COMMAND}` answered no reading: {str(exc)[:300]}") from None
        if (read.width, read.height) != image.size:  # the phone moved on since the capture: no reading of this frame
            raise DeviceError(f"`{TRUTH_COMMAND}` read a {read.width}x{read.height} frame, the capture is "
                              f"{image.width}x{image.height}")
        return read
