"""The screen map: the screens a run has seen and the actions that led from one to another.

Nodes are screen identities (lluma_vision.facts.screen.identify: a short id and a readable name); edges are
`Transition`s, one per (screen, action, screen reached), counting how often the action led there, how long it
took and how often it was expected to lead there (a `goTo` step, a routine pass) and did not. An action that
left the screen where it was is kept (a self-loop: a scroll, a tap that did nothing) but never walked.

Which edges are trusted is decided here, from the counts, with thresholds the caller passes (config `map.*`):
- a *reliable* edge (goTo walks it): taken at least `min_uses` times, and at least `min_rate` of the times its
  action was taken on its screen it led to its screen;
- a *routine* way out (passed without a model call): the last `streak` actions taken on a screen were one
  action, and they all led to the same other screen (or, for an action that only moves a story on, anywhere:
  a story's pages read as one screen, its end as whatever comes next). Whether the screen offers anything else
  to choose is the caller's to check on the reading (lluma_agent/loop/navigate.py).

Interruptions are kept apart from ways out. A screen that came after an action and, dismissed, left the game where
that action reliably leads (Android's not-responding dialog after Next, Wait, and the screen Next always led to)
came *over* the game: the action's step is moved to where it led, and the screen is counted as an interruption of
the screen it came over, not a way out of it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import NamedTuple

from pydantic import BaseModel, Field

from lluma_agent.navmap.shared import Journaled

MAP_VERSION = 1  # the map file's format (a definition, not measured)
MIN_USES = 1  # every step of a walk is checked: an edge seen once is worth trying (a fluke stops the walk)
MIN_RATE = 0.8  # of the times its action was taken on its screen, the share that led to its screen
RECENT = 12  # actions remembered per screen: routine looks at the last few
ADVANCING = ("advanceDialogue",)  # actions that choose nothing: they only move a story on


class Routine(NamedTuple):
    """A screen's routine way out: the action, how to take it, where it leads (None: anywhere but here)."""

    action: str
    tool: str
    args: dict[str, str]
    expected: str | None
    uses: int


class ScreenInfo(BaseModel):
    name: str
    seen: int = 0  # turns (and goTo steps) that read this screen
    last_seen: float = 0.0  # epoch seconds
    recent: list[str] = Field(default_factory=list)  # the last actions taken here, oldest first (RECENT of them)


class Transition(BaseModel):
    src: str  # screen id
    action: str  # canonical: "pressButton:Next", "tap:Tap to Start", "back", "advanceDialogue", "scrollDown", "wait"
    dst: str  # screen id reached
    count: int = 0  # times the action on `src` led to `dst`
    fails: int = 0  # times this edge was expected (a goTo step, a routine pass) and another screen came
    seconds_total: float = 0.0  # from the input sent to the next still reading, summed over `count`
    last_seen: float = 0.0  # epoch seconds
    streak: int = 0  # the last takings of (src, action) in a row that led here (0 once one led elsewhere)
    tool: str = ""  # to replay the action: the tool, and its input
    args: dict[str, str] = Field(default_factory=dict)

    @property
    def loop(self) -> bool:
        """The action left the screen where it was: kept, never walked."""
        return self.src == self.dst

    @property
    def mean_seconds(self) -> float:
        return self.seconds_total / self.count if self.count else 0.0


class Arrival(BaseModel):
    """The last action recorded that moved the game (`src` --`action`--> `dst`), kept until the next one: if `dst`
    proves an interruption, the step is moved to where dismissing it led."""

    src: str
    action: str
    dst: str
    seconds: float = 0.0
    expected: str | None = None
    streaks: dict[str, int] = Field(default_factory=dict)  # its outcomes' streaks before it was recorded


class Interruption(BaseModel):
    """`screen` came over `over` after `action` and, dismissed (`way_out`, the last time), left the game where the
    action leads: a hazard or a popup, not a way out of `over`."""

    screen: str
    over: str
    action: str
    way_out: str = ""
    count: int = 0
    last_seen: float = 0.0  # epoch seconds


class PendingStep(BaseModel):
    """An action sent on `src`: the next still reading says where it led."""

    src: str
    action: str
    tool: str = ""
    args: dict[str, str] = Field(default_factory=dict)
    sent_at: float = 0.0  # epoch seconds
    run: str = ""  # the run folder that sent it: another run's first reading is no outcome of it
    expected: str | None = None  # the screen the map said it would reach (a goTo step, a routine pass)
    routine: bool = False  # a routine pass (its note is the navigator's, not the effect's)
    why: str = ""  # what the pass followed when it was no way the map learned (the model's standing choice)


