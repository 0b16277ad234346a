"""The VLM path against recorded Messages API replies (offline: httpx2.MockTransport), malformed ones included."""

from __future__ import annotations

import json
import re
from typing import Any

import anthropic
import httpx2
import pytest
from fakes import FakeClock
from PIL import Image

from lluma_facts.retry import RetryPolicy
from lluma_sim.api.server import ApiServer
from lluma_sim.game import SimGame
from lluma_sim.labelled.screens import screens_dir
from lluma_vision.config import VisionConfig
from lluma_vision.facts.associate import associate
from lluma_vision.pipeline import Vision
from lluma_vision.pipeline.reading import Reading, read_frame
from lluma_vision.pipeline.vlm import VLM_SCHEMA, OcrFallback, VlmBackend, VlmReading, VlmResponse, build_request
from lluma_vision.pixels.ocr import prepare

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=29)]  # reads frames with the OCR (pyproject: markers)

SCREENS = screens_dir()
EVENT = SCREENS / "umaplay__events__event_scenario_ura_exhilarating.png"
# the stand-in's parser of the <ocr> block (lluma_sim/api/policy.py) - the contract both sides keep
OCR_LINE = re.compile(r"^\s*(\S+)\t(.*?)\t\[\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*\]\s*$")


def _synthetic_event() -> Image.Image:
    """A stand-in frame when the real screenshots are not there: two choice bars, Skip and Quick."""
    from PIL import ImageDraw, ImageFont

    img = Image.new("RGB", (720, 1280), (236, 232, 246))
    d = ImageDraw.Draw(img)
    f = ImageFont.load_default(size=30)
    for y, text in ((500, "I respect her a lot."), (620, "She can get out of hand.")):
        d.rounded_rectangle((80, y, 640, y + 80), 14, fill=(255, 255, 255), outline=(120, 160, 60), width=3)
        d.text((110, y + 22), text, fill=(60, 40, 30), font=f)
    for x, text in ((150, "Skip"), (400, "Quick")):
        d.rounded_rectangle((x, 1150, x + 170, 1210), 28, fill=(160, 218, 92), outline=(90, 150, 40), width=3)
        d.text((x + 45, 1162), text, fill=(60, 40, 30), font=f)
    return img


@pytest.fixture(scope="module")
def image() -> Image.Image:
    if EVENT.is_file():
        with Image.open(EVENT) as im:
            return im.convert("RGB")
    return _synthetic_event()


@pytest.fixture(scope="module")
def reading(image: Image.Image) -> Reading:
    return read_frame(prepare(image))


def line_id(reading: Reading, text: str) -> int:
    for i, ln in enumerate(reading.lines):
        if re.sub(r"\W", "", ln.text.lower()).startswith(re.sub(r"\W", "", text.lower())):
            return i
    raise AssertionError(f"{text!r} not in OCR lines {[ln.text for ln in reading.lines]}")


def reply(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}], "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 900, "output_tokens": 120},
    }


