"""Fuzzing vision (hypothesis, bounded): random, tiny, odd-mode and corrupt images never raise out of the
pipeline; a corrupt file given to `lluma vision` is a clear error, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)

LLUMA = Path(sys.executable).parent / "lluma"


@pytest.fixture(scope="module")
def vision() -> Vision:
    return Vision(VisionConfig(backend="ocr"))


@st.composite
def images(draw: st.DrawFn) -> Image.Image:
    w, h = draw(st.integers(1, 400)), draw(st.integers(1, 700))
    kind = draw(st.sampled_from(["noise", "solid", "stripes", "blocks"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "noise":
        arr = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    elif kind == "solid":
        arr = np.full((h, w, 3), rng.integers(0, 256, 3), dtype=np.uint8)
    elif kind == "stripes":
        arr = np.zeros((h, w, 3), dtype=np.uint8)
        arr[:: max(1, h // 9)] = 255
        arr[:, :: max(1, w // 7)] = (20, 200, 90)
    else:
        arr = np.full((h, w, 3), 240, dtype=np.uint8)
        for _ in range(draw(st.integers(0, 8))):
            x0, y0 = rng.integers(0, w), rng.integers(0, h)
            arr[y0 : y0 + rng.integers(1, h + 1), x0 : x0 + rng.integers(1, w + 1)] = rng.integers(0, 256, 3)
    image = Image.fromarray(arr, "RGB")
    return image.convert(draw(st.sampled_from(["RGB", "RGBA", "L", "P", "1", "I", "F", "LA", "CMYK"])))


@settings(max_examples=40, deadline=None)
@given(image=images())
def test_random_images_never_raise(vision: Vision, image: Image.Image) -> None:
    out = vision.analyze(image)
    assert isinstance(out, VisionOutput)
    for button in out.buttons:  # whatever it found lies on the image
        b = button.bounds
        assert 0 <= b.x0 <= b.x1 <= image.width and 0 <= b.y0 <= b.y1 <= image.height


CORRUPT = [b"", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, b"GIF89a" + b"\xff" * 30, b"not an image"]


@pytest.mark.parametrize("payload", CORRUPT)
def test_a_corrupt_file_is_a_clear_error(tmp_path: Path, payload: bytes) -> None:
    path = tmp_path / "broken.png"
    path.write_bytes(payload)
    done = subprocess.run([str(LLUMA), "vision", str(path), "--backend", "ocr", "--json"], capture_output=True,
                          timeout=120)
    assert b"Traceback" not in done.stderr, done.stderr.decode()[-1500:]
    assert b"broken.png" in done.stdout + done.stderr
