"""`lluma demo`: the real agent loop against the simulated phone and the Messages API stand-in.

No phone, no API key, no network: the adb server and the API stand-in run on 127.0.0.1 in this
process; vision is the offline OCR backend; costs are what the stand-in bills at real prices.
Like `lluma run` it reads ./config.yaml (or --config) and LLUMA_* settings; the simulator's wiring wins over them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel, ConfigDict

from lluma_agent.config import Config, ConfigError, find_config, load_config
from lluma_agent.loop.app import CtrlC, build, status
from lluma_agent.loop.coordinator import Coordinator
from lluma_agent.loop.gated import InTheLoop
from lluma_agent.loop.layouts import ContextLayout
from lluma_agent.loop.resume import (
    NoCompletedTurn,
    ResumeError,
    ResumePoint,
    check_settings,
    how_to_go_on,
    open_point,
)
from lluma_agent.loop.stop import StopKind, exit_status
from lluma_agent.loop.turn import RunTotals
from lluma_agent.model.claude import make_client
from lluma_agent.runlog import figures
from lluma_agent.runlog.careers import CareerSummary, career_line, careers_of
from lluma_agent.runlog.logread import load_run
from lluma_agent.runlog.runs import LogDirInUse, check_fresh, new_run_dir
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.confirm import Person, in_the_loop
from lluma_cli.errors import OneLineParser, at_least_one, career_length, hours, rate, start_failed
from lluma_cli.invoked import command
from lluma_cli.sim_check import spends_without_the_model, taps_off_target
from lluma_facts import Usage
from lluma_facts.clock import Clock
from lluma_sim.adb.server import AdbServer
from lluma_sim.api.faults import FaultSchedule
from lluma_sim.api.policy import ScriptedPolicy
from lluma_sim.api.server import ApiServer
from lluma_sim.fault_plan import FaultInjector, FaultPlan, FaultsInjected
from lluma_sim.game import SimGame
from lluma_sim.game.state import CareerRecord as GameCareer
from lluma_sim.game.state import GameState, Style
from lluma_sim.gauge_audit import GaugeAgreement, GaugeAudit
from lluma_sim.hazards import HazardsInjected
from lluma_sim.phone_clock import PhoneClock
from lluma_sim.sight_of_truth import seer
from lluma_sim.taps import OffTarget
from lluma_sim.truth_vision import TruthVision

DEMO_SERIAL = "emulator-5554"
DEMO_KEY = "sk-ant-demo-not-a-real-key"  # the stand-in accepts any key; never logged
DEMO_STYLE: Style = "hard"  # what real screens have: plate-less tiles, icon rows, toggles, small frames
DEMO_CAREER_TURNS = 24  # the simulated career's length in a demo of some turns: a short career, compressed
REAL_CAREER_TURNS = 78  # with --careers: the real career's length (FACTS: 72 dated turns and 6 of the finale)
DEMO_TURNS = 30  # `--turns` when no --careers or --hours is given
UNBOUNDED_PLAN_TURNS = 100_000  # the fault schedule's length for a run with no turn limit (--hours alone)
SITTING_ONLY = ("faults_injected", "taps_off_target", "off_target", "spends_without_model", "gauge_decisions_agree")
TURNS_PER_CAREER = 600  # with --careers and no --turns: a bound on the run, should careers stop ending


class PlanCounts(BaseModel):
    """runPlan procedures the agent carried out (lluma_agent/loop/plans.py)."""

    run: int = 0
    steps: int = 0  # their presses
    surprises: int = 0  # plans stopped before their end


class DemoSummary(BaseModel):
    turns: int
    uncached_input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    input_tokens_per_turn: float
    cost_usd: float
    cost_per_turn_usd: float
    cache_hit_ratio: float  # cache reads over all input tokens
    model: str
    score: int
    game_turn: int
    stop_reason: str
    stop_kind: StopKind | None = None  # what the exit status is decided from (lluma_agent.loop.stop)
    memory_files: list[str]
    logs_dir: str
    faults_injected: FaultsInjected  # by `--faults`: what actually fired, by kind
    hazards_injected: HazardsInjected = HazardsInjected(total=0, by_kind={})  # by `--hazards`: the game's, by kind
    game_careers: list[GameCareer] = []  # the game's own record of each career that ended (ground truth)
    careers_completed: int = 0  # careers the game completed (its own count, ground truth)
    career_scores: list[int] = []  # each completed career's score, then the one going on (if any)
    score_total: int = 0  # the sum of career_scores
    game_starts: int = 0  # times the agent started the game (not in the foreground, or the ladder's restart)
    recoveries: dict[str, int] = {}  # turns on each rung of the recovery ladder (warn, force, back, ...)
    taps_off_target: int  # taps the phone received off the element meant, or that no turn log records
    off_target: list[OffTarget] = []  # each of them: the tap received (screen, element under it) and why
    # taps the game says spent something (a TP item...) that no model decision made: a routine pass's, a goTo
    # step's, a rung's (issue 40: always 0)
    spends_without_model: int = 0
    resumed_from_turn: int | None = None  # `--resume`: the run's last complete turn this sitting went on from
    # `--resume`: the keys above that count this sitting only (the simulator's injector and audit start afresh)
    sitting_only: list[str] = []
    # the stand-in's rest-or-train calls on the hub, made on the Energy gauge it read, that the game's true energy
    # makes the same way (this sitting's; none with a custom policy)
    gauge_decisions_agree: GaugeAgreement = GaugeAgreement()
    careers_recorded: int = 0  # careers the agent saw end and recorded (careers/career_NNN.json)
    goto_calls: int = 0  # turns the agent walked a goTo path (the screen map; no model call per step)
    routine_passes: int = 0  # routine screens passed without a model call (loop.autopilot)
    surveys: int = 0  # turns whose options were raised and read before the model chose (survey.enabled)
    option_decisions: int = 0  # the model's presses of a training (an option that raises before it commits)
    full_view_decisions: int = 0  # ...of them, made with every option raised and read that turn
    plans: PlanCounts = PlanCounts()  # runPlan procedures carried out: run, steps (presses), surprises
    careers: list[CareerSummary] = []  # the agent's record of each career (the one going on last, not complete)
    # each completed career's record (goals met, how it ended, game turns, fans, skills) the same in the agent's
    # `careers` as in the game's `game_careers` (None: none completed)
    records_agree: bool | None = None

    def usage(self) -> Usage:
        """The run's tokens as one Usage: the text's cache hit comes from it, unrounded (cache_hit_ratio is
        rounded to 4 places for the JSON)."""
        return Usage(input_tokens=self.uncached_input_tokens, cache_creation_input_tokens=self.cache_write_tokens,
                     cache_read_input_tokens=self.cache_read_tokens, output_tokens=self.output_tokens)


class DemoState(BaseModel):
    """The simulator's side of a demo's checkpoint: the game (RNG included) and the stand-in's signing key (the
    account: thinking blocks in the resumed history were signed with it)."""

    game: GameState
    api_secret: str  # hex

    @classmethod
    def of(cls, point: ResumePoint) -> DemoState:
        if not point.checkpoint.env:
            raise ResumeError(f"{point.folder} holds a run on a phone, not a demo: resume it with "
                              f"`{command('run', '--resume', str(point.folder))}`")
        return cls.model_validate(point.checkpoint.env)


class SimEnv(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    game: SimGame
    adb: AdbServer
    api: ApiServer
    cfg: Config
    injector: FaultInjector | None = None
    audit: GaugeAudit
    clock: Clock  # the run's one clock: the stand-in's and the agent's
    truth_vision: bool = False  # the agent reads the game's truth, not the frame (sim_environment)
    taps_before: int = 0  # taps the game held when this sitting began (a resumed game's state keeps the last's)


@contextmanager
def sim_environment(
    turns: int,
    logs_dir: Path,
    seed: int = 7,
    config: Path | None = None,
    overrides: dict[str, str] | None = None,
    policy: Any = None,
    faults: FaultSchedule | None = None,
    environ: Mapping[str, str] | None = None,
    fault_rate: float = 0.0,
    style: Style = DEMO_STYLE,
    state: DemoState | None = None,
    clock: Clock | None = None,
    hazard_rate: float = 0.0,
    career_turns: int = DEMO_CAREER_TURNS,
    truth_vision: bool = False,
) -> Iterator[SimEnv]:
    """The simulated phone and the API stand-in on loopback, and a Config pointing at both.

    `faults` goes to the API stand-in (429/529/500, slow replies, malformed tool input, max_tokens stops);
    `fault_rate` > 0 instead injects a seeded schedule over the whole device + API matrix (FaultPlan).
    `environ`: the outside LLUMA_* settings (`lluma demo` passes os.environ); the demo's wiring wins over them.
    The default policy reads VLM requests from what a perfect reader sees on the current frame (the game's truth
    adapted: lluma_sim.sight_of_truth); its rest-or-train calls go to `SimEnv.audit`, which compares them with the
    game's true energy.
    `style="hard"` plays the hard screens at the seed's frame size and letterboxing (SimGame.hard).
    `state` (a resumed demo) restores the game and the stand-in's signing key; `clock` is the run's one clock, the
    stand-in's and the agent's (agent_on).
    `hazard_rate`: the game's hazards per input (lluma_sim.hazards); `career_turns`: a career's length.
    `truth_vision`: the agent reads the screen from the game's truth, not with the OCR (lluma_sim.truth_vision: the
    plumbing tests' fast reading; never a fallback)."""
    if state is not None:
        game = SimGame.from_snapshot(state.game)
    elif style == "hard":
        game = SimGame.hard(seed=seed, max_turns=career_turns, hazards=hazard_rate)
    else:
        game = SimGame(seed=seed, max_turns=career_turns, hazards=hazard_rate)
    audit = GaugeAudit(game.truth)
    policy = policy or ScriptedPolicy(screen=seer(game.truth), on_rest_or_train=audit.on_call)
    secret = bytes.fromhex(state.api_secret) if state else None
    clock = clock or PhoneClock(game.idle)  # the agent's waits move the phone's clock, not the machine's
    with AdbServer() as adb, ApiServer(policy=policy, faults=faults, clock=clock, secret=secret) as api:
        adb.add_device(DEMO_SERIAL, game)
        env = {
            **(environ or {}),
            "LLUMA_DEVICE__SERIAL": DEMO_SERIAL,
            "LLUMA_DEVICE__ADB_PORT": str(adb.port),
            "LLUMA_DEVICE__SETTLE_INTERVAL_S": "0.05",
            "LLUMA_DEVICE__SETTLE_TIMEOUT_S": "2",
            "LLUMA_MODEL__BASE_URL": api.base_url,
            "LLUMA_MODEL__TIMEOUT_S": "30",
            "LLUMA_VISION__BACKEND": "ocr",
            "LLUMA_MEMORY__DIR": str(logs_dir / "memory"),
            "LLUMA_LOGS__DIR": str(logs_dir),
            "LLUMA_RUN__MAX_TURNS": str(turns),
            **(overrides or {}),
        }
        cfg = load_config(config, env=env)
        injector = None
        if fault_rate > 0:
            vlm = cfg.vision.backend != "ocr"
            timeouts = {"command_timeout_s": cfg.device.command_timeout_s, "api_timeout_s": cfg.model.timeout_s}
            plan = FaultPlan.make(fault_rate, seed, turns or UNBOUNDED_PLAN_TURNS, vlm=vlm, **timeouts)
            api.faults = injector = FaultInjector(plan, adb, DEMO_SERIAL, clock=clock)
        try:
            yield SimEnv(game=game, adb=adb, api=api, cfg=cfg, injector=injector, audit=audit, clock=clock,
                         taps_before=len(game.taps),
                         truth_vision=truth_vision)
        finally:
            if injector is not None:
                injector.close()  # the phone and the adb server end attached and running