class Recorder:
    """Answers each request with the next recorded reply (dict = 200 JSON, int = that HTTP status)."""

    def __init__(self, replies: list[dict[str, Any] | int]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(json.loads(request.content))
        r = self.replies.pop(0)
        if isinstance(r, int):
            return httpx2.Response(r, json={"type": "error", "error": {"type": "api_error", "message": "boom"}})
        return httpx2.Response(200, json=r)


def client_for(rec: Recorder) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test", base_url="http://vlm.test", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(rec)))


def good_answer(reading: Reading) -> str:
    return json.dumps({
        "buttons": [
            {"ocr_ids": [line_id(reading, "Irespect")], "name": "I respect her a lot.", "meta": "", "region": "middle"},
            {"ocr_ids": [line_id(reading, "Skip")], "name": "Skip", "meta": "", "region": "bottom"},
            {"ocr_ids": [line_id(reading, "Quick")], "name": "Quick", "meta": "off", "region": "bottom"},
        ],
        "icons": [{"name": "Menu", "box": [0.9, 0.93, 0.97, 0.99], "meta": "", "region": "bottom"}],
    })


def test_schema_and_model_agree(reading: Reading) -> None:
    def objects(node: Any):
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for v in node.values():
                yield from objects(v)

    for obj in objects(VLM_SCHEMA):
        assert obj["additionalProperties"] is False and set(obj["required"]) == set(obj["properties"])
    VlmResponse.model_validate_json(good_answer(reading))


def test_request_carries_screenshot_ocr_block_and_schema(image: Image.Image, reading: Reading) -> None:
    req = build_request(reading, image, "claude-haiku-4-5", 2048, 896)
    assert req["output_config"] == {"format": {"type": "json_schema", "schema": VLM_SCHEMA}}
    assert "temperature" not in req  # the 2026-10-21 API version rejects it
    img_block, text_block = req["messages"][0]["content"]
    assert img_block["type"] == "image" and img_block["source"]["media_type"] == "image/jpeg"
    body = text_block["text"].split("<ocr>\n", 1)[1].split("</ocr>", 1)[0]
    rows = body.splitlines()
    assert len(rows) == len(reading.lines) > 0
    for i, row in enumerate(rows):
        m = OCR_LINE.match(row)
        assert m and m.group(1) == str(i), row
        x0, y0, x1, y1 = (int(m.group(k)) for k in range(3, 7))
        assert 0 <= x0 < x1 <= 896 and 0 <= y0 < y1 <= 896  # the sent image's pixels (long side 896)


def test_buttons_grounded_on_ocr_boxes_icons_from_fractions(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([reply(good_answer(reading))])
    vision = Vision(VisionConfig(backend="hybrid"), client=client_for(rec))
    out = vision.analyze(image)
    assert out.backend == "hybrid" and out.errors == [] and len(rec.requests) == 1
    skip = out.button("Skip")
    ln = reading.lines[line_id(reading, "Skip")]
    assert skip is not None and skip.source == "hybrid"
    assert skip.bounds == reading.work.to_device(ln)  # OCR's box, not a guess
    assert out.button("Quick").meta == "off"
    menu = out.button("Menu")
    assert menu is not None and menu.source == "vlm"
    assert menu.bounds.x0 == int(0.9 * out.width) and menu.bounds.y1 == round(0.99 * out.height)
    assert out.vlm_usage == {"input_tokens": 900, "output_tokens": 120}
    # OCR-only buttons the VLM did not name stay in hybrid, ranked below the VLM's
    vlm_conf = min(b.confidence for b in out.buttons if b.source != "ocr")
    assert all(b.confidence < vlm_conf for b in out.buttons if b.source == "ocr")
    if EVENT.is_file():  # the labelled tap box
        assert (376 <= skip.bounds.center[0] < 469) and (770 <= skip.bounds.center[1] < 797)


def test_claude_backend_keeps_only_what_the_vlm_named(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([reply(good_answer(reading))])
    out = Vision(VisionConfig(backend="claude"), client=client_for(rec)).analyze(image)
    assert {b.name for b in out.buttons} == {"I respect her a lot.", "Skip", "Quick", "Menu"}
    squash = [re.sub(r"\W", "", t.text.lower()) for t in out.texts]
    assert any(s.startswith("shecangetout") for s in squash)  # the unnamed choice is text now


def test_malformed_then_valid_is_retried_once(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([reply('{"buttons": [{"ocr_ids": [1], "name": "Skip"'), reply(good_answer(reading))])
    result = VlmBackend(client_for(rec), "claude-haiku-4-5").refine(image, reading, keep_ocr_buttons=True)
    assert isinstance(result, VlmReading)
    out = result.output
    assert len(rec.requests) == 2
    assert out.button("Skip") is not None and out.button("Skip").source == "hybrid"
    assert len(out.errors) == 1 and "not JSON" in out.errors[0]
    assert "rejected" in rec.requests[1]["messages"][0]["content"][-1]["text"]  # told what was wrong


@pytest.mark.parametrize(
    "first,second,why",
    [
        ("not json at all", '{"buttons": [], "icons": [], "extra": 1}', "schema mismatch"),
        (json.dumps({"buttons": [{"ocr_ids": [999], "name": "Ghost", "meta": "", "region": "top"}], "icons": []}),
         json.dumps({"buttons": [{"ocr_ids": [], "name": "Empty", "meta": "", "region": "top"}], "icons": []}),
         "unknown ocr ids"),
        (json.dumps({"buttons": [], "icons": [{"name": "i", "box": [0.2, 0.2, 1.4, 0.3], "meta": "", "region": "top"}]}),  # noqa: E501
         json.dumps({"buttons": [], "icons": [{"name": "i", "box": [0.5, 0.5, 0.4, 0.6], "meta": "", "region": "top"}]}),  # noqa: E501
         "inverted"),
        (json.dumps({"buttons": [{"ocr_ids": [0], "name": "X", "meta": "", "region": "nowhere"}], "icons": []}),
         "{}", "schema mismatch"),
    ],
)
def test_twice_invalid_falls_back_to_ocr_with_error(image: Image.Image, reading: Reading, first: str, second: str,
                                                    why: str) -> None:
    rec = Recorder([reply(first), reply(second)])
    vision = Vision(VisionConfig(backend="hybrid"), client=client_for(rec))
    out = vision.analyze(image)
    assert len(rec.requests) == 2
    assert out.backend == "ocr"
    assert [b.name for b in out.buttons] == [b.name for b in reading.output.buttons]
    assert any(why in e for e in out.errors), out.errors
    assert out.errors[-1] == "vlm: OCR reading used instead (not cached)"


def test_ids_of_two_separate_buttons_are_not_one_label(image: Image.Image, reading: Reading) -> None:
    joined = json.dumps({"buttons": [{"ocr_ids": [line_id(reading, "Skip"), line_id(reading, "Irespect")],
                                      "name": "Skip", "meta": "", "region": "bottom"}], "icons": []})
    rec = Recorder([reply(joined), reply(joined)])
    result = VlmBackend(client_for(rec), "claude-haiku-4-5").refine(image, reading, keep_ocr_buttons=True)
    assert isinstance(result, OcrFallback) and "not one label" in result.reason
    assert len(rec.requests) == 2 and "not one label" in result.output.errors[0]


def test_cut_off_reply_counts_as_malformed(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([reply(good_answer(reading), stop="max_tokens"), reply(good_answer(reading))])
    out = VlmBackend(client_for(rec), "claude-haiku-4-5").refine(image, reading, keep_ocr_buttons=False).output
    assert len(rec.requests) == 2 and "max_tokens" in out.errors[0] and out.button("Menu") is not None


def test_a_busy_api_delays_the_reading_instead_of_degrading_it(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([529, 500, reply(good_answer(reading))])
    clock = FakeClock()
    result = VlmBackend(client_for(rec), "claude-haiku-4-5", sleep=clock.sleep, clock=clock).refine(
        image, reading, keep_ocr_buttons=True)
    assert isinstance(result, VlmReading) and result.output.button("Menu") is not None
    assert [a.status for a in result.retries] == [529, 500] and len(clock.waits) == 2
    assert len(rec.requests) == 3


def test_api_failure_after_the_window_is_a_typed_fallback_never_cached(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([500] * 200 + [reply(good_answer(reading))])
    clock = FakeClock()
    vision = Vision(VisionConfig(backend="hybrid"), client=client_for(rec), retry=RetryPolicy(window_s=30))
    assert vision.vlm is not None
    vision.vlm.sleep, vision.vlm.clock = clock.sleep, clock
    first = vision.analyze(image)
    assert first.backend == "ocr" and not first.cached
    assert any("vlm call failed" in e and "InternalServerError" in e for e in first.errors)
    assert first.errors[-1] == "vlm: OCR reading used instead (not cached)"
    assert [b.name for b in first.buttons] == [b.name for b in associate(reading.output).buttons]
    assert first.vlm_retries and all(r.status == 500 for r in first.vlm_retries)
    assert sum(clock.waits) == pytest.approx(30.0)
    # The API is back: the same screen is read by the VLM now, not served from the cache as an OCR stand-in.
    rec.replies = [reply(good_answer(reading))]
    again = vision.analyze(image.copy())
    assert not again.cached and again.backend == "hybrid" and again.button("Menu") is not None


def test_loading_frames_never_call_the_vlm() -> None:
    from PIL import ImageDraw, ImageFont

    img = Image.new("RGB", (1080, 1920), (250, 250, 252))
    ImageDraw.Draw(img).text((700, 1820), "Now Loading...", fill=(150, 100, 60), font=ImageFont.load_default(size=40))
    rec = Recorder([])
    out = Vision(VisionConfig(backend="hybrid"), client=client_for(rec)).analyze(img)
    assert out.cinematic == "loading" and rec.requests == []


def test_vlm_result_is_cached(image: Image.Image, reading: Reading) -> None:
    rec = Recorder([reply(good_answer(reading))])
    vision = Vision(VisionConfig(backend="hybrid"), client=client_for(rec))
    first = vision.analyze(image)
    again = vision.analyze(image.copy())
    assert len(rec.requests) == 1 and again.cached and again.buttons == first.buttons


def test_backend_needs_a_client() -> None:
    with pytest.raises(ValueError, match="needs an anthropic client"):
        Vision(VisionConfig(backend="claude"))
    assert Vision(VisionConfig(backend="auto")).backend == "ocr"


def test_auto_reads_with_ocr_and_calls_no_vlm_even_with_a_key(image: Image.Image) -> None:
    """Every decision carries the screenshot, so `auto` no longer adds a VLM call per new screen (it added
    $0.00025 a turn on the demo); claude and hybrid stay available by name."""
    rec = Recorder([])
    vision = Vision(VisionConfig(backend="auto"), client=client_for(rec))
    out = vision.analyze(image)
    assert vision.backend == "ocr" and out.backend == "ocr" and rec.requests == []


def test_hybrid_against_the_messages_api_stand_in() -> None:
    """Over a real loopback HTTP server that validates requests like the API and answers VLM-shaped ones."""
    g = SimGame(seed=0)
    frame = g.capture()
    with ApiServer() as api:
        out = Vision(VisionConfig(backend="hybrid"), client=api.client()).analyze(frame)
    assert out.errors == [] and out.backend == "hybrid"
    career = out.button("Career")
    truth = g.truth().element("Career")
    assert career is not None and career.source == "hybrid" and truth.box.contains(*career.bounds.center)
