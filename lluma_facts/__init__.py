"""Facts about Claude models, at the bottom of the package layers (imports no other lluma package).

The registry of model ids with their prices and limits, the `Usage` record and dollar costs. The agent
and the Messages API stand-in both read these facts; neither shares the other's judgement.
"""

from lluma_facts.registry import MODELS, ModelSpec, UnknownModelError, model_spec
from lluma_facts.usage import Usage, cost_usd

__all__ = ["MODELS", "ModelSpec", "UnknownModelError", "Usage", "cost_usd", "model_spec"]
