"""The simulated phone's shell: the handful of commands an adb client sends to play a game.

`run(device, cmdline)` parses a command line like /system/bin/sh would for what clients send
(quoting, `;`, `&&`, `||`, `$?`) and returns stdout, stderr and the exit status. Output that
is a screen capture is flagged so the server can apply the drop-mid-frame fault to it.
"""

from __future__ import annotations

import io
import logging
import struct
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from PIL import Image

from lluma_sim.adb.device import LAUNCHER, LAUNCHER_ACTIVITY, SYSTEM_PACKAGES, Gesture, SimDevice

log = logging.getLogger(__name__)

TOUCH_SLOP_PX = 16  # a DOWN..UP that moved less than this is a tap, as on Android
MAX_SLEEP_S = 10.0  # `sleep N` in the simulated shell, capped so a script cannot hang a test (not measured)
COLORSPACE_SRGB = 1  # Android's screencap header values (AOSP screencap.cpp; definitions)
PIXEL_FORMAT_RGBA_8888 = 1  # PixelFormat RGBA_8888 (AOSP; a definition)


@dataclass
class ShellResult:
    stdout: bytes = b""
    stderr: bytes = b""
    code: int = 0
    frame: bool = False  # stdout is a screen capture
    stream: list[tuple[int, bytes]] = field(default_factory=list)  # (1 stdout | 2 stderr, data) in order

    def __post_init__(self) -> None:
        if not self.stream:
            self.stream = [(k, d) for k, d in ((1, self.stdout), (2, self.stderr)) if d]


def _err(msg: str, code: int = 1) -> ShellResult:
    return ShellResult(stderr=(msg + "\n").encode(), code=code)


def _ok(text: str = "") -> ShellResult:
    return ShellResult(stdout=text.encode())


# ---- screencap -------------------------------------------------------------------------


def _frame(dev: SimDevice) -> Image.Image:
    with dev.lock:
        img = dev.game.capture()
    if dev.faults.take("black_frame"):
        img = Image.new("RGB", img.size)
    return img.convert("RGB") if img.mode != "RGB" else img


def encode_png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, "PNG")  # zlib level 6, like the device's encoder: PNG is the slow path
    return buf.getvalue()


_RAW_CACHE: OrderedDict[int, tuple[Image.Image, bytes]] = OrderedDict()  # id -> (frame kept alive, bytes)
_RAW_CACHE_SIZE = 8  # a few devices' current frames
_RAW_LOCK = threading.Lock()  # the server answers each connection on its own thread


def encode_raw(img: Image.Image) -> bytes:
    """What `screencap` writes on Android 11+: w, h, format, colour space (u32 LE), then RGBA.

    A phone copies its framebuffer (no encoding), so the bytes of an unchanged frame are kept: the
    game hands back the same Image object until the picture changes. PNG is never cached: a phone
    encodes it on every call, and that cost is what the raw path avoids.
    """
    with _RAW_LOCK:
        hit = _RAW_CACHE.get(id(img))
        if hit is not None and hit[0] is img:
            return hit[1]
        head = struct.pack("<IIII", img.width, img.height, PIXEL_FORMAT_RGBA_8888, COLORSPACE_SRGB)
        data = head + img.tobytes("raw", "RGBX")
        _RAW_CACHE[id(img)] = (img, data)
        while len(_RAW_CACHE) > _RAW_CACHE_SIZE:
            _RAW_CACHE.popitem(last=False)
        return data