@contextmanager
def agent_on(sim: SimEnv, quiet: bool = True, live: TextIO | None = None,
             resume: ResumePoint | None = None, layout: ContextLayout | None = None,
             person: InTheLoop | None = None,
             watch: Callable[[TurnLog, RunTotals], None] | None = None) -> Iterator[Coordinator]:
    """The agent wired to a running simulator, on its clock; its checkpoints carry the game and the stand-in's key.
    `layout`: the context layout (default the cached one; bench/tokens.py passes its baseline); `person`: a person
    in the loop (`--confirm`, `--step`); `watch`: called after each turn (build's)."""
    client = make_client(sim.cfg.model, api_key=DEMO_KEY)

    def state() -> dict[str, Any]:
        return DemoState(game=sim.game.snapshot(), api_secret=sim.api.secret.hex()).model_dump(mode="json")

    vision = TruthVision(sim.game.truth) if sim.truth_vision else None
    coordinator, close = build(sim.cfg, client, quiet=quiet, resume=resume, live=live, env_state=state,
                               layout=layout, clock=sim.clock, person=person, watch=watch, vision=vision)
    try:
        yield coordinator
    finally:
        close()


@contextmanager
def sim_agent(
    turns: int, logs_dir: Path, seed: int = 7, quiet: bool = True, live: TextIO | None = None,
    resume: ResumePoint | None = None, layout: ContextLayout | None = None, person: InTheLoop | None = None,
    watch: Callable[[TurnLog, RunTotals], None] | None = None, **env: Any
) -> Iterator[tuple[SimEnv, Coordinator]]:
    """The agent wired to the simulated phone and the API stand-in (`env`: sim_environment's options).
    `resume`: go on with that demo run (its game and history) in its folder; `person`, `watch` as in agent_on."""
    if not quiet:
        status("starting the simulated phone (adb server) and the Messages API stand-in on 127.0.0.1")
    state = DemoState.of(resume) if resume is not None else None
    with sim_environment(turns, logs_dir, seed, state=state, **env) as sim:
        with agent_on(sim, quiet, live, resume, layout, person, watch) as coordinator:
            yield sim, coordinator


