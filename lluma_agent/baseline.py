"""The layout the original harness started from, kept only as the baseline for `bench/tokens.py`.

Every user message carries the full per-button vision JSON (name, full_label, bounds, metadata dict,
region) and the memory files; no cache_control anywhere; history is a sliding window that drops the
oldest turn every turn. Selected with `context.layout: baseline`; never the right choice for a run.
"""

from __future__ import annotations

import json

from lluma_vision.models import VisionOutput


def verbose_vision_json(out: VisionOutput) -> str:
    """The original harness's per-button form, for comparison with the compact VisionData."""
    buttons = [
        {
            "name": b.name,
            "full_label": b.name,
            "bounds": {"x0": b.bounds.x0, "y0": b.bounds.y0, "x1": b.bounds.x1, "y1": b.bounds.y1},
            "metadata": {"meta": b.meta, "source": b.source, "confidence": round(b.confidence, 3)},
            "region": b.region,
        }
        for b in out.buttons
    ]
    data = {
        "buttons": buttons,
        "texts": [{"text": t.text, "bounds": t.bounds.as_list()} for t in out.texts],
        "menu": out.menu.model_dump(mode="json") if out.menu else None,
        "scrollbar": out.scrollbar.model_dump(mode="json") if out.scrollbar else None,
        "cinematic": out.cinematic,
    }
    return json.dumps(data, indent=1)
