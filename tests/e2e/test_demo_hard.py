"""The demo on the simulator's hard screens (issue 11): plate-less hub tiles, the training screen's stat icon
row, a 420-wide frame and a letterboxed one, energy drawn as a bar only (issue 20). The whole loop runs
(adb-protocol sim, Messages API stand-in, offline vision); every tap must land on what the agent meant, the tiles
and stat icons must be found as buttons, not only reached as read text, and the stand-in's rest-or-train calls
on the gauge it read must be the truth's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lluma_cli.demo import run_demo
from lluma_sim.game.game import HARD_VARIANTS

pytestmark = [pytest.mark.ocr, pytest.mark.cost(seconds=130)]  # reads frames with the OCR (pyproject: markers)

STATS = {"Speed", "Stamina", "Power", "Guts", "Wit"}


def _results(logs: Path) -> list[str]:
    out = []
    for f in sorted(logs.glob("turn_*.json")):
        out += [r["content"] for r in json.loads(f.read_text())["tool_results"] if r["name"] == "pressButton"]
    return out


@pytest.mark.parametrize("seed", [0, 1])  # 420x936, then 1080x2400 letterboxed (HARD_VARIANTS order)
def test_hard_screens_demo_taps_tiles_and_stat_icons_as_buttons_on_target(tmp_path: Path, seed: int) -> None:
    variant = HARD_VARIANTS[seed % len(HARD_VARIANTS)]
    s = run_demo(18, tmp_path, seed=seed, quiet=True, style="hard")  # 6 of them set a career up, as in the game
    assert s.turns == 18 and s.score > 0
    assert s.taps_off_target == 0, s.off_target
    results = _results(Path(s.logs_dir))
    as_buttons = {r.split("'")[1] for r in results if r.startswith("tapped '")}
    assert "Training" in as_buttons, (variant, results)  # a hub tile without a plate
    assert as_buttons & STATS, (variant, results)  # a captioned stat icon
    # energy is a bar only on these screens: the stand-in rests or trains on the gauge it read, as the truth would
    agree = s.gauge_decisions_agree
    assert agree.of >= 2 and agree.unread == 0 and agree.share is not None and agree.share >= 0.9, agree
    assert agree.largest_error is not None and agree.largest_error <= 0.1, agree
