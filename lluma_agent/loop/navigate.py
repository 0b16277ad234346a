"""The screen map in the loop (issue 30): recording, where you are, `goTo`, routine passes.

- Recording: each reading's screen is seen; the action sent on the screen before (the model's, a goTo step, a
  routine pass; never a recovery rung) is recorded with the screen it led to and the seconds it took. The action
  waits in the map itself (`ScreenMap.pending`), so a resumed run completes it. The map is saved after each turn.
- Where you are: the current turn's notes get one `<map>` line, the screen's name and its known ways out; past
  turns keep their compact form (notes are not kept in history).
- `goTo(screen)`: walked by loop/walk.py on this map (step 1 the model's input, the rest checked step by step).
- Never a spend: no routine pass and no goTo step presses on a screen whose reading may spend (the spend gate,
  tools/spending.py: what the reading says the screen asks to spend, a never-autopilot word in its title).
- Routine passes (`loop.autopilot`): a screen whose map shows one way out taken as before, with nothing to choose on
  it, is passed without a model call (where it leads may vary when it is the screen's only way on, or the confirm
  of a dialog the model's own input opened: that is the game's); a loading screen that outlasted observe's waits
  is waited out. The next model turn is told (`[passed without asking: ...]`). A pass that did not go as the map
  said hands the next turn to the model. The guard and a person in the loop see every pass.
- A dialog over the game (a known one a night brings, or one the map saw come over several screens) is passed by one
  rule, `hazard`, wherever it meets the coordinator's own presses: after a survey's raise and between a plan's steps.

With `map.enabled: false` nothing here runs: no file, no note, no tool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lluma_agent.config import Config
from lluma_agent.device.protocol import Frame, Phone
from lluma_agent.device.settle import Settle
from lluma_agent.loop.acting import Acted, Actor, Effect
from lluma_agent.loop.observe import VisionLike
from lluma_agent.loop.stop import StopFlag
from lluma_agent.loop.turn import Notes, Observation
from lluma_agent.navmap import PendingStep, ScreenMap, Transition
from lluma_agent.navmap.actions import ActionKey, key_of, readable
from lluma_agent.navmap.model import Routine
from lluma_agent.navmap.shared import SharedBook
from lluma_agent.navmap.store import MAP
from lluma_agent.runlog.turnlog import ActionLog, RoutineLog
from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction
from lluma_agent.tools.goto import GoTo
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.spending import SpendGate, words
from lluma_agent.tools.toolkit import ToolContext
from lluma_facts.clock import Clock
from lluma_vision.facts.screen import choice_stack, identify
from lluma_vision.facts.story import STORY_CONTROLS, choices_as_text, sentence
from lluma_vision.models import ScreenIdentity, VisionOutput

CHROME = STORY_CONTROLS | {"menu"}  # a story's and a screen's own controls
DISMISS = CHROME | {"back", "cancel", "close"}  # leave, never choose
PROMPT = "system_prompt_map.md"  # appended to the system prompt when the map is on
KNOWN_SHOWN = 30  # screens named when goTo's target is unknown
# The one button an unknown screen may be passed on at first sight (FACTS: on an unknown screen the bots press only
# Next / OK / Close / Proceed; Cancel undoes a choice, so it is not among them).
SAFE_ALONE = frozenset({"next", "ok", "close", "proceed"})
KNOWN_DIALOGS = "dialogs.yaml"  # lluma_knowledge/procedures: a night's dialogs and the press that dismisses each
# A dialog reached from this many other screens comes over the game. In the careers bench's first 24-turn career
# (seed 11) each hazard came over two: Connection Error (4 times), Maintenance (7), Data Update (4); a flow's own
# confirm came from the one screen that opens it (Rest, Race Entry, the Warning, Try Again). A confirm reached from
# two (Rest from the hub and the training screen) confirms a press someone chose on the screen before.
COMES_OVER = 2
# ...or after this many different presses (on one screen or several): a hazard comes whatever was pressed (the
# careers bench's maps, 2 x 78 turns, seeds 11: "Data Update" came after 5-7 presses, 6 of them on Training, and
# cost 10 calls before it came over a second screen; the connection, maintenance, "isn't responding" and date
# dialogs after 3-8; a flow's dialog, "Rest" or "Continue Career", after 2 at most)
COMES_AFTER = 3
_log = logging.getLogger(__name__)


@dataclass
class Passed:
    """A routine pass (no model call): the input sent (pending like the model's) and its log."""

    acted: Acted
    log: RoutineLog
    later: bool = False  # a notice that says to come back later, waited after (its loop is the game's)


def _worded(name: str) -> bool:
    """A button named in words: a choice. A rank or a count read as a button ("4th", "x3") is none."""
    return any(w.isalpha() and len(w) > 1 for w in words(name.split("#")[0]))


class KnownDialogs(BaseModel):
    """lluma_knowledge/procedures/dialogs.yaml: a night's dialogs by title, the press that dismisses each, and
    those that say to come back later."""

    model_config = ConfigDict(extra="forbid")

    dismiss: dict[str, str]
    come_back_later: list[str] = Field(default_factory=list)

    def later(self, title: str) -> bool:
        return any(t.casefold() in title.casefold() for t in self.come_back_later)


def known_dialogs() -> KnownDialogs:
    """The dialogs a night brings and the press that dismisses each (lluma_knowledge/procedures/dialogs.yaml)."""
    data = yaml.safe_load(resources.files("lluma_knowledge.procedures").joinpath(KNOWN_DIALOGS).read_text("utf-8"))
    try:
        return KnownDialogs.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"lluma_knowledge/procedures/{KNOWN_DIALOGS}: {exc}") from None


