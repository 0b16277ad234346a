"""A person in the loop (`lluma run --confirm`): the actor wrapped so that a person answers before each input.

`PersonGate` is an `Actor` that overrides the one step every input goes out through (`_send`), as
mini-swe-agent's interactive agent wraps its default one: the `Actor` knows nothing of people, and a run
without `--confirm` has none of this. The person sees every planned input (the model's, a forced one, a rung of
the recovery ladder, a routine pass) on the frame it was decided on, and answers through a `Gate`: yes, no (a
veto, told to the model as a person's), edit (their own action instead: `pressButton(name=Rest)`, `back`, or a
plain name meaning pressButton) or quit (nothing sent; the run stops after this turn). While the person decides,
the turn's other calls (memory writes, search, zoom) wait: a refused turn runs none of the model's calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol, cast

from pydantic import BaseModel

from lluma_agent.context.stuck import StuckState
from lluma_agent.device.protocol import Frame
from lluma_agent.loop.acting import Acted, Actor
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.reply import ModelReply
from lluma_agent.sentences import say
from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction
from lluma_agent.tools.toolkit import Args, Tool, ToolContext, ToolInputError, ToolRegistry, error_result


class Verdict(BaseModel):
    """A person's answer to a planned input action."""

    answer: Literal["yes", "no", "edit", "quit"]
    text: str = ""  # edit: the person's action, e.g. "pressButton(name=Rest)", "back", "Rest"


class Gate(Protocol):
    """Asks a person about `planned` (the model's call, or the coordinator's own when `call` is None) on the
    frame it was decided on; `problem` says why the last answer could not be followed (an edit that does
    not plan), or is empty."""

    def __call__(self, turn: int, planned: PlannedAction, frame: Frame, problem: str) -> Verdict: ...


@dataclass(frozen=True)
class InTheLoop:
    """A person in the run, given to the coordinator when it is built: asked before each input (`gate`, `lluma run
    --confirm`), before each turn with its number and before each later step of a goTo walk with what it will press
    (`before_turn`, `before_step`: `--step`; False stops the run). None: not asked."""

    gate: Gate | None = None
    before_turn: Callable[[int], bool] | None = None
    before_step: Callable[[int, str], bool] | None = None


def person_call(text: str, tools: ToolRegistry, call_id: str) -> ToolCall:
    """A person's action as a tool call: `tool(key=value, ...)`, a bare input tool name, or a button's name."""
    text = text.strip()
    if not text:
        raise ValueError("edit what? e.g. `e pressButton(name=Rest)`, `e back` or `e Rest`")
    m = re.fullmatch(r"(\w+)\((.*)\)", text, re.DOTALL)
    if m and m.group(1) in tools.names(acts=True):
        args = dict(a.split("=", 1) for a in re.split(r",\s*(?=\w+=)", m.group(2)) if "=" in a)
        return ToolCall(id=call_id, name=m.group(1), input={k.strip(): v.strip() for k, v in args.items()})
    if text in tools.names(acts=True):
        return ToolCall(id=call_id, name=text, input={})
    return ToolCall(id=call_id, name="pressButton", input={"name": text})


class Heard(NamedTuple):
    """A person's answer to a planned action: what it did to the turn, and what to send (None: nothing)."""

    acted: Acted
    send: tuple[InputTool, PlannedAction, str] | None  # (tool, action, note told to the model)


class PersonGate(Actor):
    """The Actor with a person asked before every input (`gate`)."""

    def __init__(self, actor: Actor, gate: Gate) -> None:
        super().__init__(actor.device, actor.tools, actor.same_screen, guard=actor.guard, quiet_s=actor.quiet_s,
                         clock=actor.clock, spending=actor.spending)
        self.not_before = actor.not_before
        self.gate = gate

    def run(self, reply: ModelReply, frame: Frame, ctx: ToolContext, stuck: StuckState, last_action: str) -> Acted:
        """As Actor.run, with the calls that do not act held until the person has answered the input: run when
        the turn was not refused, else each answered that it did not run. Results keep the model's order."""
        held: list[tuple[Tool, ToolCall, Args]] = []
        for call in reply.tool_calls:
            try:
                tool, args = self.tools.parse(call)
            except (ToolInputError, ValueError, TypeError):
                continue  # answered by Actor.run with the parse error, as without a person
            if not tool.acts:
                held.append((tool, call, args))
        ids = {call.id for _, call, _ in held}
        rest = reply.model_copy(update={"tool_calls": [c for c in reply.tool_calls if c.id not in ids]})
        acted = super().run(rest, frame, ctx, stuck, last_action)
        refused = acted.person.startswith(("vetoed", "stopped"))
        for tool, call, args in held:
            acted = acted.then(Acted(results=[error_result(call, say("turn_refused", what=acted.person))]) if refused
                               else self._run_now(tool, call, args, ctx))
        rank = {call.id: i for i, call in enumerate(reply.tool_calls)}
        acted.results.sort(key=lambda r: rank.get(r.tool_use_id, len(rank)))
        return acted

    def _send(self, tool: InputTool, call: ToolCall | None, planned: PlannedAction, frame: Frame,
              ctx: ToolContext, note: str = "") -> Acted:
        """Send the action once the person agreed, or theirs instead; nothing when they refused."""
        heard = self._ask(tool, call, planned, frame, ctx)
        if heard.send is None:
            return heard.acted
        tool, planned, theirs = heard.send
        # A person's own action is theirs, not the coordinator's: it is never logged or counted as [forced].
        return heard.acted.then(self._act(tool, call, planned, frame, ctx.turn, note=note + theirs,
                                          forced=bool(note) and not theirs))

    def _ask(self, tool: InputTool, call: ToolCall | None, planned: PlannedAction, frame: Frame,
             ctx: ToolContext) -> Heard:
        """The person's answer: what to send, or nothing (vetoed or stopped; the model's call is answered,
        the turn log says so)."""
        what = planned.label
        problem = ""
        waited = 0.0
        while True:
            asked_at = self.clock.now()
            verdict = self.gate(ctx.turn, planned, frame, problem)
            waited += self.clock.now() - asked_at
            if verdict.answer == "yes":
                return Heard(acted=Acted(person=f"approved {what}", person_s=waited), send=(tool, planned, ""))
            if verdict.answer in ("no", "quit"):
                stop = verdict.answer == "quit"
                told = say("person_stopped") if stop else say("vetoed", what=what)
                results = [] if call is None else [error_result(call, told)]
                person = f"stopped the run at {what}" if stop else f"vetoed {what}"
                return Heard(acted=Acted(person=person, stop=stop, person_s=waited, results=results), send=None)
            try:
                theirs = person_call(verdict.text, self.tools, call.id if call else "person")
                chosen, args = self.tools.parse(theirs)
                mine = cast(InputTool, chosen).plan(args, ctx.vision)
            except (ActionError, ToolInputError, ValueError, TypeError, LookupError) as exc:
                problem = f"cannot do {verdict.text!r}: {exc}"
                continue
            done = mine.label
            return Heard(acted=Acted(person=f"replaced {what} with {done}", person_s=waited),
                         send=(cast(InputTool, chosen), mine, say("person_replaced", what=what, done=done)))
