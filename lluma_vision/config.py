"""VisionConfig: the `vision:` section of config.yaml. lluma_agent's Config composes it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class VisionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    backend: Literal["auto", "ocr", "claude", "hybrid"] = Field(
        "auto",
        description="auto = ocr (the decision model sees the screenshot); claude/hybrid add a VLM call per new screen.",
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
