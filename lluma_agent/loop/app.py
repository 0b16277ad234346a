"""Wiring shared by `lluma run` and `lluma demo`: build the parts from a Config, print the live line,
handle Ctrl+C and SIGTERM (first: stop after this turn; a second Ctrl+C: stop now, files stay consistent)."""

from __future__ import annotations

import atexit
import json
import signal
import sys
import textwrap
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import anthropic

from lluma_agent import heap, interrupts
from lluma_agent.atomic import atomic_write_text
from lluma_agent.config import Config, ConfigError
from lluma_agent.context import knowledge
from lluma_agent.context.knowledge import Knowledge
from lluma_agent.device.android import Device
from lluma_agent.device.app import GameApp, gist
from lluma_agent.device.settle import settle
from lluma_agent.device.truth import PhoneTruth
from lluma_agent.loop import parts, setup
from lluma_agent.loop.careers import CareerTracker
from lluma_agent.loop.checkpoint import Checkpointer, EnvState
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.gated import InTheLoop
from lluma_agent.loop.heartbeat import Heartbeat
from lluma_agent.loop.layouts import ContextLayout
from lluma_agent.loop.observe import VisionLike
from lluma_agent.loop.resume import ResumePoint, check_settings, restore, set_aside, start_over
from lluma_agent.loop.stop import StopKind, disk_error, exit_status
from lluma_agent.loop.turn import RunTotals
from lluma_agent.memory.store import MemoryStore, write_state
from lluma_agent.model.claude import Model, check_model, retry_policy
from lluma_agent.navmap.actions import readable
from lluma_agent.notify import Notifier, NotifyEvent
from lluma_agent.runlog import figures
from lluma_agent.runlog.careers import CareerNow
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import action_label, clip, errors_label, kept_label, screen_label, waited_label
from lluma_agent.runlog.runs import RunLock, check_fresh
from lluma_agent.runlog.turnlog import RunSummary, TurnLog, TurnLogger, read_turn
from lluma_facts import model_spec
from lluma_facts.clock import Clock
from lluma_vision.pipeline import Vision


def system_prompt(cfg: Config) -> str:
    """The system prompt; a missing, unreadable or empty file stops the run at start (the API would 400)."""
    path = cfg.context.system_prompt_file
    if path is None:
        return resources.files("lluma_agent").joinpath("system_prompt.md").read_text(encoding="utf-8")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"context.system_prompt_file: cannot read {path} ({type(exc).__name__}: {exc})") from None
    if not text.strip():
        raise ConfigError(f"context.system_prompt_file: {path} is empty; the model needs a system prompt")
    return text


# The live line fits a 120-column terminal (issue 53): `turn 1234 | ` (12) + the columns below + three ` | ` (9) + the
# run's dollars and cache hit (`run: $12.3456 · cache hit 100.0%`, 32 at most) = 120.
LINE_W = 120
CLOCK_W = 20  # the career's turn and goal: "12/78 Earn 3000 fans"
SCREEN_W = 28  # the screen: its name (a dialog by its title: "Umamusume isn't responding"), then what was read
ACTION_W = 19  # the action: "pressButton(Speed)"
MORE = " " * 5  # a continuation line, one a thing that happened besides (never starts like a turn's line)


def live_line(log: TurnLog, totals: RunTotals, now: CareerNow | None = None) -> str:
    """One line per turn within LINE_W: the career's turn and goal as its screens last showed them (`now`), the
    screen (its name, a dialog by its title, then what was read), the action, then the run's dollars and cache hit
    so far, labelled the way `lluma logs` and `lluma stats` label them (runlog/figures.py; the turn's own tokens and
    dollars are in `lluma logs`). What happened besides goes on continuation lines of the same width: a loading
    waited out, the first error by its kind, a start of the game, a rung of the ladder, the map, the guard, a
    person, a person's lines kept."""
    clock = clip((now.words() if now else "") or "-", CLOCK_W)
    screen = clip(screen_label(log) or "?", SCREEN_W)  # as `lluma logs` names it
    if log.action:
        action = action_label(log)
    elif log.response and log.response.tool_calls:
        action = ",".join(c.name for c in log.response.tool_calls)
        if log.person.startswith(("vetoed", "stopped")):  # nothing ran: the column says so, not the calls alone
            action = f"refused: {action}"
    else:
        action = "-"
    errs = f" | {waited_label(log)}" if log.waited and log.vision else ""
    errs += f" | {errors_label(log.errors)}" if log.errors else ""
    if log.game_start is not None:
        errs += f" | game started ({log.game_start.reason})" if log.game_start.ok else (
            f" | game start FAILED: {gist(log.game_start.output) or 'no output'}")
    if log.recovery is not None:
        errs += f" | recovery: {log.recovery.rung}"
    errs += navigation_line(log)
    errs += f" | guard: {'; '.join(log.guard)}" if log.guard else ""
    errs += f" | person: {log.person}" if log.person else ""
    edited = sorted({m.name for m in log.memory_changes if m.by == "person"})
    errs += f" | memory edited by a person: {', '.join(edited)}" if edited else ""
    errs += f" | memory: {kept}" if (kept := kept_label(log)) else ""
    line = (f"turn {log.turn:>4} | {clock:<{CLOCK_W}} | {screen:<{SCREEN_W}} | {clip(action, ACTION_W):<{ACTION_W}} | "
            f"run: {figures.usd(totals.cost_usd)} · cache hit {figures.percent(totals.cache_hit_ratio)}")
    more = [wrapped for item in errs.split(" | ")[1:] for wrapped in textwrap.wrap(
        f"| {item}", LINE_W, initial_indent=MORE, subsequent_indent=MORE + "  ", break_on_hyphens=False)]
    return "\n".join([line, *more])


