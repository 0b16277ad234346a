"""The game as an app (FACTS): started from the launcher to its title, tapped into (a maintenance notice or a data
update first, when there is one), the login's popups one by one, then "Continue Career" for a career in progress;
left (stopped, crashed, sent to the title) without losing the career, which resumes on the screen it was on."""

from __future__ import annotations

from lluma_sim.game import hazards as hz
from lluma_sim.game.flow import Play, dialog_of
from lluma_sim.game.flows import night
from lluma_sim.game.state import Action, DialogState

# Career screens a "Continue Career" goes back to; any other screen of a career resumes on the hub.
RESUMABLE = ("hub", "event", "race_lobby", "race_result", "race_rewards", "career_summary")


def launch(g: Play) -> None:
    g.start_app()


def start(g: Play) -> None:
    """The app starts (a new task, its window not drawn yet) on its title."""
    s = g.state
    s.running, s.drawn, s.task = True, False, s.task + 1
    s.screen, s.tab, s.dialog, s.anim, s.queue = "title", "Home", None, None, []


def stop(g: Play) -> None:
    """The app stops: the launcher; what was on screen is lost, the career is not."""
    leave_game(g)
    g.state.running, g.state.screen = False, "launcher"


def leave_game(g: Play) -> None:
    """The game goes away (stopped, or back to its title): animations end where they were going, what was on screen
    is lost, and the career screen to resume is kept."""
    for _ in range(20):  # queued phases (e.g. a race's result after its cutscene) still happen
        if not g.state.queue:
            break
        action = g.state.queue.pop(0)
        if action[0] != "anim":
            g.do(action)
    g.state.anim, g.state.queue, g.state.dialog, g.state.hazard = None, [], None, None
    note_resume(g)
    g.state.page = 0


def note_resume(g: Play) -> None:
    """The career screen a "Continue Career" will resume, from the screen the game is left on (a screen of the app's
    own, a download's progress, keeps what the career was on before)."""
    if g.state.screen in ("training", "skills", "races", "shop"):
        g.state.resume_screen = "hub"
    elif g.state.screen in RESUMABLE:
        g.state.resume_screen = g.state.screen


def to_title(g: Play, login: bool = False) -> None:
    leave_game(g)
    g.state.screen, g.state.tab = "title", "Home"
    if login:
        g.state.login = list(hz.LOGIN_POPUPS)


def title_tap(g: Play) -> None:
    if g.state.clock_s < g.state.maintenance_until:
        dialog_of(g, "maintenance", hz.MAINTENANCE, (("OK", "green", ("to_title",)),))
    elif g.state.update_pending:
        night.update_prompt(g)
    else:
        g.play([("anim", "loading"), ("goto", "home"), ("after_login",)])


def after_login(g: Play) -> None:
    """After the title: the login's popups one by one, then a career in progress asks to be continued."""
    g.state.dialog = None
    if g.state.login:
        kind = g.state.login.pop(0)
        if kind == "daily_sale":
            buttons: tuple[tuple[str, str, Action], ...] = (
                ("Close", "white", ("after_login",)), ("Purchase Carats", "green", ("purchase",)))
            dialog_of(g, kind, hz.DAILY_SALE, buttons, back=True)
        else:
            words = hz.LOGIN_BONUS if kind == "login_bonus" else hz.NOTICES
            dialog_of(g, kind, words, (("OK" if kind == "login_bonus" else "Close", "green", ("after_login",)),),
                      back=True)
    elif g.state.career_open:
        continue_prompt(g)


def purchase(g: Play) -> None:
    g.state.purchase_attempts += 1  # a money button reached the game: the agent's guard did not stop it
    dialog_of(g, "purchase", hz.PURCHASE_CLOSED, (("Close", "white", ("after_login",)),), back=True)


def continue_prompt(g: Play) -> None:
    c = g.live()
    g.state.dialog = DialogState(
        kind="continue_career",
        title="Continue Career",
        lines=("A career is in progress.", f"Turn {min(c.turn, c.max_turns)}/{c.max_turns}. Resume it?"),
        buttons=(("Cancel", "white", ("close",)), ("Resume", "green", ("resume",))),
    )


def resume(g: Play) -> None:
    g.state.dialog = None
    s = g.state
    s.screen = s.resume_screen if s.resume_screen != "event" or s.event else "hub"


def download(g: Play) -> None:
    """A data update's Download: its progress, then the title (the game restarts on new data)."""
    g.state.dialog, g.state.update_pending = None, False
    note_resume(g)  # the career under the prompt, before its progress screen takes the game to the title
    g.play([("anim", "download"), ("to_title",)])


def daily_reset(g: Play) -> None:
    """The date changed (its OK): back to the title, and the login's popups come again."""
    to_title(g, login=True)


def app_close(g: Play) -> None:
    g.stop_app()
