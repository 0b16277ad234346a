"""Typed configuration: `config.yaml`, then `LLUMA_SECTION__KEY=value` environment overrides.

An unknown key or a wrong type is a `ConfigError` naming the key path (e.g. `model.max_tokens`), on one line,
and fast: the file is read with limits (lluma_agent.yamlsafe: depth, aliases, duplicate keys, its encoding
named when it is not UTF-8); `true` is not a number; fields that must be ordered are checked together.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsError,
)

from lluma_agent import yamlsafe
from lluma_vision.config import VisionConfig, ocr_threads

ENV_PREFIX = "LLUMA_"
DEFAULT_FILE = Path("config.yaml")


class ConfigError(ValueError):
    """Configuration that cannot be used; the message names the key path."""


# Variables every system sets, none of which holds an API key: `api_key_env: PATH` would send the PATH as a key.
NOT_KEYS = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "TERM", "TMPDIR", "TZ",
                      "HOSTNAME", "DISPLAY", "EDITOR", "PYTHONPATH", "VIRTUAL_ENV", "LD_LIBRARY_PATH", "MAIL"})


def check_base_url(url: str) -> None:
    """An http(s) URL with a host, or ValueError: anything else is retried for ever by the SDK as 'unreachable'."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    if bad := [c for c in url if ord(c) <= 0x20 or ord(c) == 0x7F]:
        # urlsplit drops tabs and newlines without a word; the HTTP client then fails on every request.
        raise ValueError(f"must be a URL without spaces or control characters (it holds {bad[0]!r})")


class _Section(BaseModel):
    # Every value has a range (Field ge/le) and NaN/inf are refused: a nonsense value stops at start,
    # naming its key, instead of failing hours into a run.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class DeviceConfig(_Section):
    serial: str | None = Field(None, description="Device serial; None picks the only device attached.")
    connect: str | None = Field(
        None, description="host:port to `adb connect` first (emulators: BlueStacks/LDPlayer 5555, MuMu 16384)."
    )
    adb_host: str = Field(
        "127.0.0.1", description="adb server host. Unset: ANDROID_ADB_SERVER_HOST, else 127.0.0.1 (set here, it "
        "overrides the variable).",
    )
    adb_port: int = Field(
        5037, ge=1, le=65535, description="adb server port. Unset: ANDROID_ADB_SERVER_PORT, else 5037 (set here, it "
        "overrides the variable).",
    )
    capture: Literal["raw", "png"] = Field("raw", description="raw screencap (fast) or PNG (fallback).")
    command_timeout_s: float = Field(10.0, gt=0, le=600, description="Timeout for one adb command.")
    tap_inner_fraction: float = Field(0.6, gt=0, le=1, description="Taps land in this central fraction of a box.")
    tap_jitter_px: int = Field(4, ge=0, le=100, description="Random jitter (pixels) added to a tap point, kept inside.")
    swipe_ms: int = Field(400, ge=1, le=10_000, description="Duration of a scroll swipe.")
    swipe_hold_ms: int = Field(
        250, ge=0, le=10_000, description="Hold at the end of a swipe so the list stops without inertia."
    )
    reconnect_attempts: int = Field(
        0, ge=0, description="Most reconnect attempts after a drop; 0 = keep trying for outage_wait_s."
    )
    outage_wait_s: float = Field(
        120.0,
        ge=0,
        le=86_400,
        description="How long a dropped device may stay away (asleep, emulator restarting) before the run ends.",
    )
    reconnect_backoff_s: float = Field(0.5, ge=0, le=60, description="First reconnect delay; doubles each attempt.")
    settle_timeout_s: float = Field(6.0, ge=0, le=600, description="Longest wait for the screen to stop moving.")
    settle_interval_s: float = Field(0.25, ge=0, le=60, description="Pause between settle captures.")
    settle_threshold: int = Field(
        3, ge=0, le=64, description="Perceptual-hash distance under which two frames are 'same'."
    )
    # Not a setting: where a value came from when not from the configuration (a resumed run's folder kept it,
    # loop/setup.py), so a message about the adb server names the folder, not config.yaml (device/address.py).
    _kept: dict[str, str] = PrivateAttr(default_factory=dict)

    def keep(self, key: str, value: object, where: str) -> None:
        """Set `key` to a value kept `where` (the messages that name its source say so)."""
        setattr(self, key, value)
        self._kept[key] = where

    def kept(self, key: str) -> str | None:
        return self._kept.get(key)


