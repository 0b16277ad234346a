"""A seeded fault schedule over the whole matrix, device and API, at a rate per agent turn.

`FaultPlan.make(rate, seed, turns)` draws, for each turn, whether a fault comes (probability `rate`)
and which one (uniform over the kinds). `FaultInjector` carries it out: the API stand-in asks it about
every request (it is the stand-in's `FaultSchedule`), a new decision request starts the next turn, and
that turn's faults are armed then: API faults answer this request (a 529 burst answers every request
until its time is up), device faults set the simulated phone's switches so they hit the next captures
or input, or take the phone or the whole adb server away for a while. What actually fired is counted
by kind (`injected()`); a fault that never got its chance (a corrupt PNG while the agent captures raw)
is not counted.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Literal, get_args

from pydantic import BaseModel, Field

from lluma_sim.adb.device import Faults
from lluma_sim.adb.server import AdbServer
from lluma_sim.api.faults import Fault, FaultSchedule

DeviceFaultKind = Literal[
    "drop_mid_frame",
    "device_offline",
    "device_removed",
    "black_frame",
    "truncate_raw",
    "corrupt_png",
    "slow_command",
    "adb_restart",
]
ApiFaultKind = Literal[
    "rate_limit",
    "rate_limit_no_retry_after",
    "overloaded_burst",
    "api_error",
    "timeout",
    "malformed_tool_input",
    "max_tokens",
    "refusal",
    "invalid_vlm_json",
]
PlanKind = DeviceFaultKind | ApiFaultKind
DEVICE_KINDS: tuple[str, ...] = get_args(DeviceFaultKind)
API_KINDS: tuple[str, ...] = get_args(ApiFaultKind)
# device switch -> the plan's name for it (switch faults are counted when the phone uses them)
SWITCHES = {"drop_mid_frame": "drop_mid_frame", "black_frame": "black_frame", "truncate_raw": "truncate_raw"}
SWITCHES |= {"corrupt_png": "corrupt_png", "slow_input": "slow_command"}
RequestKind = Literal["decision", "vlm", "fold", "other"]


class PlannedFault(BaseModel):
    turn: int  # 1-based agent turn (decision request) that arms it
    kind: PlanKind
    seconds: float = 0.0  # burst / outage / slowness length, already scaled


class FaultPlan(BaseModel):
    rate: float = Field(ge=0.0, le=1.0)
    seed: int
    faults: list[PlannedFault]

    @classmethod
    def make(
        cls,
        rate: float,
        seed: int,
        turns: int,
        vlm: bool = False,
        time_scale: float = 1.0,
        command_timeout_s: float = 10.0,
        api_timeout_s: float = 30.0,
    ) -> FaultPlan:
        """`vlm`: the run reads screens with the VLM (else invalid VLM JSON could never fire and is not drawn).
        `time_scale` shrinks every duration (tests); the timeouts are the agent's, so slow means past them."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault rate must be between 0 and 1 per turn, got {rate}")
        kinds = [k for k in DEVICE_KINDS + API_KINDS if vlm or k != "invalid_vlm_json"]
        rng = random.Random(seed)
        faults = []
        for turn in range(1, turns + 1):
            if rng.random() >= rate:
                continue
            kind = rng.choice(kinds)
            seconds = {
                "overloaded_burst": rng.uniform(2.0, 30.0),
                "device_offline": rng.uniform(1.0, 10.0),
                "device_removed": rng.uniform(1.0, 10.0),
                "adb_restart": rng.uniform(0.5, 3.0),
                "slow_command": command_timeout_s + 1.0,
                "timeout": api_timeout_s + 1.0,
            }.get(kind, 0.0)
            faults.append(PlannedFault(turn=turn, kind=kind, seconds=round(seconds * time_scale, 3)))
        return cls(rate=rate, seed=seed, faults=faults)

    def at(self, turn: int) -> list[PlannedFault]:
        return [f for f in self.faults if f.turn == turn]

    def by_kind(self) -> dict[str, int]:
        return dict(Counter(f.kind for f in self.faults))


class FaultsInjected(BaseModel):
    total: int
    by_kind: dict[str, int]


def request_kind(raw: bytes | None) -> tuple[RequestKind, str]:
    """What a Messages request asks for, and a key of its last message (a retry repeats the key)."""
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return "other", ""
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
        return "other", ""
    last = json.dumps(body["messages"][-1], sort_keys=True)
    key = f"{len(body['messages'])}:{hashlib.sha256(last.encode()).hexdigest()[:16]}"
    if ((body.get("output_config") or {}).get("format") or {}).get("type") == "json_schema":
        return "vlm", key
    if "<summarize>" in last:
        return "fold", key
    return ("decision" if body.get("tools") else "other"), key


