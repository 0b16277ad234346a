"""SimGame: the simulated phone game. Holds UI state, dispatches input, renders frames once per change."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable

from PIL import Image

from lluma_sim.game import hazards as hz
from lluma_sim.game import screens_app, screens_career, screens_home
from lluma_sim.game.calendar import MAX_CAREER_TURNS
from lluma_sim.game.content import bond_level
from lluma_sim.game.draw import Painter, Widget
from lluma_sim.game.flow import MAX_TP
from lluma_sim.game.flows import app, ending, events, hub, night, races, setup, shop, skills, training
from lluma_sim.game.hazards import HazardsInjected
from lluma_sim.game.state import (
    Action,
    AnimState,
    CareerData,
    CareerRecord,
    DialogState,
    GameState,
    ReceivedTap,
    Style,
    dice,
)
from lluma_sim.game.truth import Cinematic, Element, GroundTruth, SupportTruth
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
    "shop": screens_career.draw_shop,
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
    Replayable: everything the game holds is `state` (its one seeded generator, its own clock, the taps it took),
    and every input changes it through one table of actions (ACTIONS); nothing reads the wall clock, so the same
    seed and inputs give the same frames however long the phone sits idle.
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
        self.state = GameState(seed=seed, width=width, height=height, max_turns=max_turns, style=style,
                               letterbox=letterbox, tp=tp, hazard_rate=hz.check_rate(hazards), rng=dice(seed))
        self._lock = threading.RLock()
        self._layout: tuple[int, Painter] | None = None
        self._image: tuple[int, Image.Image] | None = None

    # --- public API -----------------------------------------------------------------------

    @property
    def score(self) -> int:
        with self._lock:
            return self.state.career.score() if self.state.career else 0

    @property
    def turn(self) -> int:
        with self._lock:
            return min(self.state.career.turn, self.state.max_turns) if self.state.career else 0

    # Read-only views of the state others read most (tests, the demo); the flows write `self.state`.
    @property
    def career(self) -> CareerData | None:
        return self.state.career

    @property
    def rng(self) -> random.Random:
        """The game's one generator (in the state: a snapshot carries it)."""
        assert self.state.rng is not None, "a game's state always has its dice (only painters' views lack them)"
        return self.state.rng

    @property
    def taps(self) -> list[ReceivedTap]:
        """Every tap received, with the truth element under it."""
        return self.state.taps

    @property
    def careers(self) -> list[CareerRecord]:
        return self.state.careers

    @property
    def career_open(self) -> bool:
        return self.state.career_open

    @property
    def screen(self) -> str:
        return self.state.screen

    @property
    def width(self) -> int:
        return self.state.width

    @property
    def height(self) -> int:
        return self.state.height

    @property
    def letterbox(self) -> int:
        return self.state.letterbox

    @property
    def max_turns(self) -> int:
        return self.state.max_turns

    @property
    def task(self) -> int:
        return self.state.task

    @property
    def drawn(self) -> bool:
        return self.state.drawn

    @property
    def finished(self) -> bool:
        with self._lock:
            return self.state.finished

    @property
    def app_state(self) -> str:
        """What the phone shows: "game", "anr" (Android's dialog over the game) or "launcher" (not running)."""
        with self._lock:
            if not self.state.running:
                return "launcher"
            return "anr" if self.state.dialog is not None and self.state.dialog.kind == "anr" else "game"

    def hazards_injected(self) -> HazardsInjected:
        with self._lock:
            return HazardsInjected.of(self.state.hazard_counts)

    def start_app(self) -> bool:
        """Start the game (launcher icon, `am start`, `monkey`): its title screen. False: it was running already."""
        with self._lock:
            if self.state.running:
                return False
            self.do(("app_start",))
            return True

    def stop_app(self) -> bool:
        """Stop the game (`am force-stop`, a crash, Close app): the launcher. What was on screen is lost, the
        career is not (the game saves it each turn). False: it was not running."""
        with self._lock:
            if not self.state.running:
                return False
            self.do(("app_stop",))
            return True

    def hazard(self, kind: str) -> bool:
        """Bring hazard `kind` now (tests; `session_error` only comes this way). False: it cannot show now."""
        with self._lock:
            if kind not in hz.HAZARD_KINDS:
                raise ValueError(f"unknown hazard {kind!r}; known: {', '.join(hz.HAZARD_KINDS)}")
            before = self.state.version
            self._run(("hazard", kind))
            return self.state.version != before  # it showed: the picture changed

    def capture(self) -> Image.Image:
        """The next frame. Shared and cached while nothing changes: treat it as read-only."""
        with self._lock:
            self._run(("frame",))
            if self._image is None or self._image[0] != self.state.version:
                p = Painter(self.state.width, self._content_h, render=True)
                self._draw(p)
                self._layout = (self.state.version, p)
                assert p.img is not None  # a rendering painter has its picture
                img = p.img
                if self.state.letterbox:
                    img = Image.new("RGB", (self.state.width, self.state.height))
                    img.paste(p.img, (0, self.state.letterbox))
                self._image = (self.state.version, img)
            return self._image[1]

    @property
    def _content_h(self) -> int:
        return self.state.height - 2 * self.state.letterbox

    # --- input: each one action of the table, then the game's clock and what the night brings ----------------

    def tap(self, x: float, y: float) -> None:
        self._input(("tap", x, y))

    def swipe(self, x0: float, y0: float, x1: float, y1: float, duration_ms: int = 300) -> None:
        self._input(("swipe", x0, y0, x1, y1))

    def keyevent(self, key: str | int) -> None:
        if key in BACK_KEYS:
            self._input(("back",))

    def text(self, text: str) -> None:
        """No text fields in this game: ignored, as a phone ignores typing with nothing focused."""

    def _input(self, action: Action) -> None:
        with self._lock:
            self._run(action)
            self._run(("after_input",))

    def _act_tap(self, x: float, y: float) -> None:
        self.state.taps.append(self._received(x, y))
        y -= self.state.letterbox  # frame -> game coordinates
        for w in reversed(self._widgets()):  # last drawn is on top
            if w.box.contains(x, y) and w.action is not None:
                career = self.state.career  # counted before and after on the same career: a new one's
                before = self._stock(career)  # coins and clocks are its own, Start Career! spends none of them
                self.do(w.action)
                if spent := [what for what, n in self._stock(career).items() if n < before.get(what, n)]:
                    self.state.taps[-1] = self.state.taps[-1].model_copy(update={"spent": ", ".join(spent)})
                break

    def _act_swipe(self, x0: float, y0: float, x1: float, y1: float) -> None:
        if abs(x1 - x0) + abs(y1 - y0) < 0.01 * self.state.width:
            self._act_tap(x0, y0)  # a swipe that does not move is a tap, as on Android
            return
        view = screens_career.skills_view(self.state.width, self._content_h)
        if self.state.screen == "skills" and not self.state.dialog and view.contains(x0, y0 - self.state.letterbox):
            self.do(("scroll", -round(y1 - y0), screens_career.max_scroll(self.state.width, self._content_h)))

    def _act_back(self) -> None:
        if self.state.dialog and self.state.dialog.kind == "anr":
            self.do(("close",))  # Android: BACK on its dialog waits
        elif self.state.dialog:
            if self.state.dialog.back:
                self.do(self.state.dialog.buttons[0][2])
        elif self.state.screen in ("training", "skills", "races", "shop"):
            self.do(("goto", "hub"))
        elif self.state.screen == "setup":
            self.do(("setup_back",))

    def _stock(self, career: CareerData | None) -> dict[str, int]:
        """What a tap can spend, counted (`career`'s items with it): a spend is a count that went down (the game's own
        record of it)."""
        return {"a TP item": self.state.tp_items,
                **({"an Alarm Clock": career.clocks, "shop coins": career.coins} if career else {})}

    def _framed(self, b: Box) -> Box:
        """Game coordinates -> frame coordinates (below the top letterbox bar)."""
        bar = self.state.letterbox
        return b if not bar else Box(x0=b.x0, y0=b.y0 + bar, x1=b.x1, y1=b.y1 + bar)

    def _received(self, x: float, y: float) -> ReceivedTap:
        t = self.truth()
        under = [e for e in t.elements if e.box.contains(x, y) and e.kind != "scrollbar"]
        hit = next((e for e in reversed(under) if e.kind != "text"), None) or next(iter(under), None)
        return ReceivedTap(
            x=x,
            y=y,
            frame_no=self.state.frame_no,
            screen=t.screen,
            element=hit.name if hit else None,
            kind=hit.kind if hit else None,
        )

    def truth(self) -> GroundTruth:
        with self._lock:
            p = self._painter()
            c = self.state.career
            goal = c.goal_now() if c else None
            tabs = [w for w in p.widgets if w.kind == "tab"]
            return GroundTruth(
                screen=self.state.dialog.kind if self.state.dialog else self.state.screen,
                width=self.state.width,
                height=self.state.height,
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
                selected_tab=self.state.tab if tabs else None,
                menu_usable=(self.state.dialog is None) if tabs else None,
                cinematic=self._cinematic(),
                turn=self.turn,
                max_turns=self.state.max_turns,
                score=self.score,
                finished=self.state.finished,
                frame_no=self.state.frame_no,
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
                coins=c.coins if c else 0,
                selected=c.sel if c and self.state.screen == "training" else None,
                supports=[SupportTruth(name=n, bond=bond_level(c.bonds.get(n, 0)), hint=n in c.hints)
                          for n in c.cards_on(c.sel)] if c and self.state.screen == "training" else [],
                energy_after=c.energy - cost if c and self.state.screen == "training" and (
                    cost := min(c.energy, max(0, -c.energy_change(c.sel)))) else None,
                app=self.app_state,
                hazard=self.state.hazard,
                tp=self.state.tp,
                career_open=self.state.career_open,
                careers=list(self.state.careers),
            )

    def snapshot(self, with_rng: bool = True) -> GameState:
        """The whole state, copied; `restore()` of it into any SimGame continues exactly from here."""
        with self._lock:
            return (self.state if with_rng else self.state.model_copy(update={"rng": None})).model_copy(deep=True)

    def restore(self, state: GameState) -> None:
        """Take over a snapshot (size, seed and style included). The dice go on where they were."""
        if state.rng is None:
            raise ValueError("a snapshot without RNG state cannot be restored")
        with self._lock:
            self.state = state.model_copy(deep=True)
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
        # Painters get a copy, without the dice and the taps (they draw neither): drawing cannot change the game.
        view = self.state.model_copy(update={"rng": None, "taps": []}).model_copy(deep=True)
        p.dim_disabled = view.style == "hard"
        DRAWERS[self.state.screen](p, view)
        if self.state.dialog:
            p.cover()
            if self.state.dialog.kind == "anr":
                screens_app.draw_anr(p, self.state.dialog, dark=view.style == "hard")
            else:
                screens_home.draw_dialog(p, self.state.dialog, self.state.settings)

    def _painter(self) -> Painter:
        if self._layout is None or self._layout[0] != self.state.version:
            p = Painter(self.state.width, self._content_h, render=False)
            self._draw(p)
            self._layout = (self.state.version, p)
        return self._layout[1]

    def _widgets(self) -> list[Widget]:
        return self._painter().widgets

    def _cinematic(self) -> Cinematic:
        if self.state.anim:
            return "cutscene" if self.state.anim.kind == "cutscene" else "loading"
        s = self.state
        if s.screen == "event" and s.event and s.page < len(s.event.pages) and not s.dialog:
            return "dialogue"
        return "none"

    # --- animation ------------------------------------------------------------------------

    def _tick(self) -> None:
        if not self.state.anim:
            return
        self.state.anim = self.state.anim.model_copy(update={"step": self.state.anim.step + 1})
        self.state.version += 1
        if self.state.anim.step > self.state.anim.total:
            self.next_phase()
            if self.state.anim:
                # this capture already shows the new one
                self.state.anim = self.state.anim.model_copy(update={"step": 1})

    def play(self, phases: list[Action]) -> None:
        self.state.queue = list(phases)
        self.next_phase()

    def next_phase(self) -> None:
        """The next phases up to the next animation (or to the end of the queue)."""
        self.state.anim = None
        while self.state.queue and self.state.anim is None:
            self.do(self.state.queue.pop(0))

    # --- actions (widgets carry these as tuples: name, *args) -----------------------------

    def do(self, action: Action) -> None:
        """A widget's, a dialog button's or a queued phase's action: the picture changes, and the night's trouble
        may be off the screen."""
        self._run(action)
        if self.state.hazard is not None and self.state.anim is None and (
                self.state.dialog is None or self.state.dialog.kind in ("confirm", "menu", "settings")):
            self.state.hazard = None  # the night's trouble is off the screen
        self.state.version += 1

    def _run(self, action: Action) -> None:
        """Run `action` through the checked table: every change of the state goes this way."""
        act = ACTIONS.get(action[0])
        if act is None:
            raise ValueError(f"no action {action[0]!r} in the game's table (lluma_sim.game.game.ACTIONS)")
        act(self, *action[1:])

    def _act_anim(self, kind: str, theme: str = "") -> None:
        if kind == "loading":
            total = hz.LONG_LOADING_FRAMES if theme == "long" else LOADING_FRAMES
        elif kind == "download":
            total = hz.DOWNLOAD_FRAMES
        else:
            total = CUTSCENE_FRAMES[theme]
        self.state.anim = AnimState(kind=kind, total=total, theme=theme)
        self.state.screen = kind

    def _act_goto(self, screen: str) -> None:
        self.state.dialog = None
        if screen == "skills":
            skills.open_skills(self)
        if screen == "races" and self.state.career:
            races.list_races(self)
        self.state.screen = screen

    def _act_tab(self, name: str) -> None:
        self.state.tab = name

    def _act_close(self) -> None:
        self.state.dialog = None

    def _act_menu(self) -> None:
        if self.state.style == "hard":  # the real game's menu leads to settings with toggle pairs
            self.state.dialog = DialogState(
                kind="settings", title="Settings", lines=SETTINGS, buttons=(("Close", "white", ("close",)),)
            )
            return
        self.state.dialog = DialogState(
            kind="menu",
            title="Menu",
            lines=("LLuMa training simulator.", "Progress is saved each turn."),
            buttons=(("Close", "white", ("close",)),),
        )

    def _act_set(self, name: str, on: bool) -> None:
        self.state.settings[name] = on

    def confirm(self, title: str, lines: list[str], ok: Action) -> None:
        self.state.dialog = DialogState(
            kind="confirm",
            title=title,
            lines=tuple(lines),
            buttons=(("Cancel", "white", ("close",)), ("OK", "green", ok)),
        )

    def _act_skip_anim(self) -> None:
        self.next_phase()

    def end_turn(self) -> None:
        ending.end_turn(self)

    def goal_missed(self) -> None:
        ending.goal_missed(self)

    def live(self) -> CareerData:
        c = self.state.career
        assert c is not None, "career action without a career"
        return c

    # --- the game's own clock (lluma_sim.game.flows.night brings its hazards) ----------------------------

    def _act_frame(self) -> None:
        """A capture: the clock moves a capture's worth and a running animation a step."""
        self.state.frame_no += 1
        self.state.drawn = True
        self._clock(hz.CAPTURE_S)
        self._tick()

    def _clock(self, seconds: float) -> None:
        """The game's own clock: TP comes back on it, a maintenance ends on it. Only inputs and captures move it (a
        phone left idle lives no time: the same inputs give the same game however long it sits)."""
        self.state.clock_s += seconds
        self.state.tp_clock_s += seconds
        tp = self.state.tp
        while self.state.tp_clock_s >= hz.TP_EVERY_S:
            self.state.tp_clock_s -= hz.TP_EVERY_S
            self.state.tp = min(MAX_TP, self.state.tp + 1) if self.state.tp < MAX_TP else self.state.tp
        if self.state.tp != tp:
            self.state.version += 1  # the TP counter is drawn: the next capture shows it

    def idle(self, seconds: float) -> None:
        """The phone sat idle `seconds` (a wait of the agent's on lluma_sim.phone_clock): the game's clock moves by
        exactly that, so a maintenance ends and TP comes back as they would, and no die is rolled (a night's hazards
        come after inputs)."""
        if seconds < 0:
            raise ValueError(f"a phone cannot sit idle {seconds} s")
        with self._lock:
            self._run(("idle", seconds))

    def _act_idle(self, seconds: float) -> None:
        self._clock(seconds)

    def _act_after_input(self) -> None:
        """After each input: an input's worth of the clock, then maybe one of a night's hazards (on the game's
        one generator), then an armed tutorial on a screen seen for the first time. With no night (rate 0) no die is
        rolled, so a seed's careers are the ones a game without hazards plays."""
        self._clock(hz.INPUT_S)
        kind = hz.draw(self.rng, self.state.hazard_rate) if self.state.hazard_rate > 0 else None
        if kind is not None:
            self._act_hazard(kind)
        if self.state.tutorial_armed and night.tutorial(self):
            self.state.version += 1

    def _act_hazard(self, kind: str) -> None:
        if night.fire(self, kind):
            self.state.version += 1