def navigation_line(log: TurnLog) -> str:
    """The screen map's part of the live line: a goTo's steps, or a routine pass (no model call)."""
    if log.navigation:
        last = log.navigation[-1]
        done = "" if last.ok and last.step == last.of else f", stopped: {last.note or 'reached ' + last.reached}"
        return f" | goTo {last.target}: {sum(s.ok for s in log.navigation)}/{last.of} steps{done}"
    if log.routine is not None:
        return f" | routine: {readable(log.routine.action)} on {log.routine.screen}, no model call"
    return ""


def load_knowledge(cfg: Config) -> Knowledge | None:
    """The knowledge files, or None when switched off; a file that does not load is named and skipped."""
    if not cfg.knowledge.enabled:
        return None
    kb = knowledge.load(cfg.knowledge.dir)
    for problem in kb.problems:
        print(f"knowledge: {problem}", file=sys.stderr, flush=True)
    return kb


def status(line: str) -> None:
    """What start-up is doing, on stderr (stdout stays the live lines or one JSON document)."""
    print(line, file=sys.stderr, flush=True)


def record_memory_at_start(path: Path, memory: MemoryStore) -> None:
    """`memory_at_start.json`: each memory file's sha256 as the run found it, what a person changed since the
    last run (diffs), and files that do not parse. The first turn's log carries the same diffs. A resumed run
    writes `memory_at_turn_N.json` for its first turn N (the changes since the checkpoint)."""
    found = {
        "folder": str(memory.folder),
        "files": memory.fingerprint(),
        "changed_by_person_since_last_run": [c.model_dump() for c in memory.found],
        "problems": memory.problems(),
    }
    atomic_write_text(path, json.dumps(found, indent=2, ensure_ascii=False))


