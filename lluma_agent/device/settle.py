"""Wait for the screen to stop moving: loading screens, cutscenes and transitions pass first."""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from lluma_agent.device.protocol import DeviceDisconnected, Frame, FrameError, Phone
from lluma_vision.phash import distance

RECAPTURES_AFTER_RECONNECT = 3  # more drops than this within one settle: the link is too flaky to trust


class SameScreen:
    """The one test of "nothing changed" (settle, action effects, stuck loops, the pre-tap check): two frames whose
    perceptual hashes differ by at most `threshold` bits (device.settle_threshold) show the same screen."""

    def __init__(self, threshold: int) -> None:
        self.threshold = threshold

    def __call__(self, a: str, b: str) -> bool:
        return distance(a, b) <= self.threshold


class SettleResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    frame: Frame = Field(description="The last good frame (the settled one when settled).")
    settled: bool = Field(description="Two consecutive frames matched; False = timed out while moving.")
    captures: int = Field(description="Capture attempts made, failed ones included.")
    waited_s: float = Field(description="Seconds from the first capture to the answer.")


def settle(
    device: Phone,
    timeout_s: float | None = None,
    interval_s: float | None = None,
    threshold: int | None = None,
) -> SettleResult:
    """Capture until two consecutive frames are within `threshold` perceptual-hash bits, or
    `timeout_s` passes. Defaults come from the device's config (settle_* keys).

    A FrameError (a cut-short or all-black frame, e.g. mid-transition) counts as "still
    moving"; it is raised only if no good frame came at all. A capture cut by a drop is taken
    again once the device is back (a capture changes nothing on the phone, so repeating it is
    safe), up to RECAPTURES_AFTER_RECONNECT times; a device that did not come back is raised.
    """
    cfg = getattr(device, "cfg", None)
    timeout_s = timeout_s if timeout_s is not None else (cfg.settle_timeout_s if cfg else 6.0)
    interval_s = interval_s if interval_s is not None else (cfg.settle_interval_s if cfg else 0.25)
    threshold = threshold if threshold is not None else (cfg.settle_threshold if cfg else 3)
    start = time.monotonic()
    prev: Frame | None = None
    last_good: Frame | None = None
    error: FrameError | None = None
    captures = 0
    recaptures = 0
    while True:
        captures += 1
        try:
            frame = device.capture()
        except DeviceDisconnected as exc:
            if not exc.reconnected or recaptures >= RECAPTURES_AFTER_RECONNECT:
                raise
            recaptures += 1
            prev = None
            continue
        except FrameError as exc:
            error, prev = exc, None
        else:
            if prev is not None and distance(prev.phash, frame.phash) <= threshold:
                return SettleResult(frame=frame, settled=True, captures=captures, waited_s=time.monotonic() - start)
            prev = last_good = frame
        elapsed = time.monotonic() - start
        if elapsed + interval_s > timeout_s:
            break
        time.sleep(interval_s)
    if last_good is None:
        assert error is not None
        raise FrameError(f"no usable frame in {captures} captures over {timeout_s:.1f}s: {error}")
    return SettleResult(frame=last_good, settled=False, captures=captures, waited_s=time.monotonic() - start)


# The settle stage as the loop takes it (tests pass a faster one).
Settle = Callable[[Phone, float | None, float | None, int | None], SettleResult]
