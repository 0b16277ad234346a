"""The one price and limits table per model, the `Usage` record, and dollar costs.

Used by the agent's accounting and by the Messages API stand-in (minimum cacheable prefix,
image limits), so both bill a turn the same way. Prices are USD per million tokens.
Cache multipliers apply to the model's input price: 5-minute write 1.25x, 1-hour write 2x, read 0.1x.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CACHE_WRITE_5M_MULTIPLIER = 1.25
CACHE_WRITE_1H_MULTIPLIER = 2.0
CACHE_READ_MULTIPLIER = 0.1


class ModelSpec(BaseModel):
    """Prices and limits of one model. `confirmed=False` marks figures taken from third-party sources."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Canonical model id, e.g. claude-haiku-4-5 (dated aliases resolve to it).")
    input_usd_per_mtok: float = Field(description="Base input price, USD per million tokens.")
    output_usd_per_mtok: float = Field(description="Output price, USD per million tokens.")
    min_cacheable_tokens: int = Field(description="Shortest prefix the API caches; below it nothing is cached.")
    max_output_tokens: int = Field(description="Largest max_tokens the model accepts.")
    context_window: int = Field(200_000, description="Input + output token limit.")
    image_max_long_edge: int = Field(1568, description="Images are shrunk so the long edge is at most this.")
    image_max_tokens: int = Field(1568, description="...and so they cost at most this many tokens.")
    confirmed: bool = Field(True, description="False when the figures are not from Anthropic's own pages.")
    note: str = Field("", description="Caveats (deprecation, unconfirmed figures).")

    @property
    def cache_write_5m_usd_per_mtok(self) -> float:
        return self.input_usd_per_mtok * CACHE_WRITE_5M_MULTIPLIER

    @property
    def cache_write_1h_usd_per_mtok(self) -> float:
        return self.input_usd_per_mtok * CACHE_WRITE_1H_MULTIPLIER

    @property
    def cache_read_usd_per_mtok(self) -> float:
        return self.input_usd_per_mtok * CACHE_READ_MULTIPLIER


MODELS: dict[str, ModelSpec] = {
    m.id: m
    for m in (
        ModelSpec(
            id="claude-haiku-4-5",
            input_usd_per_mtok=1.0,
            output_usd_per_mtok=5.0,
            min_cacheable_tokens=4096,
            max_output_tokens=64_000,
        ),
        ModelSpec(
            id="claude-sonnet-4-5",
            input_usd_per_mtok=3.0,
            output_usd_per_mtok=15.0,
            min_cacheable_tokens=1024,
            max_output_tokens=64_000,
            note="deprecated; retires 2026-11-30",
        ),
        ModelSpec(
            id="claude-sonnet-4-6",
            input_usd_per_mtok=3.0,
            output_usd_per_mtok=15.0,
            # The docs say 1,024; users report nothing is cached below 2,048. Take the stricter figure so
            # the stand-in never promises a cache hit the real API would not give.
            min_cacheable_tokens=2048,
            max_output_tokens=64_000,
            note="minimum cacheable: docs 1,024, observed 2,048 (2,048 used)",
        ),
        ModelSpec(
            id="claude-opus-4-5",
            input_usd_per_mtok=5.0,
            output_usd_per_mtok=25.0,
            min_cacheable_tokens=4096,
            max_output_tokens=64_000,
        ),
        ModelSpec(
            id="claude-haiku-5-5",
            input_usd_per_mtok=0.10,
            output_usd_per_mtok=0.50,
            min_cacheable_tokens=4096,
            max_output_tokens=64_000,
            confirmed=False,
            note="unconfirmed third-party prices, valid up to 100K-token prompts; minimum cacheable and image "
            "limits assumed equal to Haiku 4.5",
        ),
    )
}

_DATED = re.compile(r"^(?P<base>.+?)-(?P<date>\d{8})$")


class UnknownModelError(ValueError):
    """A model id that is not in the price table."""


def model_spec(model: str) -> ModelSpec:
    """The table row for `model`; dated aliases (claude-haiku-4-5-20251001) resolve to their base id."""
    spec = MODELS.get(model)
    if spec is None and (m := _DATED.match(model)):
        spec = MODELS.get(m.group("base"))
    if spec is None:
        known = ", ".join(sorted(MODELS))
        raise UnknownModelError(
            f"unknown model {model!r}: no price/limits entry (known: {known}); add it to pricing.py"
        )
    return spec


def known_models() -> list[str]:
    return sorted(MODELS)


class Usage(BaseModel):
    """Token usage of one or more requests. `cache_write_5m + cache_write_1h == cache_creation_input_tokens`."""

    input_tokens: int = 0  # uncached input (after the last cache breakpoint)
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0

    @classmethod
    def from_api(cls, usage_obj: Any) -> Usage:
        """From the SDK's `Message.usage` (or its dict form). Missing/None fields count as 0; a creation
        total without its 5m/1h split is taken as 5-minute writes (the default TTL)."""

        def get(obj: Any, name: str) -> Any:
            if obj is None:
                return None
            return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

        creation = int(get(usage_obj, "cache_creation_input_tokens") or 0)
        split = get(usage_obj, "cache_creation")
        w5 = int(get(split, "ephemeral_5m_input_tokens") or 0)
        w1h = int(get(split, "ephemeral_1h_input_tokens") or 0)
        if split is None or w5 + w1h != creation:
            w5 = max(creation - w1h, 0)
        return cls(
            input_tokens=int(get(usage_obj, "input_tokens") or 0),
            output_tokens=int(get(usage_obj, "output_tokens") or 0),
            cache_creation_input_tokens=creation,
            cache_read_input_tokens=int(get(usage_obj, "cache_read_input_tokens") or 0),
            cache_write_5m=w5,
            cache_write_1h=w1h,
        )

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})

    @property
    def total_input_tokens(self) -> int:
        """Everything the prompt cost, cached or not (the API's input_tokens + creation + read)."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def cache_hit_ratio(self) -> float:
        """Cache reads over all input tokens (0.0 when there was no input)."""
        total = self.total_input_tokens
        return self.cache_read_input_tokens / total if total else 0.0


def cost_usd(usage: Usage, model: str) -> float:
    """Dollar cost of `usage` at `model`'s prices (raises UnknownModelError for a model not in the table)."""
    spec = model_spec(model)
    price_in = spec.input_usd_per_mtok
    # Writes without a split are billed as 5-minute writes, like Usage.from_api does.
    w1h = usage.cache_write_1h
    w5 = max(usage.cache_creation_input_tokens - w1h, usage.cache_write_5m)
    total = (
        usage.input_tokens * price_in
        + usage.output_tokens * spec.output_usd_per_mtok
        + w5 * price_in * CACHE_WRITE_5M_MULTIPLIER
        + w1h * price_in * CACHE_WRITE_1H_MULTIPLIER
        + usage.cache_read_input_tokens * price_in * CACHE_READ_MULTIPLIER
    )
    return total / 1_000_000
