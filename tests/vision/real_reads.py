"""Each labelled real screenshot read once, cold, and shared by the tests that score it.

Cold: a fresh tab memory and no frame cache, so a reading never depends on the screen read before it (what
`lluma vision DIR --json` gives for each file). The recall floors, the facts floors and screen identity read the
same files at 1x; reading them once each saves several minutes of a full suite. Callers get a copy.

Each reading is kept with its blocks (what `--explain` reports from), so test_explain shares it too.

Once: per session in memory, and on disk under .pytest_cache/lluma-reads/ keyed by the reading code's hash (every
source file of lluma_vision and lluma_facts, the versions of the libraries the OCR runs on, the default
VisionConfig) and the file's bytes: the suite's workers share one reading of each file, and a run after a change
outside the reading reads none again. A change to the reading's code is a new key: everything is read afresh.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

from lluma_sim.labelled import buttons as lab
from lluma_vision.config import VisionConfig
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.layout import Block
from lluma_vision.pixels.menu import TabMemory

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / ".pytest_cache" / "lluma-reads"
READING_CODE = ("lluma_vision", "lluma_facts")
LIBRARIES = ("rapidocr-onnxruntime", "onnxruntime", "opencv-python", "numpy", "pillow", "scipy", "rapidfuzz")

Read = tuple[VisionOutput, list[Block]]
_READ: dict[tuple[str, str], Read] = {}
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


def _read(folder: Path, name: str) -> Read:
    if not _VISION:
        _VISION.append(Vision(VisionConfig(backend="ocr", cache_size=0)))
    vision = _VISION[0]
    vision.memory = TabMemory()
    out = vision.analyze(lab.image(folder, name))
    assert vision.last_reading is not None
    return out, vision.last_reading.blocks


def cache_path(folder: Path, name: str) -> Path:
    """Where `folder/name`'s reading is kept: under the reading code's key, by the file's name and bytes (its lock
    file beside it, `.lock` for `.pickle`)."""
    digest = hashlib.sha256(name.encode() + b"\0" + (folder / name).read_bytes()).hexdigest()[:24]
    return CACHE / code_key() / f"{digest}.pickle"


def _load_or_read(folder: Path, name: str, wait: bool = True) -> bool:
    """Fill _READ for `folder/name` from disk, or read it and keep it there. With `wait` False, a file another
    worker is reading now is left alone (False): the caller reads another and comes back to it."""
    key = (str(folder.resolve()), name)
    if key in _READ:
        return True
    path = cache_path(folder, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lock:  # another worker reading the same file waits for it
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if path.is_file():
            _READ[key] = pickle.loads(path.read_bytes())
        else:
            _READ[key] = _read(folder, name)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(_READ[key]))
            os.replace(tmp, path)
    return True


def warm(files: Iterable[tuple[Path, str]]) -> None:
    """Make sure every file is read, skipping past the ones another worker is reading now (then waiting for those):
    two workers warming the same files split them instead of reading in lockstep, one always waiting on the other."""
    later = [(folder, name) for folder, name in files if not _load_or_read(folder, name, wait=False)]
    for folder, name in later:
        _load_or_read(folder, name)


def cold_read_blocks(folder: Path, name: str) -> Read:
    """`folder/name` as the offline backend reads it cold, with its blocks (once per session, and once per reading
    code on disk). The pickle is the suite's own file under .pytest_cache, written by this function only."""
    _load_or_read(folder, name)
    return pickle.loads(pickle.dumps(_READ[(str(folder.resolve()), name)]))  # callers get a copy


def cold_read(folder: Path, name: str) -> VisionOutput:
    """`folder/name` as the offline backend reads it cold (once per session, and once per reading code on disk)."""
    return cold_read_blocks(folder, name)[0]
