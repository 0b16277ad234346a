"""Image facts shared by the agent and the stand-in: header sniffing and the documented token formula.

An image costs one token per 28x28 patch, ceil(w/28) x ceil(h/28), after the API shrinks it to the model's
limits (long edge and tokens, from the registry). That is the provider's published rule, not an estimate.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
from typing import Any

from PIL import Image, UnidentifiedImageError

from lluma_facts.registry import ModelSpec

IMAGE_PATCH_PX = 28  # one token a 28x28 patch (the vision documentation, as the module says)
_MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


def sniff_image(data: bytes) -> tuple[str, int, int] | None:
    """(media_type, width, height) from an image's first bytes, or None if not jpeg/png/gif/webp.

    PIL reads only the header here (no pixel decoding), so a truncated payload is enough."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            media = _MEDIA_TYPES.get(im.format or "")
            return (media, im.width, im.height) if media else None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None


def decode_base64_header(data: str, nbytes: int = 64 * 1024) -> bytes:
    """The first bytes of a base64 payload (enough for any image header; JPEG may need several KB)."""
    chunk = data[: (nbytes // 3) * 4]
    try:
        return base64.b64decode(chunk, validate=False)
    except (binascii.Error, ValueError):
        return b""


def image_block_size(block: dict[str, Any]) -> tuple[int, int] | None:
    """(width, height) of an image block with a base64 source; None when unknown (url/file source)."""
    source = block.get("source") or {}
    if source.get("type") != "base64" or not isinstance(source.get("data"), str):
        return None
    info = sniff_image(decode_base64_header(source["data"]))
    if info is None or not info[1] or not info[2]:
        return None
    return (info[1], info[2])


def image_tokens_for(width: int, height: int) -> int:
    return math.ceil(width / IMAGE_PATCH_PX) * math.ceil(height / IMAGE_PATCH_PX)


def resized_image_size(width: int, height: int, spec: ModelSpec) -> tuple[int, int]:
    """The size the API scales an image to: long edge <= the model's limit, then tokens <= its token limit."""
    if width <= 0 or height <= 0:
        return (0, 0)
    scale = min(1.0, spec.image_max_long_edge / max(width, height))
    w, h = max(1, int(width * scale)), max(1, int(height * scale))
    if image_tokens_for(w, h) <= spec.image_max_tokens:
        return (w, h)
    # Largest long edge that fits the token budget (token count only grows with size: binary search).
    long0 = max(w, h)
    lo, hi = 1, long0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        s = mid / long0
        if image_tokens_for(max(1, int(w * s)), max(1, int(h * s))) <= spec.image_max_tokens:
            lo = mid
        else:
            hi = mid - 1
    s = lo / long0
    return (max(1, int(w * s)), max(1, int(h * s)))


def image_tokens(width: int, height: int, spec: ModelSpec) -> int:
    """ceil(w/28) x ceil(h/28) after the model's resize (1920x1080 -> ~1,560 on Haiku 4.5; 504x896 -> 576)."""
    w, h = resized_image_size(width, height, spec)
    return image_tokens_for(w, h) if w and h else 0
