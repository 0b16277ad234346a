"""lluma_agent.device.android and settle against the fake adb server running the real SimGame."""

from __future__ import annotations

import socket
import struct
import sys
import time

import pytest
from PIL import Image

from lluma_agent.config import DeviceConfig
from lluma_agent.device.address import AdbAddressError
from lluma_agent.device.android import (
    BlackFrame,
    Device,
    DeviceDisconnected,
    DeviceError,
    DeviceNotFound,
    Frame,
    FrameError,
    InputUnknown,
    _decode_raw,
    _RawUnsupported,
    adb_server_of,
)
from lluma_agent.device.settle import settle
from lluma_sim.adb import shell as adb_shell
from lluma_sim.adb.server import AdbServer
from lluma_sim.game import SimGame
from lluma_vision.models import Box
from lluma_vision.phash import phash

SERIAL = "sim-0"


def box_of(server: AdbServer, name: str, serial: str = SERIAL) -> Box:
    element = server.game(serial).truth().element(name)
    assert element is not None, f"no {name!r} on {server.game(serial).truth().screen}"
    return element.box


def game_frame(server: AdbServer, serial: str = SERIAL) -> Image.Image:
    return server.game(serial).capture()


# ---- connect -------------------------------------------------------------------------------------


def test_connect_by_serial(device: Device) -> None:
    assert device.serial == SERIAL
    assert device.size == (1080, 1920)
    assert device.window_size() == (1080, 1920) and device.rotation() == 0


def test_connect_without_serial_picks_the_only_device(device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"serial": None}))
    assert d.connect() == SERIAL


def test_connect_without_serial_refuses_to_guess(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    adb_server.add_device("sim-1", SimGame(seed=1))
    with pytest.raises(DeviceNotFound, match=r"2 devices are attached.*sim-0 \(device\), sim-1 \(device\)"):
        Device(device_cfg.model_copy(update={"serial": None})).connect()


def test_unknown_serial_lists_the_attached_devices(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"serial": "R58M123"}))
    with pytest.raises(DeviceNotFound, match=r"'R58M123' not found.*attached: sim-0 \(device\)"):
        d.connect()
    with pytest.raises(DeviceError, match="not connected"):
        d.tap(Box(x0=0, y0=0, x1=10, y1=10))
    assert adb_server.device(SERIAL).inputs == []


def test_no_adb_server_is_a_clear_fast_error(free_port: int) -> None:
    d = Device(DeviceConfig(adb_port=free_port, serial=SERIAL))
    with pytest.raises(DeviceError, match=rf"no adb server answers at 127.0.0.1:{free_port}.*adb start-server"):
        d.connect()  # and no daemon was started: tests/agent/test_adb_client.py


def test_connect_waits_for_a_device_that_is_still_coming_up(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    adb_server.faults(SERIAL).offline = 2  # e.g. offline for a moment right after `adb connect`
    assert Device(device_cfg).connect() == SERIAL
    adb_server.faults(SERIAL).offline = True
    with pytest.raises(DeviceError, match="sim-0 is offline, not ready"):
        Device(device_cfg.model_copy(update={"command_timeout_s": 0.3})).connect()


def test_connect_registers_an_emulator_address(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"serial": None, "connect": "127.0.0.1:5555"}))
    assert d.connect() == "127.0.0.1:5555"
    assert d.capture().size == (1080, 1920)
    bad = Device(device_cfg.model_copy(update={"serial": None, "connect": "127.0.0.1:0"}))
    with pytest.raises(DeviceNotFound, match="adb connect 127.0.0.1:0: failed to connect"):
        bad.connect()


# ---- capture ---------------------------------------------------------------------------------------


def test_raw_capture_is_exactly_the_game_frame(adb_server: AdbServer, device: Device) -> None:
    frame = device.capture()
    assert isinstance(frame, Frame) and frame.source == "raw"
    assert frame.image.mode == "RGB" and frame.size == (1080, 1920)
    assert frame.image.tobytes() == game_frame(adb_server).tobytes()
    assert frame.phash == phash(frame.image)
    assert abs(frame.taken_at - time.time()) < 5


