"""The one table of Claude models: what each model id costs, limits, accepts and rejects.

Read by the agent (accounting, request shape) and by the Messages API stand-in (what it enforces), so
both agree on the facts while each keeps its own judgement (the stand-in counts tokens its own way).
Prices are USD per million tokens. Sources: the provider's model pages (November 2026), as summarised in
shared/FACTS.md; figures not published there are marked `confirmed=False` with a note.
"""

from __future__ import annotations

import os
import re
from datetime import date
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

CACHE_WRITE_5M_MULTIPLIER = 1.25  # the pricing documentation: 5-minute cache writes 1.25x input, 1-hour 2x, reads 0.1x
CACHE_WRITE_1H_MULTIPLIER = 2.0  # as above
CACHE_READ_MULTIPLIER = 0.1  # as above
SAMPLING_PARAMS = ("temperature", "top_p", "top_k")

Effort = Literal["low", "medium", "high", "xhigh", "max"]
EFFORTS: tuple[Effort, ...] = get_args(Effort)  # in increasing depth
Status = Literal["active", "deprecated"]


class Price(BaseModel):
    """USD per million tokens of each kind."""

    model_config = ConfigDict(frozen=True)

    input: float
    output: float
    cache_read: float
    cache_write_5m: float
    cache_write_1h: float

    @classmethod
    def standard(cls, input_: float, output: float) -> Price:
        """Cache prices at the usual multipliers of input: read 0.1x, 5-minute write 1.25x, 1-hour write 2x."""
        return cls(
            input=input_,
            output=output,
            cache_read=round(input_ * CACHE_READ_MULTIPLIER, 6),
            cache_write_5m=round(input_ * CACHE_WRITE_5M_MULTIPLIER, 6),
            cache_write_1h=round(input_ * CACHE_WRITE_1H_MULTIPLIER, 6),
        )


class PriceTier(BaseModel):
    """A price that applies to requests whose prompt is longer than `above_prompt_tokens`."""

    model_config = ConfigDict(frozen=True)

    above_prompt_tokens: int = 0
    price: Price


