"""The demo's summary is read by a person: figures in words, what "score" and the gauge agreement mean, no raw
Python dict; a stopped run says how to go on with it (`--resume`)."""

from __future__ import annotations

from pathlib import Path

from lluma_agent.loop.resume import how_to_go_on
from lluma_cli.demo import DemoSummary, in_words
from lluma_sim.fault_plan import FaultsInjected
from lluma_sim.gauge_audit import GaugeAgreement
from lluma_sim.hazards import HazardsInjected


def summary(**kw: object) -> DemoSummary:
    fields: dict[str, object] = dict(
        turns=40, uncached_input_tokens=0, cache_read_tokens=494_840, cache_write_tokens=30_400, output_tokens=8_240,
        input_tokens_per_turn=13_131, cost_usd=0.0129, cost_per_turn_usd=0.000321, cache_hit_ratio=0.942,
        model="claude-haiku-5-5", score=16, game_turn=2, stop_reason="max_turns (40) reached",
        memory_files=["sim_notes.md"], logs_dir="logs/demo-1", taps_off_target=0,
        faults_injected=FaultsInjected(total=3, by_kind={"black_frame": 1, "api_529": 2}),
        hazards_injected=HazardsInjected.of({"anr": 2, "app_crash": 4}), game_starts=5, recoveries={"warn": 1},
        gauge_decisions_agree=GaugeAgreement(agree=5, of=6, share=5 / 6, largest_error=0.031, unread=1))
    fields.update(kw)
    return DemoSummary.model_validate(fields)


def test_the_summary_says_what_its_figures_mean_without_a_raw_dict() -> None:
    text = in_words(summary())
    assert "{'" not in text and "': " not in text  # no Python dict or repr
    assert "hazards injected: 4 app crash, 2 anr" in text and "faults injected: 2 api 529, 1 black frame" in text
    assert "game: score 16 at career turn 2" in text
    assert "(score: the simulated career's own measure, the stats gained since it began + 120 a race won" in text
    assert "energy read from the gauge: 5 of 6 rest-or-train choices as the game's true energy would have made them" \
        in text
    assert "reads energy from the Energy bar alone, which shows no digits, and rests below 40%; the bar was read at " \
        "most 3% off; 1 made with no bar read)" in text
    assert "faults injected: none; hazards injected: none" in in_words(
        summary(faults_injected=FaultsInjected(total=0, by_kind={}), hazards_injected=HazardsInjected.of({})))


def test_a_stopped_run_names_resume_once_a_turn_is_finished(tmp_path: Path) -> None:
    assert how_to_go_on(tmp_path) == ""  # no checkpoint: nothing to go on with
    (tmp_path / "checkpoint.json").write_text("{}", encoding="utf-8")
    assert how_to_go_on(tmp_path) == f"to go on where it stopped: lluma run --resume {tmp_path}"
    assert how_to_go_on(tmp_path, "lluma demo") == f"to go on where it stopped: lluma demo --resume {tmp_path}"
