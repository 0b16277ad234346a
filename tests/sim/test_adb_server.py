"""The fake adb server, driven by adbutils and by the real `adb` client, unmodified."""

from __future__ import annotations

import io
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

import adbutils
import pytest
from adbutils import AdbError, AdbTimeout
from PIL import Image

from lluma_cli.sim import main as sim_main
from lluma_sim.adb.server import AdbServer
from lluma_sim.game import SimGame

SERIAL = "sim-0"  # the device the adb_server fixture attaches

# ---- helpers ---------------------------------------------------------------------------------


def client(server: AdbServer) -> adbutils.AdbClient:
    return adbutils.AdbClient("127.0.0.1", server.port)


def raw_request(server: AdbServer, *requests: str) -> bytes:
    """Send host requests on one socket and return everything the server answers."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        for r in requests:
            s.sendall(b"%04x" % len(r) + r.encode())
        s.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
        return out


def center(server: AdbServer, name: str, serial: str = SERIAL) -> tuple[int, int]:
    element = server.game(serial).truth().element(name)
    assert element is not None, f"no {name!r} on screen {server.game(serial).truth().screen}"
    return element.box.center


# ---- host services through adbutils ------------------------------------------------------------


def test_version_and_device_listing(adb_server: AdbServer) -> None:
    c = client(adb_server)
    assert c.server_version() == 41
    assert [(i.serial, i.state) for i in c.list()] == [(SERIAL, "device")]
    info = c.list(extended=True)[0]
    assert info.tags["model"] == "LLuMa_Sim" and info.tags["transport_id"] == "1"
    assert c.device(SERIAL).get_state() == "device"
    assert c.device(SERIAL).get_features() == "shell_v2,cmd"


def test_adbutils_default_client_follows_env(adb_server: AdbServer) -> None:
    # The fixture sets ANDROID_ADB_SERVER_PORT; a client built now reads it.
    assert adbutils.AdbClient().port == adb_server.port
    assert adbutils.AdbClient().device().serial == SERIAL


def test_shell_commands_adbutils_relies_on(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    assert d.shell("wm size") == "Physical size: 1080x1920"
    assert tuple(d.window_size()) == (1080, 1920)
    assert d.rotation() == 0
    assert d.prop.model == "LLuMa_Sim"
    assert d.getprop("ro.build.version.sdk") == "34"
    assert "[ro.product.model]: [LLuMa_Sim]" in d.shell("getprop")
    assert "DisplayViewport{" in d.shell("dumpsys display")
    assert "mCurrentRotation=ROTATION_0" in d.shell("dumpsys window")
    assert d.shell(["echo", "a b", "c"]) == "a b c"


def test_exit_codes_over_shell_v2_and_v1(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    r = d.shell2("frobnicate --now", v2=True)
    assert r.returncode == 127
    assert r.stderr == "/system/bin/sh: frobnicate: inaccessible or not found\n" and r.stdout == ""
    assert d.shell2("echo hi", v2=True).stdout == "hi\n"
    # v1 (no shell protocol): adbutils appends `; echo X4EXIT:$?` and parses the status.
    assert d.shell2("frobnicate", v2=False).returncode == 127
    assert d.shell2("true && echo yes || echo no").output == "yes\n"
    assert d.shell2("false && echo yes || echo no").output == "no\n"


def test_screencap_png_and_raw_match_the_game(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    png = d.screenshot(error_ok=False)
    assert png.size == (1080, 1920) and png.mode == "RGB"
    raw = d.shell("screencap", encoding=None)
    w, h, fmt, colorspace = struct.unpack_from("<IIII", raw)
    assert (w, h, fmt, colorspace) == (1080, 1920, 1, 1)
    assert len(raw) == 16 + w * h * 4
    raw_img = Image.frombytes("RGBA", (w, h), raw[16:]).convert("RGB")
    assert raw_img.tobytes() == png.tobytes()  # the home screen is still: same picture both ways


def test_tap_on_a_button_changes_the_next_frame(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    before = d.screenshot(error_ok=False)
    x, y = center(adb_server, "Career")
    d.click(x, y)
    assert adb_server.game(SERIAL).truth().screen == "setup"
    assert d.screenshot(error_ok=False).tobytes() != before.tobytes()
    assert adb_server.device(SERIAL).inputs == [f"tap {x} {y}"]


def test_input_commands_and_bad_arguments(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    d.swipe(500, 1500, 500, 900, 0.2)
    d.keyevent("KEYCODE_BACK")
    d.shell("input keyevent 4")
    d.shell(["input", "text", "it's%sok;"])
    inputs = adb_server.device(SERIAL).inputs
    assert inputs == ["swipe 500 1500 500 900 200", "keyevent KEYCODE_BACK", "keyevent 4", "text it's ok;"]
    for bad in ("input tap 10", "input tap x y", "input frob 1 2", "input"):
        r = d.shell2(bad, v2=True)
        assert r.returncode == 1 and ("Error" in r.stderr or "Usage" in r.stderr), bad
    assert len(adb_server.device(SERIAL).inputs) == 4  # nothing reached the game


# ---- the real adb client -------------------------------------------------------------------------


def test_real_adb_devices(adb) -> None:
    r = adb("devices")
    assert r.returncode == 0, r.stderr
    assert f"{SERIAL}\tdevice" in r.stdout.decode()
    r = adb("devices", "-l")
    assert "model:LLuMa_Sim" in r.stdout.decode() and "transport_id:1" in r.stdout.decode()
    assert adb("-s", SERIAL, "get-state").stdout.decode().strip() == "device"


def test_real_adb_exec_out_screencap_png(adb) -> None:
    r = adb("-s", SERIAL, "exec-out", "screencap", "-p")
    assert r.returncode == 0, r.stderr
    img = Image.open(io.BytesIO(r.stdout))
    img.load()
    assert img.format == "PNG" and img.size == (1080, 1920)


def test_real_adb_shell_tap_changes_the_frame(adb, adb_server: AdbServer) -> None:
    before = adb("-s", SERIAL, "exec-out", "screencap", "-p").stdout
    x, y = center(adb_server, "Career")
    r = adb("-s", SERIAL, "shell", "input", "tap", str(x), str(y))
    assert r.returncode == 0, r.stderr
    assert adb_server.device(SERIAL).inputs == [f"tap {x} {y}"]
    assert adb_server.game(SERIAL).truth().screen == "setup"
    assert adb("-s", SERIAL, "exec-out", "screencap", "-p").stdout != before


def test_real_adb_shell_status_and_output(adb) -> None:
    r = adb("-s", SERIAL, "shell", "wm", "size")
    assert (r.returncode, r.stdout) == (0, b"Physical size: 1080x1920\n")
    r = adb("-s", SERIAL, "shell", "nosuchcmd")
    assert r.returncode == 127
    assert b"nosuchcmd: inaccessible or not found" in r.stderr


def test_real_adb_shell_expands_status_like_sh(adb) -> None:
    # sh expands $? unquoted and in double quotes, never in single quotes (the device layer single-quotes
    # what the model types, so a typed "$?" must arrive as those two characters)
    r = adb("-s", SERIAL, "shell", "false; echo $? \"$?\" '$?'")
    assert (r.returncode, r.stdout) == (0, b"1 1 $?\n")


def test_real_adb_unknown_serial_is_an_error(adb, adb_server: AdbServer) -> None:
    r = adb("-s", "nope", "shell", "input", "tap", "1", "1")
    assert r.returncode == 1
    assert b"device 'nope' not found" in r.stderr
    assert adb_server.device(SERIAL).inputs == []


def test_real_adb_pull(adb, tmp_path: Path) -> None:
    r = adb("-s", SERIAL, "pull", "/system/build.prop", str(tmp_path / "build.prop"))
    assert r.returncode == 0, r.stderr + r.stdout
    assert "ro.product.model=LLuMa_Sim" in (tmp_path / "build.prop").read_text()
    assert adb("-s", SERIAL, "shell", "screencap", "-p", "/sdcard/screen.png").returncode == 0
    r = adb("-s", SERIAL, "pull", "/sdcard/screen.png", str(tmp_path / "screen.png"))
    assert r.returncode == 0, r.stderr + r.stdout
    assert Image.open(tmp_path / "screen.png").size == (1080, 1920)
    r = adb("-s", SERIAL, "pull", "/sdcard/missing.png", str(tmp_path / "x"))
    assert r.returncode == 1 and b"does not exist" in r.stdout + r.stderr


def test_real_adb_connect_and_disconnect(adb, adb_server: AdbServer) -> None:
    r = adb("connect", "127.0.0.1:5556")
    assert b"connected to 127.0.0.1:5556" in r.stdout
    assert "127.0.0.1:5556\tdevice" in adb("devices").stdout.decode()
    assert adb("-s", "127.0.0.1:5556", "shell", "wm", "size").stdout == b"Physical size: 1080x1920\n"
    assert b"disconnected 127.0.0.1:5556" in adb("disconnect", "127.0.0.1:5556").stdout
    assert adb_server.serials == [SERIAL]


def test_real_adb_kill_server_stops_the_simulator(adb_exe: str) -> None:
    server = AdbServer(game_factory=lambda serial, i: SimGame(seed=i)).start()
    server.add_device(SERIAL)
    cmd = [adb_exe, "-H", "127.0.0.1", "-P", str(server.port), "kill-server"]
    r = subprocess.run(cmd, capture_output=True, timeout=20)
    assert r.returncode == 0, r.stderr
    assert server.wait(5)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


# ---- several devices, connect, sync -------------------------------------------------------------


def test_several_devices_each_with_its_own_game(adb_server: AdbServer) -> None:
    adb_server.add_device("sim-1", SimGame(seed=1))
    c = client(adb_server)
    assert sorted(i.serial for i in c.list()) == [SERIAL, "sim-1"]
    x, y = center(adb_server, "Career", "sim-1")
    c.device("sim-1").click(x, y)
    assert adb_server.game("sim-1").truth().screen == "setup"
    assert adb_server.game(SERIAL).truth().screen == "home"
    assert adb_server.device(SERIAL).inputs == []
    with pytest.raises(AdbError, match="more than one device"):
        c.device()  # adbutils refuses to guess...
    assert raw_request(adb_server, "host:transport-any") == b"FAIL001dmore than one device/emulator"  # ...so does adb


def test_connect_and_disconnect_register_devices(adb_server: AdbServer) -> None:
    c = client(adb_server)
    assert c.connect("127.0.0.1:5555") == "connected to 127.0.0.1:5555"
    assert c.connect("127.0.0.1:5555") == "already connected to 127.0.0.1:5555"
    assert c.connect("localhost") == "connected to localhost:5555"  # default port, like adb
    assert "failed to connect" in c.connect("127.0.0.1:99999")
    assert c.device("127.0.0.1:5555").shell("echo up") == "up"
    assert c.disconnect("127.0.0.1:5555") == "disconnected 127.0.0.1:5555"
    with pytest.raises(AdbError, match="no such device"):
        c.disconnect("127.0.0.1:5555", raise_error=True)
    assert c.disconnect("") == "disconnected everything"
    assert adb_server.serials == [SERIAL]


def test_sync_stat_pull_push_list(adb_server: AdbServer) -> None:
    sync = client(adb_server).device(SERIAL).sync
    info = sync.stat("/system/build.prop")
    assert info.size > 0 and info.mode & 0o100000
    assert "ro.build.version.sdk=34" in sync.read_text("/system/build.prop")
    assert sync.stat("/nope").mtime is None  # missing: all zeros, like adbd
    assert sync.push(b"hello", "/data/local/tmp/x.txt") == 5
    assert sync.read_bytes("/data/local/tmp/x.txt") == b"hello"
    assert "x.txt" in [f.path for f in sync.list("/data/local/tmp")]
    with pytest.raises(AdbError, match="No such file"):
        sync.read_bytes("/sdcard/missing")


def test_track_devices_reports_changes(adb_server: AdbServer) -> None:
    events = client(adb_server).track_devices()
    first = next(events)
    assert (first.present, first.serial, first.status) == (True, SERIAL, "device")
    adb_server.add_device("sim-9", SimGame(seed=9))
    added = next(events)
    assert (added.present, added.serial) == (True, "sim-9")


# ---- faults and bad input ----------------------------------------------------------------------------


def test_offline_device_is_listed_and_refused(adb_server: AdbServer) -> None:
    adb_server.faults(SERIAL).offline = True
    c = client(adb_server)
    assert [(i.serial, i.state) for i in c.list()] == [(SERIAL, "offline")]
    with pytest.raises(AdbError, match="device offline"):
        c.device(SERIAL).shell("input tap 1 1")
    adb_server.faults(SERIAL).offline = 1  # counted: the next request sees it offline, then it is back
    assert c.list()[0].state == "offline"
    assert c.list()[0].state == "device"
    assert adb_server.device(SERIAL).inputs == []


def test_delay_makes_adbutils_time_out(adb_server: AdbServer) -> None:
    adb_server.faults(SERIAL).delay_s = 0.5
    d = client(adb_server).device(SERIAL)
    with pytest.raises(AdbTimeout):
        d.shell("echo late", timeout=0.1)
    adb_server.faults(SERIAL).delay_s = 0
    assert d.shell("echo now") == "now"


def test_drop_mid_frame_resets_the_connection_once(adb_server: AdbServer) -> None:
    adb_server.faults(SERIAL).drop_mid_frame = 1
    d = client(adb_server).device(SERIAL)
    c = d.shell("screencap", stream=True)
    with pytest.raises(ConnectionResetError):
        while c.conn.recv(1 << 20):
            pass
    c.conn.close()
    assert len(d.shell("screencap", encoding=None)) == 16 + 1080 * 1920 * 4  # one-shot: next is whole


def test_corrupt_png_becomes_a_silent_black_image_in_adbutils(adb_server: AdbServer) -> None:
    # Why lluma_agent.device.android does not use screenshot(): by default a bad PNG is a black frame.
    adb_server.faults(SERIAL).corrupt_png = True
    d = client(adb_server).device(SERIAL)
    assert d.screenshot().getbbox() is None
    with pytest.raises(AdbError):
        d.screenshot(error_ok=False)


def test_garbage_and_unknown_services_do_not_kill_the_server(adb_server: AdbServer) -> None:
    with socket.create_connection(("127.0.0.1", adb_server.port), timeout=5) as s:
        s.sendall(b"zzzzhello")
        assert s.recv(100).startswith(b"FAIL") and s.recv(100) == b""  # told, then dropped
    assert raw_request(adb_server, "host:frobnicate") == b"FAIL0014unknown host service"
    assert raw_request(adb_server, "host:transport:nope") == b"FAIL0017device 'nope' not found"
    assert raw_request(adb_server, "host:transport:" + SERIAL, "reboot:") == b"OKAYFAIL0006closed"
    tport = raw_request(adb_server, "host:tport:serial:" + SERIAL)
    assert tport == b"OKAY" + (1).to_bytes(8, "little")
    assert client(adb_server).server_version() == 41


def test_only_loopback_and_stop_releases_the_port() -> None:
    with pytest.raises(ValueError, match="loopback"):
        AdbServer(host="0.0.0.0")
    server = AdbServer().start()
    port = server.port
    server.stop()
    server.stop()  # idempotent
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_stop_closes_open_client_connections(adb_server: AdbServer) -> None:
    events = client(adb_server).track_devices()
    next(events)
    done = threading.Event()

    def drain() -> None:
        try:
            next(events)
        except Exception:
            pass
        done.set()

    threading.Thread(target=drain, daemon=True).start()
    adb_server.stop()
    assert done.wait(5)


# ---- `lluma sim phone` ------------------------------------------------------------------------------


def test_sim_phone_cli_runs_until_kill_server() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "lluma_cli.sim", "phone", "--port", "0", "--devices", "2", "--size", "720x1280"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()  # type: ignore[union-attr]
        port = int(first.split("127.0.0.1:")[1].split(",")[0])
        lines = [proc.stdout.readline() for _ in range(8)]  # type: ignore[union-attr]
        assert lines[0].strip() == "serials: sim-0 sim-1"
        assert any(f"adb -H 127.0.0.1 -P {port} -s sim-0 shell input tap" in line for line in lines)
        assert any(f"ANDROID_ADB_SERVER_PORT={port}" in line for line in lines)
        c = adbutils.AdbClient("127.0.0.1", port)
        assert c.device("sim-1").shell("wm size") == "Physical size: 720x1280"
        c.server_kill()
        assert proc.wait(10) == 0
    finally:
        proc.kill()
        proc.wait()


def test_sim_cli_bad_arguments() -> None:
    assert sim_main(["phone", "--size", "huge"]) == 2
    assert sim_main(["phone", "--devices", "0"]) == 2
    assert sim_main(["nope"]) == 2


def test_server_keeps_serving_while_a_slow_command_runs(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    slow = threading.Thread(target=lambda: d.shell("sleep 4"))
    slow.start()
    assert d.shell("echo fast") == "fast"
    assert slow.is_alive()  # answered while the slow command still runs: a server serving one at a time could not
    slow.join()


def test_wait_for_and_env_port_with_the_real_client(adb_server: AdbServer, adb_exe: str) -> None:
    c = client(adb_server)
    c.wait_for(SERIAL, state="device", timeout=2)
    c.wait_for("gone-serial", state="disconnect", timeout=2)
    env = {"ANDROID_ADB_SERVER_PORT": str(adb_server.port), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([adb_exe, "-s", SERIAL, "shell", "wm", "size"], capture_output=True, timeout=20, env=env)
    assert (r.returncode, r.stdout) == (0, b"Physical size: 1080x1920\n")


# ---- the game is an app: am, monkey, pm, dumpsys --------------------------------------------------------------

PKG = "com.cygames.umamusume"
ACT = "jp.co.cygames.umamusume_activity.UmamusumeActivity"


def focus(d: adbutils.AdbDevice) -> tuple[list[str], list[str]]:
    """Every mCurrentFocus and mFocusedApp value `dumpsys window` prints."""
    out = d.shell("dumpsys window")
    lines = [ln.strip() for ln in out.splitlines()]
    return ([ln.split("=", 1)[1] for ln in lines if ln.startswith("mCurrentFocus=")],
            [ln.split("=", 1)[1] for ln in lines if ln.startswith("mFocusedApp=")])


def test_packages_as_pm_lists_them(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    listed = d.shell("pm list packages").splitlines()
    assert f"package:{PKG}" in listed and "package:com.google.android.apps.nexuslauncher" in listed
    assert d.shell("pm list packages umamusume") == f"package:{PKG}"
    assert d.shell("pm list packages -3") == f"package:{PKG}"  # the only app a user installed
    r = d.shell2(f"pm path {PKG}")
    assert r.returncode == 0 and r.output.startswith("package:/data/app/") and r.output.strip().endswith("/base.apk")
    r = d.shell2("pm path jp.co.cygames.umamusume")  # the Japanese client is not installed here
    assert (r.returncode, r.output) == (1, "")


def test_foreground_app_in_dumpsys_follows_the_game(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    game = adb_server.game(SERIAL)
    assert isinstance(game, SimGame)
    current, app = focus(d)
    assert len(current) == 2 and all(c.startswith("Window{") and c.endswith(f" u0 {PKG}/{ACT}}}") for c in current)
    assert all(a.startswith("ActivityRecord{") and f" u0 {PKG}/{ACT} t409}}" in a for a in app)
    resumed = [ln.strip() for ln in d.shell("dumpsys activity activities").splitlines() if "mResumedActivity" in ln]
    assert resumed == [f"mResumedActivity: {app[0]}"]

    game.hazard("anr")  # Android's dialog has the focus; the game is still the focused app
    current, app = focus(d)
    assert all(c.endswith(f" u0 Application Not Responding: {PKG}}}") for c in current) and PKG in app[0]

    r = d.shell2(f"am force-stop {PKG}")
    assert (r.returncode, r.output) == (0, "")
    current, app = focus(d)
    launcher = "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
    assert all(c.endswith(f" u0 {launcher}}}") for c in current) and all(launcher in a for a in app)
    assert game.truth().app == "launcher" and "nexuslauncher" in d.shell("dumpsys activity activities")
    assert d.shell2(f"pidof {PKG}").returncode == 1


def test_monkey_and_am_start_the_game_as_android_answers(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    game = adb_server.game(SERIAL)
    assert isinstance(game, SimGame)
    r = d.shell2(f"am start -n {PKG}/{ACT}")  # running already: delivered to it, nothing restarted
    assert r.returncode == 0 and r.output.startswith(f"Starting: Intent {{ cmp={PKG}/{ACT} }}")
    assert "Warning: Activity not started" in r.output and game.truth().screen == "home"

    d.shell(f"am force-stop {PKG}")
    r = d.shell2(f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    assert r.returncode == 0 and "Events injected: 1" in r.output
    assert game.truth().screen == "title" and game.truth().app == "game"
    assert focus(d)[0] == ["null", "null"]  # started, its window not drawn yet
    d.screenshot(error_ok=False)
    assert focus(d)[0][0].endswith(f"{PKG}/{ACT}}}") and d.shell(f"pidof {PKG}").isdigit()

    r = d.shell2("monkey -p jp.co.cygames.umamusume -c android.intent.category.LAUNCHER 1")
    assert r.returncode == 252 and "** No activities found to run, monkey aborted." in r.output

    d.shell(f"am force-stop {PKG}")
    r = d.shell2(f"am start -n {PKG}/{ACT}")
    assert (r.returncode, r.output) == (0, f"Starting: Intent {{ cmp={PKG}/{ACT} }}\n")
    assert game.truth().screen == "title"
    r = d.shell2(f"am start -n {PKG}/.MainActivity")
    assert r.returncode == 1 and f"Error: Activity class {{{PKG}/.MainActivity}} does not exist." in r.output
    task = game.state.task
    assert d.shell2(f"am start -S -n {PKG}/{ACT}").returncode == 0 and game.state.task == task + 1  # -S: stopped first


def test_launcher_icon_starts_the_game(adb_server: AdbServer) -> None:
    d = client(adb_server).device(SERIAL)
    d.shell(f"am force-stop {PKG}")
    x, y = center(adb_server, "Umamusume")
    d.click(x, y)
    assert adb_server.game(SERIAL).truth().screen == "title"


def test_real_adb_force_stop_and_monkey(adb, adb_server: AdbServer) -> None:
    game = adb_server.game(SERIAL)
    assert isinstance(game, SimGame)
    r = adb("-s", SERIAL, "shell", "am", "force-stop", PKG)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")
    assert game.truth().app == "launcher"
    r = adb("-s", SERIAL, "shell", "dumpsys", "window")
    assert b"mCurrentFocus=Window{" in r.stdout and b"nexuslauncher/.NexusLauncherActivity}" in r.stdout
    r = adb("-s", SERIAL, "shell", "monkey", "-p", PKG, "-c", "android.intent.category.LAUNCHER", "1")
    assert r.returncode == 0 and b"Events injected: 1" in r.stdout and game.truth().screen == "title"
    r = adb("-s", SERIAL, "shell", "pm", "path", "com.kakaogames.umamusume")
    assert (r.returncode, r.stdout) == (1, b"")
    r = adb("-s", SERIAL, "shell", "am", "start", "-n", "com.kakaogames.umamusume/.X")
    assert r.returncode == 1 and b"does not exist" in r.stderr