class ModelSpec(BaseModel):
    """Everything that differs by model. `confirmed=False` marks figures not from the provider's own pages."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="Canonical model id, e.g. claude-haiku-4-5 (dated aliases resolve to it).")
    name: str = Field(description="Display name.")
    status: Status = "active"
    released: date | None = None
    retires: date | None = Field(None, description="From this day the API no longer serves the model.")
    replaced_by: str | None = Field(
        None, description="The model the provider names in the retirement notice as the one to move to."
    )
    prices: tuple[PriceTier, ...] = Field(description="By prompt length, ascending; the first has threshold 0.")
    min_cacheable_tokens: int = Field(description="Shortest prefix the API caches; below it nothing is cached.")
    max_output_tokens: int = Field(description="Largest max_tokens the model accepts.")
    context_window: int = Field(200_000, description="Input + output token limit.")
    thinking: Literal["budget", "adaptive"] = Field(
        description="budget: thinking {type: enabled, budget_tokens}; adaptive: {type: adaptive} + effort."
    )
    thinking_default_on: bool = Field(False, description="Adaptive thinking runs when the request says nothing.")
    efforts: tuple[Effort, ...] = Field((), description="Accepted output_config.effort values (empty: no effort).")
    default_effort: Effort | None = None
    disable_thinking_max_effort: Effort | None = Field(
        None,
        description="Adaptive models: thinking {type: disabled} is accepted only at this effort or lower (None: "
        "never). Budget models accept it always.",
    )
    thinking_bound_to_prefix: bool = Field(
        False, description="A replayed thinking block must follow the system, tools and messages it was made after."
    )
    rejected_params: tuple[str, ...] = Field(
        (), description="Request fields the model answers with 400 (beyond what the API version rejects)."
    )
    rejects_prefill: bool = Field(False, description="A request ending in an assistant message gets 400.")
    tokenizer_factor: float = Field(1.0, description="Tokens of the same text relative to Haiku 4.5's tokenizer.")
    image_max_long_edge: int = Field(1568, description="Images are shrunk so the long edge is at most this.")
    image_max_tokens: int = Field(1568, description="...and so they cost at most this many tokens.")
    confirmed: bool = Field(True, description="False when some figures are not from the provider's own pages.")
    note: str = Field("", description="Caveats (deprecation, unconfirmed figures).")

    def price_for(self, prompt_tokens: int) -> Price:
        """The price of a request whose prompt (uncached + cache read + cache write) has this many tokens."""
        above = [t for t in self.prices if prompt_tokens > t.above_prompt_tokens]
        return (above or self.prices)[-1].price

    @property
    def base_price(self) -> Price:
        return self.prices[0].price

    @property
    def input_usd_per_mtok(self) -> float:
        return self.base_price.input

    @property
    def output_usd_per_mtok(self) -> float:
        return self.base_price.output

    @property
    def cache_write_5m_usd_per_mtok(self) -> float:
        return self.base_price.cache_write_5m

    @property
    def cache_write_1h_usd_per_mtok(self) -> float:
        return self.base_price.cache_write_1h

    @property
    def cache_read_usd_per_mtok(self) -> float:
        return self.base_price.cache_read

    def retired(self, today: date) -> bool:
        return self.retires is not None and today >= self.retires


def _flat(input_: float, output: float) -> tuple[PriceTier, ...]:
    return (PriceTier(price=Price.standard(input_, output)),)


def _claude_5_5(
    id_: str,
    name: str,
    prices: tuple[PriceTier, ...],
    *,
    min_cacheable_tokens: int,
    default_effort: Effort,
    disable_thinking_max_effort: Effort | None,
    note: str,
) -> ModelSpec:
    """The Claude 5.5 generation: adaptive thinking with effort, thinking bound to its prefix, newer tokenizer."""
    return ModelSpec(
        id=id_,
        name=name,
        released=date(2026, 10, 7),
        prices=prices,
        min_cacheable_tokens=min_cacheable_tokens,
        max_output_tokens=128_000,
        context_window=1_000_000,
        thinking="adaptive",
        thinking_default_on=True,
        efforts=EFFORTS,
        default_effort=default_effort,
        disable_thinking_max_effort=disable_thinking_max_effort,
        thinking_bound_to_prefix=True,
        rejected_params=(*SAMPLING_PARAMS, "thinking.budget_tokens"),
        rejects_prefill=True,
        tokenizer_factor=1.3,
        confirmed=False,
        note=note,
    )


def _claude_4(id_: str, name: str, input_: float, output: float, min_cacheable_tokens: int, **kw: object) -> ModelSpec:
    """The Claude 4.5/4.6 generation: thinking with a token budget, no effort levels."""
    return ModelSpec.model_validate(
        dict(
            id=id_,
            name=name,
            prices=_flat(input_, output),
            min_cacheable_tokens=min_cacheable_tokens,
            max_output_tokens=64_000,
            thinking="budget",
            **kw,
        )
    )


MODELS: dict[str, ModelSpec] = {
    m.id: m
    for m in (
        _claude_5_5(
            "claude-haiku-5-5",
            "Claude Haiku 5.5",
            (
                PriceTier(price=Price.standard(0.10, 0.50)),
                PriceTier(above_prompt_tokens=100_000, price=Price.standard(0.50, 2.50)),
            ),
            min_cacheable_tokens=512,
            default_effort="medium",
            disable_thinking_max_effort="high",
            note="image limits not published: Haiku 4.5's assumed",
        ),
        _claude_5_5(
            "claude-sonnet-5-5",
            "Claude Sonnet 5.5",
            _flat(2.0, 10.0),
            min_cacheable_tokens=1024,
            default_effort="high",
            disable_thinking_max_effort="high",
            note="minimum cacheable, thinking-off rule, long-prompt tier and image limits not published: "
            "1,024, Haiku 5.5's, none and Haiku 4.5's assumed",
        ),
        _claude_5_5(
            "claude-opus-5-5",
            "Claude Opus 5.5",
            _flat(4.0, 20.0),
            min_cacheable_tokens=4096,
            default_effort="medium",
            disable_thinking_max_effort=None,  # adaptive thinking is always on
            note="thinking always on; minimum cacheable, long-prompt tier and image limits not published: "
            "Opus 4.5's, none and Haiku 4.5's assumed",
        ),
        _claude_4("claude-haiku-4-5", "Claude Haiku 4.5", 1.0, 5.0, 4096, released=date(2025, 10, 15)),
        # The docs say 1,024; users report nothing is cached below 2,048. Take the stricter figure so
        # the stand-in never promises a cache hit the real API would not give.
        _claude_4(
            "claude-sonnet-4-6", "Claude Sonnet 4.6", 3.0, 15.0, 2048,
            note="minimum cacheable: docs 1,024, observed 2,048 (2,048 used)",
        ),  # fmt: skip
        _claude_4(
            "claude-sonnet-4-5", "Claude Sonnet 4.5", 3.0, 15.0, 1024,
            status="deprecated", retires=date(2026, 11, 30), replaced_by="claude-sonnet-4-6",
            note="deprecated; retires 2026-11-30 (replacement: claude-sonnet-4-6, same generation and shape)",
        ),  # fmt: skip
        # Retirement from the SDK's own list (anthropic 2.15, `_data/deprecated_models.py`: end-of-life
        # January 22nd, 2027); the replacement is assumed to be the newest Opus here.
        _claude_4(
            "claude-opus-4-5", "Claude Opus 4.5", 5.0, 25.0, 4096,
            status="deprecated", retires=date(2027, 1, 22), replaced_by="claude-opus-5-5",
            note="deprecated; retires 2027-01-22 (the SDK's list; replacement assumed: claude-opus-5-5)",
        ),  # fmt: skip
    )
}

_DATED = re.compile(r"^(?P<base>.+?)-(?P<date>\d{8})$")


class ModelLookupError(ValueError):
    """A model id the project cannot use."""


class UnknownModelError(ModelLookupError):
    """A model id that is not in the registry."""


class RetiredModelError(ModelLookupError):
    """A model id the API no longer serves; `replacement` is the current model to move to, when one is named."""

    def __init__(self, message: str, replacement: str | None = None) -> None:
        super().__init__(message)
        self.replacement = replacement


TODAY_ENV = "LLUMA_TODAY"


def registry_day() -> date:
    """The day retirement is judged on: `LLUMA_TODAY=YYYY-MM-DD` sets it for the whole process (tests pin a
    day with it; a person checks what a retirement will do), otherwise the real date."""
    raw = os.environ.get(TODAY_ENV, "").strip()
    if not raw:
        return date.today()
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise ValueError(f"{TODAY_ENV}={raw!r} is not a day: write it as YYYY-MM-DD") from None


def current_models(today: date | None = None) -> list[str]:
    """Ids of the models the API serves on `today` (default: `registry_day()`), newest generation first."""
    day = today or registry_day()
    return [m.id for m in MODELS.values() if not m.retired(day)]


def model_spec(model: str) -> ModelSpec:
    """The registry row for `model`, retired or not (old logs still get billed); dated aliases
    (claude-haiku-4-5-20251001) resolve to their base id. Unknown ids raise UnknownModelError."""
    spec = MODELS.get(model)
    if spec is None and (m := _DATED.match(model)):
        spec = MODELS.get(m.group("base"))
    if spec is None:
        raise UnknownModelError(
            f"unknown model {model!r}: not in the model registry (current models: {', '.join(current_models())}; "
            "`lluma models` lists them)"
        )
    return spec


def usable_model(model: str, today: date | None = None) -> ModelSpec:
    """The row for a model a run may use on `today`: unknown or retired ids raise an error naming the
    current models. A deprecated model is returned (callers may warn with `spec.note`)."""
    day = today or registry_day()
    spec = model_spec(model)
    if spec.retired(day):
        raise RetiredModelError(
            f"model {model!r} was retired on {spec.retires}; current models: {', '.join(current_models(day))}",
            replacement=replacement(spec.id, day),
        )
    return spec


def replacement(model: str, today: date | None = None) -> str | None:
    """The model to move to from a retired one: its named successor, followed while that one is retired too;
    None when the chain ends in nothing the API serves."""
    day = today or registry_day()
    seen: set[str] = set()
    spec = model_spec(model)
    while spec.retired(day) and spec.replaced_by and spec.id not in seen:
        seen.add(spec.id)
        spec = model_spec(spec.replaced_by)
    return None if spec.retired(day) else spec.id
