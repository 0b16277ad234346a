"""The turn loop of docs/ARCHITECTURE.md ("One turn"): observe, read, note, make room, request, decide, act,
remember.

`_play` calls six stages (keep_game_up, look, alone, decide, act, remember); they fill the turn's `TurnParts`, and
the parts they call (the actor, the navigator, the prompter, the event book) take values and return values. In
`finally`, `step` assembles the turn log from whatever the turn got to and writes it. Every part is given to the
Coordinator when it is built (loop/app.build), the one clock among them. A device that fails,
a failed model call and a stuck pause end the turn, not the run (the next turn tries again). The run ends with
`RunEnded(kind, reason)` (stop.py), decided where its cause is found (`_ends`: the ladder's pause, a device or a
model API away for longer than its outage window, the third failure of a kind in a row, a Session Error, a
folder that cannot be written): that turn is still logged and reported, then the run stops. The limits a person
set (turns, cost, careers, hours, a stop) are checked before each turn. Every turn counts toward
`run.max_turns`, a failed one too. Anything else is a bug: it is logged as this turn's error with its place in the
code, the turn's paid calls stay in the totals, and MAX_INTERNAL_ERRORS of them in a row end the run.

At most one input action per turn; memory tools as many as the model sends. The result of an
input action is only known at the next capture, so its tool_result is sent with the next turn and
says what really happened.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from lluma_agent.config import Config
from lluma_agent.context import knowledge
from lluma_agent.context.history import History, PastTurn, compact_reply
from lluma_agent.context.plausible import Plausible
from lluma_agent.context.request import memory_update_note
from lluma_agent.context.stuck import LADDER, Rung, StuckDetector, ladder_words, on_ladder, rung
from lluma_agent.device.app import GameApp, Started, gist
from lluma_agent.device.protocol import DeviceDisconnected, DeviceError, Phone
from lluma_agent.device.settle import SameScreen, Settle
from lluma_agent.loop.acting import Acted, Actor, Effect, effect_of
from lluma_agent.loop.careers import CareerTracker
from lluma_agent.loop.eventbook import EventMemory
from lluma_agent.loop.gated import InTheLoop, PersonGate
from lluma_agent.loop.layouts import CachedLayout, ContextLayout, Sent
from lluma_agent.loop.navigate import Navigator, Passed
from lluma_agent.loop.observe import VisionLike, observe
from lluma_agent.loop.plans import Planner
from lluma_agent.loop.progress import ProgressWatch
from lluma_agent.loop.prompting import Prompter
from lluma_agent.loop.recording import RecordingModel
from lluma_agent.loop.standing import StandingChoices
from lluma_agent.loop.state import LoopState
from lluma_agent.loop.steps import Stepper
from lluma_agent.loop.stop import RunEnded, StopFlag, StopKind, disk_error
from lluma_agent.loop.survey import Looked, Surveyor
from lluma_agent.loop.turn import (
    Call,
    Decision,
    Notes,
    Observation,
    Prompt,
    RunTotals,
    Screen,
    TurnParts,
    assemble,
    bill,
)
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.claude import Attempt, ModelError
from lluma_agent.model.protocol import DecisionModel
from lluma_agent.navmap import map_path_for
from lluma_agent.navmap.events import events_path
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog import index as history_index
from lluma_agent.runlog.turnlog import GameStartLog, RecoveryLog, TurnLog, TurnLogger, VisionLog
from lluma_agent.sentences import say
from lluma_agent.tools.guard import RECOVER_TP, SESSION_ERROR, Guard, shows
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.spending import SpendGate
from lluma_agent.tools.toolkit import ToolContext, ToolRegistry
from lluma_facts import Usage
from lluma_facts.clock import Clock
from lluma_vision.facts.compact import compact, summarize
from lluma_vision.models import VisionOutput

MAX_MODEL_ERRORS = 3  # consecutive non-retryable model errors that end the run
MAX_INTERNAL_ERRORS = 3  # consecutive turns that hit a bug: the run stops instead of looping on it
MAX_REFUSALS = 3  # refusals in a row that end the run
T = TypeVar("T")
_log = logging.getLogger(__name__)




class Paused(Exception):
    """The recovery ladder failed recovery.max_cycles times: this turn makes no model call and the run ends after it.
    `reason` says why (the stuck reason, or a game that kept stopping)."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class Coordinator:
    def __init__(
        self,
        cfg: Config,
        device: Phone,
        vision: VisionLike,
        model: DecisionModel,
        memory: MemoryStore,
        logger: TurnLogger,
        system_prompt: str,
        settle: Settle,
        tools: ToolRegistry | None = None,
        on_turn: Callable[[TurnLog, RunTotals], None] | None = None,
        knowledge: knowledge.Knowledge | None = None,
        app: GameApp | None = None,
        layout: ContextLayout | None = None,
        clock: Clock | None = None,
        notifier: Notifier | None = None,
        careers: CareerTracker | None = None,
        person: InTheLoop | None = None,
        requests: Path | None = None,
    ) -> None:
        """Every part of the loop is built here or given here, once: nothing is attached afterwards.

        `tools`: the registry (default `default_tools`, with goTo when the map is on); `clock`: the one clock of
        waits, timings and run.max_hours (tests give a fake: a wait of an hour takes none); `notifier`: notify.command
        (default: one for cfg.notify); `careers`: the careers ended, toward run.max_careers; `person`: a person in
        the loop (--confirm, --step); `requests`: the folder where each request is kept as sent."""
        self.cfg, self.device, self.vision = cfg, device, vision
        self.memory, self.logger = memory, logger
        self._settle = settle
        self.on_turn = on_turn
        self.knowledge = knowledge
        self.clock = clock or Clock()
        self.stop = StopFlag()
        self.person = person or InTheLoop()
        self.careers = careers
        # every request kept as sent, under the turn that sent it (lluma logs --request, lluma replay)
        self.model = RecordingModel(model, requests, lambda: self.turn) if requests is not None else model
        self.layout: ContextLayout = layout or CachedLayout()  # another: a benchmark's (bench/baseline_layout.py)
        self.history = History(cfg.context.history_max_turns, cfg.context.fold_chunk_turns)
        self._same_screen = SameScreen(cfg.device.settle_threshold)
        self.stuck = StuckDetector(
            cfg.run.stuck_after, cfg.run.stuck_force_after, cfg.run.stuck_pause_after, same=self._same_screen
        )
        self.app = app  # the game as an app (None: a device that cannot start it; no foreground check, no restart)
        # the game's clock: agent turns and dollars since the career's turn or date last moved (loop/progress.py)
        self.own_rungs = [r for r in LADDER if r.own and (r.does != "restart" or app is not None)]
        self.progress = ProgressWatch(cfg.run, len(self.own_rungs))
        self.guard = Guard(cfg.guard)
        # the screen map (map.enabled): recorded each turn, goTo offered, routine screens passed (loop/navigate.py)
        self.nav = Navigator(cfg, map_path_for(memory.folder, cfg.memory.shared_dir), logger.folder.name, device,
                             vision, settle, self.stop, self.clock)
        # what each event choice did, beside the map and with it (loop/eventbook.py)
        self.events = EventMemory(events_path(self.nav.path), logger.folder.name, self.nav.enabled, self.clock.wall)
        # the model's own answers to events it has met, pressed when they show again (loop/standing.py)
        self.standing = StandingChoices(memory.folder, memory.max_file_bytes)
        # one checked press at a time for the coordinator's own sequences: a survey of a screen's options, a plan
        self.stepper = Stepper(cfg, device, vision, settle, stopping=lambda: self.stop.requested, clock=self.clock)
        self.survey = Surveyor(cfg, self.stepper, self.nav, logger.save_screenshot)
        self.plans = Planner(cfg, self.nav, self.stepper, memory)
        planning = self.nav.enabled and self.plans.enabled
        tools = tools or default_tools(router=self.nav if self.nav.enabled else None,
                                       planner=self.plans if planning else None)
        # does nothing when notify.command is None
        self.notifier = notifier or Notifier(cfg.notify, run=logger.folder.name)
        # an input never answered may still run: no input for two command timeouts after it, whoever sends it
        actor = Actor(device, tools, self._same_screen, guard=self.guard, quiet_s=2 * cfg.device.command_timeout_s,
                      clock=self.clock, spending=SpendGate(cfg.loop))
        # a person asked before every input (`lluma run --confirm`): the actor wrapped (loop/gated.py)
        self.actor = actor if self.person.gate is None else PersonGate(actor, self.person.gate)
        self.plausible = Plausible()  # numbers that moved as no turn moves them are marked doubtful (context/plausible)
        self.totals = RunTotals()
        self.state = LoopState()  # what each turn hands to the next (loop/state.py)
        self.ending: RunEnded | None = None  # found during the turn being played: the run ends once it is reported
        self.prompter = Prompter(cfg, self.model, tools.definitions(), self.nav.prompt(system_prompt), self.layout,
                                 self.history, memory)
        self.started = self.clock.now()  # this sitting's start: run.max_hours counts from it
        # the run's turns and dollars before this sitting (a resume): run.max_turns and max_cost_usd count from them
        self.before = RunTotals()

    @property
    def stop_requested(self) -> bool:
        return self.stop.requested

    @property
    def turn(self) -> int:
        return self.state.turn

    # ---- the loop ------------------------------------------------------------------------------
    def request_stop(self) -> None:
        self.stop.set()

    def run(self) -> RunTotals:
        self.started = self.clock.now()
        try:
            while True:
                self._check_limits()
                if self.person.before_turn is not None and not self.person.before_turn(self.turn + 1):
                    raise RunEnded(StopKind.PERSON, "stopped by user")
                log = self.step()
                self._report(log)
                if self.ending is not None:
                    raise self.ending
        except RunEnded as end:
            self.ending = None
            self.totals.stop_reason, self.totals.stop_kind = end.reason, end.kind
        return self.totals

    def _ends(self, kind: StopKind, reason: str) -> None:
        """The turn being played ends the run (the first cause found is the one told)."""
        self.ending = self.ending or RunEnded(kind, reason)

    def _report(self, log: TurnLog) -> None:
        """on_turn (checkpoint, live line) after the whole step: a turn cut off by a second Ctrl+C is not reported
        done. A checkpoint the disk refuses ends the run here, as a turn log the disk refuses does."""
        if not self.on_turn:
            return
        try:
            self.on_turn(log, self.totals)
        except (OSError, ValueError) as exc:
            if not disk_error(exc):
                raise
            raise RunEnded(StopKind.DISK, self._disk_reason(exc)) from None

    def _disk_reason(self, exc: BaseException) -> str:
        return f"cannot write the run folder {self.logger.folder} ({type(exc).__name__}: {exc})"

    def _check_limits(self) -> None:
        """The limits a person set, before each turn (what a turn finds ends the run from that turn: `_ends`)."""
        run, s = self.cfg.run, self.state
        if self.ending is not None:  # found by a step() played on its own, before this run()
            raise self.ending
        if self.stop_requested:
            raise RunEnded(StopKind.PERSON, "stopped by user")
        limit, more = "", " more" if self.before.turns else ""  # a resumed sitting's limits are its own numbers
        if run.max_turns and self.totals.turns - self.before.turns >= run.max_turns:
            limit, kind = f"max_turns ({run.max_turns}{more}) reached", StopKind.MAX_TURNS
        elif run.max_cost_usd and self.totals.cost_usd - self.before.cost_usd >= run.max_cost_usd:
            limit, kind = f"max_cost_usd (${run.max_cost_usd:.2f}{more}) reached", StopKind.MAX_COST
        elif run.max_careers and self.careers is not None and self.careers.ended >= run.max_careers:
            limit, kind = f"max_careers ({run.max_careers}{more}) ended", StopKind.MAX_CAREERS
        elif run.max_hours and self.clock.now() - self.started >= run.max_hours * 3600:
            limit, kind = f"max_hours ({run.max_hours:g}) played", StopKind.MAX_HOURS
        if limit and s.last_model_error and not s.model_answered:  # the run did nothing it was asked to do
            raise RunEnded(StopKind.MODEL, f"{limit} without one answer from the model API: {s.last_model_error}")
        if limit:
            raise RunEnded(kind, limit)

    def step(self) -> TurnLog:
        """One turn; its log is written whatever happened. The turn works on its own copy of the loop's
        state (`t.state`), which the stages hand back changed; the loop keeps it once the turn is over."""
        self.state = self.state.but(turn=self.turn + 1)  # the turn in play (the request log names it)
        t = TurnParts(turn=self.turn, model=self.cfg.model.name, state=self.state, started_at=self.clock.wall(),
                      started=self.clock.now())
        try:
            self._play(t)
        except DeviceError as exc:
            failure, t.state = self._device_failed(t.state, exc)
            t.failures.append(failure)
        except ModelError as exc:
            t.state = self._model_failed(t, exc)
            t.failures.append(f"model: {exc}")
            t.retries = list(exc.retries)
        except Paused as exc:  # stop spending money and say why
            t.failures.append(str(exc))
            self._ends(StopKind.STUCK, f"paused: stuck ({exc.reason})")
        except Exception as exc:  # noqa: BLE001 - a bug must not lose the turn's paid calls or its log
            if disk_error(exc):  # a screenshot or request the folder refused: no bug, and the run cannot go on
                self._ends(StopKind.DISK, self._disk_reason(exc))
                t.failures.append(f"disk: {type(exc).__name__}: {exc}")
            else:
                t.state = t.state.but(internal_errors=t.state.internal_errors + 1)
                if t.state.internal_errors >= MAX_INTERNAL_ERRORS:
                    self._ends(StopKind.INTERNAL, f"{t.state.internal_errors} turns in a row hit an internal error "
                                                  "(see their turn logs)")
                where = traceback.extract_tb(exc.__traceback__)[-1]
                t.failures.append(f"internal: {type(exc).__name__}: {exc} (at {where.filename}:{where.lineno})")
                _log.exception("turn %d: internal error", t.turn)
        else:
            t.state = t.state.but(internal_errors=0)
        finally:
            self.state = t.state
            turn_log = self._finish(t)
        return turn_log

    def _play(self, t: TurnParts) -> None:
        """The stages, in the order of ARCHITECTURE.md's "One turn"."""
        if not self.keep_game_up(t):  # the game cannot be started: the run ends with this turn, nothing played
            return
        reading, screen, effect = self.look(t)
        if self.alone(t, effect):  # a guarded screen, a rung of the ladder, a routine pass: no model call
            return
        assert t.notes is not None
        if (looked := self.surveyed(t)) is not None:  # options that raise before they commit: each raised and read
            reading, screen = looked.here, self.read(looked.here.out)
            t.reading, t.screen = reading, screen
            if self.passed_after_survey(t, looked):  # a hazard came over the survey: dismissed as before
                return
            t.notes = replace(t.notes, lines=[*t.notes.lines, *([looked.table] if looked.table else [])])
        t.fold, t.fold_calls = self.prompter.make_room(t.turn)
        t.notes = self.prompter.ahead_of_fold(t.notes)
        t.request = self.prompter.request(reading, screen, t.notes, list(t.state.owed))
        t.decision, t.state = self._timed(t, "model_s", self._decide, t)
        self._timed(t, "action_s", self.act, t)
        if looked is not None:  # the chosen option raised if needed, and committed
            self.survey.commit(t, looked, self.actor, lambda seen: self._ctx(t.state, seen), self._asks(t))
            if t.acted is not None and t.acted.stop:
                self.request_stop()  # a person stopped the run at the commit
        t.decided_on_options = self.survey.decided(looked, reading, t.acted)
        t.past = self.remember(t.turn, t.request, screen, t.decision)

    def _asks(self, t: TurnParts) -> Callable[[str], bool] | None:
        """`--step`'s question before each step the coordinator takes in this turn, or None."""
        ask, turn = self.person.before_step, t.turn
        return (lambda what: ask(turn, what)) if ask is not None else None

    def surveyed(self, t: TurnParts) -> Looked | None:
        """The survey, before the model decides (loop/survey.py): the screen it leaves is the one the model is
        shown; None when this screen is not one to survey."""
        assert t.reading is not None and t.notes is not None
        if t.notes.stuck.level != "ok":
            return None
        looked = self.survey.look(t.turn, t.reading, self.actor, lambda seen: self._ctx(t.state, seen), self._asks(t))
        if looked is None:
            return None
        t.survey = looked.log
        if looked.here is not t.reading:  # the turn's screenshot is the screen the model decides on (replay reads
            first = self.logger.save_screenshot(t.turn, t.reading.frame.image, "s1")  # it); the first kept beside
            where = looked.log.lead_in if looked.log.lead_in is not None else (
                looked.log.rows[0] if looked.log.rows else None)
            if where is not None:
                where.frame = first
            t.screenshot = self.logger.save_screenshot(t.turn, looked.here.frame.image)
        t.guard += looked.gate.guarded
        if looked.gate.stop:
            self.request_stop()
        return looked

    def _timed(self, t: TurnParts, field: str, stage: Callable[..., T], *args: Any) -> T:
        started = self.clock.now()
        try:
            return stage(*args)
        finally:
            setattr(t, field, self.clock.now() - started)

    def _finish(self, t: TurnParts) -> TurnLog:
        side_calls, cost = bill(self.totals, t.calls())  # billed first: a failed log write loses no cost
        self.totals.turns += 1  # every turn counts toward max_turns, a failed one too (a run always ends)
        self.totals.goto_calls += bool(t.navigation)
        self.totals.routine_passes += t.routine is not None
        self.totals.surveys += t.survey is not None and bool(t.survey.options)  # a lead-in that found none: no survey
        if t.plan is not None:
            self.totals.plans_run += 1
            self.totals.plan_steps += len(t.plan.steps)
            self.totals.plan_surprises += t.plan.surprise
        self.totals.option_decisions += t.decided_on_options
        self.totals.full_view_decisions += t.decided_on_options and t.survey is not None and t.survey.complete
        t.failures += [problem for problem in (self.nav.save(), self.events.save()) if problem]
        turn_log = assemble(t, side_calls, cost, self.clock.now())
        if t.recovery is not None and on_ladder(t.recovery.rung):
            self.totals.recoveries[t.recovery.rung] = self.totals.recoveries.get(t.recovery.rung, 0) + 1
        if t.game_start is not None:
            if t.game_start.ok:
                self.totals.game_starts += 1
            else:
                self.totals.game_start_failures += 1
        self.progress.add(turn_log)
        try:
            self.logger.write(turn_log)
        except Exception as exc:  # noqa: BLE001 - the turn's cost is kept; a folder that refuses writes ends the run
            _log.error("turn %d: the turn log could not be written: %s", t.turn, exc)
            turn_log.errors.append(f"log: not written ({type(exc).__name__}: {exc})")
            if disk_error(exc):
                self._ends(StopKind.DISK, self._disk_reason(exc))
        return turn_log

    # ---- the stages ----------------------------------------------------------------------------------
    def look(self, t: TurnParts) -> tuple[Observation, Screen, Effect | None]:
        """The settled screen, read: its screenshot kept, the last input's effect seen (owed to the model), the
        numbers checked against it, the map and the event book told where it led."""
        t.reading = observe(self.device, self.vision, self._settle, self.cfg.device)
        t.state = t.state.but(device_down_since=None)
        t.screenshot = self.logger.save_screenshot(t.turn, t.reading.frame.image)
        effect, t.state = self.effect_of_pending(t.state, t.reading)
        t.reading.out = self.plausible.check(t.reading.out, acted=effect is not None)
        # where the last action led, on the screen map (not known when the game had to be started again)
        t.failures += self.nav.observed(t.reading.out, effect, restarted=t.game_start is not None)
        t.failures += self.events.seen(t.reading.out, t.turn)  # the trainee's state; a choice's outcome read
        t.screen = self.read(t.reading.out)
        return t.reading, t.screen, effect

    def alone(self, t: TurnParts, effect: Effect | None) -> bool:
        """True when the coordinator plays this turn itself, without a model call: a guarded screen ("Session Error"
        ends the run, "Recover TP" is waited out), a rung of the recovery ladder, a routine screen passed on the map.
        Else the turn is the model's, and `t.notes` says what it must be told besides the screen."""
        assert t.reading is not None
        if self.guarded_screen(t):  # before the notes: a person's memory edit waits for the model's turn
            return True
        t.notes = self.notes(effect, t.reading.out)
        return self.recover(t) or self.routine(t)

    def effect_of_pending(self, state: LoopState, reading: Observation) -> tuple[Effect | None, LoopState]:
        """What the last input action did, now that the screen shows it: owed to the model, logged, counted."""
        if state.pending is None:
            return None, state
        effect = effect_of(state.pending, reading.frame, self._same_screen)
        self.logger.update_effect(effect.turn, effect.text)
        self.stuck.record(effect.before_hash, effect.signature, effect.changed)
        owed = state.owed if effect.result is None else (*state.owed, effect.result)
        return effect, state.but(pending=None, owed=owed)

    def read(self, out: VisionOutput) -> Screen:
        view = compact(out, self.cfg.vision.max_buttons, self.cfg.vision.max_texts)
        log = VisionLog(seen_by_model=view.to_json(), summary=summarize(out), cached=out.cached,
                        backend=out.backend, full=out.model_dump(mode="json"))
        vlm = [Call("vlm", self.cfg.vision.vlm_model, Usage.from_api(out.vlm_usage),
                     retries=list(out.vlm_retries))] if (
            (out.vlm_usage or out.vlm_retries) and not out.cached) else []
        return Screen(view, log, [f"vision: {e}" for e in out.errors], vlm)

    def notes(self, effect: Effect | None, out: VisionOutput) -> Notes:
        """What the model must be told besides the screen: the effect of the coordinator's own last action, a
        person's memory edits, the stuck warning, matching knowledge."""
        lines = [effect.note] if effect and effect.note else []
        external = self.memory.refresh()
        memory = []
        if external:  # the memory block in `system` is a snapshot: the new content travels as a message
            memory.append(memory_update_note([c.name for c in external], self.memory.shown()))  # within the budget
        stuck = self.stuck.state()
        if stuck.level not in ("ok", "pause"):
            lines.append(stuck.warning)
        elif (progress := self.progress.state()).level == "warn":
            lines.append(say("no_progress", reason=progress.reason))
        hints = self.recall(out)
        if hints:
            lines.append(knowledge.note(hints))
        return Notes([*memory, *lines], external, stuck, [e.id for e in hints], memory)

    def recall(self, out: VisionOutput) -> list[knowledge.Entry]:
        """The knowledge entries matching this screen, by priority within the budget (current turn only)."""
        if self.knowledge is None:
            return []
        return self.knowledge.select(knowledge.ScreenFacts.of(out), self.cfg.knowledge.budget_tokens)

    def _decide(self, t: TurnParts) -> tuple[Decision, LoopState]:
        """decide(); when the API refuses the thinking kept in history (a signature it no longer takes: the
        stand-in started again, another key or account), history drops its thinking, the request is built again
        and sent once more. The refused call is the reply's first retry in the turn log."""
        assert t.request is not None and t.reading is not None and t.screen is not None and t.notes is not None
        try:
            return self.decide(t.state, t.request)
        except ModelError as exc:
            if not exc.thinking_refused or not self.history.drop_thinking():
                raise
            refused = [*exc.retries, Attempt(error=f"{exc}; the history's thinking dropped, asked again", status=400)]
        t.request = self.prompter.request(t.reading, t.screen, t.notes, list(t.state.owed))
        decision, state = self.decide(t.state, t.request)
        decision.reply = decision.reply.model_copy(update={"retries": [*refused, *decision.reply.retries]})
        return decision, state

    def decide(self, state: LoopState, request: Prompt) -> tuple[Decision, LoopState]:
        reply = self.model.decide(request.params)  # ModelError ends the turn (step)
        # delivered: the model has seen them; the API answered
        state = state.but(model_errors=0, owed=(), model_down_since=None, model_answered=True)
        content, calls, errors = reply.content, reply.tool_calls, []
        if reply.refused:  # logged, nothing done this turn; the run goes on (several in a row end it)
            state = state.but(refusals=state.refusals + 1)
            errors.append(f"model: refused ({reply.text[:200] or 'no text'}); nothing done this turn")
            calls, content = [], [b for b in content if b.get("type") != "tool_use"]
            if state.refusals >= MAX_REFUSALS:  # this turn is played out (remembered), then the run ends
                self._ends(StopKind.REFUSALS, f"the model refused {state.refusals} turns in a row")
        else:
            state = state.but(refusals=0)
        # The reply as it will sit in history (short tool ids, trimmed text): tools answer to these ids.
        remembered, id_map = compact_reply(content, state.turn)
        calls = [c.model_copy(update={"id": id_map.get(c.id, c.id)}) for c in calls]
        if reply.stop_reason == "max_tokens":
            errors.append("model: reply cut at max_tokens; only complete tool calls were used")
        return Decision(reply.model_copy(update={"tool_calls": calls}), remembered, errors), state

    def _ctx(self, state: LoopState, reading: Observation) -> ToolContext:
        return ToolContext(vision=reading.out, memory=self.memory, history=self.history, turn=state.turn,
                           search=lambda query, limit: history_index.search(self.logger.db, query, limit),
                           frame=reading.frame.image)

    def act(self, t: TurnParts) -> None:
        """The reply's calls run (at most one input); an event's choice awaits its outcome; a goTo walks its later
        steps, each through the actor (its account is what the model reads next turn)."""
        assert t.decision is not None and t.reading is not None and t.notes is not None
        reading, ctx = t.reading, self._ctx(t.state, t.reading)
        last = self.stuck.actions[-1] if self.stuck.actions else ""
        # adb cannot cancel a sent command: after one never answered the actor sends nothing for two command
        # timeouts, then checks the screen against the decision's frame, so a late tap never meets a new screen
        acted = self.actor.run(t.decision.reply, reading.frame, ctx, t.notes.stuck, last)
        if acted.refused:
            self.stuck.record(reading.frame.phash, acted.refused, changed=False)
        if acted.stop:
            self.request_stop()  # a person in the loop said quit: this turn is logged, no other starts
        t.guard += acted.guarded
        if acted.pending is not None:
            self.events.chose(acted.action, reading.out, t.turn)  # an event's choice: its outcome awaited
            self.events.pressed(reading.out)
        ask, turn = self.person.before_step, t.turn
        walked = self.nav.after_act(acted, reading, self.actor, ctx,
                                    (lambda what: ask(turn, what)) if ask is not None else None)
        if walked is not None:
            acted, t.navigation = walked.acted, walked.steps
            t.guard += walked.guarded
            if acted.stop:
                self.request_stop()  # a person stopped the run during a goTo walk
        ran = self.plans.after_act(acted, reading, self.actor, lambda seen: self._ctx(t.state, seen), self._asks(t))
        t.failures += self.plans.told()  # the model's procedures file left out: said once
        if ran is not None:  # a plan's later steps, each checked (loop/plans.py)
            acted, t.plan = ran.acted, ran.log
            t.guard += ran.guarded
            self.nav.surprise(ran.log.surprise)  # a surprise gives the model the next turn, where it is
            if acted.stop:
                self.request_stop()  # a person stopped the run during a plan
        t.acted, t.state = acted, t.state.but(pending=acted.pending, owed=(*t.state.owed, *acted.results))

    def remember(self, turn: int, request: Prompt, screen: Screen, decision: Decision) -> PastTurn:
        """The turn as history keeps it: compact results, the screen line, the reply."""
        sent = Sent(blocks=request.blocks, results_as_text=request.as_text, memory_notes=request.memory_notes)
        past = self.layout.past_turn(self.history, turn, request.current, screen.view, screen.log.summary,
                                     request.results, decision.remembered, sent)
        self.history.append(past)
        self.history.offer(decision.reply.text)  # the summary a fold_note asked for, folded in at the next turn
        return past

    # ---- left alone with the game: the app, the guard's screens, the recovery ladder --------------------
    def keep_game_up(self, t: TurnParts) -> bool:
        """The game is started again whenever it is not in the foreground, whatever the ladder says (one
        `dumpsys window` a turn; an "isn't responding" dialog over the game counts as the game). False: it could
        not be started game.start_tries times in a row, and the run ends with this turn."""
        if self.app is None:
            return True
        focus = self.app.focus()
        if focus.shows(self.app.package):
            t.state = t.state.but(failed_starts=0)
            return True
        started = self._start_game(t, f"not in the foreground ({focus.who})")
        if started.ok:
            self._keeps_stopping(t)
        return started.ok or t.state.failed_starts < self.cfg.game.start_tries

    def _keeps_stopping(self, t: TurnParts) -> None:
        """A start the game needed: too many within recovery.calm_turns turns count as a ladder climbed in vain (the
        game keeps stopping, killed from outside or crashing at once); raises Paused when that pauses the run."""
        rc = self.cfg.recovery
        climb = self.stuck.game_started(t.turn, rc.max_starts, rc.calm_turns, rc.max_cycles, rc.window_s,
                                        self.clock.wall())
        if climb is None:
            return
        why = f"the game kept stopping: started again {rc.max_starts} times within {rc.calm_turns} turns"
        t.recovery = RecoveryLog(rung=climb.rung, reason=why, failed=climb.failed)
        if climb.rung == "pause":
            why += (f"; counted as the recovery ladder climbed in vain, {climb.failed} time(s) within "
                    f"{rc.window_s:g} s (recovery.max_cycles {rc.max_cycles})" if climb.failed else "")
            raise Paused(f"paused: {why}; no model call this turn", why)

    def _start_game(self, t: TurnParts, reason: str, stop_first: bool = False) -> Started:
        """Start the game; a start that worked is told (`game_restarted`). One that failed is a line in the turn,
        told to nobody: game.start_tries of them in a row end the run (stop kind game_start), which is told once."""
        assert self.app is not None
        if stop_first:
            self.app.stop()
        started = self.app.start()
        t.game_start = GameStartLog(reason=reason, ok=started.ok, command=started.command, output=started.output)
        if started.ok:
            t.state = t.state.but(failed_starts=0)
            self.notifier.send(NotifyEvent.GAME_RESTARTED, {"turn": t.turn, "reason": reason, "ok": True,
                                                  "output": started.output})
            return started
        failed = t.state.failed_starts + 1
        t.state = t.state.but(failed_starts=failed)
        said = gist(started.output) or "no output"
        t.failures.append(f"game: could not start {self.app.package} (`{started.command}`): {said}")
        if failed >= self.cfg.game.start_tries:
            tries = self.cfg.game.start_tries
            self._ends(StopKind.GAME_START, f"the game could not be started {failed} time(s) in a row "
                                            f"(game.start_tries {tries}): {self._why_no_start(said)}")
        return started

    def _why_no_start(self, said: str) -> str:
        """The package missing, when the device says so (`pm path`), else what the last start printed."""
        assert self.app is not None
        try:
            installed = self.app.installed()
        except DeviceError:
            installed = True  # nobody can tell: the start's own words are the reason
        if not installed:
            return f"{self.app.package} is not installed on the device (game.package names another client?)"
        return f"`{self.app.start_command()}` said: {said}"

    def guarded_screen(self, t: TurnParts) -> bool:
        """Screens the coordinator handles below the model: "Session Error" ends the run (a person must look);
        "Recover TP" is cancelled and waited out (guard.tp_recovery wait). True: the turn is over."""
        assert t.reading is not None
        out = t.reading.out
        if shows(out, SESSION_ERROR):
            reason = "the game shows 'Session Error' (the account was logged in elsewhere): a person must look"
            self._ends(StopKind.SESSION, reason)
            t.failures.append(f"session: {reason}; no model call this turn")
            self.notifier.send(NotifyEvent.SESSION_ERROR, {"turn": t.turn, "reason": reason})
            return True
        if self.cfg.guard.tp_recovery != "wait" or not shows(out, RECOVER_TP):
            return False
        acted = self.actor.press_own(Guard.cancel_name(out), t.reading.frame, self._ctx(t.state, t.reading),
                                     say("recover_tp_cancelled"))
        waited = self._sleep(self.cfg.guard.tp_wait_s) if acted.pending is not None else 0.0
        t.guard.append(f"cancelled '{RECOVER_TP}' and waited {waited:.0f} s for TP to come back"
                       if acted.pending is not None else f"'{RECOVER_TP}' shown and no way to cancel it")
        self._own(t, acted)
        return True

    def recover(self, t: TurnParts) -> bool:
        """The recovery ladder's rung for this turn (context/stuck.py). True when the coordinator took one of its
        own rungs (no model call this turn); a ladder that failed recovery.max_cycles times raises Paused."""
        assert t.notes is not None and t.reading is not None
        stuck, rc = t.notes.stuck, self.cfg.recovery
        if stuck.level == "ok":
            self.stuck.settled(rc.calm_turns)
            return self.unmoved(t)
        if stuck.level in ("warn", "force"):
            self.stuck.unsettled()
            t.recovery = RecoveryLog(rung=stuck.level, reason=stuck.reason)
            return False
        climb = self.stuck.climb(self.app is not None, rc.max_cycles, rc.window_s, self.clock.wall())
        if climb.rung == "pause":  # stop spending money and say why (step() ends the run)
            why = stuck.reason + (f"; the recovery ladder was climbed in vain {climb.failed} time(s) within "
                                  f"{rc.window_s:g} s (recovery.max_cycles {rc.max_cycles})" if climb.failed else "")
            t.notes.stuck = stuck.model_copy(update={"reason": why})
            t.recovery = RecoveryLog(rung="pause", reason=why, failed=climb.failed)
            raise Paused(f"paused: {why}; no model call this turn", why)
        if climb.rung == "over":  # from the bottom again: the model plays this turn, told what happened
            t.recovery = RecoveryLog(rung="over", reason=stuck.reason, failed=climb.failed)
            t.notes.stuck = self.stuck.state()
            t.notes.lines.append(say("ladder_over", reason=stuck.reason, ladder=ladder_words(),
                                     failed=climb.failed, max_cycles=rc.max_cycles, window_s=rc.window_s))
            return False
        t.notes.stuck = stuck.model_copy(update={"level": "recover"})
        t.recovery = RecoveryLog(rung=climb.rung, reason=stuck.reason)
        self._own(t, self._take(t, rung(climb.rung), stuck.reason))
        return True

    def unmoved(self, t: TurnParts) -> bool:
        """The game's clock has not moved for run.progress_after turns (loop/progress.py): the ladder's own rungs, one
        a turn and no model call, then the run stops (stop kind no_progress). True: the coordinator took the turn."""
        progress = self.progress.state()
        if progress.level not in ("climb", "stop"):
            return False
        if progress.level == "stop":
            why = (f"no progress: {progress.reason}; the recovery ladder "
                   f"({', '.join(r.what for r in self.own_rungs)}) did not move it")
            t.recovery = RecoveryLog(rung="pause", reason=why)
            t.failures.append(f"{why}; no model call this turn")
            self._ends(StopKind.NO_PROGRESS, why)
            return True
        step = self.own_rungs[self.progress.c.climbed]
        self.progress.climbed()
        t.recovery = RecoveryLog(rung=step.name, reason=progress.reason)
        self._own(t, self._take(t, step, f"no progress: {progress.reason}"))
        return True

    def _take(self, t: TurnParts, step: Rung, reason: str) -> Acted:
        take = {"input": self._rung_input, "restart": self._rung_restart, "wait": self._rung_wait}[step.does]
        return take(t, step, reason)

    def _rung_input(self, t: TurnParts, step: Rung, reason: str) -> Acted:
        """An input rung (back, a safe tap): the actor plans its tool and sends it like any input."""
        assert t.reading is not None
        return self.actor.rung(step, t.reading.frame, self._ctx(t.state, t.reading), reason)

    def _rung_restart(self, t: TurnParts, step: Rung, reason: str) -> Acted:
        """The game stopped and started again."""
        note = say("rung", reason=reason, rung=step.name)
        started = self._start_game(t, f"recovery rung restart ({reason})", stop_first=True)
        did = (say(step.said) if started.ok
               else say("rung_start_failed", output=gist(started.output) or "no output"))
        return self._rung_done(t, note, did, "restart(game)", say("rung_did", note=note, did=did), "restarted the game")

    def _rung_wait(self, t: TurnParts, step: Rung, reason: str) -> Acted:
        """recovery.wait_s waited (cut short by a stop)."""
        note = say("rung", reason=reason, rung=step.name)
        did = say("rung_waited", seconds=self._sleep(self.cfg.recovery.wait_s))
        return self._rung_done(t, note, did, "wait", say(step.said, note=note, did=did), "waited")

    @staticmethod
    def _rung_done(t: TurnParts, note: str, did: str, signature: str, description: str, brief: str) -> Acted:
        """A rung that is no input (restart, wait), pending like one: the next capture says what it did."""
        assert t.reading is not None
        return Acted(errors=[f"{note}: {did}; no model call this turn"]).then(
            Actor.own(signature, description, brief, t.reading.frame, t.turn))

    def routine(self, t: TurnParts) -> bool:
        """A routine screen passed on the map's one way out, without a model call (True), else the model's turn is
        told where it is, what was passed without it and, on an event the book knows, what each choice did."""
        assert t.reading is not None and t.notes is not None
        choice, rule = self.standing.pick(t.reading.out) if self.nav.enabled else (None, "")
        passed, t.notes = self.nav.pass_or_tell(t.reading, t.notes, t.turn, self.actor, self._ctx(t.state, t.reading),
                                                self._sleep, standing=(choice, rule) if choice else None)
        if passed is not None:
            self._passed(t, passed, t.reading.out)
            return True
        told = [line for line in (self.events.note(t.reading.out), "" if choice else rule) if line]
        if told:
            t.notes = replace(t.notes, lines=[*t.notes.lines, *told])
        return False

    def passed_after_survey(self, t: TurnParts, looked: Looked) -> bool:
        """A survey that ended on a screen without options: a game that crashed or left the foreground (True: no
        model call, the next turn starts it) or a dialog over the game (a connection error came over a raise) passed
        as routine (True: the turn is over, the next one surveys again); any other screen (a raise that trained) is
        the model's, told what the survey did."""
        assert t.notes is not None
        if self.survey.options(looked.here) is not None:
            return False
        if self.app is not None and not (focus := self.app.focus()).shows(self.app.package):
            t.failures.append(f"survey: the game left the foreground ({focus.who}); no model call, the next turn "
                              "starts it again")
            return True  # another app's screen is nothing to decide on: keep_game_up starts the game next turn
        passed = self.nav.routine_pass(looked.here, t.notes.stuck.level, t.turn, self.actor,
                                       self._ctx(t.state, looked.here), self._sleep, hazard_only=True)
        if passed is not None:
            self._passed(t, passed, looked.here.out)
        return passed is not None

    def _passed(self, t: TurnParts, passed: Passed, out: VisionOutput) -> None:
        t.routine = passed.log
        self._own(t, passed.acted)  # pending like the model's input (loop.autopilot)
        if passed.later:
            self.stuck.forget_loop()  # title -> notice -> title with waits between: the game's loop, not the agent's
        if passed.acted.pending is not None:
            self.events.chose(passed.acted.action, out, t.turn)  # a standing choice's outcome is read as the model's
        self.events.pressed(out)
        if passed.acted.stop:
            self.request_stop()

    def _own(self, t: TurnParts, acted: Acted) -> None:
        """What the coordinator did itself this turn, pending like the model's input (its effect comes next turn)."""
        t.acted = acted
        t.guard += acted.guarded
        t.state = t.state.but(pending=acted.pending or t.state.pending, owed=(*t.state.owed, *acted.results))

    def _sleep(self, seconds: float) -> float:
        """Sleep up to `seconds`, cut short by a person's stop (Ctrl+C) or run.max_hours; returns the seconds slept."""
        started = self.clock.now()
        hours = self.cfg.run.max_hours
        end = min(started + seconds, self.started + hours * 3600 if hours else float("inf"))
        while not self.stop_requested and (left := end - self.clock.now()) > 0:
            self.clock.sleep(min(left, 0.5))
        return self.clock.now() - started

    # ---- helpers -------------------------------------------------------------------------------------
    def _device_failed(self, state: LoopState, exc: DeviceError) -> tuple[str, LoopState]:
        """A bad frame or a dropped-and-reconnected device: this turn sees nothing and the next one tries
        again (the pending action's result waits for a good frame). A device that did not come back
        within `device.outage_wait_s`, or that has given no usable frame for that long, ends the run."""
        now = self.clock.now()
        since = state.device_down_since or now
        if isinstance(exc, DeviceDisconnected) and not exc.reconnected:
            self._ends(StopKind.DEVICE, f"the device failed: {exc}")
        elif now - since > self.cfg.device.outage_wait_s:
            self._ends(StopKind.DEVICE, f"the device failed: no usable frame for {now - since:.0f} s ({exc})")
        return f"device: {exc}", state.but(device_down_since=since)

    def _model_failed(self, t: TurnParts, exc: ModelError) -> LoopState:
        """A decision the API did not give: a busy API (overloaded or unreachable for the whole retry window) is
        waited out up to `model.outage_wait_s`; MAX_MODEL_ERRORS non-retryable errors in a row end the run."""
        state = t.state.but(last_model_error=str(exc))
        if exc.busy:
            since = state.model_down_since or t.started
            if (down := self.clock.now() - since) > self.cfg.model.outage_wait_s:
                self._ends(StopKind.MODEL, f"the model API has not answered for {down:.0f} s (model.outage_wait_s "
                                           f"{self.cfg.model.outage_wait_s:.0f}): {exc}")
            return state.but(model_down_since=since)
        state = state.but(model_errors=state.model_errors + 1)
        if state.model_errors >= MAX_MODEL_ERRORS:
            self._ends(StopKind.MODEL, f"{state.model_errors} model calls in a row failed with non-retryable errors "
                                       f"(last: {exc})")
        return state
