"""OCR backend: rapidocr-onnxruntime (models ship in the wheel, so it works offline).

The engine is loaded once per process and reused. Frames are downscaled to a working size
first (`prepare`): a 1080x1920 frame is read at 720x1280, which keeps game text readable and
roughly halves detection time. Everything downstream (layout, heuristics) works in that
working space; `Work.to_device` is the one place boxes go back to device pixels.

A line's crop is recognised the same wherever it appears (`recognised`): the lines narrower than the recogniser's
width go in batches at that width, a wider one alone at its own. RapidOCR's own batching padded a batch to its widest
member, so a line's text hung on what else the screen showed (45 of 967 lines of 42 shared screens read otherwise
than alone, mostly their spaces). Being a function of its pixels, a crop read before is not read again.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import cv2
import numpy as np
from PIL import Image

from lluma_vision.config import ocr_threads
from lluma_vision.geometry import Boxed, HasBox, Rect
from lluma_vision.models import Box
from lluma_vision.pixels import kept_on_disk

_ENGINE = None
_ENGINE_KEY: int | None = None
_LOCK = threading.Lock()
Recognised = tuple[str, float, tuple[float, ...]]  # the recogniser's text, its score, each character's score
Chars = list[tuple[str, float]]  # a masked re-read: each character with its score (`recognise`)
V = TypeVar("V")


@dataclass(frozen=True)
class Line(Boxed):
    """One OCR line: its text and its box in working-image pixels (floats)."""

    text: str
    conf: float
    box: Rect
    scores: tuple[float, ...] = ()  # the recogniser's score for each character of `text`; empty when unknown

    @property
    def h(self) -> float:
        return self.box.height

    @property
    def w(self) -> float:
        return self.box.width


@dataclass
class Work:
    """A frame at working scale: RGB pixels plus the factor back to device pixels.

    Two pixel spaces, named apart: `w`/`h` (and every rectangle inside the pipeline) are the working image's;
    `device_width`/`device_height` are the frame's as the phone has it. `to_device` / `from_device` are the only
    crossings."""

    rgb: np.ndarray  # H x W x 3 uint8
    scale: float  # working px = device px * scale
    device_width: int
    device_height: int
    original: np.ndarray | None = None  # the device-size RGB when it is sharper than `rgb` (downscaled frames)

    @property
    def w(self) -> int:
        """The working image's width."""
        return int(self.rgb.shape[1])

    @property
    def h(self) -> int:
        """The working image's height."""
        return int(self.rgb.shape[0])

    def to_device(self, r: HasBox) -> Box:
        """Working-space rectangle -> device-pixel Box, clamped to the frame."""
        x0, y0, x1, y1 = Rect.of(r)
        s = 1.0 / self.scale
        bx0 = min(max(int(round(x0 * s)), 0), self.device_width - 1)
        by0 = min(max(int(round(y0 * s)), 0), self.device_height - 1)
        bx1 = min(max(int(round(x1 * s)), bx0 + 1), self.device_width)
        by1 = min(max(int(round(y1 * s)), by0 + 1), self.device_height)
        return Box(x0=bx0, y0=by0, x1=bx1, y1=by1)

    def from_device(self, r: HasBox) -> Rect:
        """Device-pixel box -> working-space rectangle (unclamped floats)."""
        return Rect.of(r).scale(self.scale)


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# A strip (one side over 2.5 times the other: a cropped bar, a banner) keeps the long-side cap when enlarged
# tried 0.5x and 1.5x on 64 screens (64 read it): readings identical at 0.5x and 1.5x; kept 2.5
STRIP = 2.5
# an enlargement under 1.15x is not worth its time: the recogniser reads text of 0.87 of the reference size as well
# tried 0.5x and 1.5x on 64 screens (64 read it): screens2 flat 0.5x-1.5x, held out screens flat 1x-1.5x (0.5x -9); kept
#   1.15
MIN_UPSCALE = 1.15
# not measured: a limit set above any frame read_lines hands the detector, so it never bites (docs/knob_debt.md)
DET_NO_UPSCALE = 2000  # the detector's own limit, set above any frame it is given (read_lines sizes its input)
# not measured: a definition (a phone's 9:16 frame) (docs/knob_debt.md)
PORTRAIT = 9 / 16  # a phone's frame: det_limit is the long side of a 9:16 frame
# One or two letters read off a drawing: kept only when read at 0.8 or more and wider than 0.9 of their height (a
# horseshoe read as "C", a ring as "O": the first OCR reading's misreads on the simulator's hub, 79c57df)
# tried 0.5x and 1.5x on 64 screens (61 read it): screens2 flat 1x only (0.5x -2, 1.5x -86), held out screens flat
#   0.5x-1x (1.5x -3); kept 0.8
MARK_SURE = 0.8
# tried 0.5x and 1.5x on 64 screens (29 read it): screens2 flat 1x-1.5x (0.5x +2), held out screens flat 1x-1.5x (0.5x
#   -1); 0.5x best on screens2, held out -1; kept 0.9
RING_ASPECT = 0.9