def run_demo(
    turns: int,
    logs_dir: Path,
    seed: int = 7,
    config: Path | None = None,
    quiet: bool = False,
    overrides: dict[str, str] | None = None,
    runner: Callable[[Coordinator], RunTotals] = Coordinator.run,
    live: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
    fault_rate: float = 0.0,
    style: Style = DEMO_STYLE,
    resume: ResumePoint | None = None,
    careers: int = 0,
    hours: float = 0.0,
    hazard_rate: float = 0.0,
    career_turns: int = DEMO_CAREER_TURNS,
    layout: ContextLayout | None = None,
    person: InTheLoop | None = None,
    watch: Callable[[TurnLog, RunTotals], None] | None = None,
    truth_vision: bool = False,
    policy: Any = None,
) -> DemoSummary:
    """Play `turns` turns; `overrides` are extra LLUMA_* settings (the token benchmark uses them).
    `runner` runs the loop (the CLI passes CtrlC().run for Ctrl+C handling); `environ` as in sim_environment;
    `fault_rate` injects the seeded fault schedule (faults per turn, 0..1); `style` as in sim_environment.
    `resume` (resume.open_point of `logs_dir`): `turns` more turns of that run; the totals are the whole run's.
    `layout`: the context layout (default the cached one; bench/tokens.py passes its baseline); `person`: a person
    in the loop (`--confirm`, `--step`); `watch`: called after each turn; `truth_vision`, `policy` (the stand-in's
    player) as in sim_environment."""
    limits = {"LLUMA_RUN__MAX_CAREERS": str(careers), "LLUMA_RUN__MAX_HOURS": str(hours)} if careers or hours else {}
    overrides = {**limits, **(overrides or {})}
    env = {"config": config, "overrides": overrides, "environ": environ, "fault_rate": fault_rate, "style": style,
           "hazard_rate": hazard_rate, "career_turns": career_turns, "truth_vision": truth_vision,
           "policy": policy}
    with sim_agent(turns, logs_dir, seed, quiet=quiet, live=live, resume=resume, layout=layout, person=person,
                   watch=watch, **env) as (sim, coordinator):
        cfg, game = sim.cfg, sim.game
        totals = runner(coordinator)
        injected = sim.injector.injected() if sim.injector else FaultsInjected(total=0, by_kind={})
        hazards = game.hazards_injected()
        scores = [c.score for c in game.careers] + ([game.score] if game.career_open else [])
        agreement = sim.audit.summary()
        records = careers_of(load_run(logs_dir).turns) if totals.turns else []
    u = totals.usage
    n = max(1, totals.turns)
    memory = sorted(p.name for p in (logs_dir / "memory").iterdir() if p.is_file() and not p.name.startswith("."))
    return DemoSummary(
        turns=totals.turns,
        uncached_input_tokens=u.input_tokens,
        cache_read_tokens=u.cache_read_input_tokens,
        cache_write_tokens=u.cache_creation_input_tokens,
        output_tokens=u.output_tokens,
        input_tokens_per_turn=round(u.total_input_tokens / n, 1),
        cost_usd=round(totals.cost_usd, 6),
        cost_per_turn_usd=round(totals.cost_usd / n, 6),
        cache_hit_ratio=round(totals.cache_hit_ratio, 4),
        model=cfg.model.name,
        score=game.score,
        game_turn=game.turn,
        stop_reason=totals.stop_reason,
        stop_kind=totals.stop_kind,
        memory_files=memory,
        logs_dir=str(logs_dir),
        faults_injected=injected,
        hazards_injected=hazards,
        game_careers=list(game.careers),
        careers_completed=len(game.careers),
        career_scores=scores,
        score_total=sum(scores),
        game_starts=totals.game_starts,
        recoveries=dict(totals.recoveries),
        taps_off_target=len(off := taps_off_target(game, logs_dir, resume.turn if resume else 0, sim.taps_before)),
        off_target=off,
        spends_without_model=len(spends_without_the_model(game, logs_dir, resume.turn if resume else 0,
                                                          sim.taps_before)),
        resumed_from_turn=resume.turn if resume else None,
        sitting_only=list(SITTING_ONLY) if resume else [],
        gauge_decisions_agree=agreement,
        careers_recorded=sum(r.complete for r in records),
        goto_calls=totals.goto_calls,
        routine_passes=totals.routine_passes,
        surveys=totals.surveys,
        option_decisions=totals.option_decisions,
        full_view_decisions=totals.full_view_decisions,
        plans=PlanCounts(run=totals.plans_run, steps=totals.plan_steps, surprises=totals.plan_surprises),
        careers=records,
        records_agree=records_agree(list(game.careers), records),
    )