# Every change of the game's state: an input's (tap, swipe, back, frame: a capture, after_input: the clock and the
# night), the app's, and every action a widget, a dialog's button or a queued phase may carry: name ->
# function(game, *args). A test draws every screen and checks each widget's action is here with arguments its
# function takes.
ACTIONS: dict[str, Callable[..., None]] = {
    "tap": SimGame._act_tap,
    "swipe": SimGame._act_swipe,
    "back": SimGame._act_back,
    "frame": SimGame._act_frame,
    "after_input": SimGame._act_after_input,
    "hazard": SimGame._act_hazard,
    "idle": SimGame._act_idle,
    "app_start": app.start,
    "app_stop": app.stop,
    "scroll": skills.scroll,
    "race_warned": races.race_warned,
    "shop": shop.open_shop,
    "exchange_prompt": shop.exchange_prompt,
    "exchange": shop.exchange,
    "anim": SimGame._act_anim,
    "goto": SimGame._act_goto,
    "tab": SimGame._act_tab,
    "close": SimGame._act_close,
    "menu": SimGame._act_menu,
    "set": SimGame._act_set,
    "career_prompt": setup.career_prompt,
    "setup_next": setup.setup_next,
    "setup_back": setup.setup_back,
    "trainee": setup.trainee,
    "auto_select": setup.auto_select,
    "borrow": setup.borrow,
    "start_press": setup.start_press,
    "recover_prompt": setup.recover_prompt,
    "use_item": setup.use_item,
    "start_career": setup.start_career,
    "skip_anim": SimGame._act_skip_anim,
    "rest_prompt": hub.rest_prompt,
    "rest": hub.rest,
    "recreation": hub.recreation,
    "infirmary": hub.infirmary,
    "tile": training.tile,
    "end_turn": ending.end_turn,
    "page": events.page,
    "skip": events.skip,
    "quick": events.quick,
    "choose": events.choose,
    "plus": skills.plus,
    "minus": skills.minus,
    "reset": skills.reset,
    "confirm_skills": skills.confirm_skills,
    "learn_commit": skills.learn_commit,
    "select_race": races.select_race,
    "race_prompt": races.race_prompt,
    "race": races.race,
    "race_next": races.race_next,
    "try_again": races.try_again,
    "give_up": races.give_up,
    "career_over": ending.career_over,
    "view_results": races.view_results,
    "watch_race": races.watch_race,
    "complete_prompt": ending.complete_prompt,
    "complete": ending.complete,
    "results_next": ending.results_next,
    "finish": ending.finish,
    "launch": app.launch,
    "to_title": app.to_title,
    "title_tap": app.title_tap,
    "after_login": app.after_login,
    "purchase": app.purchase,
    "resume": app.resume,
    "download": app.download,
    "retry": night.retry,
    "daily_reset": app.daily_reset,
    "app_close": app.app_close,
    "back_to": night.back_to,
}
