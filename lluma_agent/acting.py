"""Run a reply's tool calls: memory edits at once, at most one input action, and learn each action's
effect at the next capture (its tool_result travels with the next turn and says what happened).

When the stuck detector says "force", the action taken is a different kind from the repeated one,
and the model is told so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PIL import Image
from pydantic import BaseModel

from lluma_agent import actions
from lluma_agent.device import DeviceError
from lluma_agent.memory import MemoryChange, MemoryError_, MemoryStore
from lluma_agent.model import ModelReply
from lluma_agent.stuck import StuckDetector
from lluma_agent.tools import INPUT_TOOLS, MEMORY_TOOLS, ToolCall, ToolInputError, ToolResult, parse_args
from lluma_agent.turnlog import ActionLog, TurnLog, TurnLogger
from lluma_vision.models import VisionOutput
from lluma_vision.phash import distance


class FrameLike(Protocol):
    image: Image.Image
    taken_at: float
    phash: str


class Pending(BaseModel):
    """An input action waiting for the next capture to learn its effect."""

    call: ToolCall | None  # None: the coordinator acted on its own (stuck), there is no tool_use to answer
    signature: str  # e.g. "pressButton(Rest)", for stuck detection
    description: str
    brief: str
    before_hash: str
    turn: int


class Actor:
    def __init__(
        self, device: Any, memory: MemoryStore, logger: TurnLogger, stuck: StuckDetector,
        same_screen: Callable[[str, str], bool],
    ) -> None:
        self.device, self.memory, self.logger, self.stuck = device, memory, logger, stuck
        self._same_screen = same_screen
        self.turn = 0
        self.pending: Pending | None = None
        self.undelivered: list[ToolResult] = []  # results not yet sent (answers to the last reply)
        self.next_notes: list[str] = []  # things done on the model's behalf, told to it next turn

    def effect_of_pending(self, frame: FrameLike) -> None:
        """Now that we see the screen, tell the model what its last input action did."""
        p = self.pending
        if p is None:
            return
        d = distance(p.before_hash, frame.phash)
        changed = not self._same_screen(p.before_hash, frame.phash)
        effect = f"screen changed (distance {d})" if changed else "screen unchanged (the action had no visible effect)"
        if p.call is None:
            self.next_notes.append(f"NOTE: {p.description}; {effect}.")
        else:
            self.undelivered.append(
                ToolResult(
                    tool_use_id=p.call.id, name=p.call.name, content=f"{p.description}; {effect}",
                    short=f"{p.brief}: {'changed' if changed else 'NO CHANGE'}",
                )
            )
        self.logger.update_effect(p.turn, effect)
        self.stuck.record(p.before_hash, p.signature, changed)
        self.pending = None

    def run(self, reply: ModelReply, frame: FrameLike, out: VisionOutput, log: TurnLog) -> None:
        """The reply's calls, in order; `frame`/`out` are what the model decided on."""
        self.turn = log.turn
        acted = False
        for call in reply.tool_calls:
            try:
                args = parse_args(call).model_dump()
            except ToolInputError as exc:
                self._error_result(call, str(exc))
                log.errors.append(f"tool: {exc}")
                if call.name in INPUT_TOOLS and not acted:
                    acted = True
                    self._refused(call, frame)
                continue
            if call.name in MEMORY_TOOLS:
                self.undelivered.append(self._memory_tool(call, args, log))
            elif call.name in INPUT_TOOLS and acted:
                self._error_result(call, "not executed: only one input action per turn")
            elif call.name in INPUT_TOOLS:
                acted = True
                self._input_tool(call, args, frame, out, log)
        if not acted and log.stuck.level == "force":
            self._forced_action(frame, out, log, model_call=None)

    def _error_result(self, call: ToolCall, message: str) -> None:
        self.undelivered.append(ToolResult(tool_use_id=call.id, name=call.name, content=message, is_error=True))

    def _memory_tool(self, call: ToolCall, args: dict[str, Any], log: TurnLog) -> ToolResult:
        try:
            change: MemoryChange
            if call.name == "createMemoryFile":
                change = self.memory.create(args["name"], args["content"])
            elif call.name == "writeMemoryFile":
                change = self.memory.write(args["name"], args["content"])
            else:
                change = self.memory.delete(args["name"])
        except MemoryError_ as exc:
            log.errors.append(f"memory: {exc}")
            return ToolResult(tool_use_id=call.id, name=call.name, content=str(exc), is_error=True)
        log.memory_changes.append(change)
        total = self.memory.total_tokens()
        return ToolResult(
            tool_use_id=call.id, name=call.name,
            content=f"{change.op} {change.name}: ok (~{change.tokens_after} tokens; memory ~{total}/"
            f"{self.memory.budget_tokens})",
            short=f"{change.op} {change.name}: ok",
        )

    def _input_tool(self, call: ToolCall, args: dict[str, Any], frame: FrameLike, out: VisionOutput,
                    log: TurnLog) -> None:
        if log.stuck.level == "force":
            self._forced_action(frame, out, log, model_call=call)
            return
        try:
            planned = actions.plan(call.name, args, out)
        except actions.ActionError as exc:
            self._error_result(call, str(exc))
            log.errors.append(f"action: {exc}")
            self._refused(call, frame)
            return
        self._act(call, planned, frame, log)

    def _refused(self, call: ToolCall, frame: FrameLike) -> None:
        """A refused input (unknown button, bad input) changed nothing: it counts toward stuck, so a model
        that keeps asking for a button that is not there is stopped like one that keeps tapping in vain."""
        self.stuck.record(frame.phash, f"{call.name}(refused)", changed=False)

    def _act(self, call: ToolCall | None, planned: actions.PlannedAction, frame: FrameLike, log: TurnLog,
             note: str = "") -> None:
        """Send one input (call None = the coordinator's own forced action) and leave it pending."""
        # Never act on a frame older than the decision: if the screen moved meanwhile, do nothing.
        try:
            fresh = self.device.capture()
            msg = "" if self._same_screen(fresh.phash, frame.phash) else (
                "not executed: the screen changed while you were deciding; look again")
            done = None if msg else actions.execute(planned, self.device)
        except DeviceError as exc:
            msg, done = f"not executed: the device failed ({exc}); look again", None
        if done is None:
            if call is not None:
                self._error_result(call, msg)
            log.errors.append(f"action: {msg}")
            return
        desc = done.describe() + (f" ({planned.note})" if planned.note else "")
        log.action = ActionLog(
            tool=planned.tool, target=planned.target, key=planned.key, forced=bool(note),
            point=list(done.point) if done.point else None, swipe=list(done.swipe) if done.swipe else None,
        )
        self.pending = Pending(
            call=call, signature=f"{planned.tool}({planned.target})", description=f"{note}{desc}",
            brief=done.brief(), before_hash=frame.phash, turn=self.turn,
        )

    def _forced_action(self, frame: FrameLike, out: VisionOutput, log: TurnLog, model_call: ToolCall | None) -> None:
        """Stuck for a while: take a different kind of action than the repeated one, and say so.

        The streak is not reset here: if the forced action changes nothing either, the next turn
        forces another kind, and at `stuck_pause_after` the run pauses.
        """
        last = self.stuck.actions[-1] if self.stuck.actions else ""
        tool = "back" if not last.startswith("back") else ("scrollDown" if out.scrollbar else "advanceDialogue")
        planned = actions.plan(tool, {}, out)
        note = f"stuck ({log.stuck.reason}): the coordinator ran {tool} instead of your action"
        log.errors.append(note)
        self._act(model_call, planned, frame, log, note=f"{note}; ")
