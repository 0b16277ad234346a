"""Look before choosing (issue 40): on a screen whose options raise before they commit, raise each in turn, read it,
and send the model one table in the same turn; after its choice, raise the chosen option if needed and commit it.

The training screen is the first such screen (FACTS: one tile raised on arrival, a tap on another raises it, a tap
on the raised one trains). The reading says where options raise (`lluma_vision.facts.raised`: the tile under the failure
pill, and its row); the screen map records each raise (a press that kept the screen and moved its selection). Every
press goes through `Stepper` (the guard, a person in the loop, `--step`, the stale-frame check, the spend gate) and
is checked: the screen must stay and the option pressed must be the one raised, or the survey stops there and the
model gets the turn with what is known. Never a commit without the model: the survey presses only options that are
not raised; the commit presses the option the model pressed, once it shows raised.

With `survey.enabled: false` nothing here runs: the model raises and commits press by press, as the game asks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image
from rapidfuzz import fuzz

from lluma_agent.config import Config
from lluma_agent.loop.acting import Acted
from lluma_agent.loop.followup import Followed, Hands
from lluma_agent.loop.navigate import Navigator
from lluma_agent.loop.observe import observe
from lluma_agent.loop.steps import Stepper
from lluma_agent.loop.turn import Observation
from lluma_agent.navmap import Transition
from lluma_agent.runlog.turnlog import SurveyLog, SurveyRow
from lluma_agent.tools.actions import ActionError
from lluma_vision.facts.compact import compact
from lluma_vision.facts.raised import Raised, raised
from lluma_vision.models import CompactSupport

LEARNED_RAISES = 2  # options seen to keep a screen (raised, not committed) before the map counts it one to survey
SAME_NAME = 80  # rapidfuzz ratio: an OCR spelling of the pressed option ("Stamlna") names it (the event book's 80)
PRESSES = ("pressButton", "tapText")  # the model's ways to press an option by its name
NO_GAINS = "none read"  # a row's gains when the reading found none


def same_option(a: str, b: str) -> bool:
    x, y = (re.sub(r"[^0-9a-z]", "", s.split("#")[0].casefold()) for s in (a, b))
    return bool(x) and (x == y or fuzz.ratio(x, y) >= SAME_NAME)


def facts_line(option: str, obs: Observation) -> str:
    """What one raised option shows, as the survey's row: its gains, failure and the energy it leaves."""
    view = compact(obs.out)
    gains = ", ".join(f"{k.split('#')[0]} {v}" for k, v in view.gains.items()) or NO_GAINS
    failure = next((v for k, v in view.values.items() if k.casefold().startswith("failure")), "not read")
    now, after = view.gauges.get("Energy"), view.gauges.get("Energy after")
    energy = f"energy {now:.2f} -> {after:.2f}" if now is not None and after is not None else "energy not read"
    return f"{option}: gains {gains}; failure {failure}; {energy}{cards_part(view.supports)}"


def cards_part(cards: list[CompactSupport]) -> str:
    """The raised option's support cards, e.g. `; cards 2 (1 MAX, 1 hint)`; nothing when none were read."""
    if not cards:
        return ""
    maxed, hints = sum(c.bond == "MAX" for c in cards), sum(c.hint for c in cards)
    more = ", ".join(f"{n} {word}" for n, word in ((maxed, "MAX"), (hints, "hint")) if n)
    return f"; cards {len(cards)}" + (f" ({more})" if more else "")


@dataclass
class Looked:
    """A survey done this turn: its log, the screen as it shows now, what is raised on it, the table sent."""

    log: SurveyLog
    here: Observation
    selected: str
    table: str
    gate: Acted  # what the gate said on the way (a person's answers and stop, the guard's refusals)


