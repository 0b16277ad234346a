"""One press the coordinator makes on its own in the middle of a turn (a survey's raise, its commit, a plan's step),
through the same gate as the model's input, then the still screen it led to.

The gate, in order: a person's stop, the spend gate (tools/spending.py: nothing the coordinator does alone presses on
a screen that may spend), `--step` (a person sees each step before it goes), the actor (the guard, `--confirm`, the
stale-frame check, the wait after an unanswered input), and an input never answered ends the sequence (it may land
late, on whatever shows then). The caller checks the screen reached against the one it expected.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from lluma_agent.config import Config
from lluma_agent.device.protocol import DeviceError, Phone
from lluma_agent.device.settle import Settle
from lluma_agent.loop.acting import Acted
from lluma_agent.loop.followup import Hands
from lluma_agent.loop.observe import VisionLike, observe
from lluma_agent.loop.turn import Observation
from lluma_agent.runlog.turnlog import ActionLog
from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction, element_of
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.spending import SpendGate
from lluma_facts.clock import Clock
from lluma_vision.models import VisionOutput


@dataclass
class Stepped:
    """What one step did: the gate's words (errors, a person's answer, the guard; never pending), the still reading
    it led to (None: nothing was sent or nothing could be read), where its tap landed, and why the sequence stops
    here ("" when it may go on)."""

    gate: Acted = field(default_factory=Acted)
    action: ActionLog | None = None  # the input sent
    seen: Observation | None = None
    point: list[int] | None = None
    element: str = ""
    seconds: float = 0.0
    note: str = ""


class Stepper:
    def __init__(self, cfg: Config, device: Phone, vision: VisionLike, settle: Settle,
                 stopping: Callable[[], bool], clock: Clock) -> None:
        self.cfg, self.device, self.vision, self.settle = cfg, device, vision, settle
        self.tools = default_tools()  # the input tools its presses take (a plan's step is never a plan)
        self.stopping, self.clock = stopping, clock
        self.gate = SpendGate(cfg.loop)

    def press(self, name: str, out: VisionOutput) -> tuple[InputTool, PlannedAction]:
        """`pressButton(name)` planned on the screen `out` reads (ActionError when the button is not there)."""
        tool = self.tools.get("pressButton")
        if not isinstance(tool, InputTool):
            raise ActionError("no pressButton tool")
        return tool, tool.plan(tool.args.model_validate({"name": name}), out)

    def step(self, tool: InputTool, planned: PlannedAction, here: Observation, hands: Hands, what: str,
             look: bool = True) -> Stepped:
        """Send `planned` on `here` through the gate and read where it led (`look` False: the next turn reads it)."""
        if self.stopping():
            return Stepped(note="a person asked the run to stop")
        if why := self.gate.why(here.out, planned.named):
            return Stepped(note=f"the screen may spend something ({why}): the choice is the model's")
        if hands.before_step is not None and not hands.before_step(what):
            return Stepped(gate=Acted(stop=True, person=f"stopped the run at {what}"),
                           note="a person asked the run to stop")
        done = hands.actor.take(tool, planned, here.frame, hands.ctx_of(here))
        gate = Acted(errors=done.errors, person=done.person, stop=done.stop, person_s=done.person_s,
                     guarded=done.guarded)
        if done.action is None or done.pending is None:
            return Stepped(gate=gate, note=f"not sent ({'; '.join(done.errors) or done.person or 'nothing sent'})")
        out = Stepped(gate=gate, action=done.action, point=done.action.point, element=element_of(planned))
        if done.action.outcome == "unknown":
            out.note = "its input was sent and never answered: nothing more is pressed"
            return out
        if not look:
            return out
        sent = self.clock.now()
        try:
            out.seen = observe(self.device, self.vision, self.settle, self.cfg.device)
        except DeviceError as exc:
            out.note = f"the device failed ({exc})"
        out.seconds = self.clock.now() - sent
        return out