class ModelConfig(_Section):
    name: str = Field(
        "claude-haiku-5-5", description="Model id; `lluma models` lists the current ones (lluma_facts/registry.py)."
    )
    max_tokens: int = Field(
        8192, ge=1, le=21_333,
        description="Output cap per call, thinking included (non-streaming calls must stay <= 21,333).",
    )
    effort: Literal["low", "medium", "high", "xhigh", "max"] = Field(
        "low", description="Adaptive-thinking models: how hard to think (output_config.effort)."
    )
    thinking_budget: int = Field(
        0, ge=0, description="Budget-thinking models (Haiku 4.5): thinking tokens, >= 1024 and < max_tokens; 0 = off."
    )
    base_url: str | None = Field(None, description="Messages API base URL; None = Anthropic (or ANTHROPIC_BASE_URL).")
    api_key_env: str = Field("ANTHROPIC_API_KEY", description="Environment variable holding the API key.")
    timeout_s: float = Field(60.0, gt=0, le=3600, description="HTTP timeout per request.")
    retry_window_s: float = Field(
        300.0, ge=0, le=86_400, description="Retry 408/409/429/5xx/529 and lost connections this long per call."
    )
    retry_max_wait_s: float = Field(
        60.0, gt=0, le=3600, description="Cap on one wait (full-jitter exponential backoff)."
    )
    retry_after_cap_s: float = Field(
        60.0, ge=0, le=3600, description="Cap on a server's retry-after (the SDK has none)."
    )
    outage_wait_s: float = Field(
        900.0, ge=0, le=86_400,
        description="How long every model call may keep failing (retried: overloaded, unreachable) before the run "
        "ends with exit 1.",
    )


    @field_validator("base_url")
    @classmethod
    def _http_url(cls, url: str | None) -> str | None:
        if url is not None:
            check_base_url(url)
        return url

    @field_validator("api_key_env")
    @classmethod
    def _key_variable(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f"must be the name of an environment variable (letters, digits, _), got {name!r}")
        if name.upper() in NOT_KEYS:
            raise ValueError(f"{name} is a system variable, not one holding an API key (e.g. ANTHROPIC_API_KEY)")
        return name

    @field_validator("thinking_budget")
    @classmethod
    def _budget_fits(cls, budget: int, info: ValidationInfo) -> int:
        max_tokens = info.data.get("max_tokens", 0)
        if budget and not 1024 <= budget < max_tokens:
            raise ValueError(f"must be 0, or at least 1024 and below max_tokens ({max_tokens})")
        return budget


class ContextConfig(_Section):
    system_prompt_file: Path | None = Field(
        None, description="System prompt file; None uses the packaged lluma_agent/system_prompt.md."
    )
    history_max_turns: int = Field(
        28, ge=2, le=10_000, description="Past turns kept verbatim before the oldest chunk is folded."
    )
    fold_chunk_turns: int = Field(
        20, ge=1, description="Turns folded into the summary at once (keeps the prefix stable)."
    )
    screenshots: int = Field(
        1, ge=0, le=5, description="1 = the current screenshot in every decision, any model (a thinking turn keeps "
        "it until the next fold); 0 = vision JSON only, the cheap option."
    )
    screenshot_max_side: int = Field(
        640, ge=64, le=8000, description="Long edge of the screenshot sent to the model (640: stat digits legible; "
        "zoom gives full resolution)."
    )
    cache_ttl: Literal["5m", "1h"] = Field("5m", description="Prompt-cache TTL for the breakpoints.")

    @model_validator(mode="before")
    @classmethod
    def _no_layout(cls, data: Any) -> Any:
        """`context.layout` chose the token benchmark's baseline layout until that moved to bench/: a run has
        only the cached layout, so `layout: cached` in an older config.yaml is accepted and ignored, anything else
        refused."""
        if isinstance(data, dict) and "layout" in data:
            if data["layout"] != "cached":
                raise ValueError("layout: a run has only the cached layout (the baseline is bench/tokens.py's); "
                                 "delete the line")
            data = {k: v for k, v in data.items() if k != "layout"}
        return data

    @model_validator(mode="after")
    def _chunk_below_window(self) -> ContextConfig:
        if self.fold_chunk_turns >= self.history_max_turns:
            raise ValueError(
                f"fold_chunk_turns ({self.fold_chunk_turns}) must be below history_max_turns ({self.history_max_turns})"
            )
        return self