def test_png_capture_matches_raw(adb_server: AdbServer, device_cfg: DeviceConfig, device: Device) -> None:
    png = Device(device_cfg.model_copy(update={"capture": "png"}))
    png.connect()
    a, b = device.capture(), png.capture()
    assert b.source == "png" and a.image.tobytes() == b.image.tobytes()


def test_drop_mid_frame_raises_disconnected_then_capture_works(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).drop_mid_frame = 1
    with pytest.raises(DeviceDisconnected, match="reconnected after 1 attempt") as err:
        device.capture()
    assert err.value.reconnected is True
    assert device.capture().source == "raw"
    assert adb_server.device(SERIAL).inputs == []


def test_truncated_raw_frame_falls_back_to_png_once(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).truncate_raw = 1
    frame = device.capture()
    assert frame.source == "png" and frame.image.tobytes() == game_frame(adb_server).tobytes()
    assert device.capture().source == "raw"


def test_truncated_raw_and_corrupt_png_is_a_frame_error(adb_server: AdbServer, device: Device) -> None:
    faults = adb_server.faults(SERIAL)
    faults.truncate_raw, faults.corrupt_png = 1, 1
    with pytest.raises(FrameError, match=r"cut short: \d+ of 8294400 pixel bytes.*PNG screencap undecodable"):
        device.capture()
    assert device.capture().source == "raw"


def test_corrupt_png_is_a_frame_error_not_a_black_frame(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"capture": "png"}))
    d.connect()
    adb_server.faults(SERIAL).corrupt_png = True
    with pytest.raises(FrameError, match="PNG screencap undecodable"):
        d.capture()
    adb_server.faults(SERIAL).corrupt_png = False
    assert d.capture().image.getbbox() is not None


def test_all_black_frame_is_refused(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).black_frame = True
    with pytest.raises(FrameError, match="all-black"):
        device.capture()
    adb_server.faults(SERIAL).black_frame = False
    assert device.capture().source == "raw"


def test_slow_device_times_out_as_disconnected(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"command_timeout_s": 0.2}))
    d.connect()
    adb_server.faults(SERIAL).delay_s = 0.5
    with pytest.raises(DeviceDisconnected, match="timed out") as err:
        d.capture()
    assert err.value.reconnected is True  # host services still answer; the caller may retry
    adb_server.faults(SERIAL).delay_s = 0


def _feed(payload: bytes) -> socket.socket:
    a, b = socket.socketpair()
    a.sendall(payload)
    a.close()
    return b


def test_decode_raw_header_variants() -> None:
    pixels = bytes([10, 20, 30, 255]) * 6
    with _feed(struct.pack("<III", 3, 2, 1) + pixels) as s:  # 12-byte header (older Android)
        assert _decode_raw(s).getpixel((2, 1)) == (10, 20, 30)
    with _feed(struct.pack("<IIII", 3, 2, 5, 1) + pixels) as s:  # BGRA
        assert _decode_raw(s).getpixel((0, 0)) == (30, 20, 10)
    with _feed(struct.pack("<IIII", 3, 2, 1, 1) + pixels + b"extra") as s, pytest.raises(FrameError, match="longer"):
        _decode_raw(s)
    with _feed(b"/system/bin/sh: screencap: not found\n") as s, pytest.raises(_RawUnsupported):
        _decode_raw(s)
    with _feed(struct.pack("<III", 3, 2, 4) + pixels) as s, pytest.raises(_RawUnsupported):  # RGB_565
        _decode_raw(s)
    with _feed(b"\x01\x00") as s, pytest.raises(FrameError, match="header"):
        _decode_raw(s)


# ---- offline / gone -------------------------------------------------------------------------------------


def test_offline_device_reconnects_when_it_comes_back(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).offline = 2  # the tap and the first reconnect check see it offline
    box = box_of(adb_server, "Career")
    with pytest.raises(DeviceDisconnected, match="device offline.*reconnected after 2") as err:
        device.tap(box)
    assert err.value.reconnected is True
    assert adb_server.device(SERIAL).inputs == []  # never silently retried
    x, y = device.tap(box)
    assert adb_server.device(SERIAL).inputs == [f"tap {x} {y}"]


