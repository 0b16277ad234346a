"""One simulated phone behind the fake adb server: its game, state, files and fault switches."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from PIL import Image

# A fault switch: False/0 = off, True = on until cleared, a positive int N = the next N uses.
Switch = bool | int


class Game(Protocol):
    """What the server needs from a game (lluma_sim.game.SimGame satisfies it)."""

    @property
    def width(self) -> int: ...
    @property
    def height(self) -> int: ...

    def capture(self) -> Image.Image: ...
    def tap(self, x: int, y: int) -> Any: ...
    def swipe(self, x0: int, y0: int, x1: int, y1: int, duration_ms: int) -> Any: ...
    def keyevent(self, key: str | int) -> Any: ...
    def text(self, s: str) -> Any: ...


@runtime_checkable
class App(Protocol):
    """A game that is an app on the phone (SimGame is): installed as `package`, started and stopped by the shell's
    `am` and `monkey`, seen in `dumpsys`."""

    package: str
    activity: str

    @property
    def app_state(self) -> str: ...  # "game", "anr" (Android's dialog over it) or "launcher" (not running)
    @property
    def task(self) -> int: ...
    @property
    def drawn(self) -> bool: ...
    def start_app(self) -> bool: ...
    def stop_app(self) -> bool: ...


# The phone's own apps: its launcher (shown when no game runs) and a few system packages, as `pm` lists them.
LAUNCHER = "com.google.android.apps.nexuslauncher"
LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity"
SYSTEM_PACKAGES = (
    "android",
    "com.android.chrome",
    "com.android.settings",
    "com.android.shell",
    "com.android.systemui",
    "com.android.vending",
    "com.google.android.gms",
    LAUNCHER,
)


@dataclass
class Faults:
    """Per-device fault switches, settable at runtime: `server.faults(serial).drop_mid_frame = 1`.

    Switches take False/True/N (see `Switch`); a count is consumed each time the fault fires,
    so `= 1` breaks exactly one capture and the next one (after a reconnect) works.
    """

    drop_mid_frame: Switch = False  # reset the connection after part of a screencap
    truncate_raw: Switch = False  # raw screencap: header promises w*h*4, payload is cut short
    corrupt_png: Switch = False  # screencap -p: valid signature, garbage after it
    black_frame: Switch = False  # screencap returns an all-black picture
    offline: Switch = False  # "offline" in listings/get-state, transports FAIL; N = next N requests
    delay_s: float = 0.0  # sleep this long after OKAY, before a device service answers
    drop_after_bytes: int = 0  # bytes sent before a drop; 0 = a third of the frame
    slow_input: Switch = False  # the next `input` command sleeps `slow_s` first, then runs (a client gave up)
    drop_after_input: Switch = False  # the next `input` command runs, then the connection resets (no answer)
    slow_s: float = 11.0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.fired: Counter[str] = Counter()  # how often each switch fired (faults actually injected)

    def take(self, name: str) -> bool:
        """Is fault `name` on? Consumes one use of a counted switch."""
        with self._lock:
            value = getattr(self, name)
            if not value:
                return False
            if value is not True:
                setattr(self, name, int(value) - 1)
            self.fired[name] += 1
            return True

    def active(self, name: str) -> bool:
        """Is fault `name` on, without consuming it (for listings)?"""
        return bool(getattr(self, name))

    def reset(self) -> None:
        """All switches off (what fired stays counted)."""
        for f in fields(self):
            setattr(self, f.name, f.default)


@dataclass
class Gesture:
    """A touch built from `input motionevent` DOWN/MOVE/UP (one finger)."""

    x0: float
    y0: float
    t0: float
    x: float
    y: float


@dataclass
class SimDevice:
    serial: str
    game: Game
    transport_id: int
    props: dict[str, str]
    faults: Faults = field(default_factory=Faults)
    files: dict[str, bytes] = field(default_factory=dict)  # the sync/cat file system
    inputs: list[str] = field(default_factory=list)  # every input the game received, in order
    gesture: Gesture | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)  # games are not thread-safe
    # commands of this phone beyond Android's (name -> handler(dev, args) -> shell.ShellResult): the wiring installs
    # them, as an app installs a binary (lluma_sim/truth_over_adb.py)
    commands: dict[str, Any] = field(default_factory=dict)

    @property
    def app(self) -> App | None:
        """The game as an app, when it is one."""
        return self.game if isinstance(self.game, App) else None

    @property
    def packages(self) -> list[str]:
        """Installed packages, sorted: the system's and the game's."""
        app = self.app
        return sorted({*SYSTEM_PACKAGES, *((app.package,) if app else ())})

    @property
    def kind(self) -> str:
        """Transport type: "local" for TCP/emulator serials, else "usb" (for host:transport-usb/-local)."""
        return "local" if ":" in self.serial or self.serial.startswith("emulator-") else "usb"

    @property
    def state(self) -> str:
        """The state, without consuming an `offline` count (for track-devices polling)."""
        return "offline" if self.faults.active("offline") else "device"

    def observe_state(self) -> str:
        """The state as one request sees it: consumes one use of a counted `offline`."""
        return "offline" if self.faults.take("offline") else "device"
