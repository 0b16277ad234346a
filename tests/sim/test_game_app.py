"""The simulated game as an app and a night of it: stopped and started (title, Continue Career), the hazards a night
brings (drawn in plain and hard style with the real client's words), careers back to back with TP, and their records.
"""

from __future__ import annotations

import pytest

from lluma_sim.game import GroundTruth, SimGame
from lluma_sim.game.state import GameState
from lluma_sim.hazards import HAZARD_KINDS, RANDOM_KINDS, HazardsInjected
from tests.sim.test_sim_game import finish_career, names, policy_step, settle, start_career, tap, to_start

pytestmark = pytest.mark.cost(seconds=48)  # worker seconds in a full suite (conftest: slowest modules first)


def buttons(t: GroundTruth) -> list[str]:
    return [e.name for e in t.elements if e.kind != "text" and e.enabled]


def press(g: SimGame, name: str) -> None:
    """Tap an element by its label, a read text too (Android's dialog and the title have no plates)."""
    t = g.truth()
    hit = next((e for e in t.elements if e.name == name and e.kind != "text"), None) or t.element(name)
    assert hit is not None, f"{name!r} not on {t.screen}: {names(t)}"
    g.tap(*hit.box.center)


def mid_career(seed: int = 4, max_turns: int = 12, **kw: object) -> SimGame:
    g = SimGame(seed=seed, max_turns=max_turns, **kw)  # type: ignore[arg-type]
    start_career(g)
    while g.truth().turn < 3 or g.truth().screen != "hub":
        policy_step(g)
    return g


def restart_to_home(g: SimGame) -> GroundTruth:
    """Launcher icon -> title -> tap -> loading -> home."""
    press(g, "Umamusume")
    assert g.truth().screen == "title" and "Tap to Start" in names(g.truth())
    press(g, "Tap to Start")
    settle(g)
    return g.truth()


# ---- the game is an app --------------------------------------------------------------------------------------


def test_a_stopped_game_shows_the_launcher_and_its_career_resumes_through_continue_career() -> None:
    g = mid_career()
    before = g.truth()
    tap(g, "Training")  # something on screen that a stop loses
    assert g.stop_app() and not g.stop_app()  # a second stop: nothing was running
    t = g.truth()
    assert (t.app, t.screen) == ("launcher", "launcher") and "Umamusume" in names(t)
    assert t.turn == before.turn and t.stats == before.stats and t.career_open  # the career is not lost
    t = restart_to_home(g)
    assert t.screen == "continue_career" and buttons(t)[-2:] == ["Cancel", "Resume"]
    assert "Continue Career" in names(t) and f"Turn {before.turn}/12. Resume it?" in names(t)
    tap(g, "Cancel")  # home; Career asks again rather than starting a second career over it
    tap(g, "Career")
    assert g.truth().screen == "continue_career"
    tap(g, "Resume")
    t = g.truth()
    assert t.screen == "hub" and t.turn == before.turn and t.stats == before.stats


def test_a_game_stopped_during_a_race_resumes_on_its_lobby() -> None:
    g = mid_career(seed=2)
    tap(g, "Race Day" if g.truth().element("Race Day") else "Races")  # turn 3 of 12 is the debut's
    tap(g, "Race")
    tap(g, "OK")
    assert g.truth().cinematic == "loading"
    wins = g.truth().race_wins
    g.stop_app()
    restart_to_home(g)
    tap(g, "Resume")
    t = g.truth()
    assert t.screen == "race_lobby" and t.race_wins >= wins
    tap(g, "View Results")
    tap(g, "Next")
    tap(g, "Next")
    assert g.truth().screen in ("hub", "event")


def test_a_data_update_after_a_resumed_race_resumes_where_the_career_is_not_on_the_old_race() -> None:
    """A race resumed after a stop, finished; later a data update's Download takes the game to the title: Continue
    Career goes back to the hub, not to the old race's result (whose Next would end a race day unraced)."""
    g = mid_career(seed=2)
    tap(g, "Race Day" if g.truth().element("Race Day") else "Races")
    tap(g, "Race")
    tap(g, "OK")
    g.stop_app()
    restart_to_home(g)
    tap(g, "Resume")
    for name in ("View Results", "Next", "Next"):
        tap(g, name)
    while g.truth().screen != "hub":
        policy_step(g)
    turn = g.truth().turn
    assert g.hazard("update_prompt") and "Download" in buttons(g.truth())
    press(g, "Download")
    settle(g)
    assert g.truth().screen == "title"
    press(g, "Tap to Start")
    settle(g)
    tap(g, "Resume")
    assert (g.truth().screen, g.truth().turn) == ("hub", turn)