def prepare(image: Image.Image, short_side: int = 720, long_side: int = 1280, max_upscale: float = 2.5) -> Work:
    """Scale to the reference size: short side about `short_side` (long side at most `long_side` when
    shrinking), so layout and icon sizes read the same at 420 and 1440 pixels wide.

    Big frames are downscaled (faster, still readable); small captures (short side under about
    `short_side`) are upscaled up to `max_upscale`, whatever their height, because the recogniser
    misreads text under ~15 px high. Strips (one side over 2.5x the other) keep the long-side cap.
    """
    img = image if image.mode == "RGB" else image.convert("RGB")
    w, h = img.size
    scale = min(short_side / min(w, h), long_side / max(w, h))
    if short_side / min(w, h) > 1.0 and max(w, h) <= STRIP * min(w, h):
        scale = short_side / min(w, h)
    if scale > 1.0:
        scale = min(scale, max_upscale) if scale >= MIN_UPSCALE else 1.0
    if scale != 1.0:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        img = img.resize(size, Image.Resampling.BILINEAR if scale < 1.0 else Image.Resampling.BICUBIC)
    original = np.asarray(image if image.mode == "RGB" else image.convert("RGB")) if scale < 1.0 else None
    return Work(rgb=np.asarray(img), scale=scale, device_width=w, device_height=h, original=original)


def get_engine(threads: int = 0) -> Any:
    """The process-wide RapidOCR instance (loading takes ~0.5 s, so it is done once)."""
    global _ENGINE, _ENGINE_KEY
    key = threads or ocr_threads()  # LLUMA_OCR_THREADS (lluma_vision/config.py)
    with _LOCK:
        if _ENGINE is None or _ENGINE_KEY != key:
            from rapidocr_onnxruntime import RapidOCR  # heavy import, only when OCR is used

            # limit_type "max" with a large limit: the detector never upscales what read_lines hands it
            kwargs: dict[str, Any] = {"use_cls": False, "det_limit_type": "max", "det_limit_side_len": DET_NO_UPSCALE}
            if key > 0:
                kwargs["intra_op_num_threads"] = key
            _ENGINE = RapidOCR(**kwargs)
            _ENGINE_KEY = key
        return _ENGINE


# a lone capital run into a capitalised word at a line's start: an icon read as a letter ("MGuts" is a flame before
# "Guts", "CGoal" a badge before "Goal"); an acronym runs on in capitals ("HTMLParser") and keeps its letters, and
# "A" and "I" are words of their own ("IThink", "ARace": a space the recogniser dropped)
ICON_INITIAL = re.compile(r"^[B-HJ-Z](?=[A-Z][a-z]{2})")

_USEFUL = re.compile(r"[A-Za-z0-9]")


def _shape_not_text(text: str, conf: float, w: float, h: float) -> bool:
    """One or two letters read off a drawing (a horseshoe as "C", a ring as "O") rather than a label."""
    core = re.sub(r"[^A-Za-z0-9]", "", text)
    if len(core) > 2:
        return False
    return conf < MARK_SURE or _letter_shaped(core, w, h)


def _letter_shaped(core: str, w: float, h: float) -> bool:
    """Letters in a box taller than wide: a ring or a hook's shape, whatever the recogniser's confidence."""
    return core.isalpha() and h > RING_ASPECT * w


def _one_spaced(raw: str, scores: list[float]) -> tuple[str, tuple[float, ...]]:
    """The text with its spaces made single and trimmed, each character with its score (when one per character)."""
    if len(scores) != len(raw):
        return " ".join(raw.split()), ()
    out: list[tuple[str, float]] = []
    for c, p in zip(raw, scores, strict=True):
        if c.isspace() and (not out or out[-1][0] == " "):
            continue
        out.append((" " if c.isspace() else c, p))
    while out and out[-1][0] == " ":
        out.pop()
    return "".join(c for c, _ in out), tuple(p for _, p in out)


