"""VLM backend: Claude names buttons, hints and icons; OCR ids ground the boxes (set-of-marks on text).

Contract (the Messages API stand-in in lluma_sim answers it, so keep it exact):
- request: `output_config={"format": {"type": "json_schema", "schema": VLM_SCHEMA}}`; one user message
  with the screenshot (downscaled JPEG) and a text holding
  `<ocr>\\n0\\tSkip\\t[x0,y0,x1,y1]\\n...\\n</ocr>` (id TAB text TAB bounds in the sent image's pixels);
- response text: JSON `{"buttons": [{"ocr_ids": [int], "name", "meta", "region"}],
  "icons": [{"name", "box": [fx0, fy0, fx1, fy1] (fractions of the image), "meta", "region"}]}`.
A text button's box is the union of its OCR lines' boxes, never a coordinate the model guessed.
Invalid output (bad JSON, unknown ids, boxes out of range) is retried once; API failures are retried
with the agent's policy (lluma_facts.retry). When neither gives a usable answer the result is an
`OcrFallback` (typed, never cached as a VLM reading) and the error is recorded in `VisionOutput.errors`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from PIL import Image
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lluma_facts import model_spec
from lluma_facts.retry import Attempt, RetryPolicy, Tried, call_with_retries
from lluma_vision.buttons.output import block_button, block_text, unique_names
from lluma_vision.geometry import Rect
from lluma_vision.jpeg import jpeg_base64
from lluma_vision.models import Box, Button, Gauge, Region, TextLine, VisionOutput
from lluma_vision.pipeline.reading import Reading
from lluma_vision.pixels.layout import clean_name
from lluma_vision.pixels.ocr import Work

SYSTEM_PROMPT = """You read screenshots of a mobile game (Uma Musume Pretty Derby) for an agent that taps buttons.
You get the screenshot and the OCR lines found on it, each with an id, its text and its box.
List what a player can tap:
- buttons: tappable elements that carry text. Give the ids of the OCR lines that form the label (all lines of a
  multi-line label), a short name (the label as shown; fix obvious OCR misreads), meta (hints shown on or next to it,
  e.g. "NEW", "10% OFF", "disabled", "selected"; "" when none) and the region.
- icons: tappable elements without readable text (menu, info "i", pin, close, +/-, arrows, skip). Give a short
  descriptive name, the box as fractions of the image width/height [x0, y0, x1, y1], meta and region.
- gauges: horizontal bars with a filled part and an empty part (energy, friendship; often no digits). Give the
  caption printed beside or over the bar as label ("Energy"; "gauge" when none), fill as the filled share 0..1,
  and the bar's box as fractions of the image width/height.
Do not list dialogue, stats, titles or other plain text. Use only ids from the <ocr> block.
Regions: top, middle, bottom (thirds of the screen), dialog (inside a pop-up), menu (the tab bar),
left, right (side panels)."""


class VlmButton(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ocr_ids: list[int]
    name: str
    meta: str = ""
    region: Region


class VlmIcon(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    box: list[float]
    meta: str = ""
    region: Region


class VlmGauge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    fill: float
    box: list[float]


class VlmResponse(BaseModel):
    """The VLM's answer; VLM_SCHEMA, the structured-output schema, is derived from it."""

    model_config = ConfigDict(extra="forbid")

    buttons: list[VlmButton]
    icons: list[VlmIcon]
    gauges: list[VlmGauge] = Field(default_factory=list)


_KEY_ORDER = {k: i for i, k in enumerate(("type", "properties", "items", "enum", "required", "additionalProperties"))}


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`model.model_json_schema()` as structured outputs take it: $refs inlined, every property required
    (`meta` has a default for parsing, but the model must always say it), no titles, defaults or docs."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {k: walk(v) for k, v in node.items() if k not in ("title", "default", "description")}
        if "properties" in node:  # property names, not schema keywords: keep them all
            out["properties"] = {name: walk(v) for name, v in node["properties"].items()}
            out["required"] = list(node["properties"])
        # "type" first, as a person writes it (and as the request has always been sent: same bytes, same tokens)
        return dict(sorted(out.items(), key=lambda kv: _KEY_ORDER.get(kv[0], len(_KEY_ORDER))))

    walked: dict[str, Any] = walk(schema)
    return walked


