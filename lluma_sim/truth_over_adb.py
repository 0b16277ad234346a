"""The simulated phone's own reading of its frame, over adb: the shell command `lluma-truth PHASH` answers the
reading a perfect OCR would make of the frame on screen now (lluma_sim/truth_vision.py) as VisionOutput JSON.

`lluma run` against `lluma sim phone` asks it when told `vision.backend: truth` (lluma_agent/device/truth.py): the
process path of the tests whose subject is not the reading (a fleet, a resume on the same phone, the key written
nowhere), which otherwise pay the OCR for every frame. A real phone has no such command (`inaccessible or not
found`, exit 127): such a run stops at its start. Asking changes nothing in the game: the truth is read, the clock
does not move (only an input or a capture moves it)."""

from __future__ import annotations

from lluma_sim.adb.device import SimDevice
from lluma_sim.adb.shell import ShellResult
from lluma_sim.truth_vision import read_truth
from lluma_vision.config import TRUTH_COMMAND


def truth_command(dev: SimDevice, args: list[str]) -> ShellResult:
    """`lluma-truth PHASH`: the reading of the frame on screen, its screen hash the one the caller computed."""
    truth = getattr(dev.game, "truth", None)
    if truth is None or len(args) != 1:
        return ShellResult(stderr=f"usage: {TRUTH_COMMAND} PHASH (a simulated game's phone)\n".encode(), code=2)
    with dev.lock:
        t = truth()
    return ShellResult(stdout=read_truth(t, args[0]).model_dump_json().encode())


def serve_truth(dev: SimDevice) -> None:
    """Give the simulated phone `dev` the `lluma-truth` command."""
    dev.commands[TRUTH_COMMAND] = truth_command
