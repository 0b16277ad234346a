"""lluma_agent.device.app: the game as an Android app, read from the shell output real devices print (FACTS,
"The game as an app"), then over adb against the simulated phone."""

from __future__ import annotations

import pytest

from lluma_agent.config import GameConfig
from lluma_agent.device.app import GameApp, parse_focus, start_ok

PKG = "com.cygames.umamusume"
ACT = "jp.co.cygames.umamusume_activity.UmamusumeActivity"
LAUNCHER = "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"

# Android 12 prints one focus per display; the second display has none.
ANDROID_12 = f"""WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)
  Display: mDisplayId=0 rootTasks=5
    init=1080x2400 420dpi cur=1080x2400 app=1080x2337 rng=1080x1017-2337x2274
  mCurrentFocus=Window{{2785a60 u0 {PKG}/{ACT}}}
  mFocusedApp=ActivityRecord{{d72327 u0 {PKG}/{ACT} t409}}
  Display: mDisplayId=2 rootTasks=0
  mCurrentFocus=null
  mFocusedApp=null
WINDOW MANAGER WINDOWS (dumpsys window windows)
  Window #0 Window{{a1b2c3 u0 NavigationBar0}}:
"""


class FakeShell:
    """A device shell that answers from a table and records what it ran."""

    def __init__(self, answers: dict[str, tuple[str, str, int | None]]) -> None:
        self.answers, self.ran = answers, []

    def shell(self, command: str, what: str = "shell") -> tuple[str, str, int | None]:
        self.ran.append(command)
        return self.answers.get(command.split()[0], ("", "", 0))


def test_the_game_in_focus_on_a_device_with_several_focus_lines() -> None:
    focus = parse_focus(ANDROID_12)
    assert (focus.app, focus.activity) == (PKG, ACT) and focus.shows(PKG) and not focus.shows("jp.co.cygames.umamusume")


def test_null_focus_first_then_the_game() -> None:
    text = f"  mCurrentFocus=null\n  mFocusedApp=null\n  mCurrentFocus=Window{{9f u0 {PKG}/{ACT}}}\n"
    assert parse_focus(text).shows(PKG)


def test_the_launcher_in_front_is_not_the_game() -> None:
    text = (f"  mCurrentFocus=Window{{4d1 u0 {LAUNCHER}}}\n"
            f"  mFocusedApp=ActivityRecord{{77 u0 {LAUNCHER} t1}}\n")
    focus = parse_focus(text)
    assert focus.app == "com.google.android.apps.nexuslauncher" and not focus.shows(PKG)


def test_nothing_focused_is_not_the_game() -> None:
    assert not parse_focus("  mCurrentFocus=null\n  mFocusedApp=null\n").shows(PKG)


def test_output_without_any_focus_line_starts_nothing_on_a_guess() -> None:
    for text in ("", "Can't find service: window\n", "WINDOW MANAGER DISPLAY CONTENTS\n  Display: mDisplayId=0\n"):
        focus = parse_focus(text)
        assert not focus.known and focus.shows(PKG)


def test_an_isnt_responding_dialog_over_the_game_counts_as_the_game() -> None:
    text = (f"  mCurrentFocus=Window{{3e2 u0 Application Not Responding: {PKG}}}\n"
            f"  mFocusedApp=ActivityRecord{{d7 u0 {PKG}/{ACT} t409}}\n")
    focus = parse_focus(text)
    assert focus.dialog_over == PKG and focus.shows(PKG)  # the vision reads it; nobody starts the game again
    other = parse_focus("  mCurrentFocus=Window{3e2 u0 Application Not Responding: com.android.chrome}\n")
    assert not other.shows(PKG)


def test_a_system_window_in_front_defers_to_the_focused_app() -> None:
    text = (f"  mCurrentFocus=Window{{51 u0 NotificationShade}}\n"
            f"  mFocusedApp=ActivityRecord{{d7 u0 {PKG}/{ACT} t409}}\n")
    focus = parse_focus(text)
    assert focus.window == "NotificationShade" and focus.shows(PKG)


def test_start_uses_am_start_with_an_activity_and_monkey_without() -> None:
    shell = FakeShell({"am": (f"Starting: Intent {{ cmp={PKG}/{ACT} }}\n", "", 0),
                       "monkey": ("  bash arg: -p\n  bash arg: com.cygames.umamusume\nEvents injected: 1\n", "", 0)})
    started = GameApp(shell, GameConfig(activity=ACT)).start()
    assert started.ok and shell.ran[-1] == f"am start -n {PKG}/{ACT}" and "Starting: Intent" in started.output
    started = GameApp(shell, GameConfig()).start()
    assert started.ok and shell.ran[-1] == f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1"


@pytest.mark.parametrize(("command", "out", "err", "code"), [
    ("monkey -p x 1", "", "** No activities found to run, monkey aborted.\n", 0),  # not installed; exit 0 on old builds
    ("monkey -p x 1", "** No activities found to run, monkey aborted.\n", "", 252),
    ("monkey -p x 1", "", "", 0),  # nothing injected
    ("am start -n x/y", "Starting: Intent { cmp=x/y }\n", "Error type 3\nError: Activity class {x/y} does not exist.\n",
     0),
    ("am start -n x/y", "", "Exception occurred while executing 'start':\njava.lang.SecurityException: ...", 255),
])
def test_a_start_that_failed_is_seen_in_its_output(command: str, out: str, err: str, code: int) -> None:
    assert not start_ok(command, out, err, code)


def test_installed_and_stop() -> None:
    shell = FakeShell({"pm": ("package:/data/app/~~x==/com.cygames.umamusume-y==/base.apk\n", "", 0)})
    app = GameApp(shell, GameConfig())
    assert app.installed()
    app.stop()
    assert shell.ran[-1] == f"am force-stop {PKG}"
    assert not GameApp(FakeShell({"pm": ("", "", 1)}), GameConfig()).installed()
