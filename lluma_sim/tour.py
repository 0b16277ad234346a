"""A walk through the simulator's screens with the truth of which screen each frame shows (screen identity's
check: frames of one screen at other turns, scroll positions and styles must share an identity; other screens not).

The key is the truth's screen, refined where the game draws distinct screens under one kind: the setup's steps,
and a dialog's title (the Rest and Race Entry confirmations are both "confirm").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from PIL import Image

from lluma_sim.game import SimGame
from lluma_sim.game.truth import GroundTruth

PASSING = ("OK", "View Results", "Next", "Close", "Borrow", "Start Career!", "Auto-Select", "Finish", "To Home",
           "Complete Career")


@dataclass
class TourFrame:
    image: Image.Image
    key: str  # which screen this is (the truth's screen, refined)
    truth: GroundTruth


def screen_key(g: SimGame, t: GroundTruth) -> str:
    if g.state.dialog is not None:
        return f"{t.screen}:{g.state.dialog.title}"
    if t.screen == "setup":
        return f"setup:{g.state.setup_step}"
    if t.cinematic == "dialogue":  # an event's talk pages (Next) before its choices: the game's story dialogue
        return f"{t.screen}:dialogue"
    return t.screen


def _enabled(t: GroundTruth) -> dict[str, object]:
    return {e.name: e for e in t.elements if e.kind not in ("text",) and e.enabled}


def tour(seed: int = 0, style: str = "plain", turns: int = 3, per_screen: int = 3, **size: int) -> Iterator[TourFrame]:
    """Frames of a short career: setup, the hub and the training screen at several turns, an event's pages,
    the skill and race lists at the top and scrolled, the Rest and menu dialogs, a race entered and
    its result; at most `per_screen` of each."""
    g = SimGame(seed=seed, style=style, max_turns=turns, **size)  # type: ignore[arg-type]
    seen: dict[str, int] = {}
    shown: set[tuple[str, int, int]] = set()  # (key, turn, scroll position): a frame already taken
    done: set[str] = set()  # one-off visits already made (skills, races, menu, rest)
    for _ in range(turns * 40):
        img = g.capture()
        t = g.truth()
        key = screen_key(g, t)
        at = (key, t.turn, t.scrollbar.thumb.y0 if t.scrollbar is not None else -1)
        if seen.get(key, 0) < per_screen and (at not in shown or t.cinematic != "none"):
            seen[key] = seen.get(key, 0) + 1
            shown.add(at)
            yield TourFrame(img, key, t)
        if t.screen == "career_end" or (t.finished and t.screen == "home"):
            return
        if t.cinematic not in ("loading", "cutscene"):  # those pass by themselves
            _step(g, t, done)


def _tap(g: SimGame, t: GroundTruth, name: str) -> bool:
    e = next((e for e in t.elements if e.name == name and e.kind != "text" and e.enabled), None)
    if e is None:
        return False
    g.tap(*e.box.center)
    return True


def _step(g: SimGame, t: GroundTruth, done: set[str]) -> None:
    """One move of a player who looks around once, then trains."""
    names = _enabled(t)
    if g.state.dialog is not None:  # looked at: the Rest confirmation is cancelled, the menu closed, the rest taken
        if g.state.dialog.title == "Rest" and _tap(g, t, "Cancel"):
            return
        for name in PASSING:
            if _tap(g, t, name):
                return
        g.keyevent("KEYCODE_BACK")
        return
    if t.screen == "hub":
        for visit, name in (("skills", "Skills"), ("races", "Races"), ("menu", "Menu"), ("rest", "Rest")):
            if visit not in done and name in names:
                done.add(visit)
                _tap(g, t, name)
                return
        if t.turn >= 2 and "race" not in done and _tap(g, t, "Races"):  # the second visit enters a race
            done.add("race")
            return
        _tap(g, t, "Training")
        return
    if t.screen == "races" and "race" in done and "raced" not in done and _tap(g, t, "Race"):
        done.add("raced")
        return
    if t.screen in ("skills", "races"):
        if t.scrollbar is not None and t.scrollbar.down and f"{t.screen}-scrolled" not in done:
            done.add(f"{t.screen}-scrolled")
            g.swipe(g.width * 0.5, g.height * 0.6, g.width * 0.5, g.height * 0.35)
            return
        g.keyevent("KEYCODE_BACK")
        return
    if t.screen == "training":
        stat = ("Speed", "Stamina", "Power")[t.turn % 3]
        if _tap(g, t, stat):
            return
    if t.screen == "event":
        choices = [e.name for e in t.elements if e.kind == "choice"]
        if choices and _tap(g, t, choices[0]):
            return
    for name in PASSING + ("Career",):
        if _tap(g, t, name):
            return
    if names:
        _tap(g, t, next(iter(names)))