class MemoryConfig(_Section):
    dir: Path = Field(Path("memory"), description="Folder of the agent's memory files (users edit them too).")
    budget_tokens: int = Field(
        32000, ge=1, le=1_000_000, description="Total estimated tokens all memory files may hold."
    )
    shared_dir: Path | None = Field(
        None, description="Folder where several devices keep what the game teaches once: the screen map, the event "
        "book and the model's procedures, each device's entries kept (`lluma fleet` sets it); None = the map and the "
        "book beside the memory folder, the procedures in it.",
    )


class KnowledgeConfig(_Section):
    enabled: bool = Field(True, description="Add the knowledge entries that match the screen to the current turn.")
    dir: Path | None = Field(
        None,
        description="Folder of knowledge YAML files; None = the starter set (lluma_knowledge/, installed with LLuMa).",
    )
    budget_tokens: int = Field(300, description="Most estimated tokens of knowledge added to one turn (by priority).")


class LogConfig(_Section):
    dir: Path = Field(Path("logs"), description="Log root; `lluma run` writes each run to run-<time>/ inside it.")
    keep_screenshots: int = Field(300, ge=0, description="Newest screenshots kept; older ones are deleted.")


class RunConfig(_Section):
    max_turns: int = Field(500, ge=0, description="Stop cleanly after this many turns (0 = no limit).")
    max_cost_usd: float = Field(5.0, ge=0, description="Stop cleanly once the run has cost this much (0 = no limit).")
    stuck_after: int = Field(
        3, ge=1, description="Unchanged screens in a row (or an A-B-A-B loop) that raise a warning."
    )
    stuck_force_after: int = Field(6, ge=1, description="...after which the coordinator forces another kind of action.")
    stuck_pause_after: int = Field(
        10, ge=1, description="...after which the coordinator climbs the rest of the recovery ladder itself (back, "
        "safe tap, restart the game, wait; see recovery.*); with recovery.max_cycles 0 the run pauses here instead.",
    )
    max_careers: int = Field(0, ge=0, description="Stop cleanly once this many careers have ended (0 = no limit).")
    max_hours: float = Field(0.0, ge=0, le=8_760, description="Stop cleanly after this many hours (0 = no limit).")
    # Measured on the turn logs of `bench/careers.py --careers 1 --only with` (seed 11, OCR, hazards 0.05, faults
    # 0.02: 287 agent turns, 3.68 a game turn): 49 stretches between moves of the clock, median 3, longest 15 (the
    # career's setup, before its first hub). A perfect reading (truth-vision demo, seed 5): longest 4. Warn at 2x
    # the longest, climb at 40, and the ladder's four rungs end inside the 60 agent turns on one game turn.
    progress_warn_after: int = Field(
        30, ge=1, description="Agent turns without the game's clock moving (the career's turn or date, a race run, a "
        "career ended; a wait the game asked for does not count) after which the model is told what has not moved.",
    )
    progress_after: int = Field(
        40, ge=0, description="...after which the coordinator climbs the recovery ladder's own rungs, one a turn, and "
        "then stops the run (stop kind no_progress, exit 4); 0 = never.",
    )
    progress_cost_factor: float = Field(
        10.0, ge=0, description="A stretch without the clock moving that has cost this many times the run's median "
        "cost of a game turn climbs the ladder too (0 = dollars never do).",
    )


