"""Each labelled real screenshot read once per test session, cold, and shared by the tests that score it.

Cold: a fresh tab memory and no frame cache, so a reading never depends on the screen read before it (what
`lluma vision DIR --json` gives for each file). The recall floors, the facts floors and screen identity read the
same files at 1x; reading them once each saves several minutes of a full suite. Callers get a copy.
"""

from __future__ import annotations

from pathlib import Path

from lluma_sim.labelled import buttons as lab
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.menu import TabMemory

_READ: dict[tuple[str, str], VisionOutput] = {}
_VISION: list[Vision] = []


def cold_read(folder: Path, name: str) -> VisionOutput:
    """`folder/name` as the offline backend reads it cold (once per session)."""
    key = (str(folder.resolve()), name)
    if key not in _READ:
        if not _VISION:
            _VISION.append(Vision(VisionConfig(backend="ocr", cache_size=0)))
        vision = _VISION[0]
        vision.memory = TabMemory()
        _READ[key] = vision.analyze(lab.image(folder, name))
    return _READ[key].model_copy(deep=True)
