"""Every part of the turn loop, made in one place (`make`): `loop/app.build` calls it for `lluma run` and the demo,
the tests' `fakes.loop` for theirs, and the Coordinator is handed the result; it makes nothing itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lluma_agent.config import Config
from lluma_agent.context.history import History
from lluma_agent.context.knowledge import Knowledge
from lluma_agent.context.plausible import Plausible
from lluma_agent.context.stuck import StuckDetector, own_rungs
from lluma_agent.device.app import GameApp
from lluma_agent.device.protocol import Phone
from lluma_agent.device.settle import SameScreen, Settle
from lluma_agent.loop.acting import Actor
from lluma_agent.loop.careers import CareerTracker
from lluma_agent.loop.eventbook import EventMemory
from lluma_agent.loop.followup import FollowUp
from lluma_agent.loop.gated import InTheLoop, PersonGate
from lluma_agent.loop.layouts import CachedLayout, ContextLayout
from lluma_agent.loop.navigate import Navigator
from lluma_agent.loop.observe import VisionLike
from lluma_agent.loop.plans import Planner
from lluma_agent.loop.progress import ProgressWatch
from lluma_agent.loop.prompting import Prompter
from lluma_agent.loop.recording import RecordingModel
from lluma_agent.loop.sitting import Sitting
from lluma_agent.loop.standing import StandingChoices
from lluma_agent.loop.steps import Stepper
from lluma_agent.loop.survey import Surveyor
from lluma_agent.loop.upkeep import Upkeep
from lluma_agent.loop.walk import Walker
from lluma_agent.memory.store import MemoryStore
from lluma_agent.model.protocol import DecisionModel
from lluma_agent.navmap import map_path_for
from lluma_agent.navmap.events import events_path
from lluma_agent.notify import Notifier
from lluma_agent.runlog.turnlog import TurnLogger
from lluma_agent.tools.guard import Guard
from lluma_agent.tools.registry import default_tools
from lluma_agent.tools.spending import SpendGate
from lluma_agent.tools.toolkit import ToolRegistry
from lluma_facts.clock import Clock


@dataclass
class Parts:
    """The loop's parts, each made once (`make`)."""

    cfg: Config
    device: Phone
    vision: VisionLike
    model: DecisionModel  # wrapped to keep each request as sent, when the run has a folder for them
    memory: MemoryStore
    logger: TurnLogger
    settle: Settle
    knowledge: Knowledge | None
    clock: Clock  # the one clock of waits, timings and run.max_hours (tests give a fake: an hour's wait takes none)
    sitting: Sitting  # a person's stop, the end a turn found, the waits they cut short
    person: InTheLoop  # a person in the loop (--confirm, --step)
    careers: CareerTracker | None  # the careers ended, toward run.max_careers
    app: GameApp | None  # the game as an app (None: a device that cannot start it; no foreground check, no restart)
    layout: ContextLayout
    history: History
    same_screen: SameScreen
    stuck: StuckDetector
    progress: ProgressWatch  # the game's clock: turns and dollars since the career's turn or date last moved
    nav: Navigator  # the screen map: recorded each turn, routine screens passed
    walker: Walker  # goTo's walk on the map
    events: EventMemory  # what each event choice did, beside the map and with it
    standing: StandingChoices  # the model's own answers to events it has met, pressed when they show again
    survey: Surveyor
    plans: Planner
    notifier: Notifier
    actor: Actor  # every input goes out here (PersonGate when a person confirms each)
    plausible: Plausible  # numbers that moved as no turn moves them are marked doubtful
    prompter: Prompter
    upkeep: Upkeep  # keeps the game running; the guard's screens; the recovery ladder

    @property
    def follow_ups(self) -> list[FollowUp]:
        """What may follow the turn's input, in order: a goTo's later steps, a plan's, a survey's commit."""
        return [self.walker, self.plans, self.survey]


def make(cfg: Config, device: Phone, vision: VisionLike, model: DecisionModel, memory: MemoryStore,
         logger: TurnLogger, system_prompt: str, settle: Settle, tools: ToolRegistry | None = None,
         knowledge: Knowledge | None = None, app: GameApp | None = None, layout: ContextLayout | None = None,
         clock: Clock | None = None, notifier: Notifier | None = None, careers: CareerTracker | None = None,
         person: InTheLoop | None = None, requests: Path | None = None) -> Parts:
    """Every part, once. `tools`: the registry (default `default_tools`, with goTo and runPlan when the map and
    plans are on); `notifier`: default one for cfg.notify (does nothing without notify.command); `layout`: default
    the cached one (a benchmark passes its baseline); `requests`: the folder where each request is kept as sent."""
    clock = clock or Clock()
    sitting = Sitting(clock, cfg.run.max_hours)
    person = person or InTheLoop()
    if requests is not None:  # every request kept as sent, under the turn that sent it (lluma logs --request)
        model = RecordingModel(model, requests, lambda: sitting.turn)
    layout = layout or CachedLayout()
    history = History(cfg.context.history_max_turns, cfg.context.fold_chunk_turns)
    same = SameScreen(cfg.device.settle_threshold)
    stuck = StuckDetector(cfg.run.stuck_after, cfg.run.stuck_force_after, cfg.run.stuck_pause_after, same=same)
    progress = ProgressWatch(cfg.run, len(own_rungs(app is not None)))
    nav = Navigator(cfg, map_path_for(memory.folder, cfg.memory.shared_dir), logger.folder.name, device, vision, settle,
                    sitting.stop, clock)
    walker = Walker(nav)
    events = EventMemory(events_path(nav.path), logger.folder.name, nav.enabled, clock.wall)
    # one checked press at a time for the coordinator's own sequences: a survey of a screen's options, a plan
    stepper = Stepper(cfg, device, vision, settle, stopping=lambda: sitting.stop.requested, clock=clock)
    survey = Surveyor(cfg, stepper, nav, logger.save_screenshot)
    plans = Planner(cfg, nav, stepper, memory)
    tools = tools or default_tools(router=walker if nav.enabled else None,
                                   planner=plans if nav.enabled and plans.enabled else None)
    notifier = notifier or Notifier(cfg.notify, run=logger.folder.name)
    # an input never answered may still run: no input for two command timeouts after it, whoever sends it
    actor = Actor(device, tools, same, guard=Guard(cfg.guard), quiet_s=2 * cfg.device.command_timeout_s, clock=clock,
                  spending=SpendGate(cfg.loop))
    if person.gate is not None:  # a person asked before every input (`lluma run --confirm`)
        actor = PersonGate(actor, person.gate)
    prompter = Prompter(cfg, model, tools.definitions(), nav.prompt(system_prompt), layout, history, memory)
    return Parts(cfg=cfg, device=device, vision=vision, model=model, memory=memory, logger=logger, settle=settle,
                 knowledge=knowledge, clock=clock, sitting=sitting, person=person, careers=careers, app=app,
                 layout=layout, history=history, same_screen=same, stuck=stuck, progress=progress, nav=nav,
                 walker=walker, events=events, standing=StandingChoices(memory.folder, memory.max_file_bytes),
                 survey=survey, plans=plans, notifier=notifier, actor=actor, plausible=Plausible(), prompter=prompter,
                 upkeep=Upkeep(cfg, app, actor, stuck, progress, notifier, sitting))
