"""Run a reply's tool calls: tools that answer at once (memory edits) in order, at most one input
action, and learn that action's effect at the next capture (its tool_result travels with the next turn
and says what happened).

`Actor.run` returns what it did (`Acted`: results, the action, memory changes, errors, the action now
pending); `effect_of` turns a pending action and the next frame into its `Effect`. Neither keeps state
between turns: the loop holds the pending action.

When the stuck detector says "force", the action taken is a different kind from the repeated one,
and the model is told so. The ladder's higher rungs (`back`, `safe_tap`) are the coordinator's own inputs
(`Actor.rung`, no model call); restarting the game and waiting are pending like an input (`Actor.own`), so the
next capture tells whether they changed the screen. The guard (tools/guard.py) sees every planned tap first: a
press of a `guard.never_press` button is refused, nothing is sent, and the model is told. Every input the
coordinator sends alone (`take`, `rung`, `press_own`, the forced action) also passes the spend gate
(tools/spending.py): on a screen that may spend, a tap that could land on anything but a way out is not sent.

Every input goes out through one step, `_send`. A person in the loop (`lluma run --confirm`) is `PersonGate`
(gated.py), an Actor that overrides it to ask first; the Actor itself knows nothing of people.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from pydantic import BaseModel, Field

from lluma_agent.context.stuck import Rung, StuckState, rung
from lluma_agent.device.protocol import DeviceError, Frame, Phone
from lluma_agent.memory.store import MemoryChange
from lluma_agent.model.calls import ToolCall, ToolResult
from lluma_agent.model.reply import ModelReply
from lluma_agent.runlog.turnlog import ActionLog
from lluma_agent.sentences import say
from lluma_agent.tools.actions import ActionDone, ActionError, InputTool, PlannedAction, execute
from lluma_agent.tools.guard import Guard
from lluma_agent.tools.spending import SpendGate
from lluma_agent.tools.toolkit import (
    Args,
    Tool,
    ToolContext,
    ToolFailed,
    ToolInputError,
    ToolRegistry,
    error_result,
)
from lluma_facts.clock import Clock
from lluma_vision.models import Box, VisionOutput
from lluma_vision.phash import distance

SAFE_SIDE = 24  # pixels: the safe tap's box (the device jitters inside it)


class Pending(BaseModel):
    """An input action waiting for the next capture to learn its effect."""

    call: ToolCall | None  # None: the coordinator acted on its own (stuck), there is no tool_use to answer
    signature: str  # e.g. "pressButton(Rest)", for stuck detection
    description: str
    brief: str
    before_hash: str
    turn: int


class Effect(BaseModel):
    """What a pending action did, seen at the next capture."""

    turn: int  # the turn that acted (its log gets the effect)
    text: str  # "screen changed (distance 24)"
    changed: bool
    before_hash: str
    signature: str
    result: ToolResult | None = None  # the answer to the model's call
    note: str = ""  # an action the coordinator took on its own: told as a NOTE


class Acted(BaseModel):
    """What running one reply's tool calls did."""

    results: list[ToolResult] = Field(default_factory=list)  # sent with the next request
    action: ActionLog | None = None
    pending: Pending | None = None
    memory_changes: list[MemoryChange] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    refused: str = ""  # signature of a refused input action (it counts toward stuck)
    person: str = ""  # what a person in the loop said: "approved ...", "vetoed ...", "replaced ... with ..."
    stop: bool = False  # a person asked to stop the run
    person_s: float = 0.0  # time spent waiting for the person's answers (left out of the run's active time)
    guarded: list[str] = Field(default_factory=list)  # what the guard refused

    def then(self, more: Acted) -> Acted:
        """This step followed by `more`: lists joined in order, the later action and word kept."""
        return Acted(
            results=self.results + more.results, action=more.action or self.action,
            pending=more.pending or self.pending, memory_changes=self.memory_changes + more.memory_changes,
            errors=self.errors + more.errors, refused=more.refused or self.refused,
            person=more.person or self.person, stop=self.stop or more.stop, person_s=self.person_s + more.person_s,
            guarded=self.guarded + more.guarded,
        )