class Surveyor:
    def __init__(self, cfg: Config, stepper: Stepper, nav: Navigator,
                 save_frame: Callable[[int, Image.Image, str], str]) -> None:
        self.enabled = cfg.survey.enabled
        self.stepper, self.nav, self.save_frame = stepper, nav, save_frame
        self.surveyed: set[str] = set()  # screens a survey found options on, this run (lead-ins go only there)
        self.left = False  # the model left a surveyed screen without choosing: the next screen is its to decide on
        self.looking: Looked | None = None  # this turn's survey, until its `follow`

    def options(self, obs: Observation) -> Raised | None:
        """The raised option and its row when this screen is one to survey, else None."""
        r = raised(obs.out) if self.enabled and obs.out.cinematic == "none" else None
        return r if r is not None and len(r.options) > 1 else None

    def surveyable(self, screen: str) -> bool:
        """A screen surveyed in this run whose options the map saw raise: two presses or more kept it."""
        return screen in self.surveyed and len({t.action for t in self.nav.map.transitions
                                                if t.src == screen and t.loop and t.tool == "pressButton"
                                                }) >= LEARNED_RAISES

    def lead_in(self, here: Observation) -> Transition | None:
        """The map's most used press from this screen to a screen it knows to survey (the hub's Training), or None.
        No share of its takings is asked of it (as goTo asks): a screen read two ways, or a hazard over it once, must
        not hide the way taken every turn, and the press is checked (no raised option after it: the model's turn)."""
        if self.left:  # the model went back to choose there (the hub's Races, Shop): no lead-in this time
            self.left = False
            return None
        if not (self.enabled and self.nav.enabled) or here.out.cinematic != "none":
            return None
        m, src = self.nav.cfg.map, self.nav.screen(here.out).id
        for edge in self.nav.map.ways_out(src):
            if (edge.count >= m.min_uses and self.nav.walkable(edge)
                    and edge.tool == "pressButton" and self.surveyable(edge.dst)
                    and not any(b.name == edge.args.get("name") and "disabled" in b.meta for b in here.out.buttons)):
                return edge
        return None

    def look(self, turn: int, here: Observation, hands: Hands, stuck: str) -> Looked | None:
        """Raise and read each option not raised yet; None when the screen is not one to survey (or the turn is
        stuck: `stuck` not "ok"). On a screen the map knows leads to one (the hub's Training), the coordinator first
        opens it (one checked press): the model decides the game turn once, on the table, with Back or runPlan for
        what the first screen offered. The survey is kept for this turn's `follow`."""
        self.looking = self._look(turn, here, hands) if stuck == "ok" else None
        return self.looking

    def _look(self, turn: int, here: Observation, hands: Hands) -> Looked | None:
        r, came, origin, gate = self.options(here), None, None, Acted()
        if r is None and (edge := self.lead_in(here)) is not None:
            before = origin = here
            try:
                tool, planned = self.nav.step_tool(edge, here.out)
            except (ActionError, ValueError, LookupError):
                return None
            done = self.stepper.step(tool, planned, here, hands, f"survey: open {self.nav.map.label(edge.dst)}")
            gate = done.gate
            if done.seen is None or done.note or done.action is None:
                return None if not gate.stop else Looked(SurveyLog(screen="", options=[]), here, "", "", gate)
            here = done.seen
            self.nav.step_taken(before.out, done.action, here.out, done.seconds, expected=None)
            r = self.options(here)
            if r is None:
                return Looked(SurveyLog(screen=self.nav.map.label(self.nav.screen(here.out).id), options=[],
                                        lead_in=self._came(before, edge, done.point, done.element),
                                        rows=[SurveyRow(option="", note="a surprise: no option shows raised")]),
                              here, "", self._opened_note(before, here), gate)
            came = self._came(before, edge, done.point, done.element)
        if r is None:
            return None
        screen = self.nav.map.label(self.nav.screen(here.out).id) if self.nav.enabled else "this screen"
        log = SurveyLog(screen=screen, options=r.options, lead_in=came,
                        rows=[SurveyRow(option=r.selected, line=facts_line(r.selected, here),
                                        view=compact(here.out).to_json())])
        selected = r.selected
        for n, option in enumerate(o for o in r.options if not same_option(o, r.selected)):
            row = SurveyRow(option=option)
            log.rows.append(row)
            try:
                tool, planned = self.stepper.press(option, here.out)
            except (ActionError, ValueError, LookupError) as exc:
                row.note = f"cannot be pressed here ({exc})"
                break
            done = self.stepper.step(tool, planned, here, hands, f"survey: raise {option}")
            row.point, row.element, row.note = done.point, done.element, done.note
            gate = gate.then(done.gate)
            if done.gate.errors or done.gate.person or done.gate.guarded:
                row.note = row.note or "; ".join([*done.gate.errors, done.gate.person, *done.gate.guarded]).strip("; ")
            if done.seen is None:
                break
            if done.action is not None:
                self.nav.step_taken(here.out, done.action, done.seen.out, done.seconds, expected=here.out)
            before, here = here, done.seen
            row.frame = self.save_frame(turn, here.frame.image, f"s{n + 2}")
            now = raised(here.out)
            if self.nav.screen(here.out).id != self.nav.screen(before.out).id or now is None:
                row.note = row.note or "a surprise: the press left the screen"
                break
            if not same_option(now.selected, option):
                row.note = row.note or f"a surprise: {now.selected} shows raised, not {option}"
                selected = now.selected
                break
            selected, row.line, row.view = now.selected, facts_line(option, here), compact(here.out).to_json()
            if row.note:
                break
        log.complete = len(log.rows) == len(r.options) and all(row.line and not row.note for row in log.rows)
        if log.complete:
            self.surveyed.add(self.nav.screen(here.out).id)
        table = self._table(log, selected)
        if origin is not None:
            table = table.replace("</survey>", f"\n{self._opened_note(origin, here)}</survey>")
        return Looked(log, here, selected, table, gate)

    def _came(self, before: Observation, edge: Transition, point: list[int] | None, element: str) -> SurveyRow:
        return SurveyRow(option=edge.args.get("name", ""), point=point, element=element,
                         line=f"opened from {self.nav.map.label(self.nav.screen(before.out).id)}")

    def _opened_note(self, before: Observation, here: Observation) -> str:
        names = [b.name for b in before.out.buttons if b.region != "menu"]
        src = self.nav.map.label(self.nav.screen(before.out).id)
        return (f"The coordinator opened {self.nav.map.label(self.nav.screen(here.out).id)} from {src} to show you "
                f"this; {src} offered: {', '.join(names) or 'nothing read'} (Back, goTo or runPlan for those).")

    def decided(self, looked: Looked | None, reading: Observation, acted: Acted | None) -> bool:
        """The model's input pressed one of the options of a screen that raises before it commits (a training
        decision), whether or not a survey showed it the others. A model that left a surveyed screen another way
        (back) decides on the screen it goes to: no lead-in takes it back at once."""
        r = looked.log.options if looked is not None else (o.options if (o := self.options_anyway(reading)) else [])
        act = acted.action if acted is not None else None
        chose = act is not None and act.tool in PRESSES and any(same_option(o, act.target) for o in r)
        self.left = looked is not None and bool(r) and act is not None and not chose and act.tool == "back"
        return chose

    @staticmethod
    def options_anyway(obs: Observation) -> Raised | None:
        """The raised option and its row whether or not surveys are on (the decisions are counted either way)."""
        return raised(obs.out)

    @staticmethod
    def _table(log: SurveyLog, selected: str) -> str:
        read = [f"- {row.line}" for row in log.rows if row.line]
        if read and all(f"gains {NO_GAINS};" in row.line for row in log.rows if row.line):
            read.append("(no gains were read for any option: the reading lost them, not the game; judge from the "
                        "screenshot, or press the option you would choose without them)")
        stopped = next((f"(the survey stopped at {row.option}: {row.note})" for row in log.rows if row.note), "")
        missing = [o for o in log.options if not any(same_option(o, row.option) and row.line for row in log.rows)]
        unread = [f"not read: {', '.join(missing)}"] if missing else []
        return "\n".join([f"<survey>{log.screen}: each option raised and read this turn ({selected} is raised now).",
                          *read, *unread, *([stopped] if stopped else []),
                          "Press an option's name once: the coordinator raises it if needed and commits it.</survey>"])

    def follow(self, acted: Acted, reading: Observation, hands: Hands) -> Followed:
        """After the model's input: whether it pressed an option of a screen that raises before it commits
        (`decided`), and, on a surveyed screen, the chosen option raised if needed and committed (`commit`)."""
        looked, self.looking = self.looking, None
        decided = self.decided(looked, reading, acted)
        return Followed(self.commit(looked, acted, hands) if looked is not None else acted, decided_on_options=decided)

    def commit(self, looked: Looked, acted: Acted, hands: Hands) -> Acted:
        """The model pressed an option: if it was not the raised one, its press raised it; read that, then press it
        again to commit it (one checked step). Logged in the survey; the model's call is told what was done."""
        if acted.action is None or acted.pending is None or acted.action.tool not in PRESSES:
            return acted
        chosen = next((o for o in looked.log.options if same_option(o, acted.action.target)), "")
        if not chosen:
            return acted
        looked.log.chosen = chosen
        if same_option(chosen, looked.selected) or acted.action.outcome == "unknown":
            return acted  # a press of the raised option commits it; an unanswered one may land late: nothing more
        row = SurveyRow(option=chosen)
        looked.log.commit.append(row)
        try:
            here = observe(self.stepper.device, self.stepper.vision, self.stepper.settle, self.stepper.cfg.device)
        except Exception as exc:  # noqa: BLE001 - the device's failure is the next turn's to see
            row.note = f"the raise could not be read ({type(exc).__name__}: {exc})"
            return acted
        self.nav.step_taken(looked.here.out, acted.action, here.out, 0.0, expected=looked.here.out)
        now = raised(here.out)
        same_screen = self.nav.screen(here.out).id == self.nav.screen(looked.here.out).id
        if not same_screen or now is None or not same_option(now.selected, chosen):
            row.note = f"not committed: after the press {now.selected if now else 'nothing'} shows raised"
            return acted
        try:
            tool, planned = self.stepper.press(now.selected, here.out)
        except (ActionError, ValueError, LookupError) as exc:
            row.note = f"not committed: {chosen} cannot be pressed ({exc})"
            return acted
        done = self.stepper.step(tool, planned, here, hands, f"commit {chosen}", look=False)
        row.point, row.element, row.note = done.point, done.element, done.note
        committed = acted.then(done.gate)
        if done.point is not None and acted.pending is not None:
            said = f"{acted.pending.description}; it raised {chosen}, and the coordinator pressed it again to commit it"
            committed = committed.model_copy(update={"pending": acted.pending.model_copy(update={"description": said})})
        return committed
