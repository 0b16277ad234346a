"""`lluma vision --explain`: every button read names the rules that made it one, and a name asked for is explained
whether it was found, read as text, or not read at all. On real labelled screens (a sample of each labelled source,
chosen by order, not by name: held-back folders work the same) and on simulator frames."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from real_reads import cold_read_blocks, warm

from lluma_sim import game
from lluma_sim.labelled import buttons as lab
from lluma_sim.labelled.screens import labelled_sources
from lluma_vision.buttons.explain import explain, explain_name
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import model_view
from lluma_vision.models import VisionOutput
from lluma_vision.pipeline import Vision
from lluma_vision.pixels.layout import Block

ROOT = Path(__file__).resolve().parents[2]
PER_SOURCE = 5  # screens read from each labelled source (reading all of them is test_vision_real's job)

pytestmark = [pytest.mark.cost(seconds=54), pytest.mark.ocr, pytest.mark.timeout(900)]


def _read(image: Image.Image) -> tuple[VisionOutput, list[Block]]:
    vision = Vision(VisionConfig(backend="ocr"))
    out = vision.analyze(image.convert("RGB"))
    assert vision.last_reading is not None
    return out, vision.last_reading.blocks


def _sample() -> list[tuple[Path, dict[str, object]]]:
    out = []
    for folder in labelled_sources():
        labels = json.loads((folder / "labels.json").read_text())
        out += [(folder / name, labels[name]) for name in sorted(labels)[:PER_SOURCE]]
    return out


@pytest.fixture(scope="module")
def real() -> list[tuple[dict[str, object], VisionOutput, list[Block]]]:
    sample = _sample()
    if not sample:
        pytest.skip("no labelled screenshots")
    warm((path.parent, path.name) for path, _ in sample)
    return [(label, *cold_read_blocks(path.parent, path.name)) for path, label in sample]  # read once a suite


@pytest.fixture(scope="module")
def sim() -> list[tuple[VisionOutput, list[Block]]]:
    g = game.SimGame(seed=3)
    frames = [_read(g.capture())]
    for name in ("Career", "Next"):
        hits = [e for e in g.truth().elements if e.name == name and e.kind != "text"]
        g.tap(*hits[0].box.center)
        frames.append(_read(g.capture()))
    return frames


def _buttons_have_rules(out: VisionOutput, blocks: list[Block]) -> None:
    text = explain(out, blocks).splitlines()
    for b in out.buttons:
        assert b.rules, f"{b.name!r} carries no rule"
        # its entry names each of its rules on the lines under it
        at = next(i for i, row in enumerate(text) if f"{b.name!r}" in row and not row.startswith(" "))
        under = text[at + 1 : at + 1 + len(b.rules)]
        assert all(any(row.strip().startswith(r) for row in under) for r in b.rules), (b.name, under)


def test_every_button_on_real_screens_names_its_rules(real: list[tuple[dict[str, object], VisionOutput,
                                                                         list[Block]]]) -> None:
    assert sum(len(out.buttons) for _label, out, _blocks in real) > 0
    for _label, out, blocks in real:
        _buttons_have_rules(out, blocks)


def test_every_button_on_simulator_frames_names_its_rules(sim: list[tuple[VisionOutput, list[Block]]]) -> None:
    assert sum(len(out.buttons) for out, _blocks in sim) > 0
    for out, blocks in sim:
        _buttons_have_rules(out, blocks)


def test_a_found_label_is_explained_by_its_rules(real: list[tuple[dict[str, object], VisionOutput,
                                                                   list[Block]]]) -> None:
    found = [(b, out, blocks) for label, out, blocks in real for want in label.get("buttons", [])  # type: ignore[attr-defined]
             for b in out.buttons if b.source == "ocr" and lab.norm(b.name) == lab.norm(want["name"])]
    assert found, "no labelled button found in the sample"
    button, out, blocks = found[0]
    said = explain_name(button.name, out, blocks)
    assert f"{button.name!r} is a button" in said
    assert all(r in said for r in button.rules)
    assert "->" in said  # each rule with the score it moved the block to


def test_a_text_that_is_no_button_says_why(real: list[tuple[dict[str, object], VisionOutput,
                                                            list[Block]]]) -> None:
    """A label read as text (a miss, if the player needed it): the rules and the score against the button line."""
    cases = [(b, out, blocks) for _label, out, blocks in real for b in blocks
             if not b.is_button and b.trace and len(b.lines) == 1 and sum(c.isalpha() for c in b.text) >= 3
             and all(lab.norm(b.text) != lab.norm(o.name) for o in out.buttons)]
    assert cases
    block, out, blocks = cases[0]
    said = explain_name(block.text, out, blocks)
    assert said.startswith(f"no button {block.text!r}")
    assert f"score {block.score:.2f} is under the button line 0.50" in said
    assert block.trace[0].rule in said


def test_a_name_no_text_reads_like(sim: list[tuple[VisionOutput, list[Block]]]) -> None:
    out, blocks = sim[0]
    said = explain_name("Quartzwell Obelisk", out, blocks)
    assert said.startswith("no button 'Quartzwell Obelisk': no text reads like 'Quartzwell Obelisk'")


def test_a_misread_name_finds_the_text_that_reads_like_it(sim: list[tuple[VisionOutput, list[Block]]]) -> None:
    """A name one letter off what OCR read is matched fuzzily to that text, which is a button of another name."""
    out, blocks = sim[0]
    button = next(b for b in out.buttons if b.source == "ocr" and len(b.name) >= 5 and "#" not in b.name)
    typo = button.name[:-1] + ("x" if button.name[-1] != "x" else "y")
    said = explain_name(typo, out, blocks)
    assert f"it is a button, named {button.name!r}" in said, said


def test_rules_are_in_the_json_but_never_in_what_the_model_sees(sim: list[tuple[VisionOutput, list[Block]]]) -> None:
    out, _blocks = sim[0]
    full = out.model_dump(mode="json")
    assert all(b["rules"] for b in full["buttons"])
    assert "rules" not in model_view(out, 30, 12)


def test_the_cli_explains_a_name_end_to_end(tmp_path: Path) -> None:
    image = tmp_path / "home.png"
    game.SimGame(seed=3).capture().save(image)
    # this tree's lluma, whichever checkout the environment installed
    env = {**os.environ, "ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": "", "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "lluma_cli", "vision", str(image), "--backend", "ocr",
                          "--explain", "Career"], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    assert "'Career' is a button" in run.stdout
    assert "->" in run.stdout
    both = subprocess.run([sys.executable, "-m", "lluma_cli", "vision", str(image), "--json", "--explain"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600, check=False)
    assert both.returncode == 2 and "choose one" in both.stderr
