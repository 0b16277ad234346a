"""The turn loop of DESIGN section 2: capture, settle, vision, context, model, tools, action, log.

At most one input action per turn; memory tools as many as the model sends. The result of an
input action is only known at the next capture, so its tool_result is sent with the next turn and
says what really happened.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any, Protocol

from PIL import Image
from pydantic import BaseModel

from lluma_agent.acting import Actor, FrameLike
from lluma_agent.baseline import verbose_vision_json
from lluma_agent.config import Config
from lluma_agent.context import build_request, current_turn, screenshot_block
from lluma_agent.device import DeviceDisconnected, DeviceError
from lluma_agent.history import History, PastTurn, compact_reply
from lluma_agent.memory import MemoryStore
from lluma_agent.model import Model, ModelError, ModelReply
from lluma_agent.stuck import StuckDetector
from lluma_agent.turnlog import CostLog, FrameInfo, ResponseLog, SideCall, TurnLog, TurnLogger, VisionLog
from lluma_facts import Usage, cost_usd
from lluma_vision.compact import compact, summarize
from lluma_vision.models import VisionData, VisionOutput
from lluma_vision.phash import distance, short_id

WAIT_KINDS = ("loading", "cutscene")
MAX_WAITS = 8  # captures spent waiting out a loading screen or cutscene before the model gets it anyway
MAX_MODEL_ERRORS = 3  # consecutive failed model calls that end the run
MAX_DEVICE_ERRORS = 3  # consecutive turns that could not see the screen (bad frames, reconnects)


class VisionLike(Protocol):
    def analyze(self, image: Image.Image, phash: str | None = None) -> VisionOutput: ...


class RunTotals(BaseModel):
    turns: int = 0
    usage: Usage = Usage()
    cost_usd: float = 0.0
    stop_reason: str = ""

    @property
    def cache_hit_ratio(self) -> float:
        return self.usage.cache_hit_ratio


class Coordinator:
    def __init__(
        self,
        cfg: Config,
        device: Any,
        vision: VisionLike,
        model: Model,
        memory: MemoryStore,
        logger: TurnLogger,
        system_prompt: str,
        tools: list[dict[str, Any]],
        settle: Callable[..., Any],
        on_turn: Callable[[TurnLog, RunTotals], None] | None = None,
    ) -> None:
        self.cfg, self.device, self.vision, self.model = cfg, device, vision, model
        self.memory, self.logger = memory, logger
        self.system_prompt, self.tools, self._settle = system_prompt, tools, settle
        self.on_turn = on_turn
        self.history = History(cfg.context.history_max_turns, cfg.context.fold_chunk_turns)
        self.stuck = StuckDetector(
            cfg.run.stuck_after, cfg.run.stuck_force_after, cfg.run.stuck_pause_after, same=self._same_screen
        )
        self.totals = RunTotals()
        self.turn = 0
        self.actor = Actor(device, memory, logger, self.stuck, self._same_screen)
        self.stop_requested = False
        self.model_errors = 0
        self.device_errors = 0
        self.last_device_error = ""
        self._remembered_reply: list[dict[str, Any]] = []
        self._baseline_record = ""

    def _same_screen(self, a: str, b: str) -> bool:
        """The one test of "nothing changed" (settle, action effects, stuck loops, the pre-tap check)."""
        return distance(a, b) <= self.cfg.device.settle_threshold

    # ---- the loop ------------------------------------------------------------------------------
    def request_stop(self) -> None:
        self.stop_requested = True

    def _budget_stop(self) -> str | None:
        run = self.cfg.run
        if self.stop_requested:
            return "stopped by user"
        if run.max_turns and self.totals.turns >= run.max_turns:
            return f"max_turns ({run.max_turns}) reached"
        if run.max_cost_usd and self.totals.cost_usd >= run.max_cost_usd:
            return f"max_cost_usd (${run.max_cost_usd:.2f}) reached"
        if self.model_errors >= MAX_MODEL_ERRORS:
            return f"{self.model_errors} model calls in a row failed"
        if self.device_errors >= MAX_DEVICE_ERRORS:
            return f"the device failed {self.device_errors} turns in a row ({self.last_device_error})"
        return None

    def run(self) -> RunTotals:
        while True:
            reason = self._budget_stop()
            if reason:
                self.totals.stop_reason = reason
                return self.totals
            log = self.step()
            if log.stuck.level == "pause":
                self.totals.stop_reason = f"paused: stuck ({log.stuck.reason})"
                return self.totals

    # ---- one turn --------------------------------------------------------------------------------
    def _observe(self, log: TurnLog) -> tuple[FrameLike, VisionOutput]:
        """Capture until the screen is still and not a loading screen or cutscene (bounded)."""
        dev = self.cfg.device
        t0 = time.monotonic()
        for waits in range(MAX_WAITS + 1):
            t1 = time.monotonic()
            result = self._settle(self.device, dev.settle_timeout_s, dev.settle_interval_s, dev.settle_threshold)
            frame = result.frame
            log.timings.capture_s += time.monotonic() - t1
            t1 = time.monotonic()
            out = self.vision.analyze(frame.image, frame.phash)
            log.timings.vision_s += time.monotonic() - t1
            log.frame = FrameInfo(
                phash=short_id(frame.phash),
                width=frame.image.width,
                height=frame.image.height,
                settled=result.settled,
                settle_captures=log.frame.settle_captures + result.captures,
                cinematic=out.cinematic,
            )
            if out.cinematic not in WAIT_KINDS or waits == MAX_WAITS:
                break
            log.waited = f"{out.cinematic} ({waits + 1} waits)"
            time.sleep(dev.settle_interval_s)
        log.timings.settle_s = time.monotonic() - t0 - log.timings.vision_s - log.timings.capture_s
        return frame, out

    def step(self) -> TurnLog:
        """One turn, in the order of DESIGN section 2."""
        self.turn += 1
        started = time.monotonic()
        log = TurnLog(turn=self.turn, started_at=time.time(), model=self.cfg.model.name)
        try:
            frame, out = self._observe(log)
        except DeviceError as exc:
            return self._finish(self._device_failed(exc, log), started)
        self.device_errors = 0
        log.frame.path = self.logger.save_screenshot(self.turn, frame.image)
        self.actor.effect_of_pending(frame)
        view = self._log_reading(out, log)
        notes = self._notes(log)
        if log.stuck.level == "pause":
            # Still stuck after forced actions: stop spending money and say why (run() ends the run).
            log.errors.append(f"paused: {log.stuck.reason}; no model call this turn")
            return self._finish(log, started)
        self._fold_history(log)
        request = self._request(frame, out, view, notes, log)
        reply = self._decide(request, log)
        if reply is None:
            return self._finish(log, started)
        t_act = time.monotonic()
        self.actor.run(reply, frame, out, log)
        log.timings.action_s = time.monotonic() - t_act
        self._remember(view, log)
        self.totals.turns += 1
        self._spend(log, reply.usage, self.cfg.model.name)
        return self._finish(log, started)

    @property
    def _baseline(self) -> bool:
        return self.cfg.context.layout == "baseline"

    def _device_failed(self, exc: DeviceError, log: TurnLog) -> TurnLog:
        """A bad frame or a dropped-and-reconnected device: this turn sees nothing and the next one tries
        again (the pending action's result waits for a good frame). Unreachable: the run stops."""
        self.device_errors += 1
        self.last_device_error = str(exc)
        log.errors.append(f"device: {exc}")
        if isinstance(exc, DeviceDisconnected) and not exc.reconnected:
            self.device_errors = MAX_DEVICE_ERRORS
        return log

    def _log_reading(self, out: VisionOutput, log: TurnLog) -> VisionData:
        view = compact(out, self.cfg.vision.max_buttons, self.cfg.vision.max_texts)
        log.vision = VisionLog(
            seen_by_model=view.to_json(), summary=summarize(out), cached=out.cached, backend=out.backend,
            full=out.model_dump(mode="json"),
        )
        log.errors += [f"vision: {e}" for e in out.errors]
        if out.vlm_usage and not out.cached:
            self._spend(log, Usage.from_api(out.vlm_usage), self.cfg.vision.vlm_model, side="vlm")
        return view

    def _notes(self, log: TurnLog) -> list[str]:
        """What the model must be told besides the screen: a person's memory edits, stuck warnings."""
        notes, self.actor.next_notes = self.actor.next_notes, []
        external = self.memory.refresh()
        log.memory_changes += external
        if external:
            names = ", ".join(sorted({c.name for c in external}))
            notes.append(f"NOTE: a person changed memory file(s) outside your tools: {names}. Re-read them.")
        log.stuck = self.stuck.state()
        if log.stuck.level not in ("ok", "pause"):
            notes.append(log.stuck.warning)
        return notes

    def _fold_history(self, log: TurnLog) -> None:
        if not self.history.needs_fold():
            return
        if self._baseline:
            self.history.drop_oldest()
            return
        folds: list[ModelReply] = []
        log.history_fold = self.history.fold(lambda msgs: self._summarize(msgs, folds))
        for r in folds:
            self._spend(log, r.usage, self.cfg.model.name, side="fold", text=r.text)

    def _request(self, frame: FrameLike, out: VisionOutput, view: VisionData, notes: list[str],
                 log: TurnLog) -> dict[str, Any]:
        log.tool_results = list(self.actor.undelivered)
        shots = self.cfg.context.screenshots
        image = screenshot_block(frame.image, self.cfg.context.screenshot_max_side) if shots > 0 else None
        memory = self.memory.block_text()
        if self._baseline:  # the original harness: verbose vision and the memory files in the user message
            screen = verbose_vision_json(out)
            self._baseline_record = f"<vision>{screen}</vision>\n{memory}"  # kept as sent, in history
            notes, memory = [memory, *notes], ""
        else:
            screen = view.to_json()
        request, layout = build_request(
            model=self.cfg.model.name,
            max_tokens=self.cfg.model.max_tokens,
            tools=self.tools,
            system_prompt=self.system_prompt,
            memory_text=memory,
            history=self.history.messages(),
            current=current_turn([r.block() for r in log.tool_results], screen, notes, image),
            thinking_budget=self.cfg.model.thinking_budget,
            ttl=self.cfg.context.cache_ttl,
            cache=not self._baseline,
        )
        log.context = layout.sections
        return request

    def _decide(self, request: dict[str, Any], log: TurnLog) -> ModelReply | None:
        t_model = time.monotonic()
        try:
            reply = self.model.decide(request)
        except ModelError as exc:
            self.model_errors += 1
            log.errors.append(f"model: {exc}")
            log.response = ResponseLog(retries=[r.model_dump() for r in exc.retries])
            return None
        finally:
            log.timings.model_s = time.monotonic() - t_model
        self.model_errors = 0
        self.actor.undelivered = []  # delivered: the model has seen them
        # The reply as it will sit in history (short tool ids, trimmed text): tools answer to these ids.
        self._remembered_reply, id_map = compact_reply(reply.content, self.turn)
        reply.tool_calls = [c.model_copy(update={"id": id_map.get(c.id, c.id)}) for c in reply.tool_calls]
        log.usage = reply.usage
        log.response = ResponseLog(
            thinking=reply.thinking, text=reply.text, tool_calls=reply.tool_calls, stop_reason=reply.stop_reason,
            retries=[r.model_dump() for r in reply.retries],
        )
        if reply.stop_reason == "max_tokens":
            log.errors.append("model: reply cut at max_tokens; only complete tool calls were used")
        return reply

    def _remember(self, view: VisionData, log: TurnLog) -> None:
        """The turn as history keeps it: compact results, the screen line, the reply."""
        assert log.vision is not None
        if self._baseline:
            remembered, screen_hash = self._baseline_record, ""
        else:
            # "Same screen as T41" means the model saw exactly the same reading then.
            screen_hash = hashlib.sha1(view.to_json().encode("utf-8")).hexdigest()[:16]
            remembered = self.history.screen_line(self.turn, screen_hash, log.vision.summary)
        past = PastTurn(
            turn=self.turn,
            results=[r.block(compact=not self._baseline) for r in log.tool_results],
            screen=remembered,
            screen_hash=screen_hash,
            reply=self._remembered_reply,
        )
        self.history.append(past)
        log.past_turn_tokens, log.past_reply_tokens = past.record_tokens(), past.reply_tokens()

    def _spend(self, log: TurnLog, usage: Usage, model: str, side: str = "", text: str = "") -> None:
        """Bill one call to the turn and the run (budgets see every call, not only the decision)."""
        cost = cost_usd(usage, model)
        if side:
            log.side_calls.append(SideCall(kind=side, model=model, usage=usage, cost_usd=cost, text=text))
        self.totals.usage = self.totals.usage + usage
        self.totals.cost_usd += cost
        log.cost = CostLog(
            turn_usd=log.cost.turn_usd + cost, run_usd=self.totals.cost_usd,
            cache_hit_ratio=log.usage.cache_hit_ratio, run_cache_hit_ratio=self.totals.cache_hit_ratio,
        )

    def _finish(self, log: TurnLog, started: float) -> TurnLog:
        log.timings.total_s = time.monotonic() - started
        self.logger.write(log)
        if self.on_turn:
            self.on_turn(log, self.totals)
        return log

    def _summarize(self, messages: list[dict[str, Any]], replies: list[ModelReply]) -> str:
        request, _ = build_request(
            model=self.cfg.model.name, max_tokens=600, tools=self.tools, system_prompt=self.system_prompt,
            memory_text=self.memory.block_text(), history=messages[:-1], current=messages[-1]["content"],
        )
        reply = self.model.decide(request)
        replies.append(reply)
        return reply.text