class GameConfig(_Section):
    package: str = Field(
        "com.cygames.umamusume",
        pattern=r"^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$",
        description="The game's Android package (Global com.cygames.umamusume, Japan jp.co.cygames.umamusume, "
        "Korea com.kakaogames.umamusume, Taiwan com.komoe.kmumamusumegp).",
    )
    activity: str | None = Field(
        None, description="Launch activity (e.g. jp.co.cygames.umamusume_activity.UmamusumeActivity); None starts "
        "the package's launcher entry with `monkey`.",
    )
    # 3: a package that is not installed fails the same way every time (issue 39: 8 starts in 8 turns, a
    # notification each); two more tries cover a start that raced something on the phone, for two turns.
    start_tries: int = Field(
        3, ge=1, le=100, description="Starts that fail in a row (the package not installed, a wrong activity) "
        "before the run stops (stop kind game_start, exit 1).",
    )


class RecoveryConfig(_Section):
    max_cycles: int = Field(
        3, ge=0, le=1000, description="The run pauses (exit 3) once the whole recovery ladder (warn, force, back, "
        "safe tap, restart, wait) was climbed in vain this many times within window_s; 0 = no ladder: pause at "
        "run.stuck_pause_after.",
    )
    window_s: float = Field(3600.0, gt=0, le=604_800, description="The window in which failed ladders are counted.")
    wait_s: float = Field(60.0, ge=0, le=3600, description="The ladder's last rung: wait this long, no model call.")
    calm_turns: int = Field(
        20, ge=1, le=10_000, description="Turns in a row without being stuck after which the ladder starts again "
        "from its first rung (stuck again sooner, after a restart say: the ladder goes on up).",
    )
    # A game killed from outside every few seconds is started again on most turns and its screens vary, so no streak
    # builds; crashes on a hazardous night are far sparser (the simulator at hazards 0.6 per input, 120 demo turns:
    # 5 starts, at most 3 in any 20 turns), a game stopped on two looks of three 13 in 20.
    max_starts: int = Field(
        8, ge=1, le=10_000, description="The game started again (not by the ladder) this many times within "
        "calm_turns turns keeps stopping: that counts as a ladder climbed in vain (max_cycles of them pause the run).",
    )


# The longest line read on the 64 labelled real screens is 202 characters (a paragraph); a guarded name is a button
# or a dialog's title, far shorter: an entry over this is pasted text
MAX_GUARDED_CHARS = 300


class GuardConfig(_Section):
    never_press: list[str] = Field(
        default_factory=lambda: ["Purchase Carats", "Age Confirmation", "Account Link"],
        description="Buttons never pressed while unattended (money and the account): a press that would hit one is "
        "refused and the model told; matched ignoring case, spaces and punctuation (4 letters or fewer: whole words).",
    )

    @field_validator("never_press")
    @classmethod
    def _plain_names(cls, names: list[str]) -> list[str]:
        """Each entry names a button in words: one with no letter or digit ("(.*)", "") would guard nothing, and
        one longer than any line a screen shows is a mistake (pasted text), not a button."""
        for i, name in enumerate(names, 1):
            shown = name if len(name) <= 40 else f"{name[:40]}..."
            if not any(c.isalnum() for c in name):
                raise ValueError(f"entry {i} ({shown!r}) holds no letter or digit, so it names no button: entries "
                                 "are a button's words, matched ignoring case, spaces and punctuation, not patterns")
            if len(name) > MAX_GUARDED_CHARS:
                raise ValueError(f"entry {i} ({shown!r}) is {len(name):,} characters long; a button's name is at "
                                 f"most {MAX_GUARDED_CHARS}")
        return names

    tp_recovery: Literal["wait", "items"] = Field(
        "wait", description="On the 'Recover TP' dialog (a career start with too little TP): wait = cancel it and "
        "wait tp_wait_s for TP to come back; items = let the model use recovery items (never carats).",
    )
    tp_wait_s: float = Field(
        1800.0, ge=0, le=86_400, description="How long to wait for TP after cancelling 'Recover TP' (1 TP per 10 min)."
    )