def effect_of(p: Pending, frame: Frame, same_screen: Callable[[str, str], bool]) -> Effect:
    """Now that we see the screen, tell the model what its last input action did."""
    changed = not same_screen(p.before_hash, frame.phash)
    text = (say("effect_changed", distance=distance(p.before_hash, frame.phash)) if changed
            else say("effect_unchanged"))
    effect = Effect(turn=p.turn, text=text, changed=changed, before_hash=p.before_hash, signature=p.signature)
    if p.call is None:
        effect.note = say("effect_note", did=p.description, effect=text)
    else:
        effect.result = ToolResult(
            tool_use_id=p.call.id, name=p.call.name, content=say("effect", did=p.description, effect=text),
            short=say("brief_changed" if changed else "brief_unchanged", brief=p.brief),
        )
    return effect


class SafeTap(InputTool):
    """The ladder's safe tap: a point on no button and no read text (the top band first, where a tap closes a
    popup or passes a "tap to continue" screen), never a guarded one. Not offered to the model."""

    name = "safeTap"
    description = "Tap a spot where no button or text is."

    def plan(self, args: object, vision: VisionOutput) -> PlannedAction:
        w, h = vision.width, vision.height
        taken = [b.bounds for b in vision.buttons] + [t.bounds for t in vision.texts]
        for fy in (0.08, 0.15, 0.5, 0.3, 0.7, 0.92):
            for fx in (0.5, 0.25, 0.75):
                x, y = int(w * fx), int(h * fy)
                box = Box(x0=max(0, x - SAFE_SIDE // 2), y0=max(0, y - SAFE_SIDE // 2),
                          x1=min(w, x + SAFE_SIDE // 2), y1=min(h, y + SAFE_SIDE // 2))
                if not any(b.x0 - SAFE_SIDE <= x <= b.x1 + SAFE_SIDE and b.y0 - SAFE_SIDE <= y <= b.y1 + SAFE_SIDE
                           for b in taken):
                    return PlannedAction(tool=self.name, kind="tap", target="a safe area", box=box)
        raise ActionError("no safe area: buttons or text everywhere")

    def describe(self, done: ActionDone) -> str:
        return f"tapped a safe area at ({done.point[0]},{done.point[1]})" if done.point else "tapped a safe area"


LADDER_TOOLS: dict[str, InputTool] = {SafeTap.name: SafeTap()}  # the ladder's inputs the model is not offered


class Actor:
    def __init__(self, device: Phone, tools: ToolRegistry, same_screen: Callable[[str, str], bool],
                 guard: Guard | None = None, quiet_s: float = 0.0, clock: Clock | None = None,
                 spending: SpendGate | None = None) -> None:
        self.device, self.tools, self.same_screen = device, tools, same_screen
        self.guard = guard  # guard.never_press: taps refused whatever planned them
        self.spending = spending  # the spend gate: the coordinator's own taps never land on a spend
        self.clock = clock or Clock()  # the run's one clock (the coordinator's)
        # After an input the device never answered (it may still run), no input for `quiet_s`, whoever sends it:
        # the model, a routine pass, a goTo step, a rung. Kept here, where every input goes out, so none skips it.
        self.quiet_s = quiet_s
        self.not_before = 0.0  # on the clock's now()

    def run(self, reply: ModelReply, frame: Frame, ctx: ToolContext, stuck: StuckState, last_action: str) -> Acted:
        """The reply's calls, in order; `frame`/`ctx.vision` are what the model decided on. `last_action` is
        the stuck detector's latest signature (a forced action is of a different kind)."""
        acted = Acted()
        acting = False  # an input call was taken (run, refused or forced): later ones are refused
        for call in reply.tool_calls:
            try:
                tool, args = self.tools.parse(call)
            except (ToolInputError, ValueError, TypeError) as exc:
                refused = call.name in self.tools.names(acts=True) and not acting
                acting = acting or refused
                acted = acted.then(Acted(results=[error_result(call, str(exc))], errors=[f"tool: {exc}"],
                                         refused=f"{call.name}(refused)" if refused else ""))
                continue
            if not tool.acts:
                acted = acted.then(self._run_now(tool, call, args, ctx))
            elif acting:
                acted = acted.then(Acted(results=[error_result(call, say("one_input_per_turn"))]))
            else:
                acting = True
                acted = acted.then(self._input(cast(InputTool, tool), call, args, frame, ctx, stuck, last_action))
        if not acting and stuck.level == "force":
            acted = acted.then(self._forced(None, frame, ctx, stuck, last_action))
        return acted

    def _run_now(self, tool: Tool, call: ToolCall, args: Args, ctx: ToolContext) -> Acted:
        try:
            outcome = tool.run(args, ctx)
        except ToolFailed as exc:
            return Acted(errors=[f"{exc.log_prefix}: {exc}"], results=[error_result(call, str(exc))])
        except Exception as exc:  # a bug in a handler must not kill a paid turn: the model and the log hear of it
            return Acted(errors=[f"tool: internal error in {call.name}: {type(exc).__name__}: {exc}"],
                         results=[error_result(call, say("tool_internal_error", tool=call.name))])
        changes = [outcome.memory_change] if outcome.memory_change is not None else []
        return Acted(memory_changes=changes, results=[tool.result(call, outcome)])

    def _input(self, tool: InputTool, call: ToolCall, args: Args, frame: Frame, ctx: ToolContext,
               stuck: StuckState, last_action: str) -> Acted:
        if stuck.level == "force":
            return self._forced(call, frame, ctx, stuck, last_action)
        try:
            planned = tool.plan(args, ctx.vision)
        except (ActionError, ValueError, TypeError, LookupError) as exc:
            # A refused input changed nothing: it counts toward stuck, so a model that keeps asking for a
            # button that is not there is stopped like one that keeps tapping in vain.
            return Acted(results=[error_result(call, str(exc))], errors=[f"action: {exc}"],
                         refused=f"{call.name}(refused)")
        if refused := self._refused(call, planned, ctx.vision):
            return refused
        return self._send(tool, call, planned, frame, ctx)

    def _refused(self, call: ToolCall | None, planned: PlannedAction, vision: VisionOutput) -> Acted | None:
        """The guard's refusal of `planned` (nothing sent; the model told, the log says so), or None."""
        hit = self.guard.refuses(planned, vision) if self.guard is not None else ""
        if not hit:
            return None
        msg = Guard.refusal(planned, hit)
        return Acted(results=[] if call is None else [error_result(call, msg)], errors=[f"guard: {msg}"],
                     refused=f"{planned.tool}(refused)", guarded=[f"refused {planned.label}: {hit!r} is guarded"])

    def _alone(self, planned: PlannedAction, vision: VisionOutput) -> Acted | None:
        """The refusal of an input the coordinator sends alone (no model call planned it): the guard's, else the
        spend gate's (nothing sent, the log says so), or None."""
        if refused := self._refused(None, planned, vision):
            return refused
        why = self.spending.refuses(planned, vision) if self.spending is not None else ""
        if not why:
            return None
        return Acted(errors=[f"spend gate: {why}"], refused=f"{planned.tool}(refused)",
                     guarded=[f"refused {planned.label}: {why}"])

    def rung(self, step: Rung, frame: Frame, ctx: ToolContext, reason: str) -> Acted:
        """An input rung of the ladder (`back`, `safe_tap`): the coordinator's own input, no model call (call None).
        Its tool is the registry's, or one of the ladder's own (LADDER_TOOLS: not offered to the model)."""
        tool = cast(InputTool, LADDER_TOOLS.get(step.tool) or self.tools.get(step.tool))
        return self._own_input(tool, tool.args(), frame, ctx, say(step.said, reason=reason, rung=step.name,
                                                                  tool=tool.name))

    def press_own(self, name: str | None, frame: Frame, ctx: ToolContext, note: str) -> Acted:
        """Press the button `name` for the coordinator (call None, no model call), through the guard and the gate."""
        if name is None:
            return Acted(errors=[f"{note}: no button to press; nothing sent"])
        tool = cast(InputTool, self.tools.get("pressButton"))
        return self._own_input(tool, tool.args.model_validate({"name": name}), frame, ctx, note)

    def _own_input(self, tool: InputTool, args: Args, frame: Frame, ctx: ToolContext, note: str) -> Acted:
        """The coordinator's own input (a rung, a press of its own), said in `note`: planned here, through the guard
        and the spend gate, sent with no model call this turn."""
        try:
            planned = tool.plan(args, ctx.vision)
        except ActionError as exc:
            return Acted(errors=[f"{note}; nothing sent ({exc}); no model call this turn"])
        if refused := self._alone(planned, ctx.vision):
            return refused
        return Acted(errors=[f"{note}; no model call this turn"]).then(
            self._send(tool, None, planned, frame, ctx, note=f"{note}; "))

    def take(self, tool: InputTool, planned: PlannedAction, frame: Frame, ctx: ToolContext) -> Acted:
        """An input the coordinator planned itself (call None, no model call: a routine pass, a walk's or a plan's
        step, a survey's press), through the guard, the spend gate and the person in the loop, logged as the
        coordinator's but not as forced."""
        return self._alone(planned, ctx.vision) or self._send(tool, None, planned, frame, ctx)

    @staticmethod
    def own(signature: str, description: str, brief: str, frame: Frame, turn: int) -> Acted:
        """Something the coordinator did that is not a tap (restart the game, wait): pending like an input, so
        the next capture says whether the screen changed and the stuck detector counts it."""
        return Acted(pending=Pending(call=None, signature=signature, description=description, brief=brief,
                                     before_hash=frame.phash, turn=turn))

    def _send(self, tool: InputTool, call: ToolCall | None, planned: PlannedAction, frame: Frame,
              ctx: ToolContext, note: str = "") -> Acted:
        """Send one planned input (every input goes out here; PersonGate asks a person first)."""
        return self._act(tool, call, planned, frame, ctx.turn, note=note)

    def _act(self, tool: InputTool, call: ToolCall | None, planned: PlannedAction, frame: Frame, turn: int,
             note: str = "", forced: bool | None = None) -> Acted:
        """Send one input (call None = the coordinator's own forced action) and leave it pending."""
        # Never act on a frame older than the decision: if the screen moved meanwhile, do nothing.
        # An input the device never confirmed comes back from execute() as done with `unknown` set.
        signature, done = f"{planned.tool}({planned.target})", None
        if (wait := self.not_before - self.clock.now()) > 0:
            self.clock.sleep(wait)  # let a late input land first: the capture below then sees what it did
        try:
            fresh = self.device.capture()
            msg = "" if self.same_screen(fresh.phash, frame.phash) else say("screen_moved")
            done = None if msg else execute(planned, self.device)
        except DeviceError as exc:
            msg = say("device_failed", error=exc)
        if done is None:
            return Acted(results=[] if call is None else [error_result(call, msg)], errors=[f"action: {msg}"])
        action = ActionLog(
            tool=planned.tool, target=planned.target, key=planned.key,
            forced=bool(note) if forced is None else forced,
            point=list(done.point) if done.point else None, swipe=list(done.swipe) if done.swipe else None,
            outcome="unknown" if done.unknown else "sent",
        )
        described, brief, errors = tool.describe(done), tool.brief(done), []
        if done.unknown:  # sent and unanswered: it may have happened; the effect (next frame) is the truth
            self.not_before = self.clock.now() + self.quiet_s
            errors.append(f"action: outcome unknown ({done.unknown})")
            described = say("unconfirmed", did=described)
            brief = say("brief_unconfirmed", brief=brief)
        pending = Pending(
            call=call, signature=signature, description=f"{note}{described}",
            brief=brief, before_hash=frame.phash, turn=turn,
        )
        return Acted(action=action, pending=pending, errors=errors)

    def _forced(self, call: ToolCall | None, frame: Frame, ctx: ToolContext, stuck: StuckState,
                last_action: str) -> Acted:
        """Stuck for a while: take a different kind of action than the repeated one, and say so.

        The streak is not reset here: if the forced action changes nothing either, the next turn
        forces another kind, and at `stuck_pause_after` the coordinator climbs the rest of the ladder.
        """
        names = ["back"] if not last_action.startswith("back") else (
            ["scrollDown"] if ctx.vision.scrollbar else []) + ["advanceDialogue", "back"]
        problems, gated = [], []
        for name in names:  # the first that can be done here (no dialogue on a title screen: the next kind)
            tool = cast(InputTool, self.tools.get(name))
            try:
                planned = tool.plan(tool.args(), ctx.vision)
            except ActionError as exc:
                problems.append(f"{name}: {exc}")
                continue
            if self.guard is not None and self.guard.refuses(planned, ctx.vision):
                problems.append(f"{name}: guarded")
                continue
            if self.spending is not None and (why := self.spending.refuses(planned, ctx.vision)):
                problems.append(f"{name}: {why}")  # never a spend: the next kind (the back key presses no button)
                gated.append(f"refused {planned.label}: {why}")
                continue
            note = say(rung("force").said, reason=stuck.reason, tool=name)
            return Acted(errors=[*(f"spend gate: {g}" for g in gated), note], guarded=gated).then(
                self._send(tool, call, planned, frame, ctx, note=f"{note}; "))
        msg = say("forced_none", reason=stuck.reason, problems="; ".join(problems))
        return Acted(results=[] if call is None else [error_result(call, msg)], errors=[msg], guarded=gated)