def records_agree(game: list[GameCareer], agent: list[CareerSummary]) -> bool | None:
    """Whether the agent's record of each completed career says what the game's does: its goals and whether each
    was met, how it ended, its last game turn, fans and skills learned (None: no career completed)."""
    done = [r for r in agent if r.complete]
    if not done:
        return None
    return len(done) <= len(game) and all(
        [(g.text, g.met) for g in mine.goals] == [(g.text, g.met) for g in truth.goals]
        and mine.ended == truth.ended and mine.game_turns == truth.turns and mine.fans == truth.fans
        and mine.skills_learned == truth.skills_learned
        for mine, truth in zip(done, game, strict=False))


FAULTS_PER_TURN = rate("faults per turn")
HAZARDS_PER_INPUT = rate("hazards per input")


def counted(by_kind: dict[str, int]) -> str:
    """`{"app_crash": 4, "anr": 2}` as a person reads it: "4 app crash, 2 anr" (the most first); "none" when empty."""
    kinds = sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in kinds) or "none"


def in_words(s: DemoSummary) -> str:
    """The demo's summary for a person: each figure with what it means (`--json` has the same figures)."""
    n = max(1, s.turns)
    g = s.gauge_decisions_agree
    resumed = (f", resumed after turn {s.resumed_from_turn} (faults, taps off target and the gauge agreement below "
               "count this sitting only)" if s.resumed_from_turn is not None else "")
    lines = [
        f"\n{s.turns} turn{'' if s.turns == 1 else 's'} on the simulator ({s.stop_reason}){resumed}; model {s.model} "
        "(stand-in, real prices)",
        f"  tokens per turn: {s.input_tokens_per_turn:,.0f} input (uncached {s.uncached_input_tokens / n:,.0f}, "
        f"cache write {s.cache_write_tokens / n:,.0f}, cache read {s.cache_read_tokens / n:,.0f}), "
        f"{s.output_tokens / n:,.0f} out",
        f"  cache hit: {figures.percent(s.usage().cache_hit_ratio)} of input tokens read from cache",
        f"  cost: {figures.usd(s.cost_usd)} total, {figures.usd(s.cost_per_turn_usd)} per turn",
        f"  game: score {s.score} at career turn {s.game_turn}"
        + (f"; careers completed {s.careers_completed}, scores {' + '.join(map(str, s.career_scores))} = "
           f"{s.score_total}" if s.careers_completed else ""),
        "    (score: the simulated career's own measure, the stats gained since it began + 120 a race won + 40 a",
        "    top-3 place + half the skill points spent on skills; a career that does nothing scores about 0)",
    ]
    if s.game_starts or s.recoveries:
        rungs = ", ".join(f"{k} {n}" for k, n in s.recoveries.items()) or "none"
        lines.append(f"  game starts: {s.game_starts}; recovery rungs climbed: {rungs}")
    lines.append(f"  faults injected: {counted(s.faults_injected.by_kind)}; hazards injected: "
                 f"{counted(s.hazards_injected.by_kind)}")
    lines.append(f"  taps off target: {s.taps_off_target} (taps the phone received outside the element the agent "
                 "meant, or that no turn log records)")
    lines.append(f"  spends without the model: {s.spends_without_model} (taps that spent an item, by the game's own "
                 "count, that no model decision made)")
    if s.goto_calls or s.routine_passes:
        lines.append(f"  screen map: {s.goto_calls} goTo walk(s), {s.routine_passes} routine screen(s) passed without "
                     "a model call")
    if s.plans.run:
        lines.append(f"  plans: {s.plans.run} run, {s.plans.steps} step(s), {s.plans.surprises} stopped on a surprise")
    if s.surveys or s.option_decisions:
        lines.append(f"  surveys: {s.surveys}; {s.full_view_decisions} of {s.option_decisions} training choice(s) made "
                     "with every tile raised and read")
    if g.of:
        gap = f"; the bar was read at most {g.largest_error:.0%} off" if g.largest_error is not None else ""
        unread = f"; {g.unread} made with no bar read" if g.unread else ""
        lines += [f"  energy read from the gauge: {g.agree} of {g.of} rest-or-train choices as the game's true energy "
                  "would have made them",
                  "    (the stand-in player reads energy from the Energy bar alone, which shows no digits, and rests "
                  f"below 40%{gap}{unread})"]
    lines += [f"  {career_line(r)}" for r in s.careers]
    lines.append(f"  memory files: {', '.join(s.memory_files) or '(none)'}")
    lines.append(f"  logs: {s.logs_dir}/turn_*.json, {s.logs_dir}/turns.sqlite")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = OneLineParser(prog="lluma demo", description=__doc__)
    ap.add_argument("--turns", type=at_least_one, default=None,
                    help=f"agent turns to play, at least 1 (default {DEMO_TURNS}; with --careers, "
                         f"{TURNS_PER_CAREER} per career; with --resume: more turns)")
    ap.add_argument("--careers", type=at_least_one, default=None, metavar="N",
                    help="stop once N careers have ended (run.max_careers; with --resume: N more)")
    ap.add_argument("--hours", type=hours, default=None, metavar="H",
                    help="stop after H hours (run.max_hours; with --hours alone, no turn limit)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the game and of the fault schedule (default 7)")
    ap.add_argument(
        "--faults", type=FAULTS_PER_TURN, default=0.0, metavar="RATE",
        help="inject faults at RATE per turn (0..1; default 0)"
    )
    ap.add_argument("--hazards", type=HAZARDS_PER_INPUT, default=0.0, metavar="RATE",
                    help="the game's hazards (a crash, Android's not-responding dialog, a connection error, the daily "
                         "reset, maintenance, a data update, a tutorial, a long loading) at RATE per input (0..1; "
                         "default 0)")
    ap.add_argument("--career-turns", type=career_length, default=None, metavar="N",
                    help=f"a career's length in game turns (default {REAL_CAREER_TURNS}, the real game's, with "
                         f"--careers, else {DEMO_CAREER_TURNS}; a shorter one keeps the calendar and goals, "
                         "compressed)")
    ap.add_argument(
        "--style",
        choices=["plain", "hard"],
        default=None,
        help=f"screens to play: plain, or hard (plate-less tiles, icon rows, toggles, small and letterboxed "
        f"frames; default {DEMO_STYLE})",
    )
    ap.add_argument("--logs", type=Path, default=None,
                    help="log folder, which must not hold a run already (default: a new logs/demo-<time>)")
    ap.add_argument("--resume", type=Path, default=None, metavar="DIR",
                    help="go on with the demo run in DIR from its last complete turn: --turns more turns, the same "
                         "game (its seed and style), logs in DIR")
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("-m", "--model", help="the Claude model the stand-in answers as (overrides model.name)")
    ap.add_argument("--truth-vision", action="store_true",
                    help="read the screen from the simulated game's own truth instead of the OCR (fast; for tests of "
                         "everything but the reading)")
    ap.add_argument("--json", action="store_true",
                    help="print only the summary, as one JSON object (progress goes to stderr)")
    ap.add_argument("--confirm", action="store_true", help="as `lluma run --confirm`: a person approves each action")
    ap.add_argument("--step", action="store_true", help="as `lluma run --step`: one turn per Enter")
    args = ap.parse_args(argv)
    point = None
    try:
        config = find_config(args.config)
        environ = {**os.environ, **({"LLUMA_MODEL__NAME": args.model} if args.model else {})}
        cfg = load_config(config, env=environ)  # a bad file or LLUMA_* value stops here, with the key named
        if args.resume is not None:
            given = [f"--{k.replace('_', '-')}" for k in ("logs", "seed", "style", "career_turns")
                     if getattr(args, k) is not None]
            if given:
                raise ResumeError(f"{', '.join(given)} cannot go with --resume: the run being resumed has its own")
            try:
                point = open_point(args.resume)  # read only: torn turns are set aside once the agent starts
            except NoCompletedTurn as exc:
                raise ResumeError(f"{exc} with `{command('demo', '--logs', str(args.resume))}`") from None
            check_settings(point, cfg)
            seed = DemoState.of(point).game.seed
            print(f"lluma demo: resuming {args.resume} after turn {point.turn}, its last complete turn",
                  file=sys.stderr)
        else:
            seed = 7 if args.seed is None else args.seed
            if args.logs is not None:
                check_fresh(args.logs)  # refused before anything starts: the first run's files stay as they are
        logs = args.resume or args.logs or new_run_dir(Path("logs"), "demo")
    except (ConfigError, LogDirInUse, ResumeError, OSError) as exc:
        return start_failed("demo", args.resume or args.logs, exc)
    with CtrlC() as ctrl_c:

        try:
            turns = args.turns or (TURNS_PER_CAREER * args.careers if args.careers else 0 if args.hours else DEMO_TURNS)
            s = run_demo(
                turns,
                logs,
                seed=seed,
                config=config,
                runner=ctrl_c.run,
                live=sys.stderr if args.json else None,
                environ=environ,
                fault_rate=args.faults,
                style=args.style or DEMO_STYLE,
                resume=point,
                careers=args.careers or 0,
                hours=args.hours or 0.0,
                hazard_rate=args.hazards,
                career_turns=args.career_turns or (REAL_CAREER_TURNS if args.careers else DEMO_CAREER_TURNS),
                person=in_the_loop(Person(logs, out=sys.stderr if args.json else None), args.confirm, args.step)
                if args.confirm or args.step else None,
                truth_vision=args.truth_vision,
            )
        except Exception as exc:  # as `lluma run`: build() refused (the model, the device, a full disk)
            return start_failed("demo", logs, exc)
    code = exit_status(s.stop_kind)
    if code:
        print(f"lluma demo: {s.stop_reason}", file=sys.stderr)
    if args.json:
        print(s.model_dump_json())
        return code
    print(in_words(s), file=sys.stdout)
    if hint := how_to_go_on(Path(s.logs_dir), command("demo")):
        print(hint)
    return code