def test_start_app_only_starts_a_game_that_is_not_running() -> None:
    g = SimGame(seed=0)
    assert not g.start_app() and g.truth().screen == "home"
    task = g.state.task
    g.stop_app()
    assert g.start_app() and g.state.task == task + 1 and not g.state.drawn  # a new task; its window not drawn yet
    g.capture()
    assert g.state.drawn and g.truth().screen == "title"
    press(g, "Tap to Start")
    settle(g)
    assert g.truth().screen == "home"  # no career in progress: no Continue Career


# ---- careers back to back --------------------------------------------------------------------------------------


def test_careers_run_to_their_end_one_after_another_with_a_record_each() -> None:
    g = SimGame(seed=3, max_turns=6)
    for number in (1, 2):
        start_career(g)
        assert g.truth().career_open and g.truth().turn == 1
        while g.truth().screen != "career_summary":
            policy_step(g)
        t = g.truth()
        assert "Complete Career" in buttons(t) and t.finished and t.career_open
        stats, points, score = dict(t.stats), t.skill_points, t.score
        tap(g, "Complete Career")
        assert g.truth().screen == "confirm" and buttons(g.truth())[-2:] == ["Cancel", "Finish"]
        tap(g, "Finish")
        assert [e.name for e in g.truth().elements if e.kind != "text"] == ["Next"]
        tap(g, "Next")
        assert "Sparks Acquired" in names(g.truth())
        tap(g, "OK")
        t = g.truth()
        assert t.screen == "career_end" and "Career Complete" in names(t) and f"Score {score}" in names(t)
        tap(g, "To Home")
        t = g.truth()
        assert t.screen == "home" and not t.career_open and len(t.careers) == number
        record = g.careers[-1]
        assert (record.number, record.turns, record.stats, record.skill_points, record.score) == (
            number, 6, stats, points, score)
        assert f"Last career score {score}" in names(t)
    assert g.careers[0] != g.careers[1]
    assert g.state.tp < 100 - 30  # two careers of 30 TP each, some back on the game's clock


def test_a_career_has_the_real_length_when_asked() -> None:
    g = SimGame(seed=1, max_turns=78)
    tap(g, "Career")
    assert "A career of 78 turns." in names(g.truth())
    g = SimGame(seed=1, max_turns=78)
    start_career(g)
    t = g.truth()
    assert "Turn 1/78" in names(t) and "Junior Year Pre-Debut" in names(t)
    for _ in range(4000):
        if g.truth().screen == "career_summary":
            break
        policy_step(g)
    finish_career(g)
    record = g.careers[0]
    assert record.turns == 78 and record.score > 0 and record.ended == "complete"
    assert [r.text for r in record.goals][:2] == ["Run in Junior Make Debut", "Place top 5 in Kisaragi Sho"]
    assert len(record.goals) == 11 and record.goals[-1].text == "Place 1st in URA Finale Finals"  # NUMBERS §6e
    assert all(r.met for r in record.goals) and record.fans >= 3000
    for absurd in (0, -5, 100000):
        with pytest.raises(ValueError, match="a career lasts 1 to 1000 turns"):
            SimGame(max_turns=absurd)


def test_too_little_tp_shows_confirm_and_recover_tp_and_tp_comes_back_on_the_game_clock() -> None:
    g = SimGame(seed=0, tp=20)
    to_start(g)
    assert "TP 20/100 (a career uses 30)" in names(g.truth())
    tap(g, "Start Career!")
    t = g.truth()
    assert t.screen == "tp_confirm" and "Confirm" in names(t) and buttons(t)[-2:] == ["Cancel", "Recover TP"]
    tap(g, "Recover TP")
    t = g.truth()
    assert t.screen == "recover_tp" and "Recover TP" in names(t) and buttons(t)[-2:] == ["Cancel", "Use"]
    tap(g, "Cancel")
    assert g.truth().screen == "setup" and g.career is None and g.state.tp == 20
    for _ in range(20):  # 20 inputs of 30 s: 10 minutes of the game's clock
        g.tap(1, 1)
    assert g.state.tp == 21
    g.state.tp_items = 1  # an item: Use spends it for 30 TP
    tap(g, "Start Career!")
    tap(g, "Recover TP")
    tap(g, "Use")
    assert g.state.tp == 51 and g.state.tp_items == 0
    tap(g, "Start Career!")
    settle(g)
    assert g.truth().screen == "hub" and g.state.tp == 21


# ---- hazards ------------------------------------------------------------------------------------------------


def way_out(g: SimGame) -> None:
    """One input of a sensible player on whatever the night shows; else the career's policy."""
    t = g.truth()
    if t.cinematic in ("loading", "cutscene"):
        g.capture()
        return
    shown, ready = names(t), buttons(t)
    if any("Empty" in n for n in shown) and "Auto-Select" in ready:
        press(g, "Auto-Select")
        return
    for name in ("Wait", "Retry", "Resume", "Download", "OK", "Close", "Umamusume", "To Home", "Complete Career",
                 "Finish", "Next", "Borrow", "Start Career!"):
        if name in ready:
            press(g, name)
            return
    if "Tap to Start" in shown:
        press(g, "Tap to Start")
    elif t.screen == "home":
        tap(g, "Career")
    else:
        policy_step(g)


