"""Plans the coordinator carries out (issue 40, item 3): `runPlan(name, args)` names a procedure, data in the knowledge
package (lluma_knowledge/procedures/career.yaml) or the model's own memory file `procedures.yaml`, and the
coordinator takes it step by step without a model call per screen.

Each step is a `goto` (the screen map's known way, each press checked against the map), a `press` (a button by name,
`expect` the screen it must lead to) or a `choose` (an option that raises before it commits: raised if needed, then
committed). The first press is this turn's input (the actor sends it like any: the guard, a person in the loop); the
rest go through `Stepper` (a person's stop, the spend gate, `--step`, the guard, `--confirm`, the stale-frame check).
A surprise (a screen other than expected, a button not there, a spend, a refusal) stops the plan: the model gets the
turn with what was done and where it is. A procedure the model wrote is validated when it is asked for (known step
kinds, arguments declared, bounded length); a bad one is one clear error to the model, nothing is sent. Its file is
read through the hardened loader (lluma_agent/safeload.py: what the file is, its size, encoding and depth): a bad
file costs only its own procedures, never the built-in ones; it is named once to a person and left where it is.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from rapidfuzz import fuzz

from lluma_agent import safeload, yamlsafe
from lluma_agent.config import Config
from lluma_agent.loop.acting import Acted
from lluma_agent.loop.fleet_procedures import FleetProcedures
from lluma_agent.loop.followup import Followed, Hands
from lluma_agent.loop.navigate import Navigator
from lluma_agent.loop.observe import observe
from lluma_agent.loop.steps import Stepper
from lluma_agent.loop.survey import same_option
from lluma_agent.loop.turn import Observation
from lluma_agent.memory.store import MemoryStore
from lluma_agent.navmap.actions import readable
from lluma_agent.runlog.turnlog import SAID_MAX, ActionLog, PlanLog, PlanStepLog
from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction, element_of
from lluma_vision.facts.raised import raised
from lluma_vision.models import VisionOutput

MEMORY_FILE = "procedures.yaml"  # the model's own procedures, in its memory folder
OWN_SOURCE = f"memory file {MEMORY_FILE}"  # how the model knows it
MAX_STEPS = 12  # steps of one procedure (a turn of the game takes 3-4 presses; a skill list a few more)
MAX_HAZARDS = 2  # dialogs over the game passed after one step (a connection error, then a date change)
MAX_PRESSES = 24  # presses of one plan, goto walks included: a loop on the map cannot run on
SAME_SCREEN_NAME = 80  # rapidfuzz ratio: the screen reached is the one `expect` names (OCR spellings)
_ARG = re.compile(r"\{(\w+)\}")
_log = logging.getLogger(__name__)


@dataclass
class Past:
    """What passing the dialogs that came over a plan's step did: their gate, the screen after, whether to stop."""

    gate: Acted
    seen: Observation | None
    stop: bool


class PlanError(ValueError):
    """A procedure that cannot be run: unknown, badly written, missing an argument (told to the model)."""


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    goto: str | None = Field(None, min_length=1, max_length=80)
    press: str | None = Field(None, min_length=1, max_length=80)
    choose: str | None = Field(None, min_length=1, max_length=80)
    expect: str | None = Field(None, min_length=1, max_length=80)
    each: str | None = Field(None, min_length=1, max_length=40)
    if_shown: bool = False  # a press of what the game may not show (a confirm): skipped when it is not on the screen

    @model_validator(mode="after")
    def _one_kind(self) -> PlanStep:
        if sum(x is not None for x in (self.goto, self.press, self.choose)) != 1:
            raise ValueError("a step is exactly one of goto, press, choose")
        if self.if_shown and self.press is None:
            raise ValueError("if_shown goes with a press")
        return self

    @property
    def kind(self) -> str:
        return "goto" if self.goto is not None else "press" if self.press is not None else "choose"

    @property
    def what(self) -> str:
        return self.goto or self.press or self.choose or ""


