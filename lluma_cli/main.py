"""`lluma` command line. Subcommands live in their own modules and parse their own arguments."""

from __future__ import annotations

import importlib
import os
import sys
from importlib import metadata

from lluma_cli.errors import INTERNAL_EXIT, INTERRUPTED_EXIT, internal_error

# subcommand -> "module:function"; each function takes argv (list[str]) and returns an exit code.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("lluma_cli.run:main", "run the agent on a phone or emulator"),
    "demo": ("lluma_cli.demo:main", "run the agent on the built-in simulator and API stand-in"),
    "fleet": ("lluma_cli.fleet:main", "several devices from one command, one agent each (--ray: several machines)"),
    "vision": ("lluma_cli.vision:main", "read a screenshot or a folder of them; --annotate draws the reading"),
    "sim": ("lluma_cli.sim:main", "run a stand-in: `sim phone` (adb server) or `sim api` (Messages API)"),
    "logs": ("lluma_cli.logs:main", "list a run's turns, or show one in full (--turn N)"),
    "stats": ("lluma_cli.stats:main", "run totals: tokens, cost, cache hit, latency, actions, errors"),
    "report": ("lluma_cli.report.page:main", "one self-contained HTML page of a run (screens, reasoning, charts)"),
    "search": ("lluma_cli.search:main", "full-text search over a run's turns (FTS5 syntax)"),
    "knowledge": ("lluma_cli.knowledge:main", "list knowledge entries, or which match a screenshot (--match)"),
    "memory": ("lluma_cli.memory:main", "list or show memory files, token budget"),
    "map": ("lluma_cli.map:main", "the screen map learned from play: screens, ways out, uses, failures"),
    "events": ("lluma_cli.events:main", "what each event choice did, as measured in play (beside the map)"),
    "models": ("lluma_cli.models:main", "the Claude models LLuMa knows: prices, limits, thinking, retirement"),
    "doctor": ("lluma_cli.doctor:main", "check config, adb, OCR, API key and folders before a run"),
    "replay": ("lluma_cli.replay:main", "send a run's recorded turns to a model again; do the actions agree?"),
}


# Commands that reach an adb server (or start the simulated one): a bad ANDROID_ADB_SERVER_* is their error.
ADB_COMMANDS = frozenset({"run", "demo", "doctor", "sim", "fleet"})


def _adb_environment() -> str:
    """ANDROID_ADB_SERVER_HOST/PORT checked before anything imports adbutils (which raises on `abc` at import):
    the problem in one line, or "". An empty variable is dropped (adb reads it as unset); for a command that does
    not use adb, a bad one is dropped too, so it cannot break an unrelated command."""
    from lluma_agent.device.address import ENV_HOST, ENV_PORT, AdbAddressError, check_environment

    problems = []
    for _ in (ENV_PORT, ENV_HOST):
        try:
            check_environment()
            break
        except AdbAddressError as exc:
            problems.append(str(exc))
            os.environ.pop(ENV_PORT if str(exc).startswith(ENV_PORT) else ENV_HOST, None)
    return problems[0] if problems else ""


def version() -> str:
    try:
        return metadata.version("lluma")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed; pip install . or make deps)"


def _usage() -> str:
    lines = ["usage: lluma COMMAND [ARGS]   (lluma --version)", "", "commands:"]
    width = max(map(len, COMMANDS))  # the longest name sets the column (`knowledge` once pushed its line right)
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run a subcommand. A reader that goes away (`lluma logs | head`) ends it quietly, as for any tool; Ctrl+C
    outside a run ends it with 130; a bug is one line naming the file that keeps its traceback (exit 1)."""
    args = sys.argv[1:] if argv is None else argv
    try:
        code = _dispatch(args)
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's last flush
    except BrokenPipeError:
        # Point stdout at /dev/null so Python's final flush does not raise again (the docs' recipe).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader left
    except KeyboardInterrupt:
        print(f"\nlluma {args[0] if args else ''}: stopped (Ctrl+C)", file=sys.stderr)
        return INTERRUPTED_EXIT
    except Exception as exc:  # noqa: BLE001 - no traceback reaches a person
        print(internal_error(args[0] if args else "", exc), file=sys.stderr)
        return INTERNAL_EXIT
    return code


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] in ("--version", "-V"):
        print(f"lluma {version()}")
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"lluma: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    from lluma_facts.registry import registry_day  # here, not at the top: `lluma --help` stays light

    try:
        registry_day()  # LLUMA_TODAY is read by every command that judges a model: a bad one is a start-up error
    except ValueError as exc:
        print(f"lluma {name}: {exc}", file=sys.stderr)
        return 2
    target, _ = COMMANDS[name]
    module_name, func_name = target.split(":")
    problem = _adb_environment()
    if problem and name in ADB_COMMANDS:
        print(f"lluma {name}: {problem}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            print(f"lluma {name}: not built yet ({module_name} is missing)", file=sys.stderr)
            return 1
        raise
    return int(getattr(module, func_name)(rest) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
