"""Facts about Claude models, at the bottom of the package layers (imports no other lluma package).

The registry of model ids with their prices and limits, the `Usage` record and dollar costs. The agent
and the Messages API stand-in both read these facts; neither shares the other's judgement.
"""

from lluma_facts.registry import (
    EFFORTS,
    MODELS,
    ModelLookupError,
    ModelSpec,
    Price,
    RetiredModelError,
    UnknownModelError,
    current_models,
    model_spec,
    registry_day,
    replacement,
    usable_model,
)
from lluma_facts.usage import Usage, cost_usd

__all__ = [
    "EFFORTS",
    "MODELS",
    "ModelLookupError",
    "ModelSpec",
    "Price",
    "RetiredModelError",
    "UnknownModelError",
    "Usage",
    "cost_usd",
    "current_models",
    "model_spec",
    "registry_day",
    "replacement",
    "usable_model",
]