class Procedure(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = Field(min_length=1, max_length=200)
    args: list[str] = Field(default_factory=list, max_length=4)
    steps: list[PlanStep] = Field(min_length=1, max_length=MAX_STEPS)

    @model_validator(mode="after")
    def _args_declared(self) -> Procedure:
        for step in self.steps:
            if step.each is not None and step.each not in self.args:
                raise ValueError(f"`each: {step.each}` names no argument (args: {self.args})")
            for used in _ARG.findall(" ".join(filter(None, (step.what, step.expect)))):
                if used not in self.args and not (used == "item" and step.each):
                    raise ValueError(f"{{{used}}} is not an argument (args: {self.args})")
        return self


class ProcedureError(PlanError):
    """A procedures file that cannot be used: its source and what is wrong with it."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.problem = problem


def parse(text: str, source: str) -> dict[str, Procedure]:
    """The procedures of one YAML text (a mapping of name -> procedure); ProcedureError names the source and the
    fault."""
    try:
        data = yamlsafe.load(text)
    except yaml.YAMLError as exc:
        raise ProcedureError(source, f"not YAML: {yamlsafe.problem(exc)}") from None
    return procedures_of(data, source)


def procedures_of(data: Any, source: str) -> dict[str, Procedure]:
    """The procedures `data` (a YAML document) holds; ProcedureError names the source and the first fault."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ProcedureError(source, "it must map procedure names to procedures")
    out = {}
    for name, body in data.items():
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,30}", name):
            raise ProcedureError(source, f"{name!r} is not a procedure name (lower case letters, digits, _)")
        try:
            out[name] = Procedure.model_validate(body)
        except ValidationError as exc:
            where, what = safeload.fault(exc)
            raise ProcedureError(source, f"procedure {name!r}{f' at {where}' if where else ''}: {what}") from None
    return out


def built_in() -> dict[str, Procedure]:
    return parse(resources.files("lluma_knowledge.procedures").joinpath("career.yaml").read_text("utf-8"),
                 "lluma_knowledge/procedures/career.yaml")


def expand(proc: Procedure, args: dict[str, Any]) -> list[PlanStep]:
    """The procedure's steps with its arguments in place (`each` repeated per item); PlanError for a missing one."""
    missing = [a for a in proc.args if a not in args]
    if missing:
        raise PlanError(f"missing argument(s): {', '.join(missing)} (the procedure takes {', '.join(proc.args)})")
    unknown = [a for a in args if a not in proc.args]
    if unknown:
        raise PlanError(f"unknown argument(s): {', '.join(unknown)} (the procedure takes "
                        f"{', '.join(proc.args) or 'none'})")

    def fill(text: str | None, item: str = "") -> str | None:
        if text is None:
            return None
        return _ARG.sub(lambda m: item if m.group(1) == "item" else _text(args[m.group(1)]), text)

    out = []
    for step in proc.steps:
        items = args[step.each] if step.each is not None else [""]
        items = items if isinstance(items, list) else [items]
        for item in items:
            out.append(step.model_copy(update={k: fill(getattr(step, k), str(item))
                                               for k in ("goto", "press", "choose", "expect")}))
    if len(out) > MAX_STEPS * 2:
        raise PlanError(f"the plan takes {len(out)} steps, more than {MAX_STEPS * 2}")
    return out


def _text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


@dataclass
class Press:
    """The next press of a plan on the screen read: what to send and how to check where it leads."""

    tool: InputTool
    planned: PlannedAction
    label: str  # "press Rest", "goto Training: Training"
    expect_id: str | None = None  # the screen it must reach
    expect_name: str | None = None  # ...by name
    leaves: bool = False  # it must leave this screen (a choice committed)
    selects: str | None = None  # the option it must raise
    advance: bool = True  # the plan's step is done once this press is