class NotifyConfig(_Section):
    command: str | None = Field(
        None, description="Run on each event (run stopped or paused, career ended, game restarted), the event as "
        "one JSON object on its standard input; split like a shell line, run without a shell. None = off.",
    )
    timeout_s: float = Field(20.0, gt=0, le=600, description="A notify command still running after this is killed, "
                             "with what it started; the run's end waits this long in all for its last events.")
    heartbeat_min: float = Field(
        0.0, ge=0, le=1440, description="Every this many minutes, a heartbeat event (the career's turn and goal, the "
        "run's cost, the time and dollars to the career's end at its pace), also printed on the live output; 0 = off.",
    )


class MapConfig(_Section):
    enabled: bool = Field(
        True, description="Record the screen map (beside the memory folder), tell the model where it is, offer goTo, "
        "pass routine screens (loop.autopilot); false = requests exactly as without a map.",
    )
    min_uses: int = Field(1, ge=1, le=1000, description="goTo walks an edge taken at least this many times...")
    min_rate: float = Field(
        0.8, ge=0, le=1, description="...that led to its screen at least this share of the times its action was taken.",
    )
    routine_after: int = Field(
        2, ge=1, le=1000, description="A screen is passed without the model once its one way out was taken this many "
        "times in a row with the same result (loop.autopilot).",
    )
    max_steps: int = Field(12, ge=1, le=100, description="Most steps one goTo walks.")
    ways_shown: int = Field(6, ge=0, le=50, description="Known ways out named in the current turn's <map> line.")
    far_shown: int = Field(
        3, ge=0, le=20, description="Screens further than one press that goTo can walk to, named in the <map> line "
        "(the most seen first).",
    )


class LoopConfig(_Section):
    autopilot: bool = Field(
        True, description="Pass routine screens without a model call (a single known way out, nothing to choose; "
        "loading screens waited out); the next model turn is told. Needs map.enabled.",
    )
    max_routine: int = Field(
        12, ge=1, le=1000, description="Most routine passes in a row; then the model is asked whatever the map says.",
    )
    never_autopilot: list[str] = Field(
        default_factory=lambda: ["Learn", "Skill", "Purchase", "Buy", "Shop", "Exchange", "Use", "Recover",
                                 "Try Again", "Carats", "Clock", "Delete", "Reset", "Give Up", "Quit", "Gacha",
                                 "Scout"],
        description="Words that keep a screen from routine passes when its title or a button on it (not a tab) holds "
        "them (spending, choosing, quitting; a plural too): the model decides there.",
    )
    spend_words: list[str] = Field(
        default_factory=list,
        description="Your own words that mark a spend wherever the screen shows them (a text or a button, not a tab), "
        "matched as written, besides what the reading says a screen asks to spend (its screen.spends: a verb of giving "
        "up with what it gives up, a count going down, a price; `lluma vision --json`): no routine pass, goTo step, "
        "plan step, survey press or recovery rung presses there, the model decides.",
    )
    wait_s: float = Field(2.0, ge=0, le=600, description="A routine pass over a loading screen waits this long.")
    come_back_max_s: float = Field(
        60.0, ge=0, le=3600, description="A notice that says the game cannot be played yet (a maintenance; "
        "come_back_later in lluma_knowledge/procedures/dialogs.yaml) is dismissed, then the coordinator waits "
        "loop.wait_s, doubling each time it comes back, up to this, before the game is tried again: a short outage "
        "costs seconds, a long one a look a minute (the recovery ladder's wait rung is 60 s; the bots' watchdogs "
        "check every 30 s), and no model call.")


