"""The simulated game replays (issue 55 part 4): everything it holds is its `GameState` (one seeded generator, its own
clock, the taps it took), every input changes it through the action table, and the same seed and inputs give the
same frames however long the phone sits idle."""

from __future__ import annotations

import ast
import hashlib
import time
from pathlib import Path

import pytest

import lluma_sim.game as pkg
from lluma_sim.game import GameState, SimGame
from lluma_sim.game.game import ACTIONS
from tests.sim.test_game_app import press, way_out
from tests.sim.test_sim_game import to_start

pytestmark = pytest.mark.cost(seconds=12)  # worker seconds in a full suite (conftest: slowest modules first)

GAME = Path(pkg.__file__).parent
WALL_CLOCKS = {"time", "datetime"}  # modules that read the wall (or a machine's) clock
INPUTS = ("tap", "swipe", "keyevent", "text", "capture", "start_app", "stop_app", "hazard")  # SimGame's inputs


def _modules() -> dict[str, ast.Module]:
    return {str(p.relative_to(GAME)): ast.parse(p.read_text()) for p in sorted(GAME.rglob("*.py"))}


def test_the_game_makes_one_generator_and_reads_no_wall_clock() -> None:
    """The check of issue 55: one place in lluma_sim/game makes a random generator (`state.dice`: the game's dice,
    and the painters' fixed art patterns from a constant seed), nothing rolls Python's shared one, nothing imports a
    clock."""
    made, shared, clocks = [], [], []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                clocks += [f"{name}: imports {m}" for m in mods if m.split(".")[0] in WALL_CLOCKS]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(
                    node.func.value, ast.Name) and node.func.value.id == "random":
                (made if node.func.attr in ("Random", "SystemRandom") else shared).append(
                    f"{name}:{node.lineno} random.{node.func.attr}")
    assert clocks == []
    assert shared == []  # random.random(), random.choice(): the process's shared generator, seeded by nobody
    assert [m.split(":")[0] for m in made] == ["state.py"], made
    game = _modules()["game.py"]
    dice_calls = [n for n in ast.walk(game) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "dice"]
    assert len(dice_calls) == 1  # SimGame's own state: the game's one generator


def test_the_inputs_change_the_state_only_through_the_action_table() -> None:
    """SimGame's inputs (a tap, a swipe, a key, a capture, the app's start and stop, a hazard) write nothing of the
    state themselves: each runs an action of the table, where a replay finds every change."""
    cls = next(n for n in _modules()["game.py"].body if isinstance(n, ast.ClassDef) and n.name == "SimGame")
    writes = []
    for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name in INPUTS):
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AugAssign | ast.AnnAssign) else []
            calls = [node.func.value] if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "extend", "pop", "remove", "clear", "update") else []
            writes += [f"{fn.name}: {ast.unparse(t)}" for t in [*targets, *calls]
                       if "self.state." in ast.unparse(t) or ast.unparse(t).startswith("self.taps")]
    assert writes == []
    assert {"tap", "swipe", "back", "frame", "after_input", "scroll", "app_start", "app_stop"} <= set(ACTIONS)


def night_of_frames(seed: int, steps: int) -> tuple[list[str], str]:
    """A night of a sensible player (Cancel when TP is short, so its TP comes back on the game's clock): each
    frame's digest, and the state it ends in."""
    g = SimGame(seed=seed, width=360, height=640, max_turns=4, hazards=0.1, tp=40)
    frames = []
    for _ in range(steps):
        if g.truth().screen == "tp_confirm":
            press(g, "Cancel")
        else:
            way_out(g)
        frames.append(hashlib.sha1(g.capture().tobytes()).hexdigest())
    return frames, g.snapshot().model_dump_json()


def test_the_same_inputs_give_the_same_frames_however_long_the_phone_sits_idle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A night played twice on one seed, the second time with every clock of the machine jumping an hour between
    inputs (an agent waiting for TP, a run paused by hand): frame for frame the same, and the same state at the end
    (its TP, its careers, its hazards)."""
    quick = night_of_frames(5, 260)
    wall = [time.monotonic()]

    def an_hour_later() -> float:
        wall[0] += 3600.0
        return wall[0]

    for clock in ("monotonic", "time", "perf_counter"):
        monkeypatch.setattr(time, clock, an_hour_later)
    idle = night_of_frames(5, 260)
    monkeypatch.undo()
    state = GameState.model_validate_json(quick[1])
    assert len(state.careers) >= 1 and state.hazard_counts and state.tp < 40  # a career, a night, TP short
    assert idle[0] == quick[0]
    assert idle[1] == quick[1]


def test_the_games_one_generator_decides_the_night_and_travels_in_its_snapshot() -> None:
    """The hazards draw on the state's generator (no second one): the same snapshot brings the same hazards, the
    same snapshot with other dice brings others, and the dice a snapshot carries are where the game left them."""
    g = SimGame(seed=9)
    to_start(g)
    g.state.hazard_rate = 0.5  # from here on, a night
    saved = g.snapshot().model_dump_json()
    assert GameState.model_validate_json(saved).rng is not None and '"hazard_rng"' not in saved

    def night(other_dice: bool) -> list[str | None]:
        game = SimGame.from_snapshot(GameState.model_validate_json(saved))
        if other_dice:
            game.rng.seed("other dice")
        seen = []
        for _ in range(40):
            game.tap(1, 1)  # nothing there: only the night moves
            seen.append(game.truth().hazard)
            game.keyevent("KEYCODE_BACK")
        return seen

    assert night(False) == night(False)
    assert night(True) != night(False)
