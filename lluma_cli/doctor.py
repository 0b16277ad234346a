"""`lluma doctor [--config FILE] [--json]`: check what `lluma run` needs, one line per check with a fix.

Read-only and local: it never starts an adb daemon, never runs `adb connect`, creates no folders,
never prints the API key (only whether it is set and its length), and connects to the Messages API
only when base_url is on this machine (the stand-in). Exit code 1 when an essential check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from lluma_agent.config import Config, ConfigError, default_yaml, find_config, load_config
from lluma_agent.device.adb_client import NoDaemonClient
from lluma_agent.device.address import AdbAddressError
from lluma_agent.device.address import resolve as resolve_adb
from lluma_agent.device.android import adb_server_of
from lluma_agent.device.app import KNOWN_PACKAGES
from lluma_agent.memory.store import budget_warnings, scan, yaml_problem
from lluma_agent.model.reply import ModelError, check_key
from lluma_cli.invoked import command
from lluma_facts import ModelLookupError, model_spec, usable_model

DEFAULT_BASE_URL = "https://api.anthropic.com"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass
class Check:
    name: str
    status: Literal["ok", "warn", "fail"]  # warn: worth knowing, does not stop a run
    detail: str
    fix: str = ""


def check_config(path: Path | None) -> tuple[Config, Check]:
    use = find_config(path)  # like `lluma run`
    try:
        cfg = load_config(use)
    except ConfigError as exc:
        missing = use is not None and not use.exists()
        fix = ("pass an existing file, or leave out --config to use config.yaml or defaults" if missing
               else f"correct the key named above; `{command('doctor', '--print-config')}` prints every key with its "
               "default")
        return Config(), Check("config", "fail", f"{exc} (the checks below use the defaults)", fix)
    if use is None:
        return cfg, Check("config", "ok", "no config.yaml here; using defaults (+ LLUMA_* environment)")
    return cfg, Check("config", "ok", f"{use} loaded")


def check_model(cfg: Config) -> Check:
    try:
        spec = usable_model(cfg.model.name)
    except ModelLookupError as exc:
        return Check("model", "fail", str(exc), f"set model.name to a current model (`{command('models')}` lists them)")
    return Check("model", "ok", f"{cfg.model.name}: ${spec.input_usd_per_mtok:g}/${spec.output_usd_per_mtok:g} per "
                 f"MTok in/out, caches prefixes of {spec.min_cacheable_tokens:,}+ tokens")


def check_adb(cfg: Config) -> list[Check]:
    try:  # the same address `lluma run` uses: ANDROID_ADB_SERVER_HOST/PORT unless the configuration sets one
        address = resolve_adb(cfg.device)
    except AdbAddressError as exc:
        return [Check("adb server", "fail", str(exc), "unset it, or set it to the port `adb -P` uses")]
    d = adb_server_of(cfg.device)
    where = address.described
    # NoDaemonClient never spawns a daemon: doctor reports a missing server instead of quietly starting one.
    client = NoDaemonClient(d.adb_host, d.adb_port, min(d.command_timeout_s, 5.0))
    try:
        version = client.server_version()
        infos = client.list()
    except Exception as exc:  # adbutils raises AdbError, OSError, ValueError depending on where it broke
        return [Check("adb server", "fail", f"nothing answers at {where} ({exc})",
                      f"start it with `adb start-server` (or `{command('sim', 'phone')}` for the simulator), "
                      "or point ANDROID_ADB_SERVER_PORT (or device.adb_port) at the one running")]
    checks = [Check("adb server", "ok", f"adb server (protocol {version}) at {where}")]
    listed = ", ".join(f"{i.serial} ({i.state})" for i in infos) or "none"
    want = d.serial or d.connect
    ready = [i for i in infos if i.state == "device"]
    if want:
        info = next((i for i in infos if i.serial == want), None)
        if info is None and d.connect and not d.serial:
            checks.append(Check("device", "warn", f"{d.connect} not attached yet (attached: {listed}); "
                                "`lluma run` will `adb connect` it", "make sure the emulator is running with ADB on"))
        elif info is None:
            checks.append(Check("device", "fail", f"device {want!r} not attached (attached: {listed})",
                                "check device.serial against `adb devices`"))
        elif info.state != "device":
            checks.append(_not_ready(info.serial, info.state))
        else:
            checks.append(Check("device", "ok", f"{info.serial} ready (attached: {listed})"))
            checks.append(check_game(cfg, client, info.serial))
    elif len(ready) == 1:
        checks.append(Check("device", "ok", f"{ready[0].serial} ready (attached: {listed})"))
        checks.append(check_game(cfg, client, ready[0].serial))
    elif not infos:
        checks.append(Check("device", "fail", "no device attached",
                            "phone: USB debugging on, plug in, accept the prompt; emulator: "
                            f"`{command('run', '--connect', '127.0.0.1:PORT')}` (BlueStacks/LDPlayer 5555, MuMu "
                            "16384), or device.connect in config.yaml"))
    elif not ready:
        checks.append(_not_ready(infos[0].serial, infos[0].state))
    else:
        checks.append(Check("device", "fail", f"{len(ready)} devices ready ({listed}); which one?",
                            f"set device.serial (or `{command('run', '--serial', 'SERIAL')}`)"))
    return checks


def check_game(cfg: Config, client: NoDaemonClient, serial: str) -> Check:
    """game.package is installed on the device (`pm path`, read-only); if not, which known client is."""
    pkg = cfg.game.package
    known = ", ".join(f"{name} {p}" for name, p in KNOWN_PACKAGES.items())
    try:
        device = client.device(serial)
        path = str(device.shell(f"pm path {pkg}", timeout=client.timeout)).strip()
        listed = "" if path.startswith("package:") else str(device.shell("pm list packages umamusume",
                                                                           timeout=client.timeout))
    except Exception as exc:  # adbutils raises AdbError, OSError, ValueError depending on where it broke
        return Check("game", "warn", f"could not ask {serial} whether {pkg} is installed ({exc})",
                     "check the device with `adb shell pm path " + pkg + "`")
    if path.startswith("package:"):
        return Check("game", "ok", f"{pkg} (game.package) is installed on {serial}")
    found = [line.removeprefix("package:").strip() for line in listed.splitlines() if line.startswith("package:")]
    also = f"; installed: {', '.join(found)}" if found else ""
    return Check("game", "fail", f"{pkg} (game.package) is not installed on {serial}{also}",
                 f"set game.package to the client you play ({known}), or install the game")


def _not_ready(serial: str, state: str) -> Check:
    fix = ("accept the USB debugging prompt on the phone" if state == "unauthorized"
           else "unplug and replug it (emulator: restart its ADB), then `adb devices`")
    return Check("device", "fail", f"{serial} is {state}, not ready", fix)


def check_ocr(cfg: Config) -> Check:
    # Every backend but `claude` reads text with OCR; for `claude` a broken OCR is only worth a warning.
    bad: Literal["warn", "fail"] = "warn" if cfg.vision.backend == "claude" else "fail"
    t0 = time.monotonic()
    try:
        from lluma_vision.pixels.ocr import get_engine

        get_engine()  # the argument is a thread count, not the detector's limit
    except Exception as exc:  # ImportError, onnxruntime load errors, a damaged model file
        return Check("ocr", bad, f"rapidocr could not load: {type(exc).__name__}: {exc}",
                     "reinstall it: .venv/bin/pip install --force-reinstall rapidocr-onnxruntime")
    return Check("ocr", "ok", f"rapidocr model loaded in {time.monotonic() - t0:.1f} s")


def check_api_key(cfg: Config) -> Check:
    name = cfg.model.api_key_env
    key = os.environ.get(name)
    fix = f"export {name}=sk-ant-... (`{command('demo')}` needs no key)"
    if key is None:
        return Check("api key", "fail", f"{name} is not set", fix)
    if not key.strip():
        return Check("api key", "fail", f"{name} is set but empty", fix)
    try:  # as `lluma run` refuses it: a key file with Windows line endings ends in a carriage return
        check_key(name, key)
    except ModelError as exc:
        return Check("api key", "fail", f"{exc} ({len(key)} characters)", "re-export it without spaces or newlines")
    return Check("api key", "ok", f"{name} is set ({len(key)} characters)")


def check_base_url(cfg: Config) -> Check:
    env = os.environ.get("ANTHROPIC_BASE_URL")
    url, source = (cfg.model.base_url, "model.base_url") if cfg.model.base_url else \
        (env, "ANTHROPIC_BASE_URL") if env else (DEFAULT_BASE_URL, "default")
    parts = urlsplit(url)
    shown = url.replace(f"{parts.username}:{parts.password}@", "") if parts.password else url  # no credentials
    fix = "set model.base_url (or ANTHROPIC_BASE_URL) to an http(s) URL, or unset it for Anthropic's API"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return Check("api url", "fail", f"{shown} ({source}) is not an http(s) URL", fix)
    if parts.hostname in LOOPBACK:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname, port), timeout=1.0).close()
        except OSError as exc:
            return Check("api url", "fail", f"{shown} ({source}): nothing listens there ({exc})",
                         f"start the stand-in with `{command('sim', 'api', '--port', str(port))}`, or fix the URL")
        return Check("api url", "ok", f"{shown} ({source}), listening")
    if parts.scheme == "http":
        return Check("api url", "warn", f"{shown} ({source}) is plain http: the key would travel unencrypted",
                     "use https")
    return Check("api url", "ok", f"{shown} ({source}); not probed (doctor connects only to this machine)")


def check_writable(label: str, key: str, folder: Path) -> Check:
    fix = f"create it or fix its permissions (`mkdir -p {folder}`), or point {key} elsewhere"
    if folder.exists():
        if not folder.is_dir():
            return Check(label, "fail", f"{folder} exists but is not a folder", fix)
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".lluma-doctor-"):
                pass
        except OSError as exc:
            return Check(label, "fail", f"{folder} is not writable ({exc})", fix)
        return Check(label, "ok", f"{folder} is writable")
    parent = next(p for p in folder.absolute().parents if p.exists())
    if not os.access(parent, os.W_OK | os.X_OK):
        return Check(label, "fail", f"{folder} does not exist and {parent} is not writable", fix)
    return Check(label, "ok", f"{folder} does not exist yet; the first run creates it")


def check_memory_files(folder: Path, budget: int = 32_000, model: str = "claude-haiku-5-5") -> Check:
    """Hand-written memory files that cannot be used as they are: a .yaml that does not parse, files past the
    budget (the model is shown them cut), a name that is not UTF-8 (skipped). Read-only."""
    if not folder.is_dir():
        return Check("memory", "ok", f"no memory files yet in {folder}")
    bad = []
    paths, _ = scan(folder)
    for path in paths:
        try:
            problem = yaml_problem(path.name, path.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            problem = f"unreadable ({exc})"
        if problem:
            bad.append(f"{path.name}: {problem}")
    try:
        factor = model_spec(model).tokenizer_factor
    except ModelLookupError:
        factor = 1.0
    bad += budget_warnings(folder, budget, factor)
    if bad:
        return Check("memory", "warn", "; ".join(bad),
                     "fix or shorten the files by hand, rename files whose name is not UTF-8 (the agent is shown "
                     "them with the problem, cut or skipped until then)")
    return Check("memory", "ok", f"memory files in {folder} parse and fit memory.budget_tokens ({budget:,})")


def run_checks(config: Path | None) -> list[Check]:
    cfg, first = check_config(config)
    return [
        first,
        check_model(cfg),
        *check_adb(cfg),
        check_ocr(cfg),
        check_api_key(cfg),
        check_base_url(cfg),
        check_writable("memory dir", "memory.dir", cfg.memory.dir),
        check_memory_files(cfg.memory.dir, cfg.memory.budget_tokens, cfg.model.name),
        check_writable("logs dir", "logs.dir", cfg.logs.dir),
    ]


def format_checks(checks: list[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.status.upper() if c.status == 'fail' else c.status:<5} {c.name:<11} {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(" " * 18 + f"fix: {c.fix}")
    n = {s: sum(1 for c in checks if c.status == s) for s in ("ok", "warn", "fail")}
    verdict = "ready for `lluma run`" if not n["fail"] else "fix the FAIL lines before `lluma run`"
    lines.append(f"{n['ok']} ok, {n['warn']} warning(s), {n['fail']} failed: {verdict}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma doctor", description=__doc__.splitlines()[0])
    ap.add_argument("--config", type=Path, default=None, help="config file (default: config.yaml if present)")
    ap.add_argument("--json", action="store_true", help="the checks as a JSON list")
    ap.add_argument("--print-config", action="store_true",
                    help="print every configuration key with its default, as commented YAML (> config.yaml), and exit")
    args = ap.parse_args(argv)
    if args.print_config:  # works wherever `lluma` does (pipx, uv): no need to find the right python
        print(default_yaml(), end="")
        return 0
    checks = run_checks(args.config)
    if args.json:
        print(json.dumps([asdict(c) for c in checks], indent=2))
    else:
        print(format_checks(checks))
    return 1 if any(c.status == "fail" for c in checks) else 0
