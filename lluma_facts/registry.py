"""The one table of Claude models: prices and limits per model id.

Read by the agent (accounting, request shape) and by the Messages API stand-in (what it enforces), so
both agree on the facts while each keeps its own judgement (the stand-in counts tokens its own way).
Prices are USD per million tokens. Cache multipliers apply to the model's input price: 5-minute write
1.25x, 1-hour write 2x, read 0.1x.
"""

from __future__ import annotations

import re

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
    tokenizer_factor: float = Field(1.0, description="Tokens of the same text relative to Haiku 4.5's tokenizer.")
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
            tokenizer_factor=1.3,
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
            f"unknown model {model!r}: no price/limits entry (known: {known}); add it to lluma_facts/registry.py"
        )
    return spec
