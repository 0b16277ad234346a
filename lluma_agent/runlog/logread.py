"""Reading a log folder back: find the run, load its `turn_NNNNNN.json` files, one-line labels.

Shared by `lluma logs`, `lluma stats` and `lluma report`, so all three pick the same folder and
describe a turn the same way.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lluma_agent.config import ConfigError, find_config, load_config
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.runs import runs_newest_first
from lluma_agent.runlog.turnlog import RunSummary, SideCall, TurnLog, read_turn


class LogDirError(Exception):
    """No usable turn logs where the user pointed; the message says where we looked."""


@dataclass
class Run:
    folder: Path
    turns: list[TurnLog]
    notes: list[str] = field(default_factory=list)  # what we chose or skipped, for stderr
    summary: RunSummary | None = None  # run.json: None while the run is going on, or if it was killed

    @property
    def stop_reason(self) -> str:
        if self.summary is not None:
            return self.summary.stop_reason
        return "unknown (no run.json: the run is still going, or was killed)"


def resolve_dir(folder: Path | None) -> tuple[Path, str | None]:
    """`folder` itself when it holds turn logs; else its newest subfolder that does (e.g. logs/demo-2026...).
    None: the configured log root (`logs.dir`)."""
    folder = default_root() if folder is None else folder
    if not folder.is_dir():
        raise LogDirError(f"no log folder at {folder}")
    if RunFolder.at(folder).has_turn_logs():
        return folder, None
    runs = runs_newest_first(folder)  # the newest run: its last turn logged last (runs.py, one meaning everywhere)
    if not runs:
        raise LogDirError(f"no turn logs (turn_*.json) in {folder} or its subfolders")
    return runs[0], f"{folder} holds no turn logs; using the newest run {runs[0]} ({len(runs)} run(s) found)"


def load_run(folder: Path | str | None) -> Run:
    path, note = resolve_dir(None if folder is None else Path(folder))
    run = Run(folder=path, turns=[], notes=[note] if note else [])
    for p in RunFolder.at(path).turn_logs():
        try:
            run.turns.append(read_turn(p))
        except (OSError, ValueError, ValidationError) as exc:
            # One bad file (another version's schema, a hand edit) should not hide the rest of the run.
            run.notes.append(f"skipped {p.name}: {str(exc).splitlines()[0]}")
    run.turns.sort(key=lambda t: t.turn)
    summary = RunFolder.at(path).summary
    if summary.is_file():
        try:
            run.summary = RunSummary.model_validate_json(summary.read_text(encoding="utf-8"))
        except (OSError, ValueError, ValidationError) as exc:
            run.notes.append(f"skipped {summary.name}: {str(exc).splitlines()[0]}")
    if not run.turns:
        raise LogDirError(f"no readable turn logs in {path}")
    return run


def default_root() -> Path:
    """Where runs are written: `logs.dir` of ./config.yaml and LLUMA_LOGS__DIR, as `lluma run` finds them; `logs`
    when the config cannot be read (a reader of logs must not fail on a config it does not need)."""
    try:
        return load_config(find_config(None)).logs.dir
    except (ConfigError, OSError, ValueError):
        return Path("logs")


def add_dir_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("dir", nargs="?", type=Path, default=None,
                    help="a run folder, or a log root (its newest run); default: logs.dir of the config (logs)")


def open_run(folder: Path | None, prog: str) -> Run | None:
    """load_run for a CLI: notes go to stderr (stdout stays clean for --json); None on failure."""
    try:
        run = load_run(folder)
    except LogDirError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None
    for note in run.notes:
        print(f"{prog}: {note}", file=sys.stderr)
    return run


def screen_label(log: TurnLog) -> str:
    """The screen as `lluma logs`, the report and the live line name it: its name as the map knows it, then what
    was read ("Career · Energy 80% | buttons: Rest, Training, ..."); a loading screen waited out as such."""
    if log.waited and not log.vision:
        return f"(waited: {log.waited})"
    return " · ".join(filter(None, (screen_name(log), log.vision.summary if log.vision else "")))


NAMELESS = ("", "cinematic", "buttons")  # identities whose name says no more than the summary ("loading", "screen")


def screen_name(log: TurnLog) -> str:
    """The screen's name as the map knows it (a dialog's title, a header: "Umamusume isn't responding"), or ""."""
    seen = log.vision.full.get("screen") if log.vision else None
    if not isinstance(seen, dict) or seen.get("kind", "") in NAMELESS:
        return ""
    return str(seen.get("name") or "")


def kept_label(log: TurnLog) -> str:
    """The agent's memory writes that kept lines a person wrote (its content left them out), in a few words for the
    live line, `lluma logs` and the report: "kept 1 line(s) a person wrote in sim_notes.md"; "" when none."""
    kept = [m for m in log.memory_changes if m.kept_person_lines]
    if not kept:
        return ""
    names = ", ".join(sorted({m.name for m in kept}))
    return f"kept {sum(len(m.kept_person_lines) for m in kept)} line(s) a person wrote in {names}"


def errors_label(errors: list[str]) -> str:
    """A turn's errors in a few words: the first by its kind ("model error: refused ..."), and how many more."""
    if not errors:
        return ""
    kind, sep, what = errors[0].partition(": ")
    first = f"{kind} error: {what}" if sep and kind.isidentifier() else f"error: {errors[0]}"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return clip(first, 80) + more


def waited_label(log: TurnLog) -> str:
    """A loading screen or cutscene waited out before the reading ("loading: 4 captures waited"), or one still up
    after observe's waits ("loading: still up after 8 captures"); "" when none."""
    if not log.waited:
        return ""
    kind, _, count = log.waited.partition(" (")
    waits = count.rstrip(")").replace("waits", "captures").replace("wait", "capture")
    return f"{kind}: still up after {waits}" if log.frame.cinematic == kind else f"{kind}: {waits} waited"


def action_label(log: TurnLog) -> str:
    """`pressButton(OK)`, plus `[forced]` when the coordinator chose it; empty when nothing was done."""
    a = log.action
    if a is None:
        return ""
    label = f"{a.tool}({a.target})" if a.target else a.tool
    return label + (" [forced]" if a.forced else "")


CALL_KINDS = ("decision", "vlm", "fold", "preflight")


def turn_calls(log: TurnLog) -> list[SideCall]:
    """Every model call a turn made, the decision first, then its side calls (VLM reading, history fold,
    preflight). The decision's cost is what the turn cost beyond its side calls (the turn bills them all)."""
    calls = []
    if log.response is not None and (log.usage.total_input_tokens or log.usage.output_tokens):
        side = sum(c.cost_usd for c in log.side_calls)
        calls.append(SideCall(kind="decision", model=log.model, usage=log.usage,
                              cost_usd=max(0.0, log.cost.turn_usd - side)))
    return calls + list(log.side_calls)


def call_line(call: SideCall) -> str:
    """`decision claude-haiku-4-5: in 120 + cache read 4,100 + write 90, out 85, $0.00123`."""
    u = call.usage
    return (f"{call.kind} {call.model}: in {u.input_tokens:,} + cache read {u.cache_read_input_tokens:,} + write "
            f"{u.cache_creation_input_tokens:,}, out {u.output_tokens:,}, ${call.cost_usd:.5f}")


def effect_words(effect: str) -> str:
    """'screen changed (distance 24)' -> 'screen changed'; 'screen unchanged (...)' -> 'same screen'."""
    if effect.startswith("screen changed"):
        return "screen changed"
    if effect.startswith("screen unchanged"):
        return "same screen"
    return effect


def clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
