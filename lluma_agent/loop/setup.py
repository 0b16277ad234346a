"""Where a run plays, kept in its folder so `lluma run --resume DIR` goes on there from a fresh shell.

Each checkpoint keeps a `RunSetup` (checkpoint.py): the device's serial as adb named it, the `adb connect` address,
the adb server, the API's base URL, the name of the variable that holds the key (never the key) and the memory
folder. `carry` puts them into a resumed run's configuration, each unless the person told otherwise: a flag
(`--serial`, `--connect`, `-m`), a LLUMA_* variable, a value in config.yaml other than the default (the shipped
file holds the defaults), or, for the adb server and the API, the variables adb and the SDK read themselves
(ANDROID_ADB_SERVER_HOST/PORT, ANTHROPIC_BASE_URL). The model is the checkpoint's own (`Checkpoint.model`), kept
the same way.

A serial told that is not the run's is refused (one line: `--device-changed` goes on there); so is a device found
that is not the run's (`check_device`, once connected: another address pointed at another phone). A run's game is
on its phone: another phone's career is not the one the history speaks of.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

from lluma_agent.config import Config, variable_of
from lluma_agent.device.address import ENV_HOST, ENV_PORT
from lluma_agent.loop.checkpoint import RunSetup
from lluma_agent.loop.resume import ResumeError, ResumePoint

ANOTHER_DEVICE = "--device-changed"  # the flag that lets a run go on on another device than its own
BASE_URL_ENV = "ANTHROPIC_BASE_URL"  # the SDK's own variable for the API's URL (model/claude.make_client reads it)


def of(cfg: Config, serial: str | None, adb_host: str, adb_port: int,
       environ: Mapping[str, str] = os.environ) -> RunSetup:
    """Where this run plays: `serial` as the device was found, the adb server it was found at."""
    return RunSetup(serial=serial, connect=cfg.device.connect, adb_host=adb_host, adb_port=adb_port,
                    base_url=cfg.model.base_url or environ.get(BASE_URL_ENV) or None,
                    api_key_env=cfg.model.api_key_env, memory_dir=str(Path(cfg.memory.dir).resolve()))


def told(cfg: Config, dotted: str, environ: Mapping[str, str], flags: Collection[str] = ()) -> bool:
    """The person said what `dotted` ("device.serial") is for this command: a flag, its LLUMA_* variable, or a value
    other than the default (config.yaml; the shipped file holds the defaults, which say nothing)."""
    section, key = dotted.split(".")
    part = getattr(cfg, section)
    return (dotted in flags or variable_of(dotted, environ) is not None
            or getattr(part, key) != type(part).model_fields[key].default)


def keep_model(point: ResumePoint, cfg: Config, environ: Mapping[str, str] = os.environ,
               flags: Collection[str] = ()) -> str:
    """The run's own model unless told otherwise (resume.check_settings then judges a model told); the words for
    what was kept, or ""."""
    if told(cfg, "model.name", environ, flags) or cfg.model.name == point.checkpoint.model:
        return ""
    cfg.model.name = point.checkpoint.model
    return f"model {cfg.model.name}"


def carry(point: ResumePoint, cfg: Config, environ: Mapping[str, str] = os.environ,
          flags: Collection[str] = ()) -> list[str]:
    """Put where the run played into `cfg`, each value unless told otherwise (the module's doc); the words for each
    value kept. ResumeError (nothing changed on disk) for a serial told that is not the run's, unless the person
    allowed another device (`point.another_device`)."""
    another_device = point.another_device
    kept = [k] if (k := keep_model(point, cfg, environ, flags)) else []
    setup = point.checkpoint.setup
    if setup is None:  # a checkpoint from before setups were kept: the configuration alone
        return kept
    where = f"the run folder {point.folder}"
    dev = cfg.device
    if setup.serial and dev.serial and dev.serial != setup.serial and not another_device:
        by = "--serial" if "device.serial" in flags else variable_of("device.serial", environ) or (
            "device.serial in the configuration")
        raise ResumeError(f"the run in {point.folder} played on device {setup.serial}, and {by} asks for "
                          f"{dev.serial}: add {ANOTHER_DEVICE} to go on on {dev.serial}, or leave the serial out "
                          f"to go on on {setup.serial}")
    if not another_device and not told(cfg, "device.serial", environ, flags) and not told(
            cfg, "device.connect", environ, flags):
        dev.serial, dev.connect = setup.serial, setup.connect
        kept.append(f"device {setup.serial}" + (f" (adb connect {setup.connect})" if setup.connect else ""))
    if "adb_host" not in dev.model_fields_set and not environ.get(ENV_HOST, "").strip():
        dev.keep("adb_host", setup.adb_host, where)
    if "adb_port" not in dev.model_fields_set and not environ.get(ENV_PORT, "").strip():
        dev.keep("adb_port", setup.adb_port, where)
    if dev.kept("adb_host") or dev.kept("adb_port"):
        kept.append(f"adb server {dev.adb_host}:{dev.adb_port}")
    if not told(cfg, "model.base_url", environ, flags) and not environ.get(BASE_URL_ENV):
        cfg.model.base_url = setup.base_url
        kept.append(f"API {setup.base_url or 'Anthropic'}")
    if not told(cfg, "model.api_key_env", environ, flags):
        cfg.model.api_key_env = setup.api_key_env
    if setup.memory_dir and not told(cfg, "memory.dir", environ, flags) and (
            Path(cfg.memory.dir).resolve() != Path(setup.memory_dir)):
        cfg.memory.dir = Path(setup.memory_dir)
        kept.append(f"memory {setup.memory_dir}")
    return kept


def said(point: ResumePoint, kept: list[str]) -> str:
    """The line that says what a resume took from the run's folder ("" when nothing)."""
    if not kept:
        return ""
    return (f"going on with {', '.join(kept)}, as the run left them (kept in {point.folder}; a flag, a LLUMA_* "
            f"variable or config.yaml says otherwise, and {ANOTHER_DEVICE} allows another device)")


def check_device(point: ResumePoint, serial: str | None) -> None:
    """Once connected: the device found must be the run's own (an address told pointed at another one)."""
    setup = point.checkpoint.setup
    if setup is None or not setup.serial or serial == setup.serial or point.another_device:
        return
    raise ResumeError(f"the run in {point.folder} played on device {setup.serial}, and the device found is "
                      f"{serial}: add {ANOTHER_DEVICE} to go on on {serial}")


def no_key(point: ResumePoint, cfg: Config) -> str:
    """Why a resume cannot start without a key, and what to set (the key is never kept in a run folder)."""
    setup = point.checkpoint.setup
    api = (setup.base_url if setup else cfg.model.base_url) or "Anthropic's API"
    return (f"no API key: set {cfg.model.api_key_env} to go on with the run in {point.folder} (it plays against "
            f"{api}; a run folder keeps where it plays, never the key)")