def _screencap(dev: SimDevice, args: list[str]) -> ShellResult:
    png, path, rest = False, None, list(args)
    while rest:
        a = rest.pop(0)
        if a == "-p":
            png = True
        elif a == "-d" and rest:
            rest.pop(0)  # one display only
        elif a.startswith("-"):
            return _err(f"screencap: unknown option {a}\nusage: screencap [-hp] [-d display-id] [FILENAME]")
        else:
            path = a
    png = png or (path is not None and path.endswith(".png"))
    img = _frame(dev)
    if png:
        data = encode_png(img)
        if dev.faults.take("corrupt_png"):
            keep = 33  # signature + IHDR stay valid, so the failure shows only when decoding
            data = data[:keep] + bytes((b * 7 + 13) & 0xFF for b in data[keep:])
    else:
        data = encode_raw(img)
        if dev.faults.take("truncate_raw"):
            data = data[: 16 + (len(data) - 16) // 2]
    if path is not None:
        dev.files[path] = data
        return ShellResult()
    return ShellResult(stdout=data, frame=True)


# ---- input -----------------------------------------------------------------------------

_INPUT_USAGE = (
    "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n"
    "      text <string>\n      keyevent [--longpress] <key code number or name> ...\n"
    "      tap <x> <y>\n      swipe <x1> <y1> <x2> <y2> [duration(ms)]\n"
    "      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y>"
)
_SOURCES = {"touchscreen", "touchpad", "mouse", "keyboard", "stylus", "dpad", "gamepad", "trackball"}


def _nums(args: list[str], n: int, m: int | None = None) -> list[int]:
    if not (n <= len(args) <= (m if m is not None else n)):
        raise ValueError(f"expected {n} arguments, got {len(args)}")
    return [int(float(a)) for a in args]


def _key(name: str) -> str | int:
    if name.isdigit():
        return int(name)
    return name if name.startswith("KEYCODE_") else "KEYCODE_" + name


def _motion(dev: SimDevice, args: list[str]) -> None:
    action = args[0].upper() if args else ""
    if action == "CANCEL":
        dev.gesture = None
        return
    x, y = _nums(args[1:], 2)
    if action == "DOWN":
        dev.gesture = Gesture(x0=x, y0=y, t0=time.monotonic(), x=x, y=y)
    elif action in ("MOVE", "UP"):
        g = dev.gesture
        if g is None:  # Android injects it anyway; without a DOWN nothing reaches the game
            return
        g.x, g.y = x, y
        if action == "UP":
            dev.gesture = None
            if abs(g.x - g.x0) + abs(g.y - g.y0) < TOUCH_SLOP_PX:
                dev.game.tap(int(g.x), int(g.y))
                dev.inputs.append(f"tap {int(g.x)} {int(g.y)}")
            else:
                ms = int((time.monotonic() - g.t0) * 1000)
                dev.game.swipe(int(g.x0), int(g.y0), int(g.x), int(g.y), ms)
                dev.inputs.append(f"swipe {int(g.x0)} {int(g.y0)} {int(g.x)} {int(g.y)} {ms}")
    else:
        raise ValueError(f"Unknown action: {args[0] if args else ''}")


def _input(dev: SimDevice, args: list[str]) -> ShellResult:
    rest = list(args)
    if rest and rest[0] in _SOURCES:
        rest.pop(0)
    if len(rest) >= 2 and rest[0] == "-d":
        rest = rest[2:]
    if not rest:
        return _err(_INPUT_USAGE)
    cmd, a = rest[0], rest[1:]
    try:
        with dev.lock:
            if cmd == "tap":
                x, y = _nums(a, 2)
                dev.game.tap(x, y)
                dev.inputs.append(f"tap {x} {y}")
            elif cmd == "swipe":
                x0, y0, x1, y1, *ms = _nums(a, 4, 5)
                duration = ms[0] if ms else 300
                dev.game.swipe(x0, y0, x1, y1, duration)
                dev.inputs.append(f"swipe {x0} {y0} {x1} {y1} {duration}")
            elif cmd == "keyevent":
                keys = [k for k in a if not k.startswith("--")]
                if not keys:
                    raise ValueError("no key code")
                for k in keys:
                    dev.game.keyevent(_key(k))
                    dev.inputs.append(f"keyevent {_key(k)}")
            elif cmd == "text":
                if len(a) != 1:
                    raise ValueError("text takes one argument")
                s = a[0].replace("%s", " ")  # Android's only escape in `input text`
                dev.game.text(s)
                dev.inputs.append(f"text {s}")
            elif cmd == "motionevent":
                _motion(dev, a)
            else:
                return _err(f"Error: Unknown command: {cmd}\n{_INPUT_USAGE}")
    except ValueError as exc:
        return _err(f"Error: Invalid arguments for command: {cmd} ({exc})")
    return ShellResult()


# ---- system information ------------------------------------------------------------------


def _wm(dev: SimDevice, args: list[str]) -> ShellResult:
    g = dev.game
    if args[:1] == ["size"]:
        return _ok(f"Physical size: {g.width}x{g.height}\n")
    if args[:1] == ["density"]:
        return _ok(f"Physical density: {dev.props.get('ro.sf.lcd_density', '420')}\n")
    return _err("usage: wm [size|density]")


def _dumpsys(dev: SimDevice, args: list[str]) -> ShellResult:
    w, h = dev.game.width, dev.game.height
    if args[:1] == ["display"]:
        # adbutils' rotation() takes the first `orientation=N` line: the viewport comes first.
        return _ok(
            "DISPLAY MANAGER (dumpsys display)\n"
            "  mViewports=[DisplayViewport{type=INTERNAL, valid=true, isActive=true, displayId=0,"
            f" uniqueId='local:0', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}),"
            f" physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}]\n"
            f'  mBaseDisplayInfo=DisplayInfo{{"Built-in Screen", displayId 0, real {w} x {h},'
            " rotation 0, density 420}\n"
        )
    if args[:1] == ["window"]:
        focus, app = _focus(dev)
        return _ok(
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            f"  Display: mDisplayId=0 rootTasks=2\n    init={w}x{h} 420dpi cur={w}x{h} app={w}x{h}\n"
            f"  mCurrentFocus={focus}\n"
            f"  mFocusedApp={app}\n"
            "  mCurrentRotation=ROTATION_0\n"
            "\nWINDOW MANAGER WINDOWS (dumpsys window windows)\n"
            f"  mCurrentFocus={focus}\n"
            f"  mFocusedApp={app}\n"
        )
    if args[:2] == ["activity", "activities"]:
        _, record = _focus(dev)
        task = record.rsplit(" t", 1)[1].rstrip("}")
        pkg = record.split(" u0 ", 1)[1].split("/", 1)[0]
        return _ok(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            "Display #0 (activities from top to bottom):\n"
            f"  * Task{{{_hex(int(task), 7)} #{task} type=standard A=10234:{pkg} U=0 visible=true mode=fullscreen"
            " translucent=false sz=1}\n"
            f"    topResumedActivity={record}\n"
            f"    * Hist  #0: {record}\n"
            f"  mResumedActivity: {record}\n"
            f"  ResumedActivity: {record}\n"
        )
    return ShellResult()  # dumpsys of an unknown service prints nothing on most builds


# ---- the game as an app: am, monkey, pm, pidof ---------------------------------------------------

LAUNCHER_TASK = 2  # the launcher's task id in `dumpsys activity` output, as on an emulator (a definition)


def _hex(n: int, salt: int) -> str:
    """A window's or record's identity hash as dumpsys prints it: stable for one task, new for the next."""
    return f"{(n * 2654435761 + salt * 40503) & 0xFFFFFFF:x}"


def _short(package: str, activity: str) -> str:
    """`pkg/.Act` when the activity lives in the package, as Android prints a component."""
    return f"{package}/" + (activity[len(package):] if activity.startswith(package + ".") else activity)


def _focus(dev: SimDevice) -> tuple[str, str]:
    """`dumpsys window`'s mCurrentFocus and mFocusedApp values: the game's while it runs (none while its window is
    not drawn yet, Android's dialog when it is not responding), else the launcher's."""
    app = dev.app
    if app is None:  # a game that is not an app: the screen's owner as before
        return "Window{1 u0 com.lluma.sim/.GameActivity}", "ActivityRecord{2 u0 com.lluma.sim/.GameActivity t1}"
    state = app.app_state
    if state == "launcher":
        comp, task = _short(LAUNCHER, LAUNCHER_ACTIVITY), LAUNCHER_TASK
    else:
        comp, task = _short(app.package, app.activity), app.task
    record = f"ActivityRecord{{{_hex(task, 3)} u0 {comp} t{task}}}"
    if state == "anr":
        return f"Window{{{_hex(task, 5)} u0 Application Not Responding: {app.package}}}", record
    if state == "game" and not app.drawn:
        return "null", record
    return f"Window{{{_hex(task, 1)} u0 {comp}}}", record


def _installed(dev: SimDevice, package: str) -> bool:
    return package in dev.packages


def _apk(dev: SimDevice, package: str) -> str:
    if package in SYSTEM_PACKAGES:
        name = package.rsplit(".", 1)[-1].capitalize()
        return f"/system/priv-app/{name}/{name}.apk"
    return f"/data/app/~~{_hex(len(package), 11)}==/{package}-{_hex(len(package), 13)}==/base.apk"


def _pm(dev: SimDevice, args: list[str]) -> ShellResult:
    if args[:2] == ["list", "packages"]:
        opts = [a for a in args[2:] if a.startswith("-")]
        words = [a for a in args[2:] if not a.startswith("-")]
        app = dev.app
        out = []
        for pkg in dev.packages:
            third = app is not None and pkg == app.package
            if ("-3" in opts and not third) or ("-s" in opts and third) or (words and words[0] not in pkg):
                continue
            out.append(f"package:{_apk(dev, pkg)}={pkg}" if "-f" in opts else f"package:{pkg}")
        return _ok("".join(line + "\n" for line in out))
    if args[:1] == ["path"] and len(args) >= 2:
        if not _installed(dev, args[-1]):
            return ShellResult(code=1)
        return _ok(f"package:{_apk(dev, args[-1])}\n")
    return _err("usage: pm [list packages [-f] [-3] [-s] [FILTER] | path PACKAGE]", 255)


def _am(dev: SimDevice, args: list[str]) -> ShellResult:
    app = dev.app
    if args[:1] == ["force-stop"]:
        if len(args) < 2:
            return _err("Error: no package specified", 255)
        if app is not None and args[-1] == app.package:
            with dev.lock:
                app.stop_app()
        return ShellResult()  # silent, installed or not
    if args[:1] not in (["start"], ["start-activity"]):
        return _err(f"Unknown command: {args[0] if args else ''}", 255)
    rest, component, stop_first = list(args[1:]), None, False
    while rest:
        a = rest.pop(0)
        if a == "-n" and rest:
            component = rest.pop(0)
        elif a == "-S":
            stop_first = True
        elif a in ("-a", "-c", "-f", "--user", "-d", "-t") and rest:
            rest.pop(0)
        elif not a.startswith("-"):
            component = component or a
    if component is None or "/" not in component:
        return _err("Error: no component given (am start -n PACKAGE/ACTIVITY)", 255)
    pkg, act = component.split("/", 1)
    act = pkg + act if act.startswith(".") else act
    intent = f"Starting: Intent {{ cmp={_short(pkg, act)} }}\n"
    if app is None or (pkg, act) != (app.package, app.activity):
        return ShellResult(stdout=intent.encode(), stderr=(
            f"Error type 3\nError: Activity class {{{_short(pkg, act)}}} does not exist.\n").encode(), code=1)
    with dev.lock:
        if stop_first:
            app.stop_app()
        started = app.start_app()
    if not started:
        intent += ("Warning: Activity not started, intent has been delivered to currently running top-most "
                   "instance.\n")
    return _ok(intent)


def _monkey(dev: SimDevice, args: list[str]) -> ShellResult:
    packages = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-p"]
    echo = "".join(f"  bash arg: {a}\n" for a in args)
    app = dev.app
    if app is None or not packages or app.package not in packages:
        return ShellResult(stdout=echo.encode(), stderr=b"** No activities found to run, monkey aborted.\n", code=252)
    with dev.lock:
        app.start_app()
    return _ok(echo + "Events injected: 1\n## Network stats: elapsed time=14ms (0ms mobile, 0ms wifi, 14ms not "
               "connected)\n")


def _pidof(dev: SimDevice, args: list[str]) -> ShellResult:
    app = dev.app
    if app is not None and app.package in args and app.app_state != "launcher":
        return _ok(f"{10000 + app.task}\n")
    return ShellResult(code=1)


def _getprop(dev: SimDevice, args: list[str]) -> ShellResult:
    if args:
        return _ok(dev.props.get(args[0], "") + "\n")
    return _ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(dev.props.items())))