class SurveyConfig(_Section):
    enabled: bool = Field(
        True, description="On a screen whose options raise before they commit (the training screen: the reading finds "
        "the raised tile under its failure pill), raise each option in turn and read it, then ask the model once with "
        "one table; the chosen option is raised if needed and committed, each press checked (loop/survey.py).",
    )


class PlansConfig(_Section):
    enabled: bool = Field(
        True, description="Offer runPlan(name, args): procedures (lluma_knowledge/procedures, and the model's own in "
        "its memory file procedures.yaml) the coordinator carries out step by step, each step checked; a surprise "
        "stops the plan and the model takes the turn (loop/plans.py). Needs map.enabled (a plan's goto walks the map).",
    )


class FleetConfig(_Section):
    devices: list[str] = Field(
        default_factory=list, description="Serials `lluma fleet` plays, one agent each (--devices overrides them)."
    )
    restarts: int = Field(
        3, ge=0, le=100, description="A device's agent that dies (killed, crashed) is started again from its "
        "checkpoint at most this many times; then the device is reported and the others go on.",
    )


class Config(_Section):
    device: DeviceConfig = Field(default_factory=DeviceConfig)
    vision: VisionConfig = Field(default_factory=VisionConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    knowledge: KnowledgeConfig = Field(default_factory=KnowledgeConfig)
    game: GameConfig = Field(default_factory=GameConfig)
    notify: NotifyConfig = Field(default_factory=NotifyConfig)
    recovery: RecoveryConfig = Field(default_factory=RecoveryConfig)
    guard: GuardConfig = Field(default_factory=GuardConfig)
    logs: LogConfig = Field(default_factory=LogConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    map: MapConfig = Field(default_factory=MapConfig)
    loop: LoopConfig = Field(default_factory=LoopConfig)
    survey: SurveyConfig = Field(default_factory=SurveyConfig)
    plans: PlansConfig = Field(default_factory=PlansConfig)
    fleet: FleetConfig = Field(default_factory=FleetConfig)


class _Environ(EnvSettingsSource):
    """LLUMA_SECTION__KEY variables from a given mapping (os.environ, or the demo's own settings over it)."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        super().__init__(settings_cls, env_prefix=ENV_PREFIX, env_nested_delimiter="__")
        # An empty value means None (`LLUMA_DEVICE__SERIAL=` picks the only device), as in YAML.
        self.env_vars = {k.lower(): (None if v == "" else v) for k, v in env.items()}


def _unknown_sections(env: Mapping[str, str]) -> list[str]:
    """pydantic-settings reads only variables of known sections; a misspelt section must not pass silently."""
    out = []
    for key in env:
        section = key[len(ENV_PREFIX) :].split("__")[0].lower()
        if key.startswith(ENV_PREFIX) and "__" in key and section not in Config.model_fields:
            out.append(f"{section}: unknown key ({key})")
        elif key.startswith(ENV_PREFIX) and "__" not in key and section in Config.model_fields:
            out.append(f"{key}: a whole section from one variable is not read; set one key at a time, "
                       f"{key}__<KEY>=value (got {_short(env[key])})")
    return out


def variable_of(dotted: str, environ: Mapping[str, str]) -> str | None:
    """The LLUMA_SECTION__KEY variable that sets `dotted` ("device.adb_port"), as the environment spells it (the
    loader reads any case), or None when none is set (an empty one means unset)."""
    want = f"{ENV_PREFIX}{dotted.replace('.', '__')}".lower()
    return next((k for k, v in environ.items() if k.lower() == want and v != ""), None)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _explain(err: ValidationError, origin: str) -> ConfigError:
    lines = []
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(root)"
        if e["type"] == "extra_forbidden":
            lines.append(f"{path}: unknown key")
        else:
            msg = e["msg"].removeprefix("Value error, ")
            lines.append(f"{path}: {msg} (got {_short(e.get('input'))})")
    # One line, every key named: the error is what a person reads first (and all a log line holds).
    return ConfigError(f"invalid configuration in {origin}: " + "; ".join(lines))


def yaml_problem(exc: yaml.YAMLError) -> str:
    """`mapping values are not allowed here at line 3, column 9`: PyYAML's message, on one line."""
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return f"{getattr(exc, 'problem', None) or str(exc).splitlines()[0]}{where}"


def find_config(path: Path | None) -> Path | None:
    """The file a command reads: `--config` when given (it must exist), else ./config.yaml when present,
    else none (defaults). `lluma run`, `demo`, `doctor` and `memory` all find it this way."""
    if path is not None:
        return path
    # Anything named config.yaml is the user's file: a folder, a FIFO or a dangling link is refused by
    # load_config (one line, exit 2), never silently replaced by the defaults.
    return DEFAULT_FILE if DEFAULT_FILE.exists() or DEFAULT_FILE.is_symlink() else None


def load_config(path: Path | str | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read `path` (if given; it must exist), apply LLUMA_* overrides from `env` (default os.environ), validate.

    pydantic-settings merges the two sources (the environment wins); the file is read by `read_file`."""
    env = os.environ if env is None else env
    p = Path(path) if path is not None else None
    if p is not None and not p.exists():
        raise ConfigError(f"config file not found: {p}")
    if p is not None and not p.is_file():
        kind = "a folder" if p.is_dir() else "a FIFO" if p.is_fifo() else "not a regular file"
        raise ConfigError(f"config file {p} is not a file ({kind}): give a YAML file, or remove it for the defaults")
    origin = str(p) if p is not None else "defaults"
    if any(k.startswith(ENV_PREFIX) and k[len(ENV_PREFIX):].split("__")[0].lower() in Config.model_fields for k in env):
        origin += " + LLUMA_* environment"

    sources: list[PydanticBaseSettingsSource] = []

    class _Sourced(BaseSettings, Config):  # type: ignore[misc]  # both config dicts hold extra='forbid'
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            return tuple(sources)  # first wins: the environment, then the file

    if unknown := _unknown_sections(env):
        raise ConfigError(f"invalid configuration in {origin}: " + "; ".join(unknown))
    try:
        ocr_threads(env)  # the OCR reads it when it loads, inside the run: a bad value stops here instead
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    sources.append(_Environ(_Sourced, env))
    if p is not None:
        sources.append(InitSettingsSource(_Sourced, read_file(p)))
    try:
        sourced = _Sourced()
    except ValidationError as exc:
        raise _explain(exc, origin) from None
    except SettingsError as exc:  # LLUMA_MODEL=foo: a whole section from one variable that is not JSON
        cause = exc.__cause__
        raise ConfigError(f"invalid configuration in {origin}: {' '.join(str(exc).split())}"
                          + (f" ({type(cause).__name__})" if cause else "")
                          + "; set one key at a time: LLUMA_<SECTION>__<KEY>=value") from None
    cfg = Config(**dict(sourced))
    check_order(cfg, origin)
    return cfg


# a config.yaml is a few KB; past this it is not one and is refused with its size (a bound, not measured)
MAX_FILE_BYTES = 1_000_000


def read_file(p: Path) -> dict[str, Any]:
    """The file's sections, read with limits; ConfigError with one line naming the file otherwise."""
    try:
        data = p.read_bytes()[: MAX_FILE_BYTES + 1]
    except OSError as exc:
        raise ConfigError(f"{p}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigError(f"{p}: larger than {MAX_FILE_BYTES:,} bytes; a configuration is a few kilobytes")
    try:
        loaded = yamlsafe.load(yamlsafe.decode(data))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{p}: not valid YAML: {yaml_problem(exc)}") from None
    except ValueError as exc:  # the encoding
        raise ConfigError(f"{p}: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict) or not all(isinstance(k, str) for k in loaded):
        raise ConfigError(f"{p}: top level must be a mapping of sections (device:, model:, run: ...), "
                          f"not {type(loaded).__name__}")
    if problems := _booleans_as_numbers(loaded):
        raise ConfigError(f"invalid configuration in {p}: " + "; ".join(problems))
    return loaded


def _booleans_as_numbers(data: dict[str, Any]) -> list[str]:
    """`max_tokens: true` is not 1: pydantic would take a boolean for a number, so a person's slip passes."""
    out = []
    for section, values in data.items():
        field = Config.model_fields.get(section)
        model = field.annotation if field else None
        if not isinstance(values, dict) or not isinstance(model, type) or not issubclass(model, BaseModel):
            continue
        for key, value in values.items():
            sub = model.model_fields.get(str(key))
            if isinstance(value, bool) and sub is not None and sub.annotation in (int, float, int | None, float | None):
                out.append(f"{section}.{key}: must be a number, not {str(value).lower()} (got {value!r})")
    return out


# Fields that must not decrease from left to right: checked together, so the error names them all.
ORDERED = (
    ("run", ("stuck_after", "stuck_force_after", "stuck_pause_after")),
    ("vision", ("ocr_short_side", "ocr_long_side")),
)


def check_order(cfg: Config, origin: str = "the configuration") -> None:
    for section, keys in ORDERED:
        values = [getattr(getattr(cfg, section), k) for k in keys]
        if any(a > b for a, b in zip(values, values[1:], strict=False)):
            named = ", ".join(f"{section}.{k} ({v})" for k, v in zip(keys, values, strict=True))
            raise ConfigError(f"invalid configuration in {origin}: {named} must each be at most the next")


_SECTION_DOCS = {
    "device": "The phone or emulator, reached through the adb server.",
    "vision": "Turning a screenshot into buttons, text, menu and scrollbar.",
    "model": "The Messages API call made every turn.",
    "context": "What goes into each request (see docs/ARCHITECTURE.md, 'Context and caching').",
    "memory": "The agent's memory files.",
    "knowledge": "Hints from lluma_knowledge/*.yaml matched to the screen (see lluma_knowledge/README.md).",
    "logs": "Per-turn logs.",
    "run": "Budgets and stuck handling.",
    "game": "The game as an Android app: what is started again when it is not in the foreground.",
    "notify": "Telling a person: a command run on each event of an unattended run.",
    "recovery": "The recovery ladder climbed when the screen does not change or loops (after run.stuck_*).",
    "guard": "What the agent never does while unattended, whatever the model says.",
    "map": "The screen map learned from play: where the agent is, goTo, the edges it trusts.",
    "loop": "Routine screens passed without a model call.",
    "fleet": "`lluma fleet`: several devices from one command, one agent each.",
}


# Keys the generated file leaves commented out: set, they would override what the environment says (the adb
# server of ANDROID_ADB_SERVER_HOST/PORT, which adb users set and expect every tool to honour).
UNSET_IN_FILE = frozenset({("device", "adb_host"), ("device", "adb_port")})


def default_yaml() -> str:
    """The default configuration as commented YAML (this is how config.yaml is generated)."""
    lines = [
        "# LLuMa configuration. Every key is optional; these are the defaults.",
        "# Any key can be overridden from the environment: LLUMA_<SECTION>__<KEY>=value",
        "# (e.g. LLUMA_MODEL__NAME=claude-sonnet-5-5, LLUMA_DEVICE__CONNECT=127.0.0.1:5555).",
        "# An unknown key or a wrong type stops with an error naming the key.",
        "# Regenerate after adding a key: python -m lluma_agent.config > config.yaml",
        "",
    ]
    cfg = Config()
    for section in Config.model_fields:
        lines += [f"# {_SECTION_DOCS.get(section, section)}", f"{section}:"]
        sub = getattr(cfg, section)
        for key, field in type(sub).model_fields.items():
            value = getattr(sub, key)
            value = value.as_posix() if isinstance(value, Path) else value
            dumped = yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()
            unset = "# " if (section, key) in UNSET_IN_FILE else ""
            lines += [f"  # {field.description}", f"  {unset}{key}: {dumped}"]
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(default_yaml(), end="")
