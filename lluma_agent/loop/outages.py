"""A turn the device or the model API failed: the turn ends, the run goes on, unless the outage lasted longer than
its window or the failures came too often in a row (then the turn ends the run: `Sitting.ends`)."""

from __future__ import annotations

from lluma_agent.config import Config
from lluma_agent.device.protocol import DeviceDisconnected, DeviceError
from lluma_agent.loop.sitting import Sitting
from lluma_agent.loop.state import LoopState
from lluma_agent.loop.stop import StopKind
from lluma_agent.model.claude import ModelError

MAX_MODEL_ERRORS = 3  # consecutive non-retryable model errors that end the run


def device_failed(cfg: Config, sitting: Sitting, state: LoopState, exc: DeviceError) -> tuple[str, LoopState]:
    """A bad frame or a dropped-and-reconnected device: this turn sees nothing and the next one tries
    again (the pending action's result waits for a good frame). A device that did not come back
    within `device.outage_wait_s`, or that has given no usable frame for that long, ends the run."""
    now = sitting.clock.now()
    since = state.device_down_since or now
    if isinstance(exc, DeviceDisconnected) and not exc.reconnected:
        sitting.ends(StopKind.DEVICE, f"the device failed: {exc}")
    elif now - since > cfg.device.outage_wait_s:
        sitting.ends(StopKind.DEVICE, f"the device failed: no usable frame for {now - since:.0f} s ({exc})")
    return f"device: {exc}", state.but(device_down_since=since)


def model_failed(cfg: Config, sitting: Sitting, state: LoopState, turn_started: float, exc: ModelError) -> LoopState:
    """A decision the API did not give: a busy API (overloaded or unreachable for the whole retry window) is
    waited out up to `model.outage_wait_s`; MAX_MODEL_ERRORS non-retryable errors in a row end the run."""
    state = state.but(last_model_error=str(exc))
    if exc.busy:
        since = state.model_down_since or turn_started
        if (down := sitting.clock.now() - since) > cfg.model.outage_wait_s:
            sitting.ends(StopKind.MODEL, f"the model API has not answered for {down:.0f} s (model.outage_wait_s "
                                         f"{cfg.model.outage_wait_s:.0f}): {exc}")
        return state.but(model_down_since=since)
    state = state.but(model_errors=state.model_errors + 1)
    if state.model_errors >= MAX_MODEL_ERRORS:
        sitting.ends(StopKind.MODEL, f"{state.model_errors} model calls in a row failed with non-retryable errors "
                                     f"(last: {exc})")
    return state
