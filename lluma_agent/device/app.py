"""The game as an Android app, over the device's adb shell: is it in the foreground, start it, stop it, is it
installed (FACTS, "The game as an app, and what a night brings").

- In the foreground: `dumpsys window`'s `mCurrentFocus=Window{<hex> u0 PKG/ACT}` lines (since Android 10 there
  can be several, `mCurrentFocus=null` among them) and `mFocusedApp=ActivityRecord{<hex> u0 PKG/ACT t<N>}`.
  A focus that names no app (a system window such as the status bar or the notification shade) defers to
  `mFocusedApp`. Android's "isn't responding" dialog over the game (`Application Not Responding: PKG`) counts
  as the game: the screen shows the dialog and the model (or the recovery ladder) presses Wait or Close app.
- Start: `am start -n PKG/ACT` when an activity is configured (`Starting: Intent { cmp=PKG/ACT }`; a wrong one
  prints `Error: Activity class {...} does not exist.`), else `monkey -p PKG -c android.intent.category.LAUNCHER 1`
  (`Events injected: 1`; a package that is not installed prints `** No activities found to run, monkey aborted.`).
- Stop: `am force-stop PKG` (silent). Installed: `pm path PKG` (`package:/data/app/.../base.apk`; exit 1 and no
  output when it is not).

The shell calls go through `Device.shell`, so a dropped device is reconnected and reported as for a capture.
"""

from __future__ import annotations

import re
import shlex
from typing import Protocol

from pydantic import BaseModel

from lluma_agent.config import GameConfig

# The clients' packages (FACTS); game.package names the one played.
KNOWN_PACKAGES = {
    "Global": "com.cygames.umamusume",
    "Japan": "jp.co.cygames.umamusume",
    "Korea": "com.kakaogames.umamusume",
    "Taiwan": "com.komoe.kmumamusumegp",
}
# `mCurrentFocus=Window{2785a60 u0 com.pkg/.Act}`, `mCurrentFocus=null`, `mFocusedApp=ActivityRecord{d7 u0 pkg/act t9}`
_FOCUS = re.compile(r"\b(mCurrentFocus|mFocusedApp)=(null|\w+\{[^}]*\})")
_WINDOW = re.compile(r"^\w+\{\S+ u\d+ (?P<what>.+?)(?: t\d+)?\}$")
_ANR = re.compile(r"^Application (?:Not Responding|Error): (?P<pkg>[\w.]+)$")  # "keeps stopping" is Application Error


class Shell(Protocol):
    def shell(self, command: str, what: str = "shell") -> tuple[str, str, int | None]: ...


class Focus(BaseModel):
    """What `dumpsys window` says has the focus."""

    window: str = ""  # the first non-null mCurrentFocus as written ("com.pkg/.Act", "StatusBar", "Application ...")
    app: str = ""  # the package of the focused window, or of mFocusedApp when the window names no app
    activity: str = ""
    dialog_over: str = ""  # a system "isn't responding" / "keeps stopping" dialog over this package
    known: bool = True  # False: the output held no focus line at all (an odd build): nobody can tell

    @property
    def who(self) -> str:
        """The focus as a person reads it: the window, else the app."""
        return self.window or self.app or "nothing has the focus"

    def shows(self, package: str) -> bool:
        """The game, or Android's dialog about the game, is what the screen shows (or the focus is not known:
        then nothing is started on a guess)."""
        return not self.known or package in (self.app, self.dialog_over)


def _app_of(what: str) -> tuple[str, str]:
    pkg, sep, act = what.partition("/")
    return (pkg, act) if sep and re.fullmatch(r"[\w.]+", pkg) else ("", "")


def parse_focus(text: str) -> Focus:
    """The focus in `dumpsys window` output (several mCurrentFocus / mFocusedApp lines possible)."""
    windows: list[str] = []
    apps: list[tuple[str, str]] = []
    found = _FOCUS.findall(text)
    if not found:
        return Focus(known=False)
    for key, value in found:
        if value == "null":
            continue
        m = _WINDOW.match(value)
        what = m.group("what") if m else value
        if key == "mCurrentFocus":
            windows.append(what)
        elif (app := _app_of(what))[0]:
            apps.append(app)
    focus = Focus(window=windows[0] if windows else "")
    for what in windows:
        if m := _ANR.match(what):
            return focus.model_copy(update={"dialog_over": m.group("pkg"), "app": m.group("pkg")})
        pkg, act = _app_of(what)
        if pkg:
            return focus.model_copy(update={"app": pkg, "activity": act})
    if apps:  # no window names an app (none focused, or a system window): the focused app decides
        return focus.model_copy(update={"app": apps[0][0], "activity": apps[0][1]})
    return focus


class Started(BaseModel):
    """One attempt to start the game."""

    ok: bool
    command: str
    output: str  # what the device printed, trimmed


_WHY = re.compile(r"aborted|Error|Exception|does not exist|not found", re.IGNORECASE)
GIST_CHARS = 120  # a launcher's line that says why is shorter (`** No activities found to run, monkey aborted.`: 48)


def gist(output: str) -> str:
    """One line of what a start printed: the line that says why it failed, else the last one (`monkey` echoes its
    arguments a line each before `** No activities found to run, monkey aborted.`)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    line = next((x for x in reversed(lines) if _WHY.search(x)), lines[-1] if lines else "")
    return line if len(line) <= GIST_CHARS else line[: GIST_CHARS - 3] + "..."


def start_ok(command: str, out: str, err: str, code: int | None) -> bool:
    """Did `am start` / `monkey` start it? Their exit status alone does not say (old builds exit 0 on errors)."""
    text = f"{out}\n{err}"
    if code not in (0, None) or "monkey aborted" in text or "No activities found" in text:
        return False
    if re.search(r"^\s*Error", text, re.MULTILINE) or "Exception" in text:
        return False
    return "Events injected: 1" in text if command.startswith("monkey") else True


class GameApp:
    """The game on `device` as `cfg` names it (game.package, game.activity)."""

    def __init__(self, device: Shell, cfg: GameConfig) -> None:
        self.device, self.cfg = device, cfg

    @property
    def package(self) -> str:
        return self.cfg.package

    def focus(self) -> Focus:
        """One `dumpsys window`, every turn: one adb command (2.4 ms on the simulated phone, where a raw capture
        takes 42 ms; on a phone an adb round trip, ~20 ms, plus dumpsys's own time on the device, not measured)."""
        out, _, _ = self.device.shell("dumpsys window", "foreground")
        return parse_focus(out)

    def in_foreground(self) -> bool:
        return self.focus().shows(self.package)

    def start_command(self) -> str:
        pkg = shlex.quote(self.package)
        if self.cfg.activity:
            return f"am start -n {shlex.quote(f'{self.package}/{self.cfg.activity}')}"
        return f"monkey -p {pkg} -c android.intent.category.LAUNCHER 1"

    def start(self) -> Started:
        command = self.start_command()
        out, err, code = self.device.shell(command, "start game")
        text = "\n".join(s for s in (out.strip(), err.strip()) if s)
        return Started(ok=start_ok(command, out, err, code), command=command, output=text[-500:])

    def stop(self) -> None:
        self.device.shell(f"am force-stop {shlex.quote(self.package)}", "stop game")

    def installed(self) -> bool:
        out, _, code = self.device.shell(f"pm path {shlex.quote(self.package)}", "installed")
        return code in (0, None) and out.strip().startswith("package:")
