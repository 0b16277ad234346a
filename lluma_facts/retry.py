"""The one retry policy for Messages API calls: the agent's decision, history folds, count_tokens and the VLM.

Which failures retry is a fact of the API (the SDK retries the same set): 408, 409, 429, every 5xx (529 is
`overloaded_error`) and connection errors or timeouts. How long to wait is our policy, longer than the SDK's
because an overload episode lasts tens of seconds and a run must outlive it: full-jitter exponential backoff
(a uniform wait in [0, min(cap, base x 2^n)]), capped at `max_wait_s` per wait, for up to `window_s` in all.
A server's own hint wins: `retry-after-ms`, then `retry-after` in seconds, both capped at `retry_after_cap_s`
(the SDK obeys them uncapped). `sleep` and `clock` are injectable so tests run the whole window instantly.
"""

from __future__ import annotations

import itertools
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field
from tenacity import RetryCallState, Retrying, retry_if_exception

# The anthropic SDK is imported inside the functions that judge an error, not here: importing it takes 2-3.4 s, and
# every command imports this module through the reading's models (`lluma --help` took 3.9 s with it, 0.7 s without).

log = logging.getLogger("lluma.retry")

RETRY_STATUS = frozenset({408, 409, 429})
T = TypeVar("T")


def is_retryable(exc: BaseException) -> bool:
    """408/409/429/5xx and connection errors (timeouts included) are worth another try; anything else is not."""
    import anthropic  # here, not at the top (see the imports)

    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return isinstance(exc, anthropic.APIConnectionError)


def server_wait(exc: BaseException) -> float | None:
    """The wait a server asked for: `retry-after-ms`, else `retry-after` in seconds (an HTTP date is ignored)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)  # a negative value would crash sleep()
        except (TypeError, ValueError):
            continue
    return None


def describe(exc: BaseException) -> str:
    """`overloaded_error: Overloaded` from an API error body, or the exception's type; never holds the key."""
    import anthropic  # here, not at the top (see the imports)

    if isinstance(exc, anthropic.APIStatusError):
        body = exc.body if isinstance(exc.body, dict) else {}
        raw = body.get("error")
        err = raw if isinstance(raw, dict) else {}
        return f"{err.get('type', type(exc).__name__)}: {err.get('message', str(exc))}"[:300]
    return type(exc).__name__


class Attempt(BaseModel):
    """One failed try that was followed by a wait and another try (every one lands in the turn log)."""

    error: str
    status: int | None = None
    waited_s: float = 0.0


class RetryPolicy(BaseModel):
    model_config = ConfigDict(frozen=True)

    base_s: float = Field(1.0, gt=0, description="Backoff ceiling of the first wait; doubles per retry.")
    max_wait_s: float = Field(60.0, gt=0, description="Cap on one wait.")
    window_s: float = Field(300.0, ge=0, description="Give up once this long has passed since the first try.")
    retry_after_cap_s: float = Field(60.0, ge=0, description="Cap on a server's retry-after / retry-after-ms.")

    def wait(self, retry: int, exc: BaseException | None, rng: random.Random) -> float:
        """The wait before retry number `retry` (0-based)."""
        hinted = server_wait(exc) if exc is not None else None
        if hinted is not None:
            return min(hinted, self.retry_after_cap_s, self.max_wait_s)
        return rng.uniform(0.0, min(self.max_wait_s, self.base_s * 2.0**retry))


@dataclass(frozen=True)
class Tried(Generic[T]):
    """How a call went: its value, or the error it gave up on; and every try that failed and was retried (the
    caller logs them either way). A dataclass, not a pydantic model: it carries an exception and any value."""

    attempts: list[Attempt]
    value: T | None = None
    error: Exception | None = None

    def get(self) -> T:
        """The value, or the error raised."""
        if self.error is not None:
            raise self.error
        return cast(T, self.value)


def call_with_retries(
    fn: Callable[[int], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    rng: random.Random | None = None,
    what: str = "API call",
) -> Tried[T]:
    """`fn(attempt_number)` until it succeeds, fails for good, or the window is spent. Never raises an
    `Exception`: the last error comes back in the result, with the tries that were retried before it."""
    rng = rng or random.Random()
    start = clock()
    attempts: list[Attempt] = []

    def wait(rs: RetryCallState) -> float:
        exc = rs.outcome.exception() if rs.outcome else None
        remaining = max(0.0, policy.window_s - (clock() - start))
        return min(policy.wait(rs.attempt_number - 1, exc, rng), remaining)

    def stop(rs: RetryCallState) -> bool:
        return clock() - start >= policy.window_s

    def before_sleep(rs: RetryCallState) -> None:
        import anthropic  # here, not at the top (see the imports)

        exc = rs.outcome.exception() if rs.outcome else None
        assert exc is not None
        status = exc.status_code if isinstance(exc, anthropic.APIStatusError) else None
        attempts.append(Attempt(error=describe(exc), status=status, waited_s=round(rs.upcoming_sleep, 3)))
        log.warning("%s failed (%s); retry %d in %.1f s", what, describe(exc), rs.attempt_number, rs.upcoming_sleep)

    retrying = Retrying(
        sleep=sleep, wait=wait, stop=stop, retry=retry_if_exception(is_retryable), before_sleep=before_sleep,
        reraise=True,
    )
    tries = itertools.count()
    try:
        return Tried(attempts=attempts, value=retrying(lambda: fn(next(tries))))
    except Exception as exc:  # noqa: BLE001 - handed back with the attempts; the caller decides what it means
        return Tried(attempts=attempts, error=exc)
