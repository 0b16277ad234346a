"""`Vision.analyze(image)` -> VisionOutput: cache, OCR reading, optional VLM, in that order.

Backends: `ocr` (offline), `claude` (the VLM's buttons and icons, grounded on OCR ids), `hybrid`
(the VLM's plus OCR-heuristic buttons it did not mention, ranked lower), `auto` (ocr: the
decision model sees the screenshot itself, so a VLM reading per new screen is opt-in; see
docs/ARCHITECTURE.md). Menu, scrollbar and cinematic always come from pixel heuristics. Loading and
cutscene frames never call the VLM: there is nothing to tap but Skip.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from PIL import Image

from lluma_facts.retry import RetryPolicy
from lluma_vision.config import VisionConfig
from lluma_vision.facts.associate import associate
from lluma_vision.facts.screen import identify
from lluma_vision.models import VisionOutput
from lluma_vision.phash import from_hex, region_hash
from lluma_vision.pipeline.cache import VisionCache
from lluma_vision.pipeline.reading import Reading, read_frame
from lluma_vision.pipeline.vlm import OcrFallback, VlmBackend
from lluma_vision.pixels.bars import content_box, shifted
from lluma_vision.pixels.menu import TabMemory
from lluma_vision.pixels.ocr import prepare

log = logging.getLogger("lluma.vision")

BACKENDS = ("ocr", "claude", "hybrid")


def resolve_backend(name: str, client: Any) -> str:
    if name == "auto":  # ocr, key or no key: every decision carries the screenshot (measured: docs/ARCHITECTURE.md)
        return "ocr"
    if name not in BACKENDS:
        raise ValueError(f"unknown vision backend {name!r} (expected auto, {', '.join(BACKENDS)})")
    if name != "ocr" and client is None:
        raise ValueError(f"vision backend {name!r} needs an anthropic client (an API key or a base_url)")
    return name


# evidence: bb5b641 (fuzzed frames (hypothesis): a frame too small to hold a button)
# No screen fits a button in fewer pixels than this; below it OCR and the edge maps have nothing to work on.
MIN_READABLE_SIDE = 32


def _ms(t0: float) -> float:
    """Milliseconds since `t0` (perf_counter), to 0.01 ms."""
    return round((time.perf_counter() - t0) * MS_PER_S, 2)


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# not measured: a unit, not a threshold (docs/knob_debt.md)
MS_PER_S = 1000


class Vision:
    """Screen reader for the agent. Not thread-safe: one Vision per device loop."""

    def __init__(self, cfg: VisionConfig | None = None, client: Any | None = None,
                 retry: RetryPolicy | None = None) -> None:
        self.cfg = cfg or VisionConfig()
        self.backend = resolve_backend(self.cfg.backend, client)
        self.cache = VisionCache(self.cfg.cache_size, self.cfg.cache_max_age_s, self.cfg.cache_max_distance)
        self.memory = TabMemory()
        self.vlm = (
            VlmBackend(client, self.cfg.vlm_model, self.cfg.vlm_max_tokens, self.cfg.vlm_image_max_side, retry)
            if self.backend != "ocr" else None
        )
        # working-space details of the last miss (debugging, bench): of the game alone when it was shown between bars
        self.last_reading: Reading | None = None

    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput:
        t0 = time.perf_counter()
        if image.mode != "RGB":  # files given to `lluma vision` come in any mode (P, LA, I;16, CMYK...)
            image = image.convert("RGB")
        if min(image.size) < MIN_READABLE_SIDE:
            dims = f"{image.width}x{image.height}"
            return VisionOutput(width=image.width, height=image.height, errors=[f"image too small to read ({dims})"])
        key = from_hex(phash) if phash else region_hash(image)  # a Frame's phash is this very hash
        size = image.size
        hit = self.cache.get(key, size)
        if hit is not None:
            return hit.model_copy(update={
                "cached": True,
                "screen_hash": phash or hit.screen_hash,
                "elapsed_ms": _ms(t0),
            })
        read, cacheable = self._read(image)
        out = read.model_copy(update={
            "screen": identify(read),  # of the output as returned: recomputing it from a log gives the same
            "screen_hash": phash or key.tobytes().hex(),
            "elapsed_ms": _ms(t0),
        })
        if cacheable:
            self.cache.put(key, size, out)
        return out

    def _read(self, image: Image.Image) -> tuple[VisionOutput, bool]:
        """The associated reading and whether it may be cached, in the frame's pixels: a game shown between flat
        bars (a letterboxed or pillarboxed frame) is read and associated alone, as the same game filling its frame
        is, and its boxes moved back into the frame."""
        box = content_box(image)
        game = image.crop(box) if box is not None else image
        if min(game.size) < MIN_READABLE_SIDE:
            box, game = None, image
        read, cacheable = self._read_game(game)
        out = associate(read)
        if box is None:
            return out, cacheable
        moved = shifted(out, int(box.x0), int(box.y0))
        return moved.model_copy(update={"width": image.width, "height": image.height}), cacheable

    def _read_game(self, image: Image.Image) -> tuple[VisionOutput, bool]:
        """The reading and whether it may be cached (an OCR stand-in for a failed VLM call may not)."""
        cfg = self.cfg
        work = prepare(image, cfg.ocr_short_side, cfg.ocr_long_side)
        reading = read_frame(work, det_limit=cfg.ocr_det_limit, memory=self.memory)
        self.last_reading = reading
        if self.vlm is None or reading.cinematic in ("loading", "cutscene", "cutscene_paused"):
            return reading.output.model_copy(update={"backend": "ocr"}), True
        result = self.vlm.refine(image, reading, keep_ocr_buttons=self.backend == "hybrid")
        retries = list(result.retries)
        if isinstance(result, OcrFallback):
            log.warning("VLM reading failed (%s); OCR reading used for this frame, not cached", result.reason)
            errors = result.output.errors + ["vlm: OCR reading used instead (not cached)"]
            return result.output.model_copy(update={"backend": "ocr", "errors": errors, "vlm_retries": retries}), False
        return result.output.model_copy(update={"backend": self.backend, "vlm_retries": retries}), True