def test_hazards_fire_by_rate_on_the_game_clock_are_counted_and_repeat_per_seed() -> None:
    def night(seed: int, rate: float) -> tuple[HazardsInjected, list[str]]:
        g = SimGame(seed=seed, max_turns=10, hazards=rate, tp=300)  # TP for every career this night starts
        seen = []
        for _ in range(300):
            way_out(g)
            if (h := g.truth().hazard) and (not seen or seen[-1] != h):
                seen.append(h)
        assert len(g.careers) >= 1  # a night of hazards does not stop careers from ending
        return g.hazards_injected(), seen

    got, seen = night(6, 0.15)
    assert got.total == sum(got.by_kind.values()) >= 10
    assert set(got.by_kind) <= set(RANDOM_KINDS) and len(got.by_kind) >= 5
    assert "session_error" not in got.by_kind  # only ever by name
    assert set(seen) <= set(got.by_kind)
    assert night(6, 0.15) == (got, seen)
    assert night(6, 0.0)[0] == HazardsInjected(total=0, by_kind={})


@pytest.mark.parametrize("style", ["plain", "hard"])
def test_each_hazard_shows_the_real_words_and_its_way_out(style: str) -> None:
    def fresh() -> SimGame:
        g = SimGame.hard(seed=1) if style == "hard" else SimGame(seed=1)
        start_career(g)
        return g

    g = fresh()
    assert g.hazard("app_crash") and g.truth().app == "launcher"

    g = fresh()
    assert g.hazard("anr")
    t = g.truth()
    assert t.app == "anr" and "Umamusume isn't responding" in names(t) and buttons(t) == ["Close app", "Wait"]
    press(g, "Wait")
    assert g.truth().screen == "hub" and g.truth().app == "game" and g.truth().hazard is None
    g.hazard("anr")
    press(g, "Close app")
    assert g.truth().app == "launcher"

    g = fresh()
    g.hazard("connection_error")
    t = g.truth()
    assert "Connection Error" in names(t) and buttons(t) == ["Title Screen", "Retry"]
    g.keyevent("KEYCODE_BACK")  # the game's own error dialog: BACK does nothing
    assert g.truth().screen == "connection_error"
    press(g, "Retry")
    assert g.truth().screen == "hub"
    g.hazard("connection_error")
    press(g, "Title Screen")
    assert g.truth().screen == "title"

    g = fresh()
    g.hazard("daily_reset")
    assert "Date Changed" in names(g.truth()) and buttons(g.truth()) == ["OK"]
    press(g, "OK")
    assert g.truth().screen == "title"
    press(g, "Tap to Start")
    settle(g)
    for title, way in (("Login Bonus", "OK"), ("Notices", "Close"), ("Daily Sale", "Close")):
        assert title in names(g.truth()), names(g.truth())
        if title == "Daily Sale":
            assert buttons(g.truth()) == ["Close", "Purchase Carats"]
        press(g, way)
    assert g.truth().screen == "continue_career"

    g = fresh()
    g.hazard("maintenance")
    assert "Maintenance" in names(g.truth()) and buttons(g.truth()) == ["OK"]
    press(g, "OK")
    press(g, "Tap to Start")  # still under maintenance: the notice again
    assert g.truth().screen == "maintenance"
    rounds = 1
    while g.truth().screen == "maintenance":  # it lasts 6 minutes of the game's clock: 30 s an input
        press(g, "OK")
        press(g, "Tap to Start")
        settle(g)
        rounds += 1
    assert 5 <= rounds <= 7 and g.truth().screen == "continue_career"

    g = fresh()
    g.hazard("update_prompt")
    assert "Data Update" in names(g.truth()) and buttons(g.truth()) == ["Cancel", "Download"]
    press(g, "Download")
    assert g.truth().cinematic == "loading" and settle(g) == 6 + 1  # six frames, the seventh shows the title
    assert g.truth().screen == "title"

    g = fresh()
    g.hazard("long_loading")
    assert 35 <= settle(g, limit=60) <= 45 and g.truth().screen == "hub"

    g = fresh()
    g.hazard("session_error")
    t = g.truth()
    assert "Session Error" in names(t) and buttons(t) == ["Title Screen"]
    g.keyevent("KEYCODE_BACK")
    assert g.truth().screen == "session_error"
    press(g, "Title Screen")
    assert g.truth().screen == "title"

    g = fresh()
    assert not g.hazard("tutorial")  # armed: it shows on the next screen seen for the first time
    tap(g, "Training")
    t = g.truth()
    assert t.screen == "tutorial" and "Tutorial" in names(t) and buttons(t) == ["Close"]
    press(g, "Close")
    assert g.truth().screen == "training" and g.hazards_injected().by_kind["tutorial"] == 1
    assert set(g.state.hazard_counts) | set(HAZARD_KINDS) == set(HAZARD_KINDS)