VLM_SCHEMA: dict[str, Any] = strict_schema(VlmResponse)


# evidence: each knob on its own line (a bench/knobs.py sweep, or docs/knob_debt.md)
# The OCR lines of one button: a label spans at most 4 line heights down and 2.5 across between words (a two-line
# button label; a wider gap is two buttons' words joined)
# not measured: the claude/hybrid backends only; the labelled screens are scored with the OCR backend, and the
#   stand-in's answers are not Claude's (docs/knob_debt.md)
LABEL_GAP = 2.5
# confidence of what the VLM grounded: its OCR lines' least, weighted 0.95 (under OCR's own sure buttons, over its
# heuristic ones); an icon the VLM placed by fractions gets 0.8 (no OCR box under it)
# not measured: the claude/hybrid backends only; the labelled screens are scored with the OCR backend, and the
#   stand-in's answers are not Claude's (docs/knob_debt.md)
GROUNDED_WEIGHT = 0.95
# not measured: the claude/hybrid backends only; the labelled screens are scored with the OCR backend, and the
#   stand-in's answers are not Claude's (docs/knob_debt.md)
ICON_CONFIDENCE = 0.8
# not measured: the claude/hybrid backends only; the labelled screens are scored with the OCR backend, and the
#   stand-in's answers are not Claude's (docs/knob_debt.md)
ERROR_CHARS = 200  # an API error's message is cut to this in the reading's errors (the log line stays readable)


class VlmError(ValueError):
    """The model's output broke the contract (the message says how)."""


def ocr_block(reading: Reading, sent_size: tuple[int, int]) -> str:
    """The `<ocr>` block: id TAB text TAB [x0,y0,x1,y1] in the sent image's pixels."""
    work = reading.work
    fx = sent_size[0] / work.device_width / work.scale  # working px -> sent px
    fy = sent_size[1] / work.device_height / work.scale
    rows = []
    for i, ln in enumerate(reading.lines):
        text = ln.text.replace("\t", " ")
        box = [round(ln.x0 * fx), round(ln.y0 * fy), round(ln.x1 * fx), round(ln.y1 * fy)]
        rows.append(f"{i}\t{text}\t[{box[0]},{box[1]},{box[2]},{box[3]}]")
    return "<ocr>\n" + "\n".join(rows) + ("\n" if rows else "") + "</ocr>"


def build_request(reading: Reading, image: Image.Image, model: str, max_tokens: int, max_side: int) -> dict[str, Any]:
    """Keyword arguments for `client.messages.create` (static system prompt first, so it could be cached)."""
    data, sent = jpeg_base64(image, max_side)
    text = (
        f"Screenshot {sent[0]}x{sent[1]} px. OCR lines (id, text, box in this image's pixels):\n"
        f"{ocr_block(reading, sent)}\nReturn the buttons and icons as JSON."
    )
    request: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "system": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": data}},
            {"type": "text", "text": text},
        ]}],
        "output_config": {"format": {"type": "json_schema", "schema": VLM_SCHEMA}},
    }
    spec = model_spec(model)
    if spec.thinking == "adaptive":
        # Adaptive models think by default, into max_tokens: reading a screen into JSON needs little or none.
        request["output_config"]["effort"] = "low"
        if spec.disable_thinking_max_effort is not None:  # "disabled" is accepted only up to that effort
            request["thinking"] = {"type": "disabled"}
    return request