def screen_of(out: VisionOutput) -> ScreenIdentity:
    """The reading's screen identity (computed again for a reading that came without one)."""
    return out.screen or identify(out)


def ways_on(out: VisionOutput) -> list[str]:
    """The screen's worded buttons, a way back or a Cancel counted (its tab bar and a story's Skip, Quick, Log,
    Auto aside)."""
    return [b.name for b in out.buttons if b.region != "menu" and "".join(words(b.name)) not in CHROME
            and _worded(b.name)]


def one_way_on(out: VisionOutput) -> bool:
    """The screen offers one worded button at most (`ways_on`): nothing else to press. A dialog with Cancel and OK
    asks a question; this one does not."""
    return len(ways_on(out)) <= 1


def plain_story(out: VisionOutput) -> bool:
    """A story page with nothing to choose on it: no choice plates, no choices read as text."""
    return out.cinematic == "dialogue" and not choice_stack(out) and not choices_as_text(out) and not any(
        sentence(b.name) for b in out.buttons)


def kept_for_model(out: VisionOutput, tool: str, target: str, gate: SpendGate, over_game: bool = False,
                   known: bool = False) -> str:
    """Why a screen is the model's whatever the map says, taking `tool` on `target` there ("" when nothing): a
    spend (`SpendGate.why`; a never_autopilot word in `target` or a button too), a choice, or another worded button
    (not counted on a dialog that comes `over_game`: a hazard's "Title Screen" beside the Retry the model chose each
    time; on a `known` dialog a night brings, only a spend keeps it: its press is the knowledge's, Android's "isn't
    responding" stacks its two buttons like choices). Conservative, from the reading alone; bench/navigation.py
    counts the turns it keeps (no map can pass them)."""
    # a spend, or a press of (or beside) a button that chooses or spends (a tab bar's Shop or Scout is a way
    # elsewhere, not on this screen)
    if hit := (gate.why(out) or next(
            (f"{label!r} holds {word!r}" for label in [target, *(b.name for b in out.buttons if b.region != "menu")]
             if (word := gate.never_in(label))), "")):
        return hit
    if known:
        return ""
    if choice_stack(out) or any(sentence(b.name) for b in out.buttons):
        return "choices to pick from"
    if tool == "advanceDialogue":
        if out.cinematic != "dialogue":
            return "no story to move on"
        picks = choices_as_text(out)
        return f"choices read as text ({'; '.join(picks)})" if picks else ""
    title = screen_of(out).name  # a logo or header read as a button names the screen: nothing to choose
    others = [] if over_game else [b.name for b in out.buttons if b.region != "menu" and b.name not in (target, title)
                                   and "".join(words(b.name)) not in DISMISS and _worded(b.name)]
    return f"other buttons ({', '.join(others)})" if others else ""



