"""Where the adb server is: one answer for `lluma run`, `lluma demo` and `lluma doctor`.

As adb users expect: `ANDROID_ADB_SERVER_HOST` / `ANDROID_ADB_SERVER_PORT` (the `adb` client's own variables;
empty means unset, as adb reads them), else 127.0.0.1:5037. `device.adb_host` / `device.adb_port` set in the
configuration (config.yaml or LLUMA_DEVICE__*) win over the variables; the shipped config.yaml leaves them unset.
Every message names where the address came from, a LLUMA_DEVICE__* variable by its name. A variable that is not a
host or a port is a ConfigError (one line, exit 2), checked before adbutils is imported: adbutils reads the port at
import and raises on `abc`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from lluma_agent.config import ConfigError, DeviceConfig, variable_of

ENV_HOST = "ANDROID_ADB_SERVER_HOST"
ENV_PORT = "ANDROID_ADB_SERVER_PORT"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 5037  # the adb server's own default port (adb's documentation)


class AdbAddressError(ConfigError):
    """ANDROID_ADB_SERVER_HOST or _PORT holds something that is not a host or a port."""


@dataclass(frozen=True)
class AdbAddress:
    host: str
    port: int
    source: str  # where host and port came from, in words

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def described(self) -> str:
        return f"{self.host}:{self.port} ({self.source})"


def env_port(environ: Mapping[str, str] = os.environ) -> int | None:
    """ANDROID_ADB_SERVER_PORT as a port; None when unset or empty; AdbAddressError for anything else."""
    raw = environ.get(ENV_PORT)
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if not re.fullmatch(r"\d{1,5}", text) or not 1 <= int(text) <= 65535:
        raise AdbAddressError(f"{ENV_PORT}={raw!r} is not an adb server port: a whole number from 1 to 65535 "
                              f"(unset it for adb's default {DEFAULT_PORT})")
    return int(text)


def env_host(environ: Mapping[str, str] = os.environ) -> str | None:
    """ANDROID_ADB_SERVER_HOST; None when unset or empty; AdbAddressError when it holds a space or a control
    character (no host name does)."""
    raw = environ.get(ENV_HOST)
    if raw is None or not raw.strip():
        return None
    if any(ord(c) <= 0x20 or ord(c) == 0x7F for c in raw.strip()) or len(raw.strip()) > 253:
        raise AdbAddressError(f"{ENV_HOST}={raw!r} is not a host name or address")
    return raw.strip()


def check_environment(environ: MutableMapping[str, str] = os.environ) -> None:
    """Before adbutils is imported: a bad variable raises AdbAddressError; an empty one is removed (adb reads
    empty as unset; adbutils would raise on it at import)."""
    env_port(environ)
    env_host(environ)
    for name in (ENV_PORT, ENV_HOST):
        if name in environ and not environ[name].strip():
            del environ[name]


def _configured_by(environ: Mapping[str, str], key: str, cfg: DeviceConfig) -> str:
    """Where device.<key> was set: the run folder that kept it (a resume, DeviceConfig.keep), else its
    LLUMA_DEVICE__<KEY> variable as the environment spells it (the loader reads them in any case, and the variable
    wins over config.yaml), else the configuration (its file)."""
    return cfg.kept(key) or variable_of(f"device.{key}", environ) or "the configuration"


def resolve(cfg: DeviceConfig, environ: Mapping[str, str] = os.environ) -> AdbAddress:
    """The adb server to use, and where it came from (see the module's docstring)."""
    port_var, host_var = env_port(environ), env_host(environ)
    said: list[str] = []
    if "adb_host" in cfg.model_fields_set:
        host = cfg.adb_host
        said.append(f"device.adb_host from {_configured_by(environ, 'adb_host', cfg)}"
                    + (f", over {ENV_HOST}={host_var}" if host_var and host_var != host else ""))
    elif host_var:
        host = host_var
        said.append(f"host from {ENV_HOST}")
    else:
        host = DEFAULT_HOST
    if "adb_port" in cfg.model_fields_set:
        port = cfg.adb_port
        said.append(f"device.adb_port from {_configured_by(environ, 'adb_port', cfg)}"
                    + (f", over {ENV_PORT}={port_var}" if port_var and port_var != port else ""))
    elif port_var:
        port = port_var
        said.append(f"port from {ENV_PORT}")
    else:
        port = DEFAULT_PORT
    return AdbAddress(host, port, "; ".join(said) or f"adb's default: neither {ENV_HOST} nor {ENV_PORT} is set")