def parse_response(message: Any, n_lines: int) -> VlmResponse:
    """Validate a Messages API reply against the contract; raises VlmError saying what is wrong."""
    if getattr(message, "stop_reason", None) == "max_tokens":
        raise VlmError("output cut off at max_tokens")
    texts = [getattr(b, "text", "") for b in getattr(message, "content", []) if getattr(b, "type", "") == "text"]
    raw = "".join(texts).strip()
    if not raw:
        raise VlmError("no text in the reply")
    try:
        resp = VlmResponse.model_validate(json.loads(raw))
    except json.JSONDecodeError as exc:
        raise VlmError(f"not JSON ({exc.msg} at {exc.pos})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise VlmError(f"schema mismatch at {where}: {first['msg']}") from None
    for k, b in enumerate(resp.buttons):
        bad = [i for i in b.ocr_ids if not 0 <= i < n_lines]
        if not b.ocr_ids or bad:
            raise VlmError(f"buttons[{k}] ({b.name!r}) has unknown ocr ids {bad or '[]'} (valid 0..{n_lines - 1})")
        if not b.name.strip():
            raise VlmError(f"buttons[{k}] has an empty name")
    for k, ic in enumerate(resp.icons):
        if len(ic.box) != 4 or not all(0.0 <= v <= 1.0 for v in ic.box):
            raise VlmError(f"icons[{k}] ({ic.name!r}) box {ic.box} is not 4 fractions in 0..1")
        if ic.box[2] <= ic.box[0] or ic.box[3] <= ic.box[1]:
            raise VlmError(f"icons[{k}] ({ic.name!r}) box {ic.box} is empty or inverted")
        if not ic.name.strip():
            raise VlmError(f"icons[{k}] has an empty name")
    return resp


def check_grounding(resp: VlmResponse, reading: Reading) -> None:
    """The OCR lines of one button must form one label (stacked lines, or neighbours on a row): a union of
    far-apart lines would put the tap between two buttons."""
    for k, b in enumerate(resp.buttons):
        lines = [reading.lines[i] for i in sorted(set(b.ocr_ids))]
        if len(lines) < 2:
            continue
        h = max(ln.h for ln in lines)
        span_y = max(ln.y1 for ln in lines) - min(ln.y0 for ln in lines)
        by_x = sorted(lines, key=lambda ln: ln.x0)
        reach, gap_x = by_x[0].x1, 0.0
        for ln in by_x[1:]:
            gap_x, reach = max(gap_x, ln.x0 - reach), max(reach, ln.x1)
        if span_y > 4 * h or gap_x > LABEL_GAP * h:
            raise VlmError(f"buttons[{k}] ({b.name!r}) joins OCR lines {b.ocr_ids} that are not one label")


def _fraction_box(work: Work, box: list[float]) -> Box:
    """A box given as fractions of the image, in device pixels (never empty)."""
    fx0, fy0, fx1, fy1 = box
    w, h = work.device_width, work.device_height
    bx0, by0 = min(int(fx0 * w), w - 1), min(int(fy0 * h), h - 1)
    return Box(x0=bx0, y0=by0, x1=max(bx0 + 1, round(fx1 * w)), y1=max(by0 + 1, round(fy1 * h)))


def merge(reading: Reading, resp: VlmResponse, keep_ocr_buttons: bool) -> VisionOutput:
    """Buttons from the VLM grounded on OCR boxes, icons from its fractions; the rest from the OCR reading.

    keep_ocr_buttons (hybrid): OCR-heuristic buttons the VLM did not mention stay, ranked below the VLM's.
    """
    work, out = reading.work, reading.output
    index = {id(ln): i for i, ln in enumerate(reading.lines)}
    used: set[int] = set()
    buttons: list[Button] = []
    for vb in resp.buttons:
        ids = sorted(set(vb.ocr_ids))
        lines = [reading.lines[i] for i in ids]
        x0, y0 = min(ln.x0 for ln in lines), min(ln.y0 for ln in lines)
        x1, y1 = max(ln.x1 for ln in lines), max(ln.y1 for ln in lines)
        name = clean_name(vb.name) or clean_name(" ".join(ln.text for ln in lines))
        conf = GROUNDED_WEIGHT * min(ln.conf for ln in lines)
        buttons.append(Button(name=name, meta=vb.meta.strip(), region=vb.region,
                              bounds=work.to_device(Rect(x0, y0, x1, y1)), source="hybrid", confidence=round(conf, 3)))
        used.update(ids)
    for ic in resp.icons:
        box = _fraction_box(work, ic.box)
        buttons.append(Button(name=clean_name(ic.name), meta=ic.meta.strip(), region=ic.region, bounds=box,
                              source="vlm", confidence=ICON_CONFIDENCE))
    # a bar measured from pixels beats the model's estimate; the model adds the bars the pixels missed
    gauges = list(out.gauges)
    known = {g.label.casefold() for g in gauges}
    for vg in resp.gauges:
        if vg.label.casefold() in known or len(vg.box) != 4 or not 0.0 <= vg.fill <= 1.0:
            continue
        fx0, fy0, fx1, fy1 = vg.box
        if not 0.0 <= fx0 < fx1 <= 1.0 or not 0.0 <= fy0 < fy1 <= 1.0:
            continue
        box = _fraction_box(work, vg.box)
        gauges.append(Gauge(label=clean_name(vg.label) or "gauge", fill=round(vg.fill, 3), bounds=box))
    texts: list[TextLine] = []
    for b in reading.blocks:
        if {index[id(ln)] for ln in b.lines if id(ln) in index} & used:
            continue
        if b.is_button and keep_ocr_buttons:
            buttons.append(block_button(work, reading.view, b, weight=0.5))
        elif (t := block_text(work, b, reading.value_lines)) is not None:
            texts.append(t)
    return out.model_copy(update={"buttons": unique_names(buttons), "texts": texts, "gauges": gauges})


class VlmReading(BaseModel):
    """The VLM's reading, grounded and merged: cacheable like any reading."""

    output: VisionOutput
    retries: list[Attempt] = Field(default_factory=list)


class OcrFallback(BaseModel):
    """The VLM gave no usable answer (API failure after retries, or output that broke the contract twice):
    the OCR reading stands in for this frame. Never cached as a VLM reading: the next frame asks again."""

    output: VisionOutput
    reason: str
    retries: list[Attempt] = Field(default_factory=list)


VlmResult = VlmReading | OcrFallback


class VlmBackend:
    """Calls Claude once per new screen (twice when the first answer breaks the contract). API failures are
    retried with the agent's one policy (lluma_facts.retry), so a busy API delays a reading instead of
    degrading it."""

    def __init__(
        self,
        client: Any,
        model: str,
        max_tokens: int = 2048,
        image_max_side: int = 896,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client, self.model, self.max_tokens, self.image_max_side = client, model, max_tokens, image_max_side
        self.retry, self.sleep, self.clock = retry or RetryPolicy(), sleep, clock
        self.calls = 0

    def _create(self, request: dict[str, Any]) -> Tried[Any]:
        def call(_attempt: int) -> Any:
            self.calls += 1
            return self.client.messages.create(**request)

        return call_with_retries(call, self.retry, sleep=self.sleep, clock=self.clock, what="VLM call")

    def refine(self, image: Image.Image, reading: Reading, keep_ocr_buttons: bool) -> VlmResult:
        request = build_request(reading, image, self.model, self.max_tokens, self.image_max_side)
        errors: list[str] = []
        usage: dict[str, int] = {}
        retries: list[Attempt] = []
        for attempt in range(2):
            tried = self._create(request)
            retries += tried.attempts
            if (exc := tried.error) is not None:  # API failure after the retry window (or a bug): OCR this frame
                errors.append(f"vlm call failed: {type(exc).__name__}: {str(exc)[:ERROR_CHARS]}")
                break
            message = tried.value
            _add_usage(usage, getattr(message, "usage", None))
            try:
                resp = parse_response(message, len(reading.lines))
                check_grounding(resp, reading)
            except VlmError as exc:
                errors.append(f"vlm output rejected (attempt {attempt + 1}): {exc}")
                request = _with_correction(request, str(exc))
                continue
            out = merge(reading, resp, keep_ocr_buttons)
            return VlmReading(output=out.model_copy(update={"errors": out.errors + errors, "vlm_usage": usage}),
                              retries=retries)
        fallback = reading.output
        return OcrFallback(
            output=fallback.model_copy(update={"errors": fallback.errors + errors, "vlm_usage": usage}),
            reason=errors[-1] if errors else "no answer", retries=retries,
        )


def _with_correction(request: dict[str, Any], error: str) -> dict[str, Any]:
    """The same request plus a note saying what was wrong with the previous answer."""
    msg = request["messages"][0]
    content = list(msg["content"]) + [{"type": "text", "text": f"Your previous answer was rejected: {error}. "
                                       "Answer again, following the schema and using only listed OCR ids."}]
    return {**request, "messages": [{"role": "user", "content": content}]}


def _add_usage(total: dict[str, int], usage: Any) -> None:
    if usage is None:
        return
    for key in ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        v = getattr(usage, key, None)
        if isinstance(v, int):
            total[key] = total.get(key, 0) + v
