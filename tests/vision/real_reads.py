"""Each labelled real screenshot read once, cold, and shared by the tests that score it.

Cold: a fresh tab memory and no frame cache, so a reading never depends on the screen read before it (what
`lluma vision DIR --json` gives for each file). The recall floors, the facts floors and screen identity read the
same files at 1x; reading them once each saves several minutes of a full suite. Callers get a copy.

Once: per session in memory, and on disk under .pytest_cache/lluma-reads/ keyed by the reading code's hash (every
source file of lluma_vision and lluma_facts, the versions of the libraries the OCR runs on, the default
VisionConfig) and the file's bytes: the suite's workers share one reading of each file, and a run after a change
outside the reading reads none again. A change to the reading's code is a new key: everything is read afresh.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from functools import cache
from importlib import metadata
from pathlib import Path

from lluma_sim.labelled import buttons as lab
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.menu import TabMemory

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".pytest_cache" / "lluma-reads"
READING_CODE = ("lluma_vision", "lluma_facts")
LIBRARIES = ("rapidocr-onnxruntime", "onnxruntime", "opencv-python", "numpy", "pillow", "scipy", "rapidfuzz")

_READ: dict[tuple[str, str], VisionOutput] = {}
_VISION: list[Vision] = []


@cache
def code_key() -> str:
    """A hash of everything a cold reading depends on, but the image."""
    h = hashlib.sha256()
    for package in READING_CODE:
        for path in sorted((REPO / package).rglob("*.py")):
            h.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in LIBRARIES:
        try:
            h.update(f"{name}=={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name} missing\0".encode())
    h.update(VisionConfig(backend="ocr", cache_size=0).model_dump_json().encode())
    return h.hexdigest()[:16]


def _read(folder: Path, name: str) -> VisionOutput:
    if not _VISION:
        _VISION.append(Vision(VisionConfig(backend="ocr", cache_size=0)))
    vision = _VISION[0]
    vision.memory = TabMemory()
    return vision.analyze(lab.image(folder, name))


def cold_read(folder: Path, name: str) -> VisionOutput:
    """`folder/name` as the offline backend reads it cold (once per session, and once per reading code on disk)."""
    key = (str(folder.resolve()), name)
    if key not in _READ:
        digest = hashlib.sha256(name.encode() + b"\0" + (folder / name).read_bytes()).hexdigest()[:24]
        path = CACHE / code_key() / f"{digest}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:  # another worker reading the same file waits for it
            fcntl.flock(lock, fcntl.LOCK_EX)
            if path.is_file():
                _READ[key] = VisionOutput.model_validate_json(path.read_bytes())
            else:
                _READ[key] = _read(folder, name)
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                tmp.write_text(_READ[key].model_dump_json(), encoding="utf-8")
                os.replace(tmp, path)
    return _READ[key].model_copy(deep=True)
