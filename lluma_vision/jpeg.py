"""Screenshots as the Messages API takes them: downscaled, JPEG, base64 (the agent's turn and the VLM call)."""

from __future__ import annotations

import base64
import io

from PIL import Image


def jpeg_base64(
    image: Image.Image, max_side: int, quality: int = 80, resample: Image.Resampling = Image.Resampling.BILINEAR
) -> tuple[str, tuple[int, int]]:
    """The image shrunk so its long side is at most `max_side` (fewer pixels, fewer tokens; the model
    resizes anyway), as base64 JPEG; returns (data, (width, height) of the encoded image)."""
    img = image.convert("RGB")
    scale = max_side / max(img.size)
    if scale < 1:
        img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))), resample)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return base64.b64encode(buf.getvalue()).decode("ascii"), img.size