def read_lines(work: Work, det_limit: int = 960, min_conf: float = 0.5, threads: int = 0,
               doubtful: list[Line] | None = None) -> list[Line]:
    """OCR a frame: text boxes detected on the working image, each line recognised from the sharper
    original (same cost - the recogniser rescales every crop to 48 px high - but small text keeps its
    spaces: "Win a race in Career", not "WinaraceinCareer"). Lines without a Latin letter or digit
    (icons misread as glyphs) and letter-like shapes are dropped; a two-letter word dropped only for the
    recogniser's doubt goes to `doubtful` when given (a plate fitted around it can still show it is a label).

    Uses RapidOCR's stage methods (text_det / get_crop_img_list / text_rec, rapidocr-onnxruntime 1.4).
    """
    engine = get_engine(threads)
    small = np.ascontiguousarray(work.rgb[:, :, ::-1])  # the models take BGR
    # RapidOCR 1.4 ignores det_limit_side_len with limit_type "max" (it picks 960/1500/2000 by size),
    # so the detector's input size is set here: det_limit is the long side of a 9:16 frame, and a taller
    # frame keeps the same short side (text as big as on a phone-shaped frame)
    det_scale = min(1.0, max(det_limit / max(small.shape[:2]), det_limit * PORTRAIT / min(small.shape[:2])))
    det_img = small if det_scale == 1.0 else cv2.resize(small, None, fx=det_scale, fy=det_scale,
                                                         interpolation=cv2.INTER_AREA)
    with _LOCK:  # one frame at a time through the shared sessions
        key = digest(det_img, "det|")
        found = _DETECTED.get(key)
        if found is None:
            det, _ = engine.text_det(det_img)
            found = _DETECTED.put(key, [] if det is None else np.asarray(det, dtype=np.float32).tolist())
        if not found:
            return []
        detected = np.array(found, dtype=np.float32)  # float32 as the detector gave them: exact through the JSON
        boxes = [(b / det_scale).astype(np.float32) for b in engine.sorted_boxes(detected)]
        if work.original is not None:
            src = np.ascontiguousarray(work.original[:, :, ::-1])
            crops = engine.get_crop_img_list(src, [(b / work.scale).astype(np.float32) for b in boxes])
        else:
            crops = engine.get_crop_img_list(small, boxes)
        read = recognised(engine, crops)
    lines: list[Line] = []
    for pts, (raw, conf, char_scores) in zip(boxes, read, strict=True):
        text, scores = _one_spaced(raw, list(char_scores))
        if float(conf) < min_conf or not _USEFUL.search(text):
            continue
        x0, x1 = max(0.0, float(pts[:, 0].min())), min(float(work.w), float(pts[:, 0].max()))
        y0, y1 = max(0.0, float(pts[:, 1].min())), min(float(work.h), float(pts[:, 1].max()))
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        line = Line(text=text, conf=float(conf), box=Rect(x0, y0, x1, y1), scores=scores)
        if _shape_not_text(text, float(conf), x1 - x0, y1 - y0):
            if doubtful is not None and re.fullmatch(r"[A-Za-z]{2}", text) and not _letter_shaped(text, line.w, line.h):
                doubtful.append(line)
            continue
        lines.append(line)
    lines.sort(key=lambda ln: (ln.y0, ln.x0))
    return lines


# evidence: measured on the simulator's hard demo (18 turns at 1080x2400): 965 crops, 668 of them read before; a
#   78-turn career's screens hold a few hundred different lines. An entry is a text and its scores (about 2 KB for
#   50 characters): tens of MB at most.
READS_KEPT = 8192


class Kept(Generic[V]):
    """Reads by their crop's digest (`digest`): the last READS_KEPT used, the least recently used let go first; and,
    when LLUMA_OCR_CACHE names a folder, what any process sharing it read (`kept_on_disk`; `kind` names the
    entries there, `decode` turns an entry's JSON back into a read)."""

    def __init__(self, kind: str, decode: Callable[[Any], V]) -> None:
        self.kind, self.decode = kind, decode
        self._reads: OrderedDict[bytes, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._reads)

    def get(self, key: bytes) -> V | None:
        read = self._reads.get(key)
        if read is not None:
            self._reads.move_to_end(key)
            return read
        found = kept_on_disk.load(self.kind, key)
        if found is None:
            return None
        try:
            return self._keep(key, self.decode(found))
        except (TypeError, ValueError, IndexError):
            return None  # an entry of another shape: read again

    def put(self, key: bytes, read: V) -> V:
        kept_on_disk.store(self.kind, key, read)
        return self._keep(key, read)

    def _keep(self, key: bytes, read: V) -> V:
        self._reads[key] = read
        while len(self._reads) > READS_KEPT:
            self._reads.popitem(last=False)
        return read

    def clear(self) -> None:
        self._reads.clear()


def _recognised(v: Any) -> Recognised:
    text, conf, scores = v
    return str(text), float(conf), tuple(float(p) for p in scores)


def _chars(v: Any) -> Chars:
    return [(str(c), float(p)) for c, p in v]


def _boxes(v: Any) -> list[list[list[float]]]:
    return [[[float(x), float(y)] for x, y in box] for box in v]


