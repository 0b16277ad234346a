"""The turn loop of docs/ARCHITECTURE.md ("One turn"): `_play` calls the turn's stages in order and the parts do the
work (every part is made once, by loop/parts.py, and handed in). The stages fill the turn's record (`TurnParts`);
in `finally`, `step` assembles the turn log from whatever the turn got to and writes it.

A device that fails, a failed model call and a stuck pause end the turn, not the run (the next turn tries again).
The run ends with `RunEnded(kind, reason)` (stop.py), decided where its cause is found (`Sitting.ends`: the ladder's
pause, a device or a model API away for longer than its outage window, the third failure of a kind in a row, a
Session Error, a folder that cannot be written): that turn is still logged and reported, then the run stops. The
limits a person set (turns, cost, careers, hours, a stop) are checked before each turn. Every turn counts toward
`run.max_turns`, a failed one too. Anything else is a bug: it is logged as this turn's error with its place in the
code, the turn's paid calls stay in the totals, and MAX_INTERNAL_ERRORS of them in a row end the run.

At most one input action per turn; memory tools as many as the model sends. The result of an input action is only
known at the next capture, so its tool_result is sent with the next turn and says what really happened.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from dataclasses import replace

from lluma_agent.context import knowledge
from lluma_agent.context.history import compact_reply
from lluma_agent.context.request import memory_update_note
from lluma_agent.device.protocol import DeviceError
from lluma_agent.loop.acting import Acted, Effect, effect_of
from lluma_agent.loop.followup import Followed, Hands
from lluma_agent.loop.layouts import Sent
from lluma_agent.loop.limits import check_limits
from lluma_agent.loop.observe import observe
from lluma_agent.loop.outages import device_failed, model_failed
from lluma_agent.loop.parts import Parts
from lluma_agent.loop.state import LoopState
from lluma_agent.loop.stop import RunEnded, StopKind, disk_error
from lluma_agent.loop.turn import (
    Decision,
    Notes,
    Observation,
    Prompt,
    RunTotals,
    Screen,
    TurnParts,
    assemble,
    bill,
    shown,
)
from lluma_agent.loop.upkeep import Paused
from lluma_agent.model.claude import Attempt, ModelError
from lluma_agent.runlog import index as history_index
from lluma_agent.runlog.turnlog import TurnLog
from lluma_agent.sentences import say
from lluma_agent.tools.toolkit import ToolContext
from lluma_vision.models import VisionOutput

MAX_INTERNAL_ERRORS = 3  # consecutive turns that hit a bug: the run stops instead of looping on it
MAX_REFUSALS = 3  # refusals in a row that end the run
_log = logging.getLogger(__name__)


class Coordinator:
    def __init__(self, parts: Parts, on_turn: Callable[[TurnLog, RunTotals], None] | None = None) -> None:
        """`parts`: every part of the loop (loop/parts.py `make`); `on_turn`: called after each turn (the checkpoint,
        the live line)."""
        p = self.parts = parts
        self.cfg, self.device, self.vision, self.model, self.memory, self.logger = (
            p.cfg, p.device, p.vision, p.model, p.memory, p.logger)
        self.history, self.stuck, self.progress, self.layout, self.careers, self.notifier = (
            p.history, p.stuck, p.progress, p.layout, p.careers, p.notifier)
        self.actor, self.prompter, self.app, self.nav, self.plans, self.survey, self.events = (
            p.actor, p.prompter, p.app, p.nav, p.plans, p.survey, p.events)
        self.upkeep, self.sitting, self.clock, self.on_turn = p.upkeep, p.sitting, p.clock, on_turn
        self.totals = RunTotals()
        self.state = LoopState()  # what each turn hands to the next (loop/state.py)
        # the run's turns and dollars before this sitting (a resume): run.max_turns and max_cost_usd count from them
        self.before = RunTotals()

    @property
    def stop_requested(self) -> bool:
        return self.sitting.stop.requested

    @property
    def turn(self) -> int:
        return self.state.turn

    # ---- the loop ------------------------------------------------------------------------------
    def request_stop(self) -> None:
        self.sitting.stop.set()

    def run(self) -> RunTotals:
        self.sitting.started = self.clock.now()  # this sitting's start: run.max_hours counts from it
        try:
            while True:
                check_limits(self.cfg.run, self.sitting, self.state, self.totals, self.before, self.careers)
                if self.parts.person.before_turn is not None and not self.parts.person.before_turn(self.turn + 1):
                    raise RunEnded(StopKind.PERSON, "stopped by user")
                log = self.step()
                self._report(log)
                if self.sitting.ending is not None:
                    raise self.sitting.ending
        except RunEnded as end:
            self.sitting.ending = None
            self.totals.stop_reason, self.totals.stop_kind = end.reason, end.kind
        return self.totals

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

    def step(self) -> TurnLog:
        """One turn; its log is written whatever happened. The turn works on its own copy of the loop's
        state (`t.state`), which the stages hand back changed; the loop keeps it once the turn is over."""
        self.state = self.state.but(turn=self.turn + 1)
        self.sitting.turn = self.turn  # the turn in play (the request log names it)
        t = TurnParts(turn=self.turn, model=self.cfg.model.name, state=self.state, started_at=self.clock.wall(),
                      started=self.clock.now())
        try:
            self._play(t)
        except DeviceError as exc:
            failure, t.state = device_failed(self.cfg, self.sitting, t.state, exc)
            t.failures.append(failure)
        except ModelError as exc:
            t.state = model_failed(self.cfg, self.sitting, t.state, t.started, exc)
            t.failures.append(f"model: {exc}")
            t.retries = list(exc.retries)
        except Paused as exc:  # stop spending money and say why
            t.failures.append(str(exc))
            self.sitting.ends(StopKind.STUCK, f"paused: stuck ({exc.reason})")
        except Exception as exc:  # noqa: BLE001 - a bug must not lose the turn's paid calls or its log
            if disk_error(exc):  # a screenshot or request the folder refused: no bug, and the run cannot go on
                self.sitting.ends(StopKind.DISK, self._disk_reason(exc))
                t.failures.append(f"disk: {type(exc).__name__}: {exc}")
            else:
                t.state = t.state.but(internal_errors=t.state.internal_errors + 1)
                if t.state.internal_errors >= MAX_INTERNAL_ERRORS:
                    self.sitting.ends(StopKind.INTERNAL, f"{t.state.internal_errors} turns in a row hit an internal "
                                                         "error (see their turn logs)")
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
        """The stages, in the order of ARCHITECTURE.md's "One turn" (a test holds the two the same)."""
        if not self.upkeep.keep_game_up(t):  # the game cannot be started: the run ends with this turn, nothing played
            return
        effect = self.look(t)
        if self.alone(t, effect):  # a guarded screen, a rung of the ladder, a routine pass: no model call
            return
        if self.surveyed(t):  # the survey ended off its screen: the game left, or a hazard came over it and was passed
            return
        t.fold, t.fold_calls = self.prompter.make_room(t.turn)
        self.request(t)
        self._timed(t, "model_s", self.decide)
        self._timed(t, "action_s", self.act)
        self.remember(t)

    def _timed(self, t: TurnParts, field: str, stage: Callable[[TurnParts], None]) -> None:
        started = self.clock.now()
        try:
            stage(t)
        finally:
            setattr(t, field, self.clock.now() - started)

    def _finish(self, t: TurnParts) -> TurnLog:
        side_calls, cost = bill(self.totals, t.calls())  # billed first: a failed log write loses no cost
        t.failures += [problem for problem in (self.nav.save(), self.events.save()) if problem]
        turn_log = assemble(t, side_calls, cost, self.clock.now())
        self.totals.count(t)
        self.progress.add(turn_log)
        try:
            self.logger.write(turn_log)
        except Exception as exc:  # noqa: BLE001 - the turn's cost is kept; a folder that refuses writes ends the run
            _log.error("turn %d: the turn log could not be written: %s", t.turn, exc)
            turn_log.errors.append(f"log: not written ({type(exc).__name__}: {exc})")
            if disk_error(exc):
                self.sitting.ends(StopKind.DISK, self._disk_reason(exc))
        return turn_log

    # ---- the stages ----------------------------------------------------------------------------------
    def look(self, t: TurnParts) -> Effect | None:
        """The settled screen, read: its screenshot kept, the last input's effect seen (owed to the model), the
        numbers checked against it, the map and the event book told where it led."""
        t.reading = observe(self.device, self.vision, self.parts.settle, self.cfg.device)
        t.state = t.state.but(device_down_since=None)
        t.screenshot = self.logger.save_screenshot(t.turn, t.reading.frame.image)
        effect, t.state = self.effect_of_pending(t.state, t.reading)
        t.reading.out = self.parts.plausible.check(t.reading.out, acted=effect is not None)
        # where the last action led, on the screen map (not known when the game had to be started again)
        t.failures += self.nav.observed(t.reading.out, effect, restarted=t.game_start is not None)
        t.failures += self.events.seen(t.reading.out, t.turn)  # the trainee's state; a choice's outcome read
        t.screen = self._read(t.reading.out)
        return effect

    def alone(self, t: TurnParts, effect: Effect | None) -> bool:
        """True when the coordinator plays this turn itself, without a model call: a guarded screen ("Session Error"
        ends the run, "Recover TP" is waited out), a rung of the recovery ladder, a routine screen passed on the map.
        Else the turn is the model's, and `t.notes` says what it must be told besides the screen."""
        assert t.reading is not None
        ctx = self._ctx(t.state, t.reading)
        if (acted := self.upkeep.guarded(t, ctx)) is not None:  # before the notes: a person's memory edit waits
            self._own(t, acted)
            return True
        t.notes = self.notes(effect, t.reading.out)
        if (acted := self.upkeep.recover(t, ctx)) is not None:
            self._own(t, acted)
            return True
        return self.passed(t, t.reading)

    def passed(self, t: TurnParts, here: Observation, hazard_only: bool = False) -> bool:
        """A routine screen passed on the map's one way out, without a model call (True), else the model's turn is
        told where it is, what was passed without it and, on an event the book knows, what each choice did.
        `hazard_only`: only a dialog over the game is passed (what a survey's raise may meet: `Navigator.hazard`)."""
        assert t.notes is not None
        choice, rule = self.parts.standing.pick(here.out) if self.nav.enabled and not hazard_only else (None, "")
        passed = self.nav.routine_pass(here, t.notes.stuck.level, t.turn, self.actor, self._ctx(t.state, here),
                                       self.sitting.sleep, hazard_only, standing=(choice, rule) if choice else None)
        if passed is None:
            if not hazard_only:
                t.notes = self.nav.tell(t.notes, here.out)
                told = [line for line in (self.events.note(here.out), "" if choice else rule) if line]
                t.notes = replace(t.notes, lines=[*t.notes.lines, *told])
            return False
        t.routine = passed.log
        self._own(t, passed.acted)  # pending like the model's input (loop.autopilot)
        if passed.later:
            self.stuck.forget_loop()  # title -> notice -> title with waits between: the game's loop, not the agent's
        if passed.acted.pending is not None:
            self.events.chose(passed.acted.action, here.out, t.turn)  # a standing choice: read as the model's
        self.events.pressed(here.out)
        return True

    def surveyed(self, t: TurnParts) -> bool:
        """The survey, before the model decides (loop/survey.py): the screen it leaves is the one the model is shown,
        with the table in its notes. True: it ended on a screen without options that is no decision (the game left
        the foreground, or a dialog over the game was passed): the turn is over, the next one surveys again."""
        assert t.reading is not None and t.notes is not None
        looked = self.survey.look(t.turn, t.reading, self._hands(t), t.notes.stuck.level)
        if looked is None:
            return False
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
        t.reading, t.screen = looked.here, self._read(looked.here.out)
        if self.survey.options(looked.here) is None and (self.upkeep.left_the_game(t)
                                                         or self.passed(t, looked.here, hazard_only=True)):
            return True
        t.notes = replace(t.notes, lines=[*t.notes.lines, *([looked.table] if looked.table else [])])
        return False

    def request(self, t: TurnParts) -> None:
        """The request as sent: the notes before a fold's summary ask, the screen, the results owed."""
        assert t.reading is not None and t.screen is not None and t.notes is not None
        t.notes = self.prompter.ahead_of_fold(t.notes)
        t.request = self.prompter.request(t.reading, t.screen, t.notes, list(t.state.owed))

    def decide(self, t: TurnParts) -> None:
        """The model's decision; when the API refuses the thinking kept in history (a signature it no longer takes:
        the stand-in started again, another key or account), history drops its thinking, the request is built again
        and sent once more. The refused call is the reply's first retry in the turn log."""
        assert t.request is not None and t.reading is not None and t.screen is not None and t.notes is not None
        try:
            t.decision, t.state = self._ask(t.state, t.request)
            return
        except ModelError as exc:
            if not exc.thinking_refused or not self.history.drop_thinking():
                raise
            refused = [*exc.retries, Attempt(error=f"{exc}; the history's thinking dropped, asked again", status=400)]
        t.request = self.prompter.request(t.reading, t.screen, t.notes, list(t.state.owed))
        decision, t.state = self._ask(t.state, t.request)
        decision.reply = decision.reply.model_copy(update={"retries": [*refused, *decision.reply.retries]})
        t.decision = decision

    def _ask(self, state: LoopState, request: Prompt) -> tuple[Decision, LoopState]:
        reply = self.model.decide(request.params)  # ModelError ends the turn (step)
        # delivered: the model has seen them; the API answered
        state = state.but(model_errors=0, owed=(), model_down_since=None, model_answered=True)
        content, calls, errors = reply.content, reply.tool_calls, []
        if reply.refused:  # logged, nothing done this turn; the run goes on (several in a row end it)
            state = state.but(refusals=state.refusals + 1)
            errors.append(f"model: refused ({reply.text[:200] or 'no text'}); nothing done this turn")
            calls, content = [], [b for b in content if b.get("type") != "tool_use"]
            if state.refusals >= MAX_REFUSALS:  # this turn is played out (remembered), then the run ends
                self.sitting.ends(StopKind.REFUSALS, f"the model refused {state.refusals} turns in a row")
        else:
            state = state.but(refusals=0)
        # The reply as it will sit in history (short tool ids, trimmed text): tools answer to these ids.
        remembered, id_map = compact_reply(content, state.turn)
        calls = [c.model_copy(update={"id": id_map.get(c.id, c.id)}) for c in calls]
        if reply.stop_reason == "max_tokens":
            errors.append("model: reply cut at max_tokens; only complete tool calls were used")
        return Decision(reply.model_copy(update={"tool_calls": calls}), remembered, errors), state

    def act(self, t: TurnParts) -> None:
        """The reply's calls run (at most one input); an event's choice awaits its outcome; then what follows the
        input (a goTo's walk, a plan's steps, a survey's commit: `follow_ups`), each through the actor; the turn's
        input as they leave it is the account the model reads next turn."""
        assert t.decision is not None and t.reading is not None and t.notes is not None
        reading = t.reading
        last = self.stuck.actions[-1] if self.stuck.actions else ""
        # adb cannot cancel a sent command: after one never answered the actor sends nothing for two command
        # timeouts, then checks the screen against the decision's frame, so a late tap never meets a new screen
        acted = self.actor.run(t.decision.reply, reading.frame, self._ctx(t.state, reading), t.notes.stuck, last)
        if acted.refused:
            self.stuck.record(reading.frame.phash, acted.refused, changed=False)
        if acted.pending is not None:
            self.events.chose(acted.action, reading.out, t.turn)  # an event's choice: its outcome awaited
            self.events.pressed(reading.out)
        hands = self._hands(t)
        for part in self.parts.follow_ups:
            if acted.stop:
                self.request_stop()  # a person in the loop said quit: this turn is logged, no other starts
            done = part.follow(acted, reading, hands) or Followed(acted)
            acted, t.navigation, t.plan = done.acted, t.navigation + done.navigation, done.plan or t.plan
            t.failures += done.failures
            t.decided_on_options = t.decided_on_options or done.decided_on_options
        self._own(t, acted)

    def remember(self, t: TurnParts) -> None:
        """The turn as history keeps it: compact results, the screen line, the reply."""
        assert t.request is not None and t.screen is not None and t.decision is not None
        request, screen, decision = t.request, t.screen, t.decision
        sent = Sent(blocks=request.blocks, results_as_text=request.as_text, memory_notes=request.memory_notes)
        t.past = self.layout.past_turn(self.history, t.turn, request.current, screen.view, screen.log.summary,
                                       request.results, decision.remembered, sent)
        self.history.append(t.past)
        self.history.offer(decision.reply.text)  # the summary a fold_note asked for, folded in at the next turn

    # ---- helpers -------------------------------------------------------------------------------------
    def _own(self, t: TurnParts, acted: Acted) -> None:
        """The turn's input, whoever sent it (the model, a follow-up, the coordinator's own rung or pass), written
        into the turn here alone: pending (its effect comes next turn), its results owed, what the guard did."""
        t.acted = acted
        t.guard += acted.guarded
        t.state = t.state.but(pending=acted.pending or t.state.pending, owed=(*t.state.owed, *acted.results))
        if acted.stop:
            self.request_stop()  # a person stopped the run: this turn is logged, no other starts

    def _hands(self, t: TurnParts) -> Hands:
        """The means of the coordinator's own steps in this turn; `--step`'s question asked before each."""
        ask, turn = self.parts.person.before_step, t.turn
        return Hands(self.actor, lambda seen: self._ctx(t.state, seen),
                     (lambda what: ask(turn, what)) if ask is not None else None)

    def _ctx(self, state: LoopState, reading: Observation) -> ToolContext:
        return ToolContext(vision=reading.out, memory=self.memory, history=self.history, turn=state.turn,
                           search=lambda query, limit: history_index.search(self.logger.db, query, limit),
                           frame=reading.frame.image)

    def _read(self, out: VisionOutput) -> Screen:
        return shown(out, self.cfg.vision)

    def effect_of_pending(self, state: LoopState, reading: Observation) -> tuple[Effect | None, LoopState]:
        """What the last input action did, now that the screen shows it: owed to the model, logged, counted."""
        if state.pending is None:
            return None, state
        effect = effect_of(state.pending, reading.frame, self.parts.same_screen)
        self.logger.update_effect(effect.turn, effect.text)
        self.stuck.record(effect.before_hash, effect.signature, effect.changed)
        owed = state.owed if effect.result is None else (*state.owed, effect.result)
        return effect, state.but(pending=None, owed=owed)

    def notes(self, effect: Effect | None, out: VisionOutput) -> Notes:
        """What the model must be told besides the screen: the effect of the coordinator's own last action, a
        person's memory edits, the stuck warning, matching knowledge (by priority within its budget)."""
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
        kb = self.parts.knowledge
        hints = kb.select(knowledge.ScreenFacts.of(out), self.cfg.knowledge.budget_tokens) if kb is not None else []
        if hints:
            lines.append(knowledge.note(hints))
        return Notes([*memory, *lines], external, stuck, [e.id for e in hints], memory)
