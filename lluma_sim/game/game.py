"""SimGame: the simulated phone game. Holds UI state, dispatches input, renders frames once per change."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from PIL import Image

from lluma_sim.game import hazards as hz
from lluma_sim.game import screens_app, screens_career, screens_home
from lluma_sim.game.calendar import MAX_CAREER_TURNS
from lluma_sim.game.career import Career
from lluma_sim.game.content import SKILLS, Event, Race, bond_level
from lluma_sim.game.draw import Painter, Widget
from lluma_sim.game.goals import goal_race
from lluma_sim.game.hazards import HazardsInjected
from lluma_sim.game.state import (
    Action,
    AnimState,
    CareerRecord,
    DialogState,
    GameState,
    GoalRecord,
    RaceResult,
    RngState,
    Style,
)
from lluma_sim.game.truth import Cinematic, Element, GroundTruth, ReceivedTap, SupportTruth
from lluma_vision.models import Box

LOADING_FRAMES = 3  # captures a loading screen stays up
CUTSCENE_FRAMES = {"intro": 6, "race": 5, "outing": 4}
BACK_KEYS = {"KEYCODE_BACK", "BACK", "4", 4}
# Frames real captures come in, for the hard style: small phones, letterboxed emulator windows.
HARD_VARIANTS: tuple[dict[str, int], ...] = (
    {"width": 420, "height": 936},
    {"width": 1080, "height": 2400, "letterbox": 240},
    {"width": 420, "height": 936, "letterbox": 95},
    {"width": 1080, "height": 1920},
)
SETTINGS = ("Sound", "Auto Skip", "Portrait")  # rows of the hard style's settings modal
PACKAGE = "com.cygames.umamusume"  # the Global client (FACTS): its words are English
ACTIVITY = "jp.co.cygames.umamusume_activity.UmamusumeActivity"
CAREER_TP = 30  # a career costs 30 TP of 100 (FACTS)
MAX_TP = 100
# Career screens a "Continue Career" goes back to; any other screen of a career resumes on the hub.
RESUMABLE = ("hub", "event", "race_lobby", "race_result", "race_rewards", "career_summary")
# No hazard comes on these: the app's own start, and a completed career's result screens (the game shows them from
# what it saved; the agent's career tracker reads "Career Complete" there).
QUIET = ("title", "launcher", "career_results", "career_end")

DRAWERS = {
    "home": screens_home.draw_home,
    "loading": screens_home.draw_loading,
    "cutscene": screens_home.draw_cutscene,
    "career_end": screens_home.draw_career_end,
    "launcher": screens_app.draw_launcher,
    "title": screens_app.draw_title,
    "download": screens_app.draw_download,
    "setup": screens_app.draw_setup,
    "career_summary": screens_app.draw_career_summary,
    "career_results": screens_app.draw_career_results,
    "hub": screens_career.draw_hub,
    "training": screens_career.draw_training,
    "event": screens_career.draw_event,
    "skills": screens_career.draw_skills,
    "races": screens_career.draw_races,
    "race_lobby": screens_career.draw_race_lobby,
    "race_result": screens_career.draw_race_result,
    "race_rewards": screens_career.draw_race_rewards,
}


class SimGame:
    """A small career-training game in the look of Uma Musume. Thread-safe; deterministic per seed.

    Flows (button labels as drawn):
      home: Career -> Select Scenario (Next) -> Select Trainee (Next) -> Select Legacy (Auto-Select, Next)
            -> Support Deck (Borrow, Start Career!: 30 TP; too few shows Confirm / Recover TP)
            -> loading (3 captures) -> cutscene (6, or Skip) -> hub
      hub: Training -> Speed|Stamina|Power|Guts|Wit (one turn) | Rest -> OK (one turn)
           | Recreation (one turn, 4-capture cutscene) | Infirmary (one turn, only with a condition)
           | Races -> pick a race row -> Race -> OK -> loading 3 -> cutscene 5 -> result -> Next (one turn)
           | Skills -> Learn... -> Confirm -> OK (no turn)
      after a turn: maybe an event (Next/tap the box through the pages, then tap a choice), else the hub;
      after max_turns: loading 3 -> career_summary (Complete Career) -> confirm Finish -> career_results (Next,
      OK) -> career_end "Career Complete" (To Home) -> home; the ended career is in `careers`.
    The game is an app: `stop_app()` (a crash, `am force-stop`) shows the phone's launcher and loses what was on
    screen, not the career; `start_app()` (the launcher icon, `am start`, `monkey`) shows the title screen
    (tap) -> loading -> home, and a career in progress asks "Continue Career" (Cancel / Resume).
    `hazards` > 0 brings what a night brings (lluma_sim.game.hazards) after inputs, on the game's own clock.
    Animations advance one step per capture(); truth() describes what the next capture shows, except that
    capture() first advances a running animation.
    """

    package = PACKAGE
    activity = ACTIVITY

    def __init__(
        self,
        seed: int = 0,
        width: int = 1080,
        height: int = 1920,
        max_turns: int = 24,
        style: Style = "plain",
        letterbox: int = 0,
        hazards: float = 0.0,
        tp: int = MAX_TP,
    ) -> None:
        """`style="hard"` draws the kinds real screens have and simple detectors miss (plate-less hub tiles,
        a stat icon row, a tab bar over content, settings toggles); `letterbox` adds black bars of that many
        pixels above and below the game, inside the `width` x `height` frame. `hazards`: per input, the chance
        of one of a night's hazards (lluma_sim.game.hazards); `tp`: trainer points to begin with."""
        if not 0 <= letterbox < height // 4:
            raise ValueError(f"letterbox bars of {letterbox} px do not fit a {height} px tall frame")
        if not 1 <= max_turns <= MAX_CAREER_TURNS:
            raise ValueError(f"a career lasts 1 to {MAX_CAREER_TURNS} turns, not {max_turns}")
        self.seed, self.width, self.height, self.max_turns, self.style = seed, width, height, max_turns, style
        self.letterbox = letterbox
        self.rng = random.Random(seed)
        self._lock = threading.RLock()
        self.screen = "home"
        self.tab = "Home"
        self.dialog: DialogState | None = None
        self.anim: AnimState | None = None
        self.queue: list[Action] = []  # phases that follow the current animation
        self.career: Career | None = None
        self.event: Event | None = None
        self.page = 0
        self.quick = False
        self.scroll = 0  # skills list offset, device px
        self.pending: list[str] = []  # skills marked with Learn, not yet confirmed
        self.races: list[Race] = []
        self.race_sel = 0
        self.result: RaceResult | None = None
        self.settings: dict[str, bool] = {}
        self._finished = False
        # the app and the night (see GameState for each)
        self.running, self.task, self.drawn = True, 409, True
        self.resume_screen = "hub"
        self.career_open = False
        self.careers: list[CareerRecord] = []  # ended careers, ground truth for the demo and benchmarks
        self.setup_step, self.trainee, self.legacy_set, self.friend_set, self.results_page = 0, 0, False, False, 0
        self.tp, self.tp_items = tp, 0
        self.clock_s = self.tp_clock_s = 0.0
        self.wall: Callable[[], float] = time.monotonic  # real time, for a phone left idle (hz.IDLE_S)
        self._last_wall: float | None = None
        self.hazard_rate = hz.check_rate(hazards)
        self.hazard_rng = hz.hazard_rng(seed)
        self.hazard_counts: dict[str, int] = {}
        self.hazard_now: str | None = None
        self.maintenance_until = 0.0
        self.update_pending = False
        self.login: list[str] = []
        self.tutorial_armed = False
        self.tutorials_seen: list[str] = []
        self.purchase_attempts = 0
        self.taps: list[ReceivedTap] = []  # every tap received, with the truth element under it (not state)
        self.frame_no = 0  # captures taken
        self.version = 0  # bumps whenever the picture changes
        self._layout: tuple[int, Painter] | None = None
        self._image: tuple[int, Image.Image] | None = None

    # --- public API -----------------------------------------------------------------------

    @property
    def score(self) -> int:
        with self._lock:
            return self.career.score() if self.career else 0

    @property
    def turn(self) -> int:
        with self._lock:
            return min(self.career.turn, self.max_turns) if self.career else 0

    @property
    def finished(self) -> bool:
        with self._lock:
            return self._finished

    @property
    def app_state(self) -> str:
        """What the phone shows: "game", "anr" (Android's dialog over the game) or "launcher" (not running)."""
        with self._lock:
            if not self.running:
                return "launcher"
            return "anr" if self.dialog is not None and self.dialog.kind == "anr" else "game"

    def hazards_injected(self) -> HazardsInjected:
        with self._lock:
            return HazardsInjected.of(self.hazard_counts)

    def start_app(self) -> bool:
        """Start the game (launcher icon, `am start`, `monkey`): its title screen. False: it was running already."""
        with self._lock:
            if self.running:
                return False
            self.running, self.drawn, self.task = True, False, self.task + 1
            self.screen, self.tab, self.dialog, self.anim, self.queue = "title", "Home", None, None, []
            self.version += 1
            return True

    def stop_app(self) -> bool:
        """Stop the game (`am force-stop`, a crash, Close app): the launcher. What was on screen is lost, the
        career is not (the game saves it each turn). False: it was not running."""
        with self._lock:
            if not self.running:
                return False
            self._leave_game()
            self.running, self.screen = False, "launcher"
            self.version += 1
            return True

    def hazard(self, kind: str) -> bool:
        """Bring hazard `kind` now (tests; `session_error` only comes this way). False: it cannot show now."""
        with self._lock:
            if kind not in hz.HAZARD_KINDS:
                raise ValueError(f"unknown hazard {kind!r}; known: {', '.join(hz.HAZARD_KINDS)}")
            fired = self._fire(kind)
            if fired:
                self.version += 1
            return fired

    def capture(self) -> Image.Image:
        """The next frame. Shared and cached while nothing changes: treat it as read-only."""
        with self._lock:
            self.frame_no += 1
            self.drawn = True
            self._clock(hz.CAPTURE_S)
            self._tick()
            if self._image is None or self._image[0] != self.version:
                p = Painter(self.width, self._content_h, render=True)
                self._draw(p)
                self._layout = (self.version, p)
                assert p.img is not None  # a rendering painter has its picture
                img = p.img
                if self.letterbox:
                    img = Image.new("RGB", (self.width, self.height))
                    img.paste(p.img, (0, self.letterbox))
                self._image = (self.version, img)
            return self._image[1]

    @property
    def _content_h(self) -> int:
        return self.height - 2 * self.letterbox

    def tap(self, x: float, y: float) -> None:
        with self._lock:
            self.taps.append(self._received(x, y))
            y -= self.letterbox  # frame -> game coordinates
            for w in reversed(self._widgets()):  # last drawn is on top
                if w.box.contains(x, y) and w.action is not None:
                    before = self._stock()
                    self._do(w.action)
                    if spent := [what for what, n in self._stock().items() if n < before.get(what, n)]:
                        self.taps[-1] = self.taps[-1].model_copy(update={"spent": ", ".join(spent)})
                    break
            self._after_input()

    def _stock(self) -> dict[str, int]:
        """What a tap can spend, counted: a spend is a count that went down (the game's own record of it)."""
        return {"a TP item": self.tp_items, **({"an Alarm Clock": self.career.clocks} if self.career else {})}

    def _framed(self, b: Box) -> Box:
        """Game coordinates -> frame coordinates (below the top letterbox bar)."""
        return b if not self.letterbox else Box(x0=b.x0, y0=b.y0 + self.letterbox, x1=b.x1, y1=b.y1 + self.letterbox)

    def _received(self, x: float, y: float) -> ReceivedTap:
        t = self.truth()
        under = [e for e in t.elements if e.box.contains(x, y) and e.kind != "scrollbar"]
        hit = next((e for e in reversed(under) if e.kind != "text"), None) or next(iter(under), None)
        return ReceivedTap(
            x=x,
            y=y,
            frame_no=self.frame_no,
            screen=t.screen,
            element=hit.name if hit else None,
            kind=hit.kind if hit else None,
        )

    def swipe(self, x0: float, y0: float, x1: float, y1: float, duration_ms: int = 300) -> None:
        with self._lock:
            if abs(x1 - x0) + abs(y1 - y0) < 0.01 * self.width:
                self.tap(x0, y0)  # a swipe that does not move is a tap, as on Android
                return
            view = screens_career.skills_view(self.width, self._content_h)
            if self.screen == "skills" and not self.dialog and view.contains(x0, y0 - self.letterbox):
                top = screens_career.max_scroll(self.width, self._content_h)
                new = max(0, min(top, self.scroll - round(y1 - y0)))
                if new != self.scroll:
                    self.scroll = new
                    self.version += 1
            self._after_input()

    def keyevent(self, key: str | int) -> None:
        with self._lock:
            if key not in BACK_KEYS:
                return
            if self.dialog and self.dialog.kind == "anr":
                self._do(("close",))  # Android: BACK on its dialog waits
            elif self.dialog:
                if self.dialog.back:
                    self._do(self.dialog.buttons[0][2])
            elif self.screen in ("training", "skills", "races"):
                self._do(("goto", "hub"))
            elif self.screen == "setup":
                self._do(("setup_back",))
            self._after_input()

    def text(self, text: str) -> None:
        """No text fields in this game: ignored, as a phone ignores typing with nothing focused."""

    def truth(self) -> GroundTruth:
        with self._lock:
            p = self._painter()
            c = self.career
            goal = c.goal_now() if c else None
            tabs = [w for w in p.widgets if w.kind == "tab"]
            return GroundTruth(
                screen=self.dialog.kind if self.dialog else self.screen,
                width=self.width,
                height=self.height,
                elements=[
                    Element(name=w.name, kind=w.kind, box=self._framed(w.box), enabled=w.enabled, row=w.row)
                    for w in p.widgets
                    if w.truth
                ],
                scrollbar=p.scrollbar.model_copy(
                    update={"track": self._framed(p.scrollbar.track), "thumb": self._framed(p.scrollbar.thumb)}
                )
                if p.scrollbar
                else None,
                selected_tab=self.tab if tabs else None,
                menu_usable=(self.dialog is None) if tabs else None,
                cinematic=self._cinematic(),
                turn=self.turn,
                max_turns=self.max_turns,
                score=self.score,
                finished=self._finished,
                frame_no=self.frame_no,
                energy=c.energy if c else None,
                mood=c.mood_word if c else None,
                stats=dict(c.stats) if c else {},
                skill_points=c.skill_points if c else None,
                condition=c.condition if c else None,
                race_wins=c.wins if c else 0,
                date=c.date if c else None,
                goal=goal[1].text if goal else None,
                goal_status=screens_career.goal_status(c) if c else None,
                turns_left=goal[2] - min(c.turn, c.max_turns) if c and goal else None,
                fans=c.fans if c else 0,
                clocks=c.clocks if c else 0,
                selected=c.sel if c and self.screen == "training" else None,
                supports=[SupportTruth(name=n, bond=bond_level(c.bonds.get(n, 0)), hint=n in c.hints)
                          for n in c.cards_on(c.sel)] if c and self.screen == "training" else [],
                app=self.app_state,
                hazard=self.hazard_now,
                tp=self.tp,
                career_open=self.career_open,
                careers=list(self.careers),
            )

    def snapshot(self, with_rng: bool = True) -> GameState:
        """The whole state, frozen; `restore()` of it into any SimGame continues exactly from here."""
        with self._lock:
            c = self.career
            return GameState(
                seed=self.seed,
                width=self.width,
                height=self.height,
                max_turns=self.max_turns,
                style=self.style,
                letterbox=self.letterbox,
                rng=RngState.of(self.rng) if with_rng else None,
                screen=self.screen,
                tab=self.tab,
                dialog=self.dialog,
                anim=self.anim,
                queue=tuple(self.queue),
                career=c.state() if c else None,
                event=self.event,
                page=self.page,
                quick=self.quick,
                scroll=self.scroll,
                pending=tuple(self.pending),
                races=tuple(self.races),
                race_sel=self.race_sel,
                result=self.result,
                finished=self._finished,
                frame_no=self.frame_no,
                version=self.version,
                settings=dict(self.settings),
                running=self.running,
                task=self.task,
                drawn=self.drawn,
                resume_screen=self.resume_screen,
                career_open=self.career_open,
                careers=tuple(self.careers),
                setup_step=self.setup_step,
                trainee=self.trainee,
                legacy_set=self.legacy_set,
                friend_set=self.friend_set,
                results_page=self.results_page,
                tp=self.tp,
                tp_items=self.tp_items,
                clock_s=self.clock_s,
                tp_clock_s=self.tp_clock_s,
                hazard_rate=self.hazard_rate,
                hazard_rng=RngState.of(self.hazard_rng) if with_rng else None,
                hazard_counts=dict(self.hazard_counts),
                hazard=self.hazard_now,
                maintenance_until=self.maintenance_until,
                update_pending=self.update_pending,
                login=tuple(self.login),
                tutorial_armed=self.tutorial_armed,
                tutorials_seen=tuple(self.tutorials_seen),
                purchase_attempts=self.purchase_attempts,
            )

    def restore(self, state: GameState) -> None:
        """Take over a snapshot (size, seed and style included). The RNG goes on where it was."""
        if state.rng is None:
            raise ValueError("a snapshot without RNG state cannot be restored")
        with self._lock:
            self.seed, self.width, self.height = state.seed, state.width, state.height
            self.max_turns, self.style, self.letterbox = state.max_turns, state.style, state.letterbox
            state.rng.apply(self.rng)
            self.screen, self.tab, self.dialog, self.anim = state.screen, state.tab, state.dialog, state.anim
            self.queue = list(state.queue)
            self.career = Career.new(self.rng, self.max_turns, state.career) if state.career else None
            self.event, self.page, self.quick, self.scroll = state.event, state.page, state.quick, state.scroll
            self.pending, self.races, self.race_sel = list(state.pending), list(state.races), state.race_sel
            self.result, self._finished, self.settings = state.result, state.finished, dict(state.settings)
            self.frame_no, self.version = state.frame_no, state.version
            self.running, self.task, self.drawn = state.running, state.task, state.drawn
            self.resume_screen, self.career_open, self.careers = state.resume_screen, state.career_open, list(
                state.careers)
            self.setup_step, self.trainee, self.legacy_set = state.setup_step, state.trainee, state.legacy_set
            self.friend_set, self.results_page = state.friend_set, state.results_page
            self.tp, self.tp_items, self.clock_s, self.tp_clock_s = state.tp, state.tp_items, state.clock_s, (
                state.tp_clock_s)
            self.hazard_rate, self.hazard_counts = state.hazard_rate, dict(state.hazard_counts)
            self.hazard_rng = hz.hazard_rng(state.seed)
            if state.hazard_rng is not None:
                state.hazard_rng.apply(self.hazard_rng)
            self.hazard_now, self.maintenance_until = state.hazard, state.maintenance_until
            self.update_pending, self.login = state.update_pending, list(state.login)
            self.tutorial_armed, self.tutorials_seen = state.tutorial_armed, list(state.tutorials_seen)
            self.purchase_attempts = state.purchase_attempts
            self._layout = self._image = None

    @classmethod
    def hard(cls, seed: int = 0, max_turns: int = 24, hazards: float = 0.0) -> SimGame:
        """The hard style at the frame size and letterboxing this seed's variant picks."""
        return cls(seed=seed, max_turns=max_turns, style="hard", hazards=hazards,
                   **HARD_VARIANTS[seed % len(HARD_VARIANTS)])

    @classmethod
    def from_snapshot(cls, state: GameState) -> SimGame:
        g = cls(seed=state.seed, width=state.width, height=state.height, max_turns=state.max_turns)
        g.restore(state)
        return g

    # --- rendering ------------------------------------------------------------------------

    def _draw(self, p: Painter) -> None:
        view = self.snapshot(with_rng=False)  # painters get a frozen copy: drawing cannot change the game
        p.dim_disabled = view.style == "hard"
        DRAWERS[self.screen](p, view)
        if self.dialog:
            p.cover()
            if self.dialog.kind == "anr":
                screens_app.draw_anr(p, self.dialog, dark=view.style == "hard")
            else:
                screens_home.draw_dialog(p, self.dialog, self.settings)

    def _painter(self) -> Painter:
        if self._layout is None or self._layout[0] != self.version:
            p = Painter(self.width, self._content_h, render=False)
            self._draw(p)
            self._layout = (self.version, p)
        return self._layout[1]

    def _widgets(self) -> list[Widget]:
        return self._painter().widgets

    def _cinematic(self) -> Cinematic:
        if self.anim:
            return "cutscene" if self.anim.kind == "cutscene" else "loading"
        if self.screen == "event" and self.event and self.page < len(self.event.pages) and not self.dialog:
            return "dialogue"
        return "none"

    # --- animation ------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self.anim:
            return
        self.anim = self.anim.model_copy(update={"step": self.anim.step + 1})
        self.version += 1
        if self.anim.step > self.anim.total:
            self._next_phase()
            if self.anim:
                self.anim = self.anim.model_copy(update={"step": 1})  # this capture already shows the new one

    def _play(self, phases: list[Action]) -> None:
        self.queue = list(phases)
        self._next_phase()

    def _next_phase(self) -> None:
        """The next phases up to the next animation (or to the end of the queue)."""
        self.anim = None
        while self.queue and self.anim is None:
            self._do(self.queue.pop(0))

    # --- actions (widgets carry these as tuples: name, *args) -----------------------------

    def _do(self, action: Action) -> None:
        getattr(self, "_act_" + str(action[0]))(*action[1:])
        if self.hazard_now is not None and self.anim is None and (
                self.dialog is None or self.dialog.kind in ("confirm", "menu", "settings")):
            self.hazard_now = None  # the night's trouble is off the screen
        self.version += 1

    def _act_anim(self, kind: str, theme: str = "") -> None:
        if kind == "loading":
            total = hz.LONG_LOADING_FRAMES if theme == "long" else LOADING_FRAMES
        elif kind == "download":
            total = hz.DOWNLOAD_FRAMES
        else:
            total = CUTSCENE_FRAMES[theme]
        self.anim = AnimState(kind=kind, total=total, theme=theme)
        self.screen = kind

    def _act_goto(self, screen: str) -> None:
        self.dialog = None
        if screen == "skills":
            self.pending, self.scroll = [], 0
        if screen == "races" and self.career:
            day = self.career.race_day()
            if day is None:
                self.races = self.career.races_available()
            else:  # Race Day: the goal's race alone
                self.races = [goal_race(self.career.goals()[day][0], self.career.turn)]
            self.race_sel = 0
        self.screen = screen

    def _act_tab(self, name: str) -> None:
        self.tab = name

    def _act_close(self) -> None:
        self.dialog = None

    def _act_menu(self) -> None:
        if self.style == "hard":  # the real game's menu leads to settings with toggle pairs
            self.dialog = DialogState(
                kind="settings", title="Settings", lines=SETTINGS, buttons=(("Close", "white", ("close",)),)
            )
            return
        self.dialog = DialogState(
            kind="menu",
            title="Menu",
            lines=("LLuMa training simulator.", "Progress is saved each turn."),
            buttons=(("Close", "white", ("close",)),),
        )

    def _act_set(self, name: str, on: bool) -> None:
        self.settings[name] = on

    def _confirm(self, title: str, lines: list[str], ok: Action) -> None:
        self.dialog = DialogState(
            kind="confirm",
            title=title,
            lines=tuple(lines),
            buttons=(("Cancel", "white", ("close",)), ("OK", "green", ok)),
        )

    def _act_career_prompt(self) -> None:
        if self.career_open:  # the game never starts a second career over one in progress
            self._continue_prompt()
            return
        self.screen, self.setup_step, self.trainee, self.legacy_set, self.friend_set = "setup", 0, 0, False, False

    def _act_setup_next(self) -> None:
        self.setup_step = min(3, self.setup_step + 1)

    def _act_setup_back(self) -> None:
        if self.setup_step == 0:
            self.screen = "home"
        self.setup_step = max(0, self.setup_step - 1)

    def _act_trainee(self, index: int) -> None:
        self.trainee = index

    def _act_auto_select(self) -> None:
        self.legacy_set = True

    def _act_borrow(self) -> None:
        self.friend_set = True

    def _act_start_press(self) -> None:
        if self.tp < CAREER_TP:
            self.dialog = DialogState(
                kind="tp_confirm",
                title="Confirm",
                lines=("Not enough TP to start a career.", f"TP {self.tp}/{MAX_TP}; a career uses {CAREER_TP}."),
                buttons=(("Cancel", "white", ("close",)), ("Recover TP", "green", ("recover_prompt",))),
            )
            return
        self.tp -= CAREER_TP
        self._act_start_career()

    def _act_recover_prompt(self) -> None:
        self.dialog = DialogState(
            kind="recover_tp",
            title="Recover TP",
            lines=(f"Toughness 30 (owned: {self.tp_items}): +30 TP.", f"TP {self.tp}/{MAX_TP}."),
            buttons=(("Cancel", "white", ("close",)), ("Use", "green", ("use_item",))),
        )

    def _act_use_item(self) -> None:
        self.dialog = None
        if self.tp_items > 0:
            self.tp_items -= 1
            self.tp = min(MAX_TP + 30, self.tp + 30)

    def _act_start_career(self) -> None:
        self.dialog = None
        self.career = Career.new(self.rng, self.max_turns, trainee=self.trainee)
        self.career.deal()
        self._finished, self.career_open, self.resume_screen = False, True, "hub"
        self._play([("anim", "loading"), ("anim", "cutscene", "intro"), ("goto", "hub")])

    def _act_skip_anim(self) -> None:
        self._next_phase()

    def _act_rest_prompt(self) -> None:
        self._confirm("Rest", ["Rest for this turn?", "Energy will recover."], ("rest",))

    def _act_rest(self) -> None:
        self.dialog = None
        self._career().rest()
        self._end_turn()

    def _act_recreation(self) -> None:
        self._career().recreation()
        self._play([("anim", "cutscene", "outing"), ("end_turn",)])

    def _act_infirmary(self) -> None:
        self._career().infirmary()
        self._end_turn()

    def _act_tile(self, stat: str) -> None:
        """A training tile: a tap on another raises it (its gains, failure and cards show), a tap on the raised one
        trains (FACTS: the training screen)."""
        c = self._career()
        if c.sel != stat:
            c.sel = stat
            return
        c.train(stat)
        self._end_turn()

    def _act_end_turn(self) -> None:
        self._end_turn()

    def _end_turn(self) -> None:
        c = self._career()
        if c.next_turn():
            self.event, self.page = c.pick_event(), 0
            if self.quick:
                self.page = len(self.event.pages)
            self.screen = "event"
        elif c.ended:
            self.screen = "hub"
            self._goal_missed()
        elif c.over:
            self._finished = True
            self._play([("anim", "loading"), ("goto", "career_summary")])
        else:
            self.screen = "hub"

    def _act_page(self) -> None:
        if self.event and self.page < len(self.event.pages):
            self.page += 1

    def _act_skip(self) -> None:
        if self.event:
            self.page = len(self.event.pages)

    def _act_quick(self) -> None:
        self.quick = not self.quick
        self._act_skip()

    def _act_choose(self, index: int) -> None:
        assert self.event is not None
        self._career().apply_choice(self.event.choices[index])
        self.event = None
        if self._career().over:
            self._finished = True
            self._play([("anim", "loading"), ("goto", "career_summary")])
        else:
            self.screen = "hub"

    def _act_learn(self, name: str) -> None:
        self.pending.append(name)

    def _act_reset(self) -> None:
        self.pending = []

    def _act_confirm_skills(self) -> None:
        cost = sum(s.cost for s in SKILLS if s.name in self.pending)
        n = len(self.pending)
        self._confirm(
            "Learn Skills",
            [f"Learn {n} skill{'s' if n > 1 else ''}?", f"Cost: {cost} skill points."],
            ("learn_commit",),
        )

    def _act_learn_commit(self) -> None:
        self._career().learn(self.pending)
        self.pending, self.dialog = [], None

    def _act_select_race(self, index: int) -> None:
        self.race_sel = index

    def _act_race_prompt(self) -> None:
        race = self.races[self.race_sel]
        self._confirm("Race Entry", [f"Enter the {race.name}?", "Racing uses a turn and energy."], ("race",))

    def _act_race(self) -> None:
        self.dialog = None
        c = self._career()
        self.result = c.run_race(self.races[self.race_sel], c.race_day())
        self._play([("anim", "loading"), ("goto", "race_lobby")])

    def _act_race_next(self) -> None:
        """The placing's Next: the rewards, or, for a goal race lost, "Try Again" for an Alarm Clock when one is
        left (the item is spent only on the player's word), else the goal is missed."""
        c, r = self._career(), self.result
        if r is None or r.goal is None or c.goal_met(r.goal):
            self.screen = "race_rewards"
        elif c.clocks > 0:
            self.dialog = DialogState(
                kind="try_again",
                title="Try Again",
                lines=("Use 1 Alarm Clock to try again?", f"Alarm Clocks owned: {c.clocks}"),
                buttons=(("Cancel", "white", ("give_up",)), ("Try Again", "green", ("try_again",))),
            )
        else:
            self._goal_missed()

    def _act_try_again(self) -> None:
        assert self.result is not None
        self.dialog = None
        self.result = self._career().try_again(self.result)
        self._play([("anim", "loading"), ("goto", "race_lobby")])

    def _act_give_up(self) -> None:
        self._goal_missed()

    def _goal_missed(self) -> None:
        c = self._career()
        c.ended = "goal_missed"
        now = c.goal_now()
        self.dialog = DialogState(
            kind="goal_missed",
            title="Goal Not Reached",
            lines=("The goal was not reached:", now[1].text if now else "", "The career ends here."),
            buttons=(("OK", "green", ("career_over",)),),
        )

    def _act_career_over(self) -> None:
        self.dialog, self._finished = None, True
        self._play([("anim", "loading"), ("goto", "career_summary")])

    def _act_view_results(self) -> None:
        self.screen = "race_result"

    def _act_watch_race(self) -> None:
        self._play([("anim", "cutscene", "race"), ("goto", "race_result")])

    def _act_complete_prompt(self) -> None:
        self.dialog = DialogState(
            kind="confirm",
            title="Confirm",
            lines=("Complete this career?", "The results will be saved."),
            buttons=(("Cancel", "white", ("close",)), ("Finish", "green", ("complete",))),
        )

    def _act_complete(self) -> None:
        """The career ends: its record is kept (the game's truth of it), then the result screens."""
        c = self._career()
        self.careers.append(CareerRecord(
            number=len(self.careers) + 1,
            turns=min(c.turn, c.max_turns),
            stats=dict(c.stats),
            skill_points=c.skill_points,
            skills_learned=len(c.learned),
            races_entered=c.races,
            races_won=c.wins,
            score=c.score(),
            goals=tuple(GoalRecord(text=g.text, met=c.goal_met(i)) for i, (g, _) in enumerate(c.goals())),
            ended=c.ended or "complete",
            fans=c.fans,
        ))
        self.dialog, self.career_open, self.results_page = None, False, 0
        self.screen = "career_results"

    def _act_results_next(self) -> None:
        if self.results_page == 0:
            self.results_page = 1
        else:
            self.screen = "career_end"

    def _act_finish(self) -> None:
        self.screen, self.tab = "home", "Home"

    def _career(self) -> Career:
        assert self.career is not None, "career action without a career"
        return self.career

    # --- the app: start, stop, title, login ---------------------------------------------------

    def _act_launch(self) -> None:
        self.start_app()

    def _leave_game(self) -> None:
        """The game goes away (stopped, or back to its title): animations end where they were going, what was on
        screen is lost, and the career screen to resume is kept."""
        for _ in range(20):  # queued phases (e.g. a race's result after its cutscene) still happen
            if not self.queue:
                break
            action = self.queue.pop(0)
            if action[0] != "anim":
                self._do(action)
        self.anim, self.queue, self.dialog, self.hazard_now = None, [], None, None
        if self.screen in ("training", "skills", "races"):
            self.resume_screen = "hub"
        elif self.screen in RESUMABLE:
            self.resume_screen = self.screen
        self.page = 0

    def _to_title(self, login: bool = False) -> None:
        self._leave_game()
        self.screen, self.tab = "title", "Home"
        if login:
            self.login = list(hz.LOGIN_POPUPS)

    def _act_to_title(self) -> None:
        self._to_title()

    def _act_title_tap(self) -> None:
        if self.clock_s < self.maintenance_until:
            self._dialog_of("maintenance", hz.MAINTENANCE, (("OK", "green", ("to_title",)),))
        elif self.update_pending:
            self._update_prompt()
        else:
            self._play([("anim", "loading"), ("goto", "home"), ("after_login",)])

    def _act_after_login(self) -> None:
        """After the title: the login's popups one by one, then a career in progress asks to be continued."""
        self.dialog = None
        if self.login:
            kind = self.login.pop(0)
            if kind == "daily_sale":
                buttons: tuple[tuple[str, str, Action], ...] = (
                    ("Close", "white", ("after_login",)), ("Purchase Carats", "green", ("purchase",)))
                self._dialog_of(kind, hz.DAILY_SALE, buttons, back=True)
            else:
                words = hz.LOGIN_BONUS if kind == "login_bonus" else hz.NOTICES
                self._dialog_of(kind, words, (("OK" if kind == "login_bonus" else "Close", "green",
                                               ("after_login",)),), back=True)
        elif self.career_open:
            self._continue_prompt()

    def _act_purchase(self) -> None:
        self.purchase_attempts += 1  # a money button reached the game: the agent's guard did not stop it
        self._dialog_of("purchase", hz.PURCHASE_CLOSED, (("Close", "white", ("after_login",)),), back=True)

    def _continue_prompt(self) -> None:
        c = self._career()
        self.dialog = DialogState(
            kind="continue_career",
            title="Continue Career",
            lines=("A career is in progress.", f"Turn {min(c.turn, c.max_turns)}/{c.max_turns}. Resume it?"),
            buttons=(("Cancel", "white", ("close",)), ("Resume", "green", ("resume",))),
        )

    def _act_resume(self) -> None:
        self.dialog = None
        self.screen = self.resume_screen if self.resume_screen != "event" or self.event else "hub"

    # --- the night's hazards (lluma_sim.game.hazards) ------------------------------------------------

    def _dialog_of(self, kind: str, words: tuple[str, tuple[str, ...]], buttons: tuple[tuple[str, str, Action], ...],
                   back: bool = False) -> None:
        title, lines = words
        self.dialog = DialogState(kind=kind, title=title, lines=lines, buttons=buttons, back=back)

    def _clock(self, seconds: float) -> None:
        """The game's own clock: TP comes back on it, a maintenance ends on it. Each input and capture moves it by
        `seconds`; a phone left idle longer than hz.IDLE_S also lives the rest of that time (waiting for TP works)."""
        now = self.wall()
        if self._last_wall is not None:
            seconds += max(0.0, now - self._last_wall - hz.IDLE_S)
        self._last_wall = now
        self.clock_s += seconds
        self.tp_clock_s += seconds
        while self.tp_clock_s >= hz.TP_EVERY_S:
            self.tp_clock_s -= hz.TP_EVERY_S
            self.tp = min(MAX_TP, self.tp + 1) if self.tp < MAX_TP else self.tp

    def _after_input(self) -> None:
        self._clock(hz.INPUT_S)
        kind = hz.draw(self.hazard_rng, self.hazard_rate) if self.hazard_rate > 0 else None
        if kind is not None and self._fire(kind):
            self.version += 1
        if self.tutorial_armed and self._tutorial():
            self.version += 1

    def _calm(self) -> bool:
        """A moment a hazard can come: the game running, nothing animating, no dialog of the night's up."""
        return self.running and self.anim is None and self.dialog is None and self.screen not in QUIET

    def _fire(self, kind: str) -> bool:
        if kind == "tutorial":
            self.tutorial_armed = True
            return False  # counted when it shows
        if not self._calm():
            return False
        if kind == "app_crash":
            self.stop_app()
        elif kind == "anr":
            self.dialog = DialogState(kind="anr", title=hz.ANR_TITLE, lines=(),
                                      buttons=(("Close app", "", ("app_close",)), ("Wait", "", ("close",))))
        elif kind == "connection_error":
            self._dialog_of(kind, hz.CONNECTION_ERROR,
                            (("Title Screen", "white", ("to_title",)), ("Retry", "green", ("retry",))))
        elif kind == "daily_reset":
            self._dialog_of(kind, hz.DATE_CHANGED, (("OK", "green", ("daily_reset",)),))
        elif kind == "maintenance":
            self.maintenance_until = self.clock_s + hz.MAINTENANCE_S
            self._dialog_of(kind, hz.MAINTENANCE, (("OK", "green", ("to_title",)),))
        elif kind == "update_prompt":
            self.update_pending = True
            self._update_prompt()
        elif kind == "long_loading":
            self._play([("anim", "loading", "long"), ("back_to", self.screen)])
        elif kind == "session_error":
            self._dialog_of(kind, hz.SESSION_ERROR, (("Title Screen", "green", ("to_title",)),))
        self.hazard_now = kind
        self.hazard_counts[kind] = self.hazard_counts.get(kind, 0) + 1
        return True

    def _tutorial(self) -> bool:
        if self.dialog is not None or self.anim is not None or not self.running:
            return False
        text = hz.TUTORIALS.get(self.screen)
        if text is None or self.screen in self.tutorials_seen:
            return False
        self.tutorials_seen.append(self.screen)
        self.tutorial_armed = False
        self._dialog_of("tutorial", ("Tutorial", (text,)), (("Close", "green", ("close",)),), back=True)
        self.hazard_now = "tutorial"
        self.hazard_counts["tutorial"] = self.hazard_counts.get("tutorial", 0) + 1
        return True

    def _update_prompt(self) -> None:
        self._dialog_of("update_prompt", hz.DATA_UPDATE,
                        (("Cancel", "white", ("to_title",)), ("Download", "green", ("download",))))

    def _act_download(self) -> None:
        self.dialog, self.update_pending = None, False
        self._play([("anim", "download"), ("to_title",)])

    def _act_retry(self) -> None:
        self.dialog = None

    def _act_daily_reset(self) -> None:
        self._to_title(login=True)

    def _act_app_close(self) -> None:
        self.stop_app()

    def _act_back_to(self, screen: str) -> None:
        self.screen = screen
