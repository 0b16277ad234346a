"""Compact JSON for the model, one-line summaries, the vision cache, Box serialisation."""

from __future__ import annotations

import json
import random

import pytest
from fakes import bench_module
from PIL import Image, ImageDraw, ImageFont

from lluma_agent.context.tokens import estimate_text_tokens
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact, summarize
from lluma_vision.models import Box, Button, MenuState, Scrollbar, TextLine, VisionOutput
from lluma_vision.phash import max_region_distance, region_hash
from lluma_vision.pipeline import Vision
from lluma_vision.pipeline import reading as reading_mod
from lluma_vision.pipeline.cache import VisionCache

pytestmark = pytest.mark.ocr  # reads frames with the OCR (pyproject: markers)


def screen(n_buttons: int = 20, seed: int = 0) -> VisionOutput:
    rnd = random.Random(seed)
    names = ["Rest", "Training", "Skills", "Infirmary", "Recreation", "Races", "Back", "OK", "Cancel", "Details",
             "Skip", "Quick", "Enhance", "Story", "Home", "Race", "Scout", "Learn", "Confirm", "Reset"]
    buttons = []
    for i in range(n_buttons):
        y = 100 + 80 * i
        buttons.append(Button(
            name=names[i % len(names)] + (f"#{i // len(names) + 1}" if i >= len(names) else ""),
            meta="NEW" if i == 3 else "",
            region="menu" if 12 <= i < 17 else "bottom" if y > 1600 else "middle",
            bounds=Box(x0=100, y0=y, x1=400, y1=y + 60),
            confidence=round(rnd.uniform(0.3, 1.0), 3),
        ))
    return VisionOutput(
        width=1080, height=1920, buttons=buttons,
        texts=[TextLine(text=f"Speed {90 + i}", bounds=Box(x0=500, y0=100 + 40 * i, x1=700, y1=130 + 40 * i),
                        confidence=0.9 - 0.01 * i) for i in range(16)],
        menu=MenuState(usable=True, selected="Home", tabs=["Enhance", "Story", "Home", "Race", "Scout"]),
        scrollbar=Scrollbar(track=Box(x0=1000, y0=400, x1=1008, y1=1400),
                            thumb=Box(x0=1000, y0=400, x1=1008, y1=700), up=False, down=True),
    )


def test_compact_shape_no_bounds_no_empty_fields_stable_order() -> None:
    data = compact(screen())
    raw = data.to_json()
    doc = json.loads(raw)
    assert list(doc) == ["buttons", "texts", "menu", "scroll"]  # cinematic "none" is left out
    assert "bounds" not in raw and '""' not in raw and "null" not in raw
    assert all(list(b) in (["name", "region"], ["name", "meta", "region"]) for b in doc["buttons"])
    assert doc["menu"] == {"usable": True, "selected": "Home"} and doc["scroll"] == {"up": False, "down": True}
    assert compact(screen()).to_json() == raw  # deterministic


def test_compact_caps_and_sorts_by_confidence() -> None:
    out = screen(n_buttons=45, seed=3)
    data = compact(out, max_buttons=30, max_texts=12)
    assert len(data.buttons) == 30 and len(data.texts) == 12
    conf = {b.name: b.confidence for b in out.buttons}
    got = [conf[b.name] for b in data.buttons]
    assert got == sorted(got, reverse=True)
    assert min(got) >= sorted(conf.values(), reverse=True)[29]
    assert data.texts == [t.text for t in out.texts[:12]]  # highest confidence kept, shown top to bottom


def test_compact_cinematic_and_empty_screen() -> None:
    out = VisionOutput(width=10, height=10, cinematic="loading")
    assert compact(out).to_json() == '{"cinematic":"loading"}'
    assert summarize(out) == "loading"
    assert summarize(VisionOutput(width=10, height=10)) == "no buttons"


def test_compact_is_at_most_30_percent_of_the_verbose_form() -> None:
    out = screen(20)
    verbose = bench_module("baseline_layout").verbose_vision_json(out)  # the original harness's form
    ratio = estimate_text_tokens(compact(out).to_json()) / estimate_text_tokens(verbose)
    assert ratio <= 0.30, ratio


def test_summary_is_one_short_line() -> None:
    out = screen(20)
    s = summarize(out)
    assert "\n" not in s and s.startswith("buttons: ") and "| tab Home | scroll down" in s and "+12" in s
    assert estimate_text_tokens(s) <= 60
    blocked = out.model_copy(update={"menu": MenuState(usable=False, selected="Home")})
    assert "tabs blocked" in summarize(blocked)


def test_box_serialises_as_a_list_and_accepts_both_forms() -> None:
    b = Box(x0=1, y0=2, x1=3, y1=4)
    assert b.model_dump() == [1, 2, 3, 4] and b.model_dump_json() == "[1,2,3,4]"
    assert Box.model_validate([1, 2, 3, 4]) == b == Box.model_validate({"x0": 1, "y0": 2, "x1": 3, "y1": 4})
    out = screen(2)
    assert VisionOutput.model_validate_json(out.model_dump_json()) == out
    with pytest.raises(ValueError):
        Box.model_validate([1, 2, 3])


# --- cache ---------------------------------------------------------------------------------------


def frame(text: str = "Training", value: str = "120") -> Image.Image:
    img = Image.new("RGB", (1080, 1920), (244, 242, 250))
    d = ImageDraw.Draw(img)
    f = ImageFont.load_default(size=48)
    d.rounded_rectangle((300, 1300, 780, 1420), 30, fill=(160, 218, 92), outline=(90, 150, 40), width=4)
    d.text((420, 1330), text, fill=(60, 40, 30), font=f)
    d.text((120, 300), "Skill Pts", fill=(60, 40, 30), font=f)
    d.text((700, 300), value, fill=(60, 40, 30), font=f)
    return img


@pytest.fixture
def ocr_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = reading_mod.read_lines

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(reading_mod, "read_lines", counting)
    return calls


def test_unchanged_screen_costs_no_ocr(ocr_calls: list[int]) -> None:
    # Its speed (< 5 ms) is measured by bench/vision.py: a timed assertion here would fail on a loaded machine.
    vision = Vision(VisionConfig(backend="ocr"))
    first = vision.analyze(frame())
    assert not first.cached and len(ocr_calls) == 1 and first.button("Training") is not None
    for _ in range(7):
        again = vision.analyze(frame())
        assert again.cached and again.buttons == first.buttons
    assert len(ocr_calls) == 1


def test_a_changed_number_or_label_is_a_miss(ocr_calls: list[int]) -> None:
    vision = Vision(VisionConfig(backend="ocr"))
    vision.analyze(frame())
    vision.analyze(frame(value="128"))
    vision.analyze(frame(text="Rest"))
    assert len(ocr_calls) == 3
    assert max_region_distance(region_hash(frame()), region_hash(frame(value="128"))) > 0


def test_cache_expires_and_evicts() -> None:
    out = VisionOutput(width=1080, height=1920)
    key = region_hash(frame())
    cache = VisionCache(max_size=2, max_age_s=10)
    cache.put(key, (1080, 1920), out, now=0.0)
    assert cache.get(key, (1080, 1920), now=5.0) is out
    assert cache.get(key, (1080, 1920), now=11.0) is None  # too old
    for i in range(3):
        cache.put(region_hash(frame(value=str(i))), (1080, 1920), out, now=20.0)
    assert len(cache) == 2
    assert cache.get(key, (1080, 1920), now=20.0) is None
    assert cache.get(key, (720, 1280), now=20.0) is None  # another size never matches