class FaultInjector(FaultSchedule):
    """Carries out a FaultPlan on the simulated phone `serial` of `adb` and on the API stand-in it is given to."""

    def __init__(
        self, plan: FaultPlan, adb: AdbServer, serial: str, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.plan, self.adb, self.serial, self.clock = plan, adb, serial, clock
        self.turn = 0
        self._turn_key = ""
        self._burst_until = 0.0
        self._api: list[PlannedFault] = []  # armed, waiting for a request of the right kind
        self._counts: Counter[str] = Counter()  # faults this injector carried out itself
        self._switch_base: Counter[str] = Counter()
        self._timers: list[threading.Timer] = []
        self._game = adb.game(serial)

    # ---- the API stand-in asks this for every request --------------------------------------------------

    def next(self, index: int, raw: bytes | None = None) -> Fault | None:
        kind, key = request_kind(raw)
        with self._lock:
            if kind == "decision" and key != self._turn_key:
                self._turn_key, self.turn = key, self.turn + 1
                for planned in self.plan.at(self.turn):
                    self._arm(planned)
            fault = self._api_fault(kind)
            if fault is not None:
                self.fired.append((index, fault.kind))
            return fault

    def _api_fault(self, kind: RequestKind) -> Fault | None:
        if self.clock() < self._burst_until:
            self._counts["overloaded_burst_529"] += 1
            return Fault(kind="overloaded", retry_after_s=None)
        for planned in self._api:
            want = "vlm" if planned.kind == "invalid_vlm_json" else "decision"
            if kind != want:
                continue
            self._api.remove(planned)
            self._counts[planned.kind] += 1
            if planned.kind == "overloaded_burst":
                self._burst_until = self.clock() + planned.seconds
                self._counts["overloaded_burst_529"] += 1
                return Fault(kind="overloaded", retry_after_s=None)
            return {
                "rate_limit": Fault(kind="rate_limit", retry_after_s=1.0),
                "rate_limit_no_retry_after": Fault(kind="rate_limit", retry_after_s=None),
                "api_error": Fault(kind="api_error"),
                "timeout": Fault(kind="slow", delay_s=planned.seconds),
                "malformed_tool_input": Fault(kind="malformed_tool_input"),
                "max_tokens": Fault(kind="max_tokens"),
                "refusal": Fault(kind="refusal"),
                "invalid_vlm_json": Fault(kind="invalid_vlm_json"),
            }[planned.kind]
        return None

    # ---- device faults ---------------------------------------------------------------------------------

    def _arm(self, planned: PlannedFault) -> None:
        if planned.kind in API_KINDS:
            self._api.append(planned)
            return
        switch = next((s for s, k in SWITCHES.items() if k == planned.kind), None)
        if switch is not None:
            faults = self._faults()
            if faults is not None:
                if switch == "slow_input":
                    faults.slow_s = planned.seconds
                setattr(faults, switch, int(getattr(faults, switch)) + 1)
            return
        self._counts[planned.kind] += 1
        if planned.kind == "device_offline":
            if (faults := self._faults()) is not None:
                faults.offline = True
                self._later(planned.seconds, partial(setattr, faults, "offline", False))
        elif planned.kind == "device_removed":
            if self.serial in self.adb.serials:
                self._fold_switch_counts()
                self.adb.remove_device(self.serial)
                self._later(planned.seconds, self._reattach)
        elif planned.kind == "adb_restart":
            self.adb.stop()
            self._later(planned.seconds, self.adb.start)

    def _reattach(self) -> None:
        if self.serial not in self.adb.serials:
            self.adb.add_device(self.serial, self._game)

    def _faults(self) -> Faults | None:
        try:
            return self.adb.faults(self.serial)
        except KeyError:  # removed right now: the fault has no phone to hit
            return None

    def _fold_switch_counts(self) -> None:
        """A re-added phone starts with fresh switches: keep what the old ones fired."""
        if (faults := self._faults()) is not None:
            self._switch_base.update(faults.fired)

    def _later(self, seconds: float, fn: Callable[[], object]) -> None:
        t = threading.Timer(seconds, fn)
        t.daemon = True
        self._timers = [*(p for p in self._timers if p.is_alive()), t]  # done ones go: a night arms thousands
        t.start()

    def close(self) -> None:
        """Cancel pending restores and run them now: the phone and server end attached and running."""
        for t in self._timers:
            if t.is_alive():
                t.cancel()
                t.function(*t.args, **t.kwargs)
        self._timers.clear()

    # ---- what was injected -----------------------------------------------------------------------------

    def injected(self) -> FaultsInjected:
        with self._lock:
            counts = Counter({k: v for k, v in self._counts.items() if k != "overloaded_burst_529"})
            fired = Counter(self._switch_base)
            if (faults := self._faults()) is not None:
                fired.update(faults.fired)
            for switch, kind in SWITCHES.items():
                if fired[switch]:
                    counts[kind] += fired[switch]
            return FaultsInjected(total=sum(counts.values()), by_kind=dict(sorted(counts.items())))

    @property
    def overloaded_replies(self) -> int:
        """529 answers sent during bursts (a burst is one fault, many replies)."""
        return self._counts["overloaded_burst_529"]