class ScreenMap(Journaled):
    OWN = ("pending", "arrival")  # the run's own: its action awaiting its outcome, how its screen was reached
    version: int = MAP_VERSION
    screens: dict[str, ScreenInfo] = Field(default_factory=dict)
    transitions: list[Transition] = Field(default_factory=list)
    # The action whose screen reached the next reading tells (saved with the map, so a resumed run completes it).
    pending: PendingStep | None = None
    interruptions: list[Interruption] = Field(default_factory=list)
    arrival: Arrival | None = None  # how the screen now shown was reached (an interruption's step is moved)
    # see, record and missed are journaled: replayed onto the file as another run that shares it left it
    # (navmap/shared.py), so neither run's steps are lost.

    def __eq__(self, other: object) -> bool:
        """The same map: its screens, ways, interruptions and pending step (how it was recorded is no part of it)."""
        if not isinstance(other, ScreenMap):
            return NotImplemented
        return self.__dict__ == other.__dict__

    # ---- recording ------------------------------------------------------------------------------------
    def see(self, screen_id: str, name: str, now: float) -> None:
        self._note("see", screen_id, name, now)
        info = self.screens.setdefault(screen_id, ScreenInfo(name=name))
        info.name, info.seen, info.last_seen = name or info.name, info.seen + 1, now

    def edge(self, src: str, action: str, dst: str) -> Transition | None:
        return next((t for t in self.transitions if (t.src, t.action, t.dst) == (src, action, dst)), None)

    def record(self, src: str, action: str, dst: str, seconds: float, now: float, tool: str = "",
               args: dict[str, str] | None = None, expected: str | None = None) -> Transition:
        """`action` taken on `src` led to `dst` after `seconds`; `expected` the screen the map said it would reach
        (a goTo step, a routine pass): an edge expected and missed counts a failure."""
        self._note("record", src, action, dst, seconds, now, tool, args, expected)
        came, before = self.arrival, {t.dst: t.streak for t in self.taken(src, action)}
        edge = self.edge(src, action, dst)
        if edge is None:
            edge = Transition(src=src, action=action, dst=dst, tool=tool, args=dict(args or {}))
            self.transitions.append(edge)
        for sibling in self.taken(src, action):
            if sibling is not edge:
                sibling.streak = 0
        info = self.screens.setdefault(src, ScreenInfo(name=src))
        info.recent = [*info.recent, action][-RECENT:]
        edge.count += 1
        edge.streak += 1
        edge.seconds_total += max(0.0, seconds)
        edge.last_seen = now
        if tool:
            edge.tool, edge.args = tool, dict(args or {})
        if expected is not None and expected != dst and (missed := self.edge(src, action, expected)) is not None:
            missed.fails += 1
        if dst != src:  # a screen left where it was is still the screen arrived at
            self.arrival = Arrival(src=src, action=action, dst=dst, seconds=max(0.0, seconds), expected=expected,
                                   streaks=before)
            if came is not None and came.dst == src and came.src != src and dst != came.src:
                usual = self._usual(came)
                if usual is not None and (dst == usual.dst or self.interrupts(src)):
                    self._move(came, action, dst, now, usual if dst == usual.dst else None)
        return edge

    def missed(self, src: str, action: str, dst: str) -> None:
        """The edge was expected and the screen did not change (a routine pass that did nothing): a failure."""
        self._note("missed", src, action, dst)
        if (edge := self.edge(src, action, dst)) is not None:
            edge.fails += 1

    def _usual(self, came: Arrival) -> Transition | None:
        """Where the action `came` took reliably leads, not counting `came` itself (as a goTo would trust an edge:
        MIN_USES, MIN_RATE), or None. `came.dst` left for it came over `came.src`; so did a screen known to interrupt.
        An outcome among several is no proof: a hazard that went uncaught makes any screen look like one."""
        others = sum(t.count for t in self.taken(came.src, came.action)) - 1
        for t in self.taken(came.src, came.action):
            if t.dst != came.dst and not t.loop and t.count >= MIN_USES and others > 0 and t.count / others >= MIN_RATE:
                return t
        return None

    def _move(self, came: Arrival, way_out: str, dst: str, now: float, led: Transition | None) -> None:
        """`came`'s step is no way out of `came.src`: undone, counted where it `led` when dismissing the interruption
        went on there (the action's usual outcome), and the interruption counted."""
        wrong = self.edge(came.src, came.action, came.dst)
        if wrong is not None:
            wrong.count -= 1
            wrong.seconds_total = max(0.0, wrong.seconds_total - came.seconds)
            if wrong.count <= 0:
                self.transitions.remove(wrong)
        for t in self.taken(came.src, came.action):
            t.streak = came.streaks.get(t.dst, 0)
        if led is not None:  # as if it had been recorded so
            for t in self.taken(came.src, came.action):
                t.streak = 0 if t is not led else t.streak + 1
            led.count += 1
            led.seconds_total += came.seconds
            led.last_seen = now
            if came.expected == dst:
                led.fails = max(0, led.fails - 1)
        key = (came.dst, came.src, came.action)
        hit = next((i for i in self.interruptions if (i.screen, i.over, i.action) == key), None)
        if hit is None:
            hit = Interruption(screen=came.dst, over=came.src, action=came.action)
            self.interruptions.append(hit)
        hit.count, hit.way_out, hit.last_seen = hit.count + 1, way_out, now

    # ---- reading ----------------------------------------------------------------------------------------
    def taken(self, src: str, action: str) -> list[Transition]:
        """Every outcome of `action` on `src`."""
        return [t for t in self.transitions if t.src == src and t.action == action]

    def interrupts(self, screen: str) -> bool:
        """`screen` is known to come over other screens (a hazard, a popup)."""
        return any(i.screen == screen for i in self.interruptions)

    def came_from(self, screen: str) -> set[str]:
        """The other screens actions were seen to lead from to `screen` (an interruption counted over its screen)."""
        return ({t.src for t in self.transitions if t.dst == screen and not t.loop}
                | {i.over for i in self.interruptions if i.screen == screen})

    def came_by(self, screen: str) -> set[tuple[str, str]]:
        """The (screen, action) pairs seen to lead to `screen` from another (an interruption counted over its
        screen, with no action)."""
        return ({(t.src, t.action) for t in self.transitions if t.dst == screen and not t.loop}
                | {(i.over, "") for i in self.interruptions if i.screen == screen})

    def rate(self, edge: Transition) -> float:
        """Of the times its action was taken on its screen, the share that led where this edge goes."""
        total = sum(t.count for t in self.taken(edge.src, edge.action))
        return edge.count / total if total else 0.0

    def reliable(self, edge: Transition, min_uses: int = MIN_USES, min_rate: float = MIN_RATE) -> bool:
        return not edge.loop and edge.count >= min_uses and self.rate(edge) >= min_rate

    def ways_out(self, src: str) -> list[Transition]:
        """The actions seen to leave `src` for another screen, the most used first."""
        return sorted((t for t in self.transitions if t.src == src and not t.loop), key=lambda t: (-t.count, t.action))

    def routine(self, src: str, streak: int, advancing: tuple[str, ...] = ADVANCING, closing: bool = False
                ) -> Routine | None:
        """`src`'s one way out when it is routine, else None. Routine: the last `streak` actions taken on `src` were
        one action, and either its last `streak` takings all led to one other screen, or it only moves a story on
        (`advancing`: the story's next page reads as the same screen until it ends), or `closing` (the caller's:
        `src` is a dialog that asks to confirm what the model just chose) and its last taking left the dialog:
        confirming closes it, and what comes next is the game's (a rest may end in an event or the hub)."""
        info = self.screens.get(src)
        last = info.recent[-streak:] if info is not None and streak > 0 else []
        if len(last) < streak or len(set(last)) != 1:
            return None
        taken = self.taken(src, last[0])
        best = max(taken, key=lambda t: t.streak)
        uses = sum(t.count for t in taken)
        if best.action in advancing:
            return Routine(best.action, best.tool, best.args, None, uses)
        if not best.loop and best.streak >= streak:
            return Routine(best.action, best.tool, best.args, best.dst, uses)
        if closing and not any(t.loop and t.streak for t in taken):
            return Routine(best.action, best.tool, best.args, None, uses)
        return None

    def walks(self, src: str, min_uses: int = MIN_USES, min_rate: float = MIN_RATE,
              usable: Callable[[Transition], bool] | None = None) -> dict[str, list[Transition]]:
        """Every screen a walk reaches from `src` on reliable steps, with the fewest steps there (one search);
        `usable` leaves edges out (an action that spends). Among paths of one length, the most used edges first."""
        came: dict[str, Transition] = {}
        queue = deque([src])
        while queue:
            here = queue.popleft()
            for edge in self.ways_out(here):
                if edge.dst in came or edge.dst == src or not self.reliable(edge, min_uses, min_rate):
                    continue
                if usable is not None and not usable(edge):
                    continue
                came[edge.dst] = edge
                queue.append(edge.dst)
        out: dict[str, list[Transition]] = {}
        for dst in came:
            steps = [came[dst]]
            while steps[0].src != src:
                steps.insert(0, came[steps[0].src])
            out[dst] = steps
        return out

    def path(self, src: str, dst: str, min_uses: int = MIN_USES, min_rate: float = MIN_RATE,
             usable: Callable[[Transition], bool] | None = None) -> list[Transition] | None:
        """The fewest reliable steps from `src` to `dst` ([] when already there), or None when no known way."""
        return [] if src == dst else self.walks(src, min_uses, min_rate, usable).get(dst)

    def find(self, name_or_id: str) -> str | None:
        """A screen's id from its id or its name (case and spacing aside; the most seen of screens sharing a
        name), or None."""
        wanted = name_or_id.strip()
        if wanted in self.screens:
            return wanted
        key = _norm(wanted)
        if not key:
            return None
        named = [(sid, s) for sid, s in self.screens.items() if _norm(s.name) == key]
        if not named:
            named = [(sid, s) for sid, s in self.screens.items() if key in _norm(s.name)]
        return max(named, key=lambda p: p[1].seen)[0] if named else None

    def name(self, screen_id: str) -> str:
        info = self.screens.get(screen_id)
        return info.name if info else screen_id

    def label(self, screen_id: str, read: str = "") -> str:
        """The screen's name, with its id when another screen shares the name (goTo takes either); `read`: the name
        the reading gives a screen the map has not seen yet (a person reads a name, not an id)."""
        name = read if read and screen_id not in self.screens else self.name(screen_id)
        shared = any(sid != screen_id and s.name == name for sid, s in self.screens.items())
        return f"{name} [{screen_id}]" if shared else name


def _norm(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())