def _echo(dev: SimDevice, args: list[str]) -> ShellResult:
    return _ok(" ".join(args) + "\n")


def _cat(dev: SimDevice, args: list[str]) -> ShellResult:
    out, err = b"", b""
    for path in args:
        if path in dev.files:
            out += dev.files[path]
        else:
            err += f"cat: {path}: No such file or directory\n".encode()
    return ShellResult(stdout=out, stderr=err, code=1 if err else 0)


def _sleep(dev: SimDevice, args: list[str]) -> ShellResult:
    try:
        time.sleep(min(float(args[0]), MAX_SLEEP_S))
    except (IndexError, ValueError):
        return _err("sleep: bad duration")
    return ShellResult()


COMMANDS: dict[str, Callable[[SimDevice, list[str]], ShellResult]] = {
    "screencap": _screencap,
    "input": _input,
    "wm": _wm,
    "dumpsys": _dumpsys,
    "getprop": _getprop,
    "echo": _echo,
    "cat": _cat,
    "sleep": _sleep,
    "am": _am,
    "monkey": _monkey,
    "pm": _pm,
    "pidof": _pidof,
    "true": lambda dev, args: ShellResult(),
    "false": lambda dev, args: ShellResult(code=1),
}


STATUS = "\x00?"  # `$?` outside single quotes, expanded when the command runs (single quotes keep it literal)