def build(cfg: Config, client: anthropic.Anthropic, quiet: bool = False, resume: ResumePoint | None = None,
          live: TextIO | None = None, env_state: EnvState | None = None,
          layout: ContextLayout | None = None, clock: Clock | None = None,
          person: InTheLoop | None = None,
          watch: Callable[[TurnLog, RunTotals], None] | None = None,
          vision: VisionLike | None = None, notifier: Notifier | None = None) -> tuple[Coordinator, Any]:
    """Everything the loop needs, built here once (nothing is attached to the coordinator afterwards). Returns the
    coordinator and a close() for the resources it holds. `clock`: the run's one clock (the demo's is the
    stand-in's too); `person`: a person in the loop (`--confirm`, `--step`); `watch`: called after each turn's
    hooks (a test or a benchmark watching the run); `vision`: a reading other than the OCR's (the simulator's
    truth, for plumbing tests; never a fallback); `notifier`: where the run's events go (default notify.command's;
    a fleet's device hands them to the fleet, which names the device).

    A log folder that already holds a run is refused (LogDirInUse) unless it is the one `resume` goes on
    with (resume.open_point): then the turns after its checkpoint are set aside and the coordinator starts
    from the checkpoint. After every turn the checkpoint is saved, with `env_state()` (the demo's game). The
    live line goes to `live` (default stdout; `lluma demo --json` sends it to stderr); `quiet` prints nothing.
    `layout`: the context layout (default the cached one; a benchmark passes its baseline). `vision`: the screen
    reader (default the one cfg.vision names; the demo's plumbing tests pass the simulator's truth reader)."""
    heap.return_freed_frames()  # resident memory stays flat over a night (heap.py)
    for key, folder in (("memory.dir", cfg.memory.dir), ("logs.dir", cfg.logs.dir)):
        if folder.exists() and not folder.is_dir():  # found now, not as a traceback after the device connected
            raise ConfigError(f"{key}: {folder} is a file, not a folder")
    check_fresh(cfg.logs.dir, resume is not None)  # before anything is written: two runs never share a folder
    if resume is not None:
        if Path(cfg.logs.dir).resolve() != resume.folder.resolve():
            raise ValueError(f"logs.dir {cfg.logs.dir} is not the folder being resumed ({resume.folder})")
        check_settings(resume, cfg)
    prompt = system_prompt(cfg)  # before anything connects: a bad prompt file is a start-up error
    # only the VLM backends call the API; `auto` is ocr (pipeline.resolve_backend), so its vlm_model is not checked
    vision_client = client if cfg.vision.backend in ("claude", "hybrid") else None
    check_model(cfg.model, cfg.vision.vlm_model if vision_client is not None else None)
    device = Device(cfg.device)
    # A dropped device is waited for (device.outage_wait_s); say so, or the run looks hung.
    device.on_wait = lambda line: print(line, file=sys.stderr, flush=True)
    if not quiet:
        status(f"connecting to the device ({cfg.device.serial or 'the only one attached'}) at "
               f"{device.cfg.adb_host}:{device.cfg.adb_port}")
    device.connect()
    if resume is not None:  # the run's own phone, or one a person allowed (--device-changed)
        setup.check_device(resume, device.serial)
    where = setup.of(cfg, device.serial, device.cfg.adb_host, device.cfg.adb_port)
    if vision is None and cfg.vision.backend == "truth":  # a simulated phone's own reading (lluma_agent/device/truth)
        truth = PhoneTruth(device)
        truth.check()
        vision = truth
    if vision is None:
        reader = Vision(cfg.vision, client=vision_client, retry=retry_policy(cfg.model))
        if not quiet:
            status(f"loading OCR (vision backend {reader.backend})")
        from lluma_vision.pixels.ocr import get_engine

        get_engine()  # the OCR model loads here (seconds), not silently inside turn 1
        vision = reader
    lock = RunLock(cfg.logs.dir)  # two processes never write one folder at once (a run resumed twice)
    logger = TurnLogger(cfg.logs.dir, cfg.logs.keep_screenshots)
    if resume is not None:
        for warning in set_aside(resume, logger):
            status(f"resume: {warning}")
        # Memory is read as it is now; whatever changed since the model last saw it is told in the first turn.
        write_state(cfg.memory.dir, resume.checkpoint.memory)
    else:  # a folder whose run completed no turn (killed in turn 1, a full disk) is started over
        for warning in start_over(cfg.logs.dir, logger):
            status(warning)
    memory = MemoryStore(cfg.memory.dir, cfg.memory.budget_tokens, model_spec(cfg.model.name).tokenizer_factor)
    for warning in memory.warnings():  # files the model is shown cut or not at all: said now, and when it changes
        status(f"memory: {warning}")
    memory.on_warning = lambda line: status(f"memory: {line}")
    run = RunFolder.at(cfg.logs.dir)
    record_memory_at_start(run.memory_at_turn(resume.turn + 1) if resume else run.memory_at_start, memory)
    clock = clock or Clock()  # the run's one clock: the coordinator's, its parts' and the model's retries
    model = Model(cfg.model, client, sleep=clock.sleep, clock=clock)
    out = live or sys.stdout
    hooks: list[Callable[[TurnLog, RunTotals], None]] = []

    def on_turn(log: TurnLog, totals: RunTotals) -> None:
        for hook in hooks:
            hook(log, totals)

    notifier = notifier or Notifier(cfg.notify, run=logger.folder.name)  # does nothing when notify.command is None
    careers = CareerTracker(run, notify=notifier.send,
                            say=None if quiet else lambda line: print(line, file=out, flush=True))
    if resume is not None:
        careers.replay(_readable_turns(run))  # the turns before the checkpoint: counting goes on where it was
    coordinator = Coordinator(parts.make(
        cfg, device=device, vision=vision, model=model, memory=memory, logger=logger, system_prompt=prompt,
        settle=settle, knowledge=load_knowledge(cfg), app=GameApp(device, cfg.game), layout=layout, clock=clock,
        notifier=notifier, careers=careers, person=person, requests=cfg.logs.dir), on_turn=on_turn)
    if resume is not None:
        restore(resume, coordinator)
        coordinator.progress.restore(resume.checkpoint.progress, _readable_turns(run))
    hooks.append(Checkpointer(coordinator, logger, env_state, where))  # first: the live line may hit a closed pipe
    hooks.append(careers)  # after the checkpoint: a career's record is written once its last turn is saved
    if not quiet:
        hooks.append(lambda log, totals: print(live_line(log, totals, careers.book.now), file=out, flush=True))
    hooks.append(careers.tell)  # a career's end is said after the line of the turn that ended it
    hooks.append(Heartbeat(cfg.notify.heartbeat_min, careers.book, notifier.send, clock.now,
                           say=None if quiet else lambda line: print(line, file=out, flush=True)))
    if watch is not None:
        hooks.append(watch)

    def close() -> None:
        t = coordinator.totals
        if not t.stop_kind:  # the loop did not end by itself: a crash on the way out
            t.stop_kind, t.stop_reason = StopKind.CRASHED, t.stop_reason or "ended without a stop reason (crashed)"
        try:
            if coordinator.turn:  # a run happened: say why it stopped, where `lluma stats` finds it
                careers.close()  # the career going on, marked not complete
                logger.write_summary(RunSummary(stop_reason=t.stop_reason, stop_kind=t.stop_kind, turns=t.turns,
                                                cost_usd=t.cost_usd, usage=t.usage, ended_at=time.time()))
            memory.save_state()
        except (OSError, ValueError) as exc:  # a full disk: the turn logs and the checkpoint are what counts
            if not disk_error(exc):
                raise
            status(f"run.json / memory state not written in {cfg.logs.dir}: {type(exc).__name__}: {exc}")
        finally:
            logger.close()
            lock.release()
            tell_the_end(coordinator)

    return coordinator, close


