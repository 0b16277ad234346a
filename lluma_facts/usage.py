"""The `Usage` record of one or more requests and its dollar cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from lluma_facts.registry import model_spec


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
    """Dollar cost of ONE request's `usage` at `model`'s prices: the tier is chosen by that request's prompt
    length (Haiku 5.5 costs 5x above 100K prompt tokens). Sum costs of requests, not their usages.
    Raises UnknownModelError for a model not in the registry."""
    price = model_spec(model).price_for(usage.total_input_tokens)
    # Writes without a split are billed as 5-minute writes, like Usage.from_api does.
    w1h = usage.cache_write_1h
    w5 = max(usage.cache_creation_input_tokens - w1h, usage.cache_write_5m)
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + w5 * price.cache_write_5m
        + w1h * price.cache_write_1h
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000
