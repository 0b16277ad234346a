"""The `Usage` record of one or more requests and its dollar cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from lluma_facts.registry import CACHE_READ_MULTIPLIER, CACHE_WRITE_1H_MULTIPLIER, CACHE_WRITE_5M_MULTIPLIER, model_spec


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