def _split(cmdline: str) -> list[list[str] | str]:
    """Words grouped into simple commands, with the operators (`;`, `&&`, `||`) between them.

    A small sh-style scanner rather than shlex: shlex unquotes `'&'` to the same token as an unquoted `&`,
    so a quoted metacharacter (a model typing "&" into a text field) would be taken for an operator."""
    parts: list[list[str] | str] = []
    words: list[str] = []
    word: list[str] | None = None  # None: between words
    i, n = 0, len(cmdline)
    while i < n:
        c = cmdline[i]
        if c in " \t\n":
            if word is not None:
                words.append("".join(word))
                word = None
            i += 1
        elif c in ";&|":
            if word is not None:
                words.append("".join(word))
                word = None
            j = i
            while j < n and cmdline[j] in ";&|":
                j += 1
            op = cmdline[i:j]
            if op not in (";", "&&", "||"):
                raise ValueError(f"syntax error: '{op}' unexpected")
            parts += [words, op]
            words = []
            i = j
        elif c == "'":
            end = cmdline.find("'", i + 1)
            if end < 0:
                raise ValueError("syntax error: unterminated quoted string")
            word = (word or []) + [cmdline[i + 1 : end]]
            i = end + 1
        elif c == '"':
            buf, i = [], i + 1
            while i < n and cmdline[i] != '"':
                if cmdline[i] == "\\" and i + 1 < n and cmdline[i + 1] in '"\\$`':
                    i += 1
                elif cmdline.startswith("$?", i):
                    buf.append(STATUS)
                    i += 2
                    continue
                buf.append(cmdline[i])
                i += 1
            if i >= n:
                raise ValueError("syntax error: unterminated quoted string")
            word = (word or []) + ["".join(buf)]
            i += 1
        elif c == "\\" and i + 1 < n:
            word = (word or []) + [cmdline[i + 1]]
            i += 2
        elif cmdline.startswith("$?", i):
            word = (word or []) + [STATUS]
            i += 2
        else:
            word = (word or []) + [c]
            i += 1
    if word is not None:
        words.append("".join(word))
    parts.append(words)
    return parts