@dataclass
class Plan:
    """A plan being run: its name, its steps with arguments in place, where it is."""

    name: str
    args: dict[str, Any]
    steps: list[PlanStep]
    first: Press
    log: PlanLog
    at: int = 0
    presses: int = 0


class Planner:
    def __init__(self, cfg: Config, nav: Navigator, stepper: Stepper, memory: MemoryStore) -> None:
        self.cfg, self.nav, self.stepper, self.memory = cfg, nav, stepper, memory
        self.enabled = cfg.plans.enabled
        self.built_in = built_in()
        self.plan: Plan | None = None  # the plan whose first press this turn's input is
        self.problem = ""  # what is wrong with the model's procedures file, as last read ("" when nothing)
        self._said = ""  # the line a person was last told of it (told again only when it changes)
        self._unsaid: list[str] = []  # ...for the turn log
        # a fleet's devices share the procedures their models wrote (memory.shared_dir; loop/fleet_procedures.py)
        shared = cfg.memory.shared_dir
        self.fleet = FleetProcedures(shared, nav.run) if shared is not None and self.enabled else None
        self.others: dict[str, Procedure] = {}  # the fleet's procedures other devices wrote, as last shared

    def procedures(self) -> dict[str, Procedure]:
        """The built-in procedures and the model's own, read from its memory file through the hardened loader (depth,
        size, encoding, what the file is). A bad file costs only its own procedures: it is left as it is (the model
        and a person see it in the memory folder and mend it), `problem` says what is wrong, a person is told once
        (stderr, the turn log) and the built-in procedures go on."""
        self.share()  # a fleet's: the others' procedures as they are now
        path = self.memory.folder / MEMORY_FILE
        try:
            own = procedures_of(safeload.read_yaml(path, limit=self.memory.max_file_bytes), OWN_SOURCE)
            if clash := sorted(set(own) & set(self.built_in)):
                raise ProcedureError(OWN_SOURCE, f"{', '.join(clash)} is a built-in procedure's name")
        except FileNotFoundError:
            own = {}
        except (safeload.Refused, ProcedureError) as exc:
            self.problem = exc.problem
            line = f"{path}: {exc.problem}; its procedures are left out (the file stays), the built-in ones go on"
            if line != self._said:
                self._said = line
                self._unsaid.append(f"plans: {line}")
                _log.warning("plans: %s", line)
            return self.built_in
        self.problem = self._said = ""
        return {**self.built_in, **self.others, **own}

    def share(self) -> None:
        """A fleet's device, after each turn: its model's procedures handed to the fleet, the others' read back (a
        procedure of another device's that does not parse is left out, and said)."""
        if self.fleet is None:
            return
        path = self.memory.folder / MEMORY_FILE
        try:
            own = safeload.read_yaml(path, limit=self.memory.max_file_bytes)
            procedures_of(own, OWN_SOURCE)  # only a file that parses is handed over
        except FileNotFoundError:
            own = {}
        except (safeload.Refused, ProcedureError):
            return  # procedures() says what is wrong with it
        others, told = self.fleet.share(own or {})
        self.others = {}
        for name, body in others.items():
            try:
                self.others.update(procedures_of({name: body}, f"the fleet's procedure by {self.fleet.by(name)}"))
            except ProcedureError as exc:
                told = told or exc.problem
        if told and told != self._said:
            self._said = told
            self._unsaid.append(f"plans: {told}")

    def told(self) -> list[str]:
        """What the turn log must say of the model's procedures file (once per problem); a fleet's device shares its
        procedures here, once a turn."""
        self.share()
        out, self._unsaid = self._unsaid, []
        return out

    def _bad_file(self) -> str:
        """The model's procedures file's problem, for the model ("" when none)."""
        return (f"memory file {MEMORY_FILE}: {self.problem} (none of its procedures is used until it is mended)"
                if self.problem else "")

    def listing(self) -> str:
        """The built-in procedures, one line each, for the tool's description."""
        return "; ".join(f"{n}({', '.join(p.args)}): {p.about}" for n, p in self.built_in.items())

    # ---- the first press (the tool's plan) -----------------------------------------------------------------
    def first_step(self, name: str, args: dict[str, Any], vision: VisionOutput) -> PlannedAction:
        """The plan's first press on this screen, labelled `runPlan(<name>)`; ActionError with the reason when the
        plan cannot start (told to the model, nothing sent)."""
        self.plan = None
        try:
            procs = self.procedures()
            if name not in procs:
                bad = f"; {self._bad_file()}" if self.problem else ""
                raise PlanError(f"no procedure {name!r}; known: {', '.join(sorted(procs))}{bad}")
            steps = expand(procs[name], args)
        except PlanError as exc:
            raise ActionError(str(exc)) from None
        log = PlanLog(name=name, args={k: _text(v) for k, v in args.items()})
        probe = Plan(name, args, steps, first=None, log=log)  # type: ignore[arg-type]  # set below
        press = self._next(probe, vision)
        if why := self.stepper.gate.why(vision, named=press is not None and press.planned.named):
            raise ActionError(f"a plan never presses on a screen that may spend something ({why}): choose here "
                              "yourself")
        if press is None:
            raise ActionError(f"nothing to do: {name} is done already here")
        self.plan = Plan(name, args, steps, first=press, log=log, at=probe.at)
        log.steps.append(PlanStepLog(step=1, action=press.label, expected=self._expected(press)))
        return press.planned.model_copy(update={"tool": "runPlan", "target": name, "note": press.label})

    def _next(self, plan: Plan, out: VisionOutput) -> Press | None:
        """The next press of `plan` on the screen `out` reads (steps already done here skipped), or None when the
        plan is done; PlanError / ActionError when it cannot go on here."""
        while plan.at < len(plan.steps):
            step = plan.steps[plan.at]
            if step.goto is not None:
                press = self._goto(step.goto, out)
                if press is None:
                    plan.at += 1
                    continue
                return press
            if step.press is not None:
                try:
                    tool, planned = self.stepper.press(step.press, out)
                except ActionError:
                    if not step.if_shown:
                        raise
                    plan.at += 1  # the game did not show it this time
                    continue
                named = planned.model_copy(update={"named": step.each is not None})  # the model's own item
                return Press(tool, named, f"press {step.press}", expect_name=step.expect)
            return self._choose(step.choose or "", out)
        return None

    def _goto(self, target: str, out: VisionOutput) -> Press | None:
        m, here = self.cfg.map, self.nav.screen(out).id
        dst = self.nav.map.find(target)
        if dst is None:
            raise ActionError(f"goto {target}: no such screen on the map; known: {self.nav.known()}")
        if dst == here:
            return None
        path = self.nav.map.path(here, dst, m.min_uses, m.min_rate, usable=self.nav.walkable)
        if not path:  # no way known yet: a screen's way back is tried once, checked like any step (the map learns it)
            back = self.stepper.tools.get("back")
            if not isinstance(back, InputTool) or not any(b.name.casefold() == "back" for b in out.buttons):
                raise ActionError(f"goto {target}: no known way from {self.nav.map.label(here)}")
            return Press(back, back.plan(back.args(), out), f"goto {target}: back (not on the map yet)",
                         expect_id=dst, advance=False)
        tool, planned = self.nav.step_tool(path[0], out)
        return Press(tool, planned, f"goto {target}: {readable(path[0].action)}", expect_id=path[0].dst,
                     advance=False)

    def _choose(self, option: str, out: VisionOutput) -> Press:
        r = raised(out)
        if r is None:
            raise ActionError(f"choose {option}: no option shows raised here")
        name = next((o for o in r.options if same_option(o, option)), None)
        if name is None:
            raise ActionError(f"choose {option}: not among {', '.join(r.options)}")
        tool, planned = self.stepper.press(name, out)
        if same_option(r.selected, option):
            return Press(tool, planned, f"choose {option}: commit", leaves=True)
        return Press(tool, planned, f"choose {option}: raise", selects=option, advance=False)

    def _expected(self, press: Press) -> str:
        if press.expect_id:
            return self.nav.map.label(press.expect_id)
        return press.expect_name or ("another screen" if press.leaves else press.selects and
                                     f"{press.selects} raised" or "")

    # ---- the rest (after the first press was sent) -------------------------------------------------------------
    def follow(self, acted: Acted, reading: Observation, hands: Hands) -> Followed | None:
        """The plan's later steps, once its first press was sent by the actor (a surprise gives the model the next
        turn, where it is); None when this turn ran no plan and nothing is to be said of the procedures file."""
        told = self.told()  # the model's procedures file left out: said once
        plan, self.plan = self.plan, None
        if plan is None or acted.action is None or acted.action.tool != "runPlan" or acted.pending is None:
            return Followed(acted, failures=told) if told else None
        done = self._rest(plan, acted, reading, hands)
        self.nav.surprise(plan.log.surprise)
        return Followed(done, plan=plan.log, failures=told)

    def _rest(self, plan: Plan, acted: Acted, reading: Observation, hands: Hands) -> Acted:
        """Steps 2..n, each checked; the turn's input with the plan's account pending."""
        assert acted.action is not None
        press, gate = plan.first, Acted()
        first = plan.log.steps[0]
        first.point, first.element = acted.action.point, element_of(press.planned)
        here, seen, sent = reading, None, ActionLog(tool=press.tool.name, target=press.planned.target)
        if acted.action.outcome == "unknown":
            first.note = "its input was sent and never answered: the plan stops here"
        else:
            try:
                seen = observe(self.stepper.device, self.stepper.vision, self.stepper.settle, self.cfg.device)
            except Exception as exc:  # noqa: BLE001 - a failing device is the next turn's to see
                first.note = f"the screen could not be read ({type(exc).__name__}: {exc})"
        while seen is not None:
            log = plan.log.steps[-1]
            reached = self.nav.screen(seen.out)
            log.reached = self.nav.map.label(reached.id, reached.name) if self.nav.enabled else reached.name
            log.said = [*(t.text for t in seen.out.loose_texts), *(b.name for b in seen.out.buttons)][:SAID_MAX]
            self.nav.step_taken(here.out, sent, seen.out, log.seconds)
            past = self._past_hazards(plan, log, seen, hands)
            gate, seen = gate.then(past.gate), past.seen or seen
            if past.stop:
                here = seen
                break
            log.ok, why = self._check(press, here, seen)  # the press judged where the game came back to
            here = seen  # where the plan is now, whether it goes on or not
            if not log.ok:
                log.note = why
                break
            if press.advance:
                plan.at += 1
            plan.presses += 1
            try:
                nxt = self._next(plan, here.out)
            except (ActionError, ValueError, LookupError) as exc:
                plan.log.steps.append(PlanStepLog(step=len(plan.log.steps) + 1, action="", note=str(exc)))
                break
            if nxt is None:
                plan.log.done = True
                break
            if plan.presses >= MAX_PRESSES:
                plan.log.steps.append(PlanStepLog(step=len(plan.log.steps) + 1, action=nxt.label,
                                                  note=f"more than {MAX_PRESSES} presses: the plan stops"))
                break
            press = nxt
            step = PlanStepLog(step=len(plan.log.steps) + 1, action=press.label, expected=self._expected(press))
            plan.log.steps.append(step)
            done = self.stepper.step(press.tool, press.planned, here, hands,
                                     f"runPlan({plan.name}) step {step.step}: {press.label}")
            gate = gate.then(done.gate)
            step.point, step.element, step.seconds, step.note = done.point, done.element, done.seconds, done.note
            if done.seen is None or done.note or done.action is None:
                break
            seen, sent = done.seen, done.action
        plan.log.surprise = not plan.log.done
        summary = self._told(plan.log, here)
        pending = acted.pending.model_copy(update={"description": summary}) if acted.pending else None
        return acted.then(gate).model_copy(update={"pending": pending})

    def _past_hazards(self, plan: Plan, log: PlanStepLog, seen: Observation, hands: Hands) -> Past:
        """A dialog over the game that came over the step just taken (a connection error, a date change: the known
        ones, or one the map saw over several screens) dismissed as at any time, through the same gate, so the plan
        goes on where the game was. Each dismissal is a step of the plan's log, with its tap (what the phone
        received and what the log says are the same inputs); `stop` when one could not be sent or read."""
        past = Past(Acted(), None, False)
        for _ in range(MAX_HAZARDS):
            ready = self.nav.hazard_way(seen.out)
            if ready is None:
                break
            name = self.nav.screen(seen.out).name
            step = PlanStepLog(step=len(plan.log.steps) + 1, action=f"pass {name}: {ready[1].label}",
                               note=f"{name} came over step {log.step}")
            plan.log.steps.append(step)
            done = self.stepper.step(*ready, seen, hands,
                                     f"runPlan({plan.name}): {name} came over step {log.step}: {ready[1].label}")
            past.gate = past.gate.then(done.gate)
            step.point, step.element, step.seconds = done.point, done.element, done.seconds
            if done.seen is None or done.note or done.action is None:
                step.note, past.stop = done.note or f"{name} could not be passed", True
                break
            self.nav.step_taken(seen.out, done.action, done.seen.out, done.seconds)
            seen = past.seen = done.seen
            step.ok, step.reached = True, self.nav.map.label((reached := self.nav.screen(seen.out)).id, reached.name)
        return past

    def _check(self, press: Press, before: Observation, seen: Observation) -> tuple[bool, str]:
        """Did the press reach what the plan expected? (ok, why not)"""
        here, was = self.nav.screen(seen.out), self.nav.screen(before.out)
        if press.expect_id is not None and here.id != press.expect_id:
            return False, (f"a surprise: {self.nav.map.label(here.id, here.name)} reached, the map expected "
                           f"{self.nav.map.label(press.expect_id)}")
        if press.expect_name is not None and not _named(press.expect_name, here.name, self.nav.map.label(here.id)):
            return False, f"a surprise: {here.name} reached, {press.expect_name} expected"
        if press.leaves and here.id == was.id:
            return False, "a surprise: the screen did not change"
        if press.selects is not None:
            r = raised(seen.out)
            if here.id != was.id or r is None or not same_option(r.selected, press.selects):
                return False, f"a surprise: {press.selects} does not show raised"
        return True, ""

    def _told(self, log: PlanLog, here: Observation) -> str:
        where = self.nav.map.label(self.nav.screen(here.out).id) if self.nav.enabled else self.nav.screen(here.out).name
        did = "; ".join(f"{s.action} -> {s.reached or '?'}" for s in log.steps if s.reached)
        bad = f". Note: {self._bad_file()}" if self.problem else ""
        if log.done:
            return f"runPlan({log.name}): done in {len(log.steps)} step(s) ({did}); you are on {where}{bad}"
        last = log.steps[-1] if log.steps else None
        why = last.note if last is not None and last.note else "it stopped"
        return (f"runPlan({log.name}): stopped at step {last.step if last else 1} ({why}); done: {did or 'nothing'}; "
                f"you are on {where}{bad}")


def _named(expected: str, name: str, label: str) -> bool:
    a = re.sub(r"[^0-9a-z]", "", expected.casefold())
    return any(bool(a) and (a == b or fuzz.ratio(a, b) >= SAME_SCREEN_NAME)
               for b in (re.sub(r"[^0-9a-z]", "", x.casefold()) for x in (name, label)))