class Navigator:
    def __init__(self, cfg: Config, path: Path, run: str, device: Phone, vision: VisionLike, settle: Settle,
                 stop: StopFlag, clock: Clock) -> None:
        self.cfg, self.path, self.run = cfg, path, run
        self.tools = default_tools()  # the input tools the map's steps name (goTo is never a step)
        self.device, self.vision, self.settle = device, vision, settle
        self.stop, self.clock = stop, clock
        self.enabled = cfg.map.enabled
        self.file = SharedBook(path, MAP)  # other runs on the same memory folder write it too: merged at each save
        self.map, self.notice = self.file.open() if self.enabled else (ScreenMap(), "")
        if self.notice:
            _log.warning("screen map: %s", self.notice)
        self.passed: list[str] = []  # routine passes the model has not been told of
        self.in_row = 0  # routine passes since the model's last turn
        self.hold = False  # a pass went other than the map said: the model takes the next turn
        self.surprised = False  # ...or a walk, a plan or a refusal stopped short: not even a lone OK is passed
        self.confirming = False  # the screen read is a dialog the model's last input opened
        self.gate = SpendGate(cfg.loop)  # the one spend gate (tools/spending.py), asked before every press alone
        self.dialogs = known_dialogs()
        self.later_n, self.later_at = 0, float("-inf")  # notices to come back later in a row, and the last one's time

    def prompt(self, system_prompt: str) -> str:
        """The system prompt, with the lines about the map and goTo when the map is on (off: as it always was)."""
        if not self.enabled:
            return system_prompt
        return system_prompt.rstrip("\n") + "\n" + resources.files("lluma_agent").joinpath(PROMPT).read_text("utf-8")

    screen = staticmethod(screen_of)

    # ---- recording -------------------------------------------------------------------------------------
    def observed(self, out: VisionOutput, effect: Effect | None, restarted: bool = False) -> list[str]:
        """A still reading: where the pending action led. Returns what the turn log must say (a damaged map set
        aside, once). `restarted`: the game was started again before this reading (it had stopped or crashed),
        so what the pending action did is not known: it is not recorded."""
        if not self.enabled:
            return []
        told, self.notice = ([f"map: {self.notice}"] if self.notice else []), ""
        now, here = self.clock.wall(), self.screen(out)
        self.map.see(here.id, here.name, now)
        p, self.map.pending = self.map.pending, None
        # a dialog the model's own input opened asks to confirm that choice (Rest -> "Rest": Cancel / OK)
        self.confirming = (here.kind == "dialog" and p is not None and p.run == self.run and not p.routine
                           and p.expected is None and p.src != here.id)
        if p is None:
            return told
        if p.run != self.run or restarted:  # nothing known of how this screen came: no step moved to it later
            self.map.arrival = None
            return told
        edge = self.map.record(p.src, p.action, here.id, now - p.sent_at, now, p.tool, p.args, p.expected)
        if p.routine:
            unchanged = effect is not None and not effect.changed
            missed = (p.expected is not None and p.expected != here.id) or unchanged
            line = f"{readable(p.action)} on {self.map.label(p.src)}{f' ({p.why})' if p.why else ''} -> " \
                   f"{self.map.label(here.id)}"
            if missed:
                if unchanged:  # a screen reached other than expected counted its miss in record()
                    self.map.missed(edge.src, edge.action, edge.dst)
                self.hold = True
                line += " (the screen did not change)" if unchanged else (
                    f" (the map expected {self.map.label(p.expected or '')}; the next turn is yours)")
            self.passed.append(line)
            if effect is not None:
                effect.note = ""  # told once, in the passed line
        return told

    def pend(self, action: ActionKey, out: VisionOutput, expected: str | None = None, routine: bool = False,
              why: str = "") -> None:
        self.map.pending = PendingStep(src=self.screen(out).id, action=action.key, tool=action.tool, args=action.args,
                                       sent_at=self.clock.wall(), run=self.run, expected=expected, routine=routine,
                                       why=why)

    def step_taken(self, before: VisionOutput, action: ActionLog, after: VisionOutput, seconds: float,
                   expected: VisionOutput | None = None) -> None:
        """A press the coordinator checked at once (a survey's raise): recorded where it led, as any step is."""
        if not self.enabled or (key := key_of(action, before)) is None:
            return
        now, src, dst = self.clock(), self.screen(before), self.screen(after)
        self.map.see(dst.id, dst.name, now)
        self.map.record(src.id, key.key, dst.id, seconds, now, key.tool, key.args,
                        expected=self.screen(expected).id if expected is not None else None)

    def save(self) -> str:
        """Write the map (atomically); the problem for the turn log, or ""."""
        if not self.enabled:
            return ""
        try:
            self.map, told = self.file.save(self.map)
        except (OSError, ValueError) as exc:
            return f"map: not saved to {self.path} ({type(exc).__name__}: {exc})"
        return f"map: {told}" if told else ""

    # ---- where you are -----------------------------------------------------------------------------------
    def where(self, out: VisionOutput) -> str:
        """`<map>screen: Career; ways out: Training -> Training, Rest -> Rest; goTo: Skill List</map>`: a few tokens.
        `goTo:` names screens further than one press that a walk reaches (the most seen first), when there are."""
        here = self.screen(out).id
        ways = self.map.ways_out(here)[: self.cfg.map.ways_shown]
        named = ", ".join(f"{readable(t.action)} -> {self.map.label(t.dst)}" for t in ways) or "none known yet"
        far = ", ".join(self.far(here, {t.dst for t in ways}))
        return f"<map>screen: {self.map.label(here)}; ways out: {named}{f'; goTo: {far}' if far else ''}</map>"

    def far(self, here: str, near: set[str]) -> list[str]:
        """Up to `map.far_shown` screens a goTo walks to from `here` in two or more steps, the most seen first."""
        m = self.cfg.map
        walks = self.map.walks(here, m.min_uses, m.min_rate, usable=self.walkable)
        by_seen = sorted(self.map.screens, key=lambda sid: -self.map.screens[sid].seen)
        far = [sid for sid in by_seen if sid not in near and 1 < len(walks.get(sid, ())) <= m.max_steps]
        return [self.map.label(sid) for sid in far[: m.far_shown]]

    def tell(self, notes: Notes, out: VisionOutput) -> Notes:
        """The model's turn: its notes get where it is and what was passed without asking since its last turn."""
        if not self.enabled:
            return notes
        lines = [f"[passed without asking: {'; '.join(self.passed)}]"] if self.passed else []
        self.passed, self.in_row, self.hold, self.surprised = [], 0, False, False
        return replace(notes, lines=[*notes.lines, *lines, self.where(out)])

    # ---- the map's steps ---------------------------------------------------------------------------------------------
    def walkable(self, edge: Transition) -> bool:
        """An edge a walk may take: never an action that spends or chooses (loop.never_autopilot words in its target).
        The coordinator's other sequences (a plan's goto, a survey's lead-in) ask it too."""
        return not self._never(edge.args.get("name", ""))

    def step_tool(self, edge: Transition, out: VisionOutput) -> tuple[InputTool, PlannedAction]:
        """The map's step `edge` planned on the screen `out` reads (ActionError when it cannot be taken here)."""
        tool = self.tools.get(edge.tool)
        if not isinstance(tool, InputTool) or isinstance(tool, GoTo):
            raise ActionError(f"the map's step {readable(edge.action)} has no tool to take it ({edge.tool!r})")
        return tool, tool.plan(tool.args.model_validate(edge.args), out)

    def known(self) -> str:
        screens = sorted(self.map.screens, key=lambda s: -self.map.screens[s].seen)
        listed = ", ".join(self.map.label(s) for s in screens[:KNOWN_SHOWN])
        more = f" (+{len(screens) - KNOWN_SHOWN} more)" if len(screens) > KNOWN_SHOWN else ""
        return (listed + more) or "none yet"

    # ---- routine passes ------------------------------------------------------------------------------------
    def _never(self, label: str) -> str:
        return self.gate.never_in(label)

    def choice(self, out: VisionOutput, planned: PlannedAction, over_game: bool = False, known: bool = False) -> str:
        """Why the screen holds something to choose or spend ("" when nothing): conservative, from the reading."""
        return kept_for_model(out, planned.tool, planned.target, self.gate, over_game, known)

    def known_dialog(self, out: VisionOutput) -> str | None:
        """The button that dismisses this dialog when it is one a night brings (KNOWN_DIALOGS) and shows it, else
        None. By its name whatever its kind: Android's "isn't responding" reads as a titled screen (its title at the
        top left of its box)."""
        title = self.screen(out).name.casefold()
        press = next((b for t, b in self.dialogs.dismiss.items() if t.casefold() in title), None)
        return press if press is not None and any(b.name == press for b in out.buttons) else None

    @staticmethod
    def first_sight(out: VisionOutput, known: str | None) -> Routine | None:
        """A way on the map has not learned yet, taken at first sight (where it leads is the game's): a known
        dialog's dismissal, or the one button of a screen that offers nothing else when it is Next, OK, Close or
        Proceed (SAFE_ALONE). The reading's checks (`choice`) still apply."""
        name = known if known is not None else Navigator.lone_safe(out)
        if name is None:
            return None
        return Routine(f"pressButton:{name}", "pressButton", {"name": name}, None, 0)

    def surprise(self, happened: bool = True) -> None:
        """A walk, a plan or a pass stopped short (`happened`): the model takes the next turn, whatever shows."""
        if happened:
            self.hold = self.surprised = True

    @staticmethod
    def lone_safe(out: VisionOutput) -> str | None:
        """The screen's one button when it is Next, OK, Close or Proceed (SAFE_ALONE) and nothing else is offered."""
        alone = ways_on(out)
        return alone[0] if len(alone) == 1 and "".join(words(alone[0])) in SAFE_ALONE else None

    def over_game(self, here: ScreenIdentity) -> bool:
        """A dialog seen to come over COMES_OVER or more other screens, or after COMES_AFTER different presses: a
        hazard or a notice over the game (a connection error, Android's "isn't responding"), not a step of one flow.
        Dismissed, it leaves the game where it was, so where its way out leads is the game's, and the button the
        model passed over each time (a "Title Screen" beside Retry) is no choice it made."""
        return here.kind == "dialog" and (len(self.map.came_from(here.id)) >= COMES_OVER
                                          or len(self.map.came_by(here.id)) >= COMES_AFTER)

    def routine_pass(self, reading: Observation, stuck: str, turn: int, actor: Actor, ctx: ToolContext,
                     sleep: Callable[[float], float], hazard_only: bool = False,
                     standing: tuple[str, str] | None = None) -> Passed | None:
        """Pass this screen without a model call when it is routine (the acted input, pending like the model's),
        or None: the model decides. `stuck` is the turn's stuck level (a pass only when "ok"). `hazard_only`: only a
        dialog over the game (a known one, or one seen over several screens): what a survey's raise may meet."""
        if not (self.enabled and self.cfg.loop.autopilot):
            return None
        if stuck != "ok" or self.in_row >= self.cfg.loop.max_routine:
            return None
        out, frame = reading.out, reading.frame
        here, known = self.screen(out), self.known_dialog(out)
        if self.hold and known is None and (self.surprised or (self.lone_safe(out) is None and not plain_story(out))):
            return None  # a pass went other than the map said: the model looks, unless a night's dialog came over it
        # (a hazard after the press) or, after a routine pass, a notice whose one button is OK or Close (a login's
        # bonus after the title) or a story page without choices (Continue Career resumed an event's story):
        # nothing to decide; a walk's or a plan's surprise is the model's whatever shows
        if standing is not None and not hazard_only:  # the model's own answer to this event: only a spend keeps it
            rule = Routine(f"pressButton:{standing[0]}", "pressButton", {"name": standing[0]}, None, 0)
            return self._take(rule, out, frame, actor, ctx, over=False, plain=True, why=standing[1])
        if out.cinematic == "loading":  # still loading after observe's waits: wait again, without the model
            waited = sleep(self.cfg.loop.wait_s)
            acted = Actor.own("wait", f"waited {waited:.0f} s on a loading screen without a model call", "waited",
                              frame, turn)
            return self._passed(out, acted, ActionKey("wait", "wait", {}), None, 0)
        # where a screen's one way on leads is the game's when the model asked for it (a confirm of its choice) or
        # when nothing else can be pressed there (a title's tap to start, a notice's OK): anywhere but here will do
        over = known is not None or self.over_game(here)
        if hazard_only:  # a dialog over the game, passed as between a plan's steps (`hazard`)
            way = self.hazard(out)
        else:
            way = self.map.routine(here.id, self.cfg.map.routine_after,
                                   closing=self.confirming or over or one_way_on(out))
            if way is None and (seen := self.first_sight(out, known)) is not None and not any(
                    t.loop and t.streak for t in self.map.taken(here.id, seen.action)):  # not one seen to do nothing
                way = seen
        if way is None:
            return None
        named = known is not None and way.args.get("name") == known
        passed = self._take(way, out, frame, actor, ctx, over, plain=named)
        if passed is not None and named and passed.acted.pending is not None and self.dialogs.later(here.name):
            passed.later, passed.log.waited_s = True, self._come_back(sleep)
        return passed

    def _come_back(self, sleep: Callable[[float], float]) -> float:
        """After a notice that says to come back later: wait loop.wait_s, doubled each time it came back soon, up to
        loop.come_back_max_s. Where the dismissal leads (the title) is what the game said: no hold."""
        now, lp = self.clock.wall(), self.cfg.loop
        self.later_n = self.later_n + 1 if now - self.later_at <= 2 * lp.come_back_max_s + 60 else 0
        self.later_at = now
        self.hold, self.surprised, self.in_row = False, False, 0  # the wait bounds this loop, not loop.max_routine
        return sleep(min(lp.come_back_max_s, lp.wait_s * 2 ** self.later_n))

    def _take(self, way: Routine, out: VisionOutput, frame: Frame, actor: Actor, ctx: ToolContext, over: bool,
              plain: bool, why: str = "") -> Passed | None:
        """Take `way` when the reading lets the coordinator press it alone (`_ready`), else None: the model decides."""
        ready = self._ready(way, out, over, plain)
        if ready is None:
            return None
        acted = actor.take(*ready, frame, ctx)
        return self._passed(out, acted, ActionKey(way.action, way.tool, way.args), way.expected, way.uses, why)

    def _ready(self, way: Routine, out: VisionOutput, over: bool, plain: bool
               ) -> tuple[InputTool, PlannedAction] | None:
        """`way` planned on `out` when the reading lets the coordinator press it alone (`choice`; `plain`: a press
        the knowledge or the model named beforehand, which only a spend keeps), else None."""
        if way.tool == GoTo.name:
            return None
        tool = self.tools.get(way.tool)
        if not isinstance(tool, InputTool):
            return None
        try:
            planned = tool.plan(tool.args.model_validate(way.args), out)
        except (ActionError, ValueError, LookupError):
            return None  # the map's button is not on the screen this time: the model looks
        if self.choice(out, planned, over, known=plain and planned.target == way.args.get("name")):
            return None
        return tool, planned

    def hazard(self, out: VisionOutput) -> Routine | None:
        """The way that passes a dialog over the game (a known one a night brings: its dismissal; one the map saw come
        over several screens: the way out it knows), or None for any other screen. The one rule for a hazard met
        between the coordinator's own presses: after a survey's raise (`routine_pass(hazard_only)`, pending like any
        pass) and between a plan's steps (`hazard_way`, checked at once)."""
        if not (self.enabled and self.cfg.loop.autopilot):
            return None
        here, known = self.screen(out), self.known_dialog(out)
        if known is None and not self.over_game(here):
            return None
        return self.first_sight(out, known) if known is not None else self.map.routine(
            here.id, self.cfg.map.routine_after, closing=True)

    def hazard_way(self, out: VisionOutput) -> tuple[InputTool, PlannedAction] | None:
        """`hazard`'s way planned on `out` when the reading lets the coordinator press it alone, else None."""
        way = self.hazard(out)
        return None if way is None else self._ready(way, out, True, plain=self.known_dialog(out) is not None)

    def _passed(self, out: VisionOutput, acted: Acted, key: ActionKey, expected: str | None, uses: int,
                why: str = "") -> Passed:
        log = RoutineLog(screen=self.map.label(self.screen(out).id), action=key.key,
                         expected=self.map.label(expected) if expected else "", uses=uses, why=why)
        self.in_row += 1
        if acted.pending is None:  # refused by the guard, vetoed, not sent: the model takes the next turn
            self.surprise()
        else:
            self.pend(key, out, expected, routine=True, why=why)
        return Passed(acted, log)