def steps(dev: SimDevice, cmdline: str) -> Iterator[ShellResult]:
    """Run one shell command line on `dev`, one command at a time: each command's result as it finishes (the
    last one's code is the line's). The server sends each before running the next, so a chain of screencaps
    holds one frame at a time, not all of them."""
    try:
        parts = _split(cmdline)
    except ValueError as exc:
        yield _err(f"/system/bin/sh: {exc}", 2)
        return
    code = 0
    op = ";"
    for part in parts:
        if isinstance(part, str):
            op = part
            continue
        if not part or (op == "&&" and code != 0) or (op == "||" and code == 0):
            continue
        words = [w.replace(STATUS, str(code)) for w in part]
        handler = dev.commands.get(words[0]) or COMMANDS.get(words[0])
        if handler is None:
            res = _err(f"/system/bin/sh: {words[0]}: inaccessible or not found", 127)
        else:
            try:
                res = handler(dev, words[1:])
            except Exception as exc:  # a game bug must not take the server thread down
                log.exception("shell command %r failed", words)
                res = _err(f"{words[0]}: {type(exc).__name__}: {exc}")
        code = res.code
        yield res


def chained(cmdline: str) -> bool:
    """More than one command on the line (`;`, `&&`, `||`)."""
    try:
        return sum(1 for p in _split(cmdline) if not isinstance(p, str) and p) > 1
    except ValueError:
        return False


def run(dev: SimDevice, cmdline: str) -> ShellResult:
    """Run one shell command line on `dev`, its whole output at once (`steps` streams it)."""
    stream: list[tuple[int, bytes]] = []
    code, frame = 0, False
    for res in steps(dev, cmdline):
        stream += res.stream
        code, frame = res.code, frame or res.frame
    # b"".join of a single item returns it as is: a 10 MB frame is not copied.
    out = b"".join(d for k, d in stream if k == 1)
    err = b"".join(d for k, d in stream if k == 2)
    return ShellResult(out, err, code, frame, stream)