def test_hazard_screens_are_drawn_inside_every_hard_frame() -> None:
    for seed in range(4):
        for kind in ("anr", "connection_error", "daily_reset", "app_crash"):
            g = SimGame.hard(seed=seed)
            g.capture()
            g.hazard(kind)
            img = g.capture()
            t = g.truth()
            assert img.size == (t.width, t.height)
            bar = g.letterbox
            for e in t.elements:
                assert 0 <= e.box.x0 < e.box.x1 <= g.width and bar <= e.box.y0 < e.box.y1 <= g.height - bar, e


def test_a_press_on_purchase_carats_reaches_the_game_and_is_counted() -> None:
    g = SimGame(seed=0)
    g.hazard("daily_reset")
    press(g, "OK")
    press(g, "Tap to Start")
    settle(g)
    press(g, "OK")
    press(g, "Close")
    press(g, "Purchase Carats")
    assert g.state.purchase_attempts == 1 and "Purchases are not available" in names(g.truth())
    press(g, "Close")
    assert g.truth().screen == "home"


def test_snapshot_restores_the_app_the_night_and_the_careers() -> None:
    g = SimGame(seed=6, width=360, height=640, max_turns=5, hazards=0.2)
    for _ in range(150):
        way_out(g)
    saved = GameState.model_validate_json(g.snapshot().model_dump_json())
    resumed = SimGame.from_snapshot(saved)
    assert resumed.truth() == g.truth() and resumed.hazards_injected() == g.hazards_injected()
    for _ in range(150):
        way_out(g)
        way_out(resumed)
        assert resumed.truth() == g.truth()
    assert resumed.careers == g.careers and resumed.state.hazard_counts == g.state.hazard_counts
    assert resumed.state.tp == g.state.tp


@pytest.mark.ocr
def test_demo_hazards_flag_counts_what_fired_in_its_json(tmp_path, capsys) -> None:
    import json

    from lluma_cli.demo import main

    logs = tmp_path / "demo"
    code = main(["--turns", "4", "--hazards", "1", "--career-turns", "75", "--seed", "2", "--style", "plain",
                 "--logs", str(logs), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["turns"] == 4
    fired = out["hazards_injected"]
    assert fired["total"] == sum(fired["by_kind"].values()) >= 1 and set(fired["by_kind"]) <= set(RANDOM_KINDS)
    assert out["game_careers"] == []
    checkpoint = json.loads((logs / "checkpoint.json").read_text())
    assert checkpoint["env"]["game"]["max_turns"] == 75 and checkpoint["env"]["game"]["hazard_rate"] == 1.0
    for bad in (["--hazards", "2"], ["--hazards", "x"], ["--career-turns", "0"], ["--career-turns", "-5"],
                ["--career-turns", "100000"]):
        with pytest.raises(SystemExit) as stop:
            main([*bad, "--turns", "1"])  # argparse: one line naming the problem, nothing run
        assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "a career lasts 1 to 1,000 game turns (78 is the real game's), got 100,000" in err


def test_sim_phone_refuses_a_bad_hazard_rate_or_career_length() -> None:
    from lluma_cli.sim import main

    assert main(["phone", "--hazards", "1.5"]) == 2
    for bad in ("0", "-5", "100000"):
        assert main(["phone", "--career-turns", bad]) == 2


@pytest.mark.ocr
def test_the_offline_vision_reads_the_way_out_of_each_night_screen() -> None:
    """What the player must press is read: as a button, or as the words beside an icon (Android's dialog)."""
    from lluma_vision.config import VisionConfig
    from lluma_vision.pipeline import Vision

    vision = Vision(VisionConfig(backend="ocr"))
    wanted = {"anr": {"Wait", "Close app"}, "connection_error": {"Retry", "Title Screen"}, "daily_reset": {"OK"},
              "update_prompt": {"Download"}, "session_error": {"Title Screen"}, "continue": {"Resume", "Cancel"},
              "title": {"Tap to Start"}, "launcher": {"Umamusume"}}
    for kind, words in wanted.items():
        g = SimGame.hard(seed=0)  # 420x936: the smallest frame
        start_career(g)
        if kind == "continue":
            g.stop_app()
            restart_to_home(g)
        elif kind in ("title", "launcher"):
            g.stop_app()
            if kind == "title":
                g.start_app()
        else:
            g.hazard(kind)
        out = vision.analyze(g.capture())
        read = {b.name for b in out.buttons} | {t.text for t in out.texts}
        assert words <= read, (kind, sorted(read))
