"""VisionConfig: the `vision:` section of config.yaml. lluma_agent's Config composes it."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# LLUMA_OCR_THREADS: onnxruntime's intra-op threads when a caller asks for none (0 = its default, one per core). Two
# processes reading at once on two cores (the test workers, two agents on one machine) each do better with 1: twelve
# shared screens read by two processes at once took 24.4 s and 24.9 s with the default, 15.0 s and 16.1 s with 1
# (2026-11-28, this 2-core machine), the default's threads contending for the other process's core. An environment
# variable, not a `vision:` key: it is the machine's business, not the run's.
THREADS_ENV = "LLUMA_OCR_THREADS"


def ocr_threads(env: Mapping[str, str] | None = None) -> int:
    """LLUMA_OCR_THREADS as a count (0 when unset or empty). ValueError naming it when it is not a whole number:
    lluma_agent's load_config turns that into a configuration error (exit 2) before any run starts."""
    raw = (os.environ if env is None else env).get(THREADS_ENV, "").strip()
    if raw and not raw.isdigit():
        raise ValueError(f"{THREADS_ENV} must be a whole number of threads (0 = one per core), not {raw!r}")
    return int(raw or 0)


# backend "truth": the shell command a simulated phone answers with its own reading of its frame (VisionOutput JSON):
# lluma_sim/truth_over_adb.py answers it, lluma_agent/device/truth.py asks it (a name no Android shell has)
TRUTH_COMMAND = "lluma-truth"


class VisionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    backend: Literal["auto", "ocr", "claude", "hybrid", "truth"] = Field(
        "auto",
        description="auto = ocr (the decision model sees the screenshot); claude/hybrid add a VLM call per new screen; "
                    "truth = the simulated phone's own reading (`lluma sim phone` only: tests of all but the reading).",
    )
    max_buttons: int = Field(
        30, ge=1, le=500, description="Cap on buttons in the compact JSON (highest confidence kept)."
    )
    max_texts: int = Field(12, ge=0, le=500, description="Cap on text lines in the compact JSON.")
    cache_size: int = Field(64, ge=0, le=100_000, description="Screens remembered by the vision cache (0 = none).")
    cache_max_age_s: float = Field(120.0, ge=0, description="A cached reading older than this is recomputed.")
    vlm_model: str = Field("claude-haiku-5-5", description="Model for the claude/hybrid backends.")
    cache_max_distance: int = Field(
        0,
        ge=0,
        le=64,
        description="Max bits any screen region's hash may differ for a cache hit (0 = identical regions).",
    )
    ocr_short_side: int = Field(
        720, ge=64, le=4096, description="OCR reads frames scaled so the short side is about this."
    )
    ocr_long_side: int = Field(
        1280, ge=64, le=8192, description="...and the long side at most this (1080x1920 -> 720x1280)."
    )
    ocr_det_limit: int = Field(
        960, ge=64, le=8192, description="Long side the text detector sees on a 9:16 frame; taller ones keep that "
        "short side (smaller = faster, misses more)."
    )
    vlm_max_tokens: int = Field(2048, ge=1, description="Output cap of one VLM call.")
    vlm_image_max_side: int = Field(896, ge=64, le=8000, description="Long edge of the screenshot sent to the VLM.")