# the version of the OCR's models in the kinds: a folder kept across an upgrade reads nothing of the old models
_READS: Kept[Recognised] = Kept("rec-1.4", _recognised)  # what the recogniser read (`recognised`)
_REREADS: Kept[Chars] = Kept("reread-1.4", _chars)  # a masked re-read (`recognise`: the mask and width in the digest)
_DETECTED: Kept[list[list[list[float]]]] = Kept("det-1.4", _boxes)  # a working image's text boxes (`read_lines`)


def digest(crop: np.ndarray, how: str = "") -> bytes:
    """A crop's pixels (and how it is read) as a key of the kept reads."""
    return hashlib.blake2b(f"{how}{crop.shape}".encode() + crop.tobytes(), digest_size=16).digest()


def recognised(engine: Any, crops: list[np.ndarray]) -> list[Recognised]:
    """Each BGR crop's text, score and character scores, the same whatever crops come with it: the ones within the
    recogniser's width are batched at that width (a batch of one gives the same figures: 967/967 crops, scores to
    1e-5), a wider one goes alone at its own width; crops read before (by their pixels) are not read again.
    Call under _LOCK."""
    keys = [digest(c) for c in crops]
    reads = {k: r for k in keys if (r := _READS.get(k)) is not None}
    todo = {k: c for k, c in zip(keys, crops, strict=True) if k not in reads}
    _, rec_h, rec_w = engine.text_rec.rec_image_shape  # 48 x 320 in rapidocr-onnxruntime 1.4
    narrow = [k for k, c in todo.items() if c.shape[1] * rec_h <= rec_w * c.shape[0]]
    groups = ([narrow] if narrow else []) + [[k] for k in todo if k not in narrow]
    for group in groups:
        out, _ = engine.text_rec([todo[k] for k in group], return_word_box=True)  # the info holds each char's score
        for k, (raw, conf, info) in zip(group, out, strict=True):
            reads[k] = _READS.put(k, (str(raw), float(conf), tuple(float(p) for p in info[4])))
    return [reads[k] for k in keys]


def forget_reads() -> None:
    """Let go of every crop read or re-read and every frame detected before: the next frame is read whole
    (bench/vision's cold time; a folder named by LLUMA_OCR_CACHE still serves)."""
    with _LOCK:
        _READS.clear()
        _REREADS.clear()
        _DETECTED.clear()


def recognise(crops: list[np.ndarray], allowed: str | None = None,
              min_ratio: float | None = None) -> list[list[tuple[str, float]]]:
    """Recognise RGB crops character by character with the recogniser's own score for each; with `allowed`, the
    other characters are masked before the CTC decode (a number misread as letters becomes the digits it most
    resembles). A crop is padded to the recogniser's width (320 px at 48 high) unless `min_ratio` (width over
    height) allows it narrower: the model's time goes with that width."""
    engine = get_engine()
    rec = engine.text_rec
    chars = rec.postprocess_op.character
    keep = np.array([i for i, c in enumerate(chars) if i == 0 or allowed is None or c in allowed])  # 0: CTC blank
    out: list[Chars] = []
    with _LOCK:
        for crop in crops:
            key = digest(crop, f"{allowed}|{min_ratio}|")  # one crop at a time: its read depends on it alone
            kept = _REREADS.get(key)
            if kept is not None:
                out.append(list(kept))  # the caller's own list
                continue
            bgr = np.ascontiguousarray(crop[:, :, ::-1])
            h, w = bgr.shape[:2]
            _, rec_h, rec_w = rec.rec_image_shape
            ratio = max(rec_w / rec_h if min_ratio is None else min_ratio, w / h)
            batch = rec.resize_norm_img(bgr, ratio)[np.newaxis].astype(np.float32)
            preds = rec.session(batch)[0][0][:, keep]
            idx, prob = preds.argmax(axis=1), preds.max(axis=1)
            read: list[tuple[str, float]] = []
            last = -1
            for i, p in zip(idx, prob, strict=True):
                if i != last and i != 0:
                    read.append((chars[keep[i]], float(p)))
                last = i
            out.append(list(_REREADS.put(key, read)))
    return out


# evidence: 7d24b09 (abbreviation re-read: chosen on screens2 79 -> 80/113, verified on screens 24/26)
NUMBER_CHARS = "0123456789/%+,"  # what a number printed in the game is written with
DIGITS_RATIO = 3.0  # a few digits fit in 3 heights; the padding past them only cost time and made icons read as "0"


def read_digits(crops: list[np.ndarray]) -> list[tuple[str, float]]:
    """Each crop read with only digits and `/ % + ,` allowed: the text and its mean score."""
    return [("".join(c for c, _ in r), float(np.mean([p for _, p in r])) if r else 0.0)
            for r in recognise(crops, NUMBER_CHARS, DIGITS_RATIO)]
