"""goTo's walk (issue 30): the tool plans step 1 (`first_step`); once the actor has sent it like any input, `follow`
walks the rest: each step's recorded action planned on the fresh reading and sent through the actor like the model's
input (the guard, a person in the loop, the stale-frame check, the wait after an unanswered input), the screen read
and compared with the map's. A surprise, a screen that may spend, the guard, a person's veto or stop, a failing device
or an unanswered input ends the walk; the model is told what happened and where it is, next turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from lluma_agent.device.protocol import DeviceError
from lluma_agent.loop.acting import Acted
from lluma_agent.loop.followup import Followed, Hands
from lluma_agent.loop.navigate import Navigator
from lluma_agent.loop.observe import observe
from lluma_agent.loop.turn import Observation
from lluma_agent.navmap import Transition
from lluma_agent.navmap.actions import key_of, readable
from lluma_agent.runlog.turnlog import NavigationStep
from lluma_agent.tools.actions import ActionError, InputTool, PlannedAction, element_of
from lluma_agent.tools.goto import GoTo
from lluma_vision.models import VisionOutput


@dataclass
class Route:
    """A goTo walk planned by `first_step`: where to, the map's steps, and what step 1's tap meant."""

    target: str
    steps: list[Transition]
    element: str


class Walker:
    """goTo on the screen map: the tool's Router (its first step) and the follow-up that walks the rest."""

    def __init__(self, nav: Navigator) -> None:
        self.nav = nav
        self.route: Route | None = None

    def first_step(self, screen: str, vision: VisionOutput) -> PlannedAction:
        """goTo's plan (tools/goto.py Router): step 1 of the shortest known path, labelled `goTo(<screen>)`."""
        self.route, maps = None, self.nav.map
        here, target = self.nav.screen(vision).id, maps.find(screen)
        if target is None:
            raise ActionError(f"no screen {screen!r} on the map; known screens: {self.nav.known()}")
        if target == here:
            raise ActionError(f"already on {maps.label(here)}")
        m = self.nav.cfg.map
        steps = maps.path(here, target, m.min_uses, m.min_rate, usable=self.nav.walkable)
        if steps is None:
            ways = ", ".join(f"{readable(t.action)} -> {maps.label(t.dst)}" for t in maps.ways_out(here))
            raise ActionError(f"no known way from {maps.label(here)} to {maps.label(target)} yet; ways out "
                              f"of here: {ways or 'none known'}")
        if len(steps) > m.max_steps:
            raise ActionError(f"the way to {maps.label(target)} takes {len(steps)} steps, more than map.max_steps "
                              f"({m.max_steps}); go part of the way first")
        if why := self.nav.gate.why(vision):
            raise ActionError(f"goTo never presses on a screen that may spend something ({why}): choose here "
                              "yourself")
        _tool, planned = self.nav.step_tool(steps[0], vision)
        self.route = Route(target, steps, element_of(planned))
        return planned.model_copy(update={"tool": GoTo.name, "target": maps.label(target),
                                          "note": f"of {len(steps)}: {readable(steps[0].action)}"})

    def follow(self, acted: Acted, reading: Observation, hands: Hands) -> Followed | None:
        """After the model's action was sent: walk a goTo's remaining steps (returned), or wait for where the action
        leads (None). Each later step goes out through the actor like the model's input (the guard, a person in the
        loop, the stale-frame check, the wait after an unconfirmed input), planned on its own reading; `--step` is
        asked before each."""
        route, self.route = self.route, None
        if not self.nav.enabled or acted.action is None or acted.pending is None:
            return None
        if acted.action.tool == GoTo.name and route is not None:
            steps, summary, gate = self.walk(route, acted, reading, hands)
            # the walk's account is what the model reads next turn, on the screen it stopped at when it stopped short
            self.nav.surprise(not (steps and steps[-1].ok and steps[-1].step == len(route.steps)))
            pending = acted.pending.model_copy(update={"description": summary})
            return Followed(acted.then(gate).model_copy(update={"pending": pending}), navigation=steps)
        if (key := key_of(acted.action, reading.out)) is not None:
            self.nav.pend(key, reading.out)
        return None

    def walk(self, route: Route, acted: Acted, reading: Observation, hands: Hands
             ) -> tuple[list[NavigationStep], str, Acted]:
        """Steps 2..n of a goTo whose step 1 was just sent: each checked against the map, sent through the actor;
        stops at a surprise. Returns the steps, what the model is told, and what the gate said on the way (a
        person's answers, the guard's refusals; no action and nothing pending)."""
        n, target = len(route.steps), self.nav.map.label(route.target)
        steps: list[NavigationStep] = []
        gate = Acted()
        point = acted.action.point if acted.action else None
        unknown = acted.action is not None and acted.action.outcome == "unknown"
        element, sent_at, here = route.element, self.nav.clock.wall(), reading
        for i, edge in enumerate(route.steps):
            step = NavigationStep(target=target, step=i + 1, of=n, action=edge.action,
                                  expected=self.nav.map.label(edge.dst))
            if i > 0:
                if unknown:  # the last tap was never answered: it may land late, on whatever shows then
                    steps[-1].note = "its input was sent and never answered: the walk stops here"
                    break
                tool, planned, why = self._next(edge, here.out)
                if planned is None or tool is None:
                    steps.append(step.model_copy(update={"note": why}))
                    break
                if hands.before_step is not None and not hands.before_step(f"goTo({target}) step {i + 1} of {n}: "
                                                               f"{readable(edge.action)}"):
                    gate = gate.then(Acted(stop=True, person=f"stopped the run at goTo({target}) step {i + 1}"))
                    steps.append(step.model_copy(update={"note": "a person asked the run to stop"}))
                    break
                done = hands.actor.take(tool, planned, here.frame, hands.ctx_of(here))
                gate = gate.then(Acted(errors=done.errors, person=done.person, stop=done.stop,
                                       person_s=done.person_s, guarded=done.guarded))
                if done.action is None or done.pending is None:
                    why = "; ".join(done.errors) or done.person or "nothing was sent"
                    steps.append(step.model_copy(update={"note": f"not sent ({why})"}))
                    break
                sent_at, point, element = self.nav.clock.wall(), done.action.point, element_of(planned)
                unknown = done.action.outcome == "unknown"
            step.point, step.element = point, element
            try:
                here = observe(self.nav.device, self.nav.vision, self.nav.settle, self.nav.cfg.device)
            except DeviceError as exc:
                steps.append(step.model_copy(update={"note": f"the device failed ({exc})"}))
                break
            now, reached = self.nav.clock.wall(), self.nav.screen(here.out)
            self.nav.map.see(reached.id, reached.name, now)
            self.nav.map.record(edge.src, edge.action, reached.id, now - sent_at, now, edge.tool, edge.args,
                            expected=edge.dst)
            step.reached, step.ok, step.seconds = self.nav.map.label(reached.id), reached.id == edge.dst, now - sent_at
            steps.append(step)
            if not step.ok:
                step.note = "a surprise: the screen reached is not the one the map expected"
                break
        return steps, self._told(target, steps, n), gate

    def _next(self, edge: Transition, out: VisionOutput) -> tuple[InputTool | None, PlannedAction | None, str]:
        """A later step's tool and action on the fresh reading, or None and why the walk stops here."""
        if self.nav.stop.requested:
            return None, None, "a person asked the run to stop"
        if why := self.nav.gate.why(out):
            return None, None, f"the screen may spend something ({why}): the choice is yours"
        try:
            tool, planned = self.nav.step_tool(edge, out)
        except ActionError as exc:
            return None, None, f"its action cannot be taken here ({exc})"
        return tool, planned, ""

    def _told(self, target: str, steps: list[NavigationStep], n: int) -> str:
        """What the model reads next turn: the walk, step by step, and where it ended."""
        done = "; ".join(f"{readable(s.action)} -> {s.reached or '?'}" for s in steps if s.reached)
        last = steps[-1] if steps else None
        if last is not None and last.ok and last.step == n:
            return f"goTo({target}): walked {n} step(s) ({done}); you are on {target}"
        where = next((s.reached for s in reversed(steps) if s.reached), "")
        why = last.note if last is not None else "nothing was walked"
        return (f"goTo({target}): stopped at step {last.step if last else 1} of {n} ({why}; expected "
                f"{last.expected if last else target}); walked: {done or 'nothing'}; "
                f"you are on {where or 'the screen shown'}")
