"""SimGame: the simulated phone game. Holds UI state, dispatches input, renders frames once per change."""

from __future__ import annotations

import random
import threading

from PIL import Image

from lluma_sim.game import screens_career, screens_home
from lluma_sim.game.career import Career
from lluma_sim.game.content import SKILLS, Event, Race
from lluma_sim.game.draw import Painter, Widget
from lluma_sim.game.state import Action, AnimState, DialogState, GameState, RaceResult, RngState, Style
from lluma_sim.game.truth import Cinematic, Element, GroundTruth, ReceivedTap
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

DRAWERS = {
    "home": screens_home.draw_home,
    "loading": screens_home.draw_loading,
    "cutscene": screens_home.draw_cutscene,
    "career_end": screens_home.draw_career_end,
    "hub": screens_career.draw_hub,
    "training": screens_career.draw_training,
    "event": screens_career.draw_event,
    "skills": screens_career.draw_skills,
    "races": screens_career.draw_races,
    "race_result": screens_career.draw_race_result,
}


class SimGame:
    """A small career-training game in the look of Uma Musume. Thread-safe; deterministic per seed.

    Flows (button labels as drawn):
      home: Career -> "New Career" dialog OK -> loading (3 captures) -> cutscene (6, or Skip) -> hub
      hub: Training -> Speed|Stamina|Power|Guts|Wit (one turn) | Rest -> OK (one turn)
           | Recreation (one turn, 4-capture cutscene) | Infirmary (one turn, only with a condition)
           | Races -> pick a race row -> Race -> OK -> loading 3 -> cutscene 5 -> result -> Next (one turn)
           | Skills -> Learn... -> Confirm -> OK (no turn)
      after a turn: maybe an event (Next/tap the box through the pages, then tap a choice), else the hub;
      after max_turns: loading 3 -> career_end -> Finish -> home.
    Animations advance one step per capture(); truth() describes what the next capture shows, except that
    capture() first advances a running animation.
    """

    def __init__(
        self,
        seed: int = 0,
        width: int = 1080,
        height: int = 1920,
        max_turns: int = 24,
        style: Style = "plain",
        letterbox: int = 0,
    ) -> None:
        """`style="hard"` draws the kinds real screens have and simple detectors miss (plate-less hub tiles,
        a stat icon row, a tab bar over content, settings toggles); `letterbox` adds black bars of that many
        pixels above and below the game, inside the `width` x `height` frame."""
        if not 0 <= letterbox < height // 4:
            raise ValueError(f"letterbox bars of {letterbox} px do not fit a {height} px tall frame")
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

    def capture(self) -> Image.Image:
        """The next frame. Shared and cached while nothing changes: treat it as read-only."""
        with self._lock:
            self.frame_no += 1
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
                    self._do(w.action)
                    return

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

    def keyevent(self, key: str | int) -> None:
        with self._lock:
            if key not in BACK_KEYS:
                return
            if self.dialog:
                self._do(self.dialog.buttons[0][2])
            elif self.screen in ("training", "skills", "races"):
                self._do(("goto", "hub"))

    def text(self, text: str) -> None:
        """No text fields in this game: ignored, as a phone ignores typing with nothing focused."""

    def truth(self) -> GroundTruth:
        with self._lock:
            p = self._painter()
            c = self.career
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
            self._layout = self._image = None

    @classmethod
    def hard(cls, seed: int = 0, max_turns: int = 24) -> SimGame:
        """The hard style at the frame size and letterboxing this seed's variant picks."""
        return cls(seed=seed, max_turns=max_turns, style="hard", **HARD_VARIANTS[seed % len(HARD_VARIANTS)])

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
            return "loading" if self.anim.kind == "loading" else "cutscene"
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
        self.anim = None
        if self.queue:
            self._do(self.queue.pop(0))

    # --- actions (widgets carry these as tuples: name, *args) -----------------------------

    def _do(self, action: Action) -> None:
        getattr(self, "_act_" + str(action[0]))(*action[1:])
        self.version += 1

    def _act_anim(self, kind: str, theme: str = "") -> None:
        total = LOADING_FRAMES if kind == "loading" else CUTSCENE_FRAMES[theme]
        self.anim = AnimState(kind=kind, total=total, theme=theme)
        self.screen = kind

    def _act_goto(self, screen: str) -> None:
        self.dialog = None
        if screen == "skills":
            self.pending, self.scroll = [], 0
        if screen == "races" and self.career:
            self.races, self.race_sel = self.career.races_available(), 0
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
        self._confirm("New Career", ["Start a new career?", f"It lasts {self.max_turns} turns."], ("start_career",))

    def _act_start_career(self) -> None:
        self.dialog = None
        self.career = Career.new(self.rng, self.max_turns)
        self._finished = False
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

    def _act_train(self, stat: str) -> None:
        self._career().train(stat)
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
        elif c.over:
            self._finished = True
            self._play([("anim", "loading"), ("goto", "career_end")])
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
            self._play([("anim", "loading"), ("goto", "career_end")])
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
        self.result = self._career().run_race(self.races[self.race_sel])
        self._play([("anim", "loading"), ("anim", "cutscene", "race"), ("goto", "race_result")])

    def _act_finish(self) -> None:
        self.screen, self.tab = "home", "Home"

    def _career(self) -> Career:
        assert self.career is not None, "career action without a career"
        return self.career
