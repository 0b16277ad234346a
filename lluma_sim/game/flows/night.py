"""What a night brings (lluma_sim.game.hazards; FACTS' words): a crash, Android's "isn't responding", a connection
error, the daily reset, a maintenance, a data update, a long loading screen, a session error, a tutorial on a screen
seen for the first time. Each comes only at a calm moment and is counted by kind."""

from __future__ import annotations

from lluma_sim.game import hazards as hz
from lluma_sim.game.flow import Play, dialog_of
from lluma_sim.game.state import DialogState

# No hazard comes on these: the app's own start, and a completed career's result screens (the game shows them from
# what it saved; the agent's career tracker reads "Career Complete" there).
QUIET = ("title", "launcher", "career_results", "career_end")


def calm(g: Play) -> bool:
    """A moment a hazard can come: the game running, nothing animating, no dialog of the night's up."""
    s = g.state
    return s.running and s.anim is None and s.dialog is None and s.screen not in QUIET


def fire(g: Play, kind: str) -> bool:
    """Bring hazard `kind` if the moment is calm (a tutorial waits for its screen): True when it showed."""
    if kind == "tutorial":
        g.state.tutorial_armed = True
        return False  # counted when it shows
    if not calm(g):
        return False
    if kind == "app_crash":
        g.stop_app()
    elif kind == "anr":
        g.state.dialog = DialogState(kind="anr", title=hz.ANR_TITLE, lines=(),
                                     buttons=(("Close app", "", ("app_close",)), ("Wait", "", ("close",))))
    elif kind == "connection_error":
        dialog_of(g, kind, hz.CONNECTION_ERROR,
                  (("Title Screen", "white", ("to_title",)), ("Retry", "green", ("retry",))))
    elif kind == "daily_reset":
        dialog_of(g, kind, hz.DATE_CHANGED, (("OK", "green", ("daily_reset",)),))
    elif kind == "maintenance":
        g.state.maintenance_until = g.state.clock_s + hz.MAINTENANCE_S
        dialog_of(g, kind, hz.MAINTENANCE, (("OK", "green", ("to_title",)),))
    elif kind == "update_prompt":
        g.state.update_pending = True
        update_prompt(g)
    elif kind == "long_loading":
        g.play([("anim", "loading", "long"), ("back_to", g.state.screen)])
    elif kind == "session_error":
        dialog_of(g, kind, hz.SESSION_ERROR, (("Title Screen", "green", ("to_title",)),))
    g.state.hazard = kind
    g.state.hazard_counts[kind] = g.state.hazard_counts.get(kind, 0) + 1
    return True


def tutorial(g: Play) -> bool:
    """A tutorial armed shows on a screen seen for the first time: True when it showed."""
    if g.state.dialog is not None or g.state.anim is not None or not g.state.running:
        return False
    text = hz.TUTORIALS.get(g.state.screen)
    if text is None or g.state.screen in g.state.tutorials_seen:
        return False
    g.state.tutorials_seen.append(g.state.screen)
    g.state.tutorial_armed = False
    dialog_of(g, "tutorial", ("Tutorial", (text,)), (("Close", "green", ("close",)),), back=True)
    g.state.hazard = "tutorial"
    g.state.hazard_counts["tutorial"] = g.state.hazard_counts.get("tutorial", 0) + 1
    return True


def update_prompt(g: Play) -> None:
    dialog_of(g, "update_prompt", hz.DATA_UPDATE,
              (("Cancel", "white", ("to_title",)), ("Download", "green", ("download",))))


def retry(g: Play) -> None:
    g.state.dialog = None


def back_to(g: Play, screen: str) -> None:
    """A long loading screen ends where the game was."""
    g.state.screen = screen