def test_device_that_stays_offline_gives_up_after_bounded_backoff(
    adb_server: AdbServer, device: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    adb_server.faults(SERIAL).offline = True
    waits: list[float] = []
    real_sleep = time.sleep

    def sleep(s: float) -> None:
        if sys._getframe(1).f_globals.get("__name__") == "lluma_agent.device.android":  # not adbutils' or the server's
            waits.append(s)
        real_sleep(s)

    monkeypatch.setattr(time, "sleep", sleep)
    with pytest.raises(DeviceDisconnected, match=r"still unreachable after 3 attempt\(s\).*offline") as err:
        device.back()
    assert err.value.reconnected is False
    assert waits == [0.01, 0.02, 0.04]  # reconnect_backoff_s doubling, reconnect_attempts of them
    assert adb_server.device(SERIAL).inputs == []


def test_server_gone_mid_run(adb_server: AdbServer, device: Device) -> None:
    adb_server.stop()
    with pytest.raises(DeviceDisconnected, match="still unreachable") as err:
        device.capture()
    assert err.value.reconnected is False


# ---- input -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_tap_point_stays_in_the_inner_box(device_cfg: DeviceConfig, seed: int) -> None:
    d = Device(device_cfg, seed=seed)
    d.size = (1080, 1920)
    f, j = device_cfg.tap_inner_fraction, device_cfg.tap_jitter_px
    for box in (Box(x0=100, y0=200, x1=500, y1=300), Box(x0=10, y0=10, x1=14, y1=13), Box(x0=5, y0=5, x1=6, y1=6)):
        for _ in range(200):
            x, y = d.tap_point(box)
            assert box.contains(x, y)
            cx, cy = (box.x0 + box.x1 - 1) / 2, (box.y0 + box.y1 - 1) / 2
            assert abs(x - cx) <= (box.width - 1) * f / 2 + j + 0.5
            assert abs(y - cy) <= (box.height - 1) * f / 2 + j + 0.5


def test_tap_varies_and_is_reproducible_with_a_seed(device_cfg: DeviceConfig) -> None:
    box = Box(x0=100, y0=200, x1=500, y1=300)
    a, b = Device(device_cfg, seed=3), Device(device_cfg, seed=3)
    points = [a.tap_point(box) for _ in range(20)]
    assert points == [b.tap_point(box) for _ in range(20)]
    assert len(set(points)) > 10


def test_tap_on_a_button_lands_inside_it_and_acts(adb_server: AdbServer, device: Device) -> None:
    box = box_of(adb_server, "Career")
    x, y = device.tap(box)
    assert box.contains(x, y)
    assert adb_server.device(SERIAL).inputs == [f"tap {x} {y}"]
    assert adb_server.game(SERIAL).truth().screen == "setup"  # a new career's first page


def test_tap_off_screen_sends_nothing(adb_server: AdbServer, device: Device) -> None:
    with pytest.raises(DeviceError, match="outside the 1080x1920 screen"):
        device.tap(Box(x0=2000, y0=100, x1=2100, y1=200))
    x, y = device.tap(Box(x0=1000, y0=1900, x1=1300, y1=2300))  # partly off screen: clipped
    assert 1000 <= x < 1080 and 1900 <= y < 1920
    with pytest.raises(DeviceError, match="outside"):
        device.swipe(10, 10, 10, 5000)
    assert len(adb_server.device(SERIAL).inputs) == 1


def test_held_swipe_is_one_gesture(adb_server: AdbServer, device: Device) -> None:
    device.swipe(540, 1500, 540, 700, duration_ms=80, hold_ms=100)
    [entry] = adb_server.device(SERIAL).inputs
    assert entry.startswith("swipe 540 1500 540 700 ")  # DOWN..MOVE..UP reached the game as one swipe
    assert int(entry.split()[-1]) >= 180  # the finger was down for the move (80 ms) and the hold (100 ms)


def test_swipe_without_hold_is_a_plain_input_swipe(adb_server: AdbServer, device: Device) -> None:
    device.swipe(100, 1000, 900, 1000, duration_ms=120, hold_ms=0)
    assert adb_server.device(SERIAL).inputs == ["swipe 100 1000 900 1000 120"]


def test_held_swipe_falls_back_without_motionevent(
    adb_server: AdbServer, device: Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unsupported(dev: object, args: list[str]) -> None:
        raise ValueError("Unknown command: motionevent")

    monkeypatch.setattr(adb_shell, "_motion", unsupported)
    device.swipe(540, 1500, 540, 700, duration_ms=100, hold_ms=50)
    device.swipe(540, 1500, 540, 700, duration_ms=100, hold_ms=50)
    assert adb_server.device(SERIAL).inputs == ["swipe 540 1500 540 700 150"] * 2


CAREER_START = ("Career", "Next", "Next", "Auto-Select", "Next", "Borrow", "Start Career!")  # the game's setup pages


def _start_career(server: AdbServer, device: Device) -> None:
    """Home to a new career: the last tap starts its loading (3 frames) and intro cutscene (6), then the hub."""
    for name in CAREER_START:
        device.tap(box_of(server, name))


def _open_skills(server: AdbServer, device: Device) -> None:
    _start_career(server, device)
    assert settle(device).settled
    device.tap(box_of(server, "Skills"))
    settle(device)
    assert server.game(SERIAL).truth().screen == "skills"


def test_scroll_moves_the_skill_list_and_its_scrollbar(adb_server: AdbServer, device: Device) -> None:
    _open_skills(adb_server, device)
    game = adb_server.game(SERIAL)
    bar = game.truth().scrollbar
    assert bar is not None and bar.down and not bar.up
    region = Box(x0=60, y0=bar.track.y0, x1=bar.track.x0 - 20, y1=bar.track.y1)
    x0, y0, x1, y1 = device.scroll(region, "down")
    assert x0 == x1 and y0 > y1 and region.contains(x0, y0) and region.contains(x1, y1)
    assert adb_server.device(SERIAL).inputs[-1].startswith(f"swipe {x0} {y0} {x1} {y1} ")
    after = game.truth().scrollbar
    assert after is not None and after.up and after.thumb.y0 > bar.thumb.y0
    device.scroll(region, "up")
    assert game.truth().scrollbar.thumb.y0 < after.thumb.y0  # type: ignore[union-attr]
    with pytest.raises(DeviceError, match="direction"):
        device.scroll(region, "sideways")  # type: ignore[arg-type]


def test_back_and_text(adb_server: AdbServer, device: Device) -> None:
    device.tap(box_of(adb_server, "Career"))
    device.back()
    assert adb_server.game(SERIAL).truth().screen == "home"  # BACK cancels the dialog
    device.text('it\'s a "test"; rm -rf / && echo $HOME `id` 100%')
    inputs = adb_server.device(SERIAL).inputs
    assert inputs[-2:] == ["keyevent 4", 'text it\'s a "test"; rm -rf / && echo $HOME `id` 100%']
    with pytest.raises(DeviceError, match="printable ASCII"):
        device.text("ウマ娘")
    assert len(adb_server.device(SERIAL).inputs) == len(inputs)


# ---- settle --------------------------------------------------------------------------------------------------


def test_settle_waits_out_loading_and_cutscene(adb_server: AdbServer, device: Device) -> None:
    _start_career(adb_server, device)  # loading (3 frames), intro cutscene (6), then the hub
    result = settle(device)
    assert result.settled and result.captures >= 10
    assert adb_server.game(SERIAL).truth().screen == "hub"
    assert result.frame.image.tobytes() == game_frame(adb_server).tobytes()


def test_settle_times_out_while_the_screen_keeps_moving(adb_server: AdbServer, device: Device) -> None:
    _start_career(adb_server, device)
    result = settle(device, timeout_s=0.0)
    assert not result.settled and result.captures == 1
    assert adb_server.game(SERIAL).truth().cinematic == "loading"


def test_settle_skips_bad_frames_and_raises_only_without_any(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).black_frame = 2  # two black frames, then two that agree
    result = settle(device)
    assert result.settled and result.captures == 4
    adb_server.faults(SERIAL).black_frame = True
    with pytest.raises(FrameError, match="no usable frame"):
        settle(device, timeout_s=0.05, interval_s=0.01)


def test_a_black_frame_does_not_switch_capture_to_png(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).black_frame = 5
    for _ in range(5):
        with pytest.raises(BlackFrame):
            device.capture()
    assert device.capture().source == "raw"  # five black screens in a row say nothing about the raw path


def test_settle_captures_again_after_a_reconnect(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).drop_mid_frame = 2  # two captures cut off; each reconnect works at once
    result = settle(device)
    assert result.settled and result.captures == 4


def test_settle_raises_when_the_device_does_not_come_back(adb_server: AdbServer, device: Device) -> None:
    adb_server.faults(SERIAL).drop_mid_frame = 1
    adb_server.faults(SERIAL).offline = True
    with pytest.raises(DeviceDisconnected) as err:
        settle(device)
    assert err.value.reconnected is False


def test_an_input_whose_connection_drops_after_it_ran_is_logged_as_sent(adb_server: AdbServer, device: Device) -> None:
    """Issue 23's unlogged tap: the device ran the tap, the connection reset before its answer; reported as a
    device failure, no turn log recorded it. Now it is an input of unknown outcome, with its point."""
    adb_server.faults(SERIAL).drop_after_input = 1
    box = box_of(adb_server, "Career")
    with pytest.raises(InputUnknown, match="the connection dropped after sending") as err:
        device.tap(box)
    assert err.value.point is not None and len(adb_server.device(SERIAL).inputs) == 1  # it ran, once
    assert device.capture().source == "raw"  # reconnected for the next turn


def test_an_input_that_times_out_is_unknown_and_not_resent(adb_server: AdbServer, device_cfg: DeviceConfig) -> None:
    d = Device(device_cfg.model_copy(update={"command_timeout_s": 0.3}))
    d.connect()
    adb_server.faults(SERIAL).delay_s = 0.8  # the device answers after the client gave up, and still taps
    with pytest.raises(InputUnknown, match="may still run it"):
        d.tap(box_of(adb_server, "Career"))
    assert adb_server.device(SERIAL).inputs == []
    adb_server.faults(SERIAL).delay_s = 0.0
    deadline = time.monotonic() + 60  # a failure guard while the late command lands, not a timing
    while not adb_server.device(SERIAL).inputs and time.monotonic() < deadline:
        time.sleep(0.02)
    d.back()  # a later command goes through once the late one is done: nothing was queued to run again
    assert adb_server.device(SERIAL).inputs[0].startswith("tap ")  # it ran, late,
    assert sum(i.startswith("tap ") for i in adb_server.device(SERIAL).inputs) == 1  # exactly once


def test_waiting_for_a_dropped_device_is_reported_and_bounded_in_time(
    adb_server: AdbServer, device_cfg: DeviceConfig
) -> None:
    d = Device(device_cfg.model_copy(update={"reconnect_attempts": 0, "outage_wait_s": 0.5}))
    d.connect()
    lines: list[str] = []
    d.on_wait = lines.append
    adb_server.faults(SERIAL).offline = True
    with pytest.raises(DeviceDisconnected, match=r"still unreachable after \d+ attempt\(s\) over") as err:
        d.back()
    assert err.value.reconnected is False and lines and "waiting for device" in lines[-1]


def test_the_adb_server_variables_adb_users_set_are_honoured_and_config_wins(adb_server: AdbServer,
                                                                             free_port: int) -> None:
    """ANDROID_ADB_SERVER_HOST/PORT (set here by the fixture, as an adb user would) find the server when device.*
    leaves them unset; a port set in the config is used instead."""
    assert Device(DeviceConfig(serial=SERIAL)).connect() == SERIAL
    assert adb_server_of(DeviceConfig()).adb_port == adb_server.port
    assert adb_server_of(DeviceConfig(), {}).adb_port == 5037  # neither: adb's default
    with pytest.raises(AdbAddressError, match="ANDROID_ADB_SERVER_PORT='oops' is not an adb server port"):
        adb_server_of(DeviceConfig(), {"ANDROID_ADB_SERVER_PORT": "oops"})  # one line and exit 2, never ignored
    assert adb_server_of(DeviceConfig(), {"ANDROID_ADB_SERVER_HOST": "10.0.0.2"}).adb_host == "10.0.0.2"
    with pytest.raises(DeviceError, match=rf"no adb server answers at 127.0.0.1:{free_port} \(host from "
                       rf"ANDROID_ADB_SERVER_HOST; device.adb_port from the configuration, over "
                       rf"ANDROID_ADB_SERVER_PORT={adb_server.port}\)"):
        Device(DeviceConfig(adb_port=free_port, serial=SERIAL)).connect()  # the config wins, and says so
