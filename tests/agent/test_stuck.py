from lluma_agent.context.stuck import StuckDetector


def test_unchanged_streak_escalates_warn_force_pause():
    s = StuckDetector(warn_after=3, force_after=5, pause_after=7)
    levels = []
    for _ in range(7):
        s.record("aaaa", "pressButton(Infirmary)", changed=False)
        levels.append(s.state().level)
    assert levels == ["ok", "ok", "warn", "warn", "force", "force", "pause"]
    assert "did not change the screen" in s.state().warning


def test_a_change_resets_the_streak_and_memory_only_turns_do_not_count():
    s = StuckDetector(warn_after=2)
    s.record("a", "x", changed=False)
    s.record("a", "x", changed=None)
    assert s.state().level == "ok"
    s.record("a", "x", changed=False)
    assert s.state().level == "warn"
    s.record("a", "x", changed=True)
    assert s.state().level == "ok"


def test_abab_loop_is_detected_even_though_screens_change():
    s = StuckDetector(warn_after=4, force_after=6, pause_after=9)
    for i in range(6):
        s.record("aaaa" if i % 2 == 0 else "bbbb", "pressButton(Skills)" if i % 2 == 0 else "back", changed=True)
    st = s.state()
    assert st.level == "force" and st.loop_streak == 6 and "A-B-A-B" in st.reason


def test_progress_is_not_a_loop():
    s = StuckDetector(warn_after=3)
    for h in ["a", "b", "c", "d", "e", "f"]:
        s.record(h, "pressButton(Next)", changed=True)
    assert s.state().level == "ok"