def tell_the_end(coordinator: Coordinator) -> None:
    """`run_paused` (a stuck pause) or `run_stopped` to notify.command, waited for up to notify.timeout_s so the
    process does not end before the command has it; what is still running then is killed, and said."""
    t, notifier = coordinator.totals, coordinator.notifier
    if not notifier.enabled:
        return
    paused = t.stop_kind in (StopKind.STUCK, StopKind.NO_PROGRESS)  # a person must look
    event = NotifyEvent.RUN_PAUSED if paused else NotifyEvent.RUN_STOPPED
    notifier.send(event, {"stop_kind": str(t.stop_kind or ""), "stop_reason": t.stop_reason,
                          "exit_status": exit_status(t.stop_kind), "turns": t.turns, "cost_usd": round(t.cost_usd, 4),
                          "game_starts": t.game_starts, "recoveries": t.recoveries})
    if left := notifier.close():  # one notify.timeout_s in all, however many events wait (Ctrl+C too)
        status(f"notify: {', '.join(left)} unfinished {notifier.cfg.timeout_s:g} s after the run ended "
               "(notify.timeout_s): the command was killed with what it started")


def _readable_turns(run: RunFolder) -> list[TurnLog]:
    """The turn logs in the folder that still read (a resume set the later ones aside already)."""
    turns = []
    for p in run.turn_logs():
        try:
            turns.append(read_turn(p))
        except (OSError, ValueError):
            continue  # a torn or foreign file: resume.set_aside has said so
    return turns


def _ignore_late_signals() -> None:
    for s in CtrlC.SIGNALS:  # ignored handlers are the ones the interpreter's finalisation leaves in place
        signal.signal(s, signal.SIG_IGN)


class CtrlC:
    """Ctrl+C (SIGINT) and SIGTERM for a whole command: the first stops the run after the current turn; a
    second Ctrl+C while a turn is running stops now (every file is written atomically, so nothing is left
    half written); once the run is over, further signals only say that it is already stopping, so the
    summary and the clean shutdown of servers and files still happen. After a signal the handlers stay
    until the process ends (a press during the last lines must not kill it by the signal)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.presses = 0
        self.coordinator: Coordinator | None = None
        self.running = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> CtrlC:
        self.previous = {s: signal.signal(s, self._handle) for s in self.SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        self.running = False
        if not self.presses:  # nobody asked to stop: put things back as they were
            for s, handler in self.previous.items():
                signal.signal(s, handler)
        else:  # the interpreter puts the default handlers back as it ends: a late press would kill it by the signal
            atexit.register(_ignore_late_signals)

    def _handle(self, signum: int, frame: Any) -> None:
        self.presses += 1
        name = "Ctrl+C" if signum == signal.SIGINT else signal.Signals(signum).name
        if self.presses == 1:
            print(f"\n{name}: stopping after this turn (Ctrl+C again to stop now)", file=sys.stderr, flush=True)
            if self.coordinator is not None:
                self.coordinator.request_stop()
            if interrupts.waiting_for_person():  # a --confirm/--step prompt: stop waiting (its answer is `q`)
                raise KeyboardInterrupt
        elif self.running:
            if not interrupts.defer():  # never between a turn's JSON and its SQLite row
                self.running = False  # one KeyboardInterrupt: later presses only say it is stopping
                raise KeyboardInterrupt
        else:
            print("already stopping; writing the summary", file=sys.stderr, flush=True)

    def run(self, coordinator: Coordinator) -> RunTotals:
        self.coordinator = coordinator
        if self.presses:
            coordinator.request_stop()
        self.running = True
        try:
            return coordinator.run()
        except KeyboardInterrupt:
            t = coordinator.totals
            t.stop_reason, t.stop_kind = "stopped now by user (second Ctrl+C)", StopKind.PERSON_NOW
            return t
        finally:
            self.running = False
