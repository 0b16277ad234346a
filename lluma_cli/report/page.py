"""`lluma report [DIR] [-o FILE]`: one self-contained HTML page of a run.

Run totals and why the run stopped, token and cost charts (inline SVG), then every turn collapsed in a
<details>: screenshot thumbnail (base64 JPEG) with the tap marked, screen summary, the vision JSON the
model saw, reasoning, tool calls, action and effect, every model call by kind, errors. No external CSS,
fonts or images, and a Content-Security-Policy that forbids fetching anything, so the file can be
mailed or archived and opened offline. The one script (expand/collapse all) is allowed by its hash;
nothing else can run, so the model's text, escaped anyway, could never execute.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import itertools
import os
import sys
import time
from html import escape
from pathlib import Path

import jinja2
from PIL import Image

from lluma_agent.atomic import write_output
from lluma_agent.fleet.folder import FleetFolder
from lluma_agent.fleet.sidebyside import all_stats, fleet_runs, stats_table
from lluma_agent.navmap import MapError
from lluma_agent.navmap.jsonfile import BookError
from lluma_agent.runlog import figures
from lluma_agent.runlog.careers import STATS, career_state
from lluma_agent.runlog.folder import RunFolder, resumed_at
from lluma_agent.runlog.logread import (
    Run,
    add_dir_argument,
    kept_label,
    open_run,
)
from lluma_agent.runlog.stats import RunStats, compute
from lluma_agent.runlog.turnlog import TurnLog
from lluma_cli.report import charts, progress, timeline
from lluma_cli.report.eventdata import find_book, ordered, read_book, rows
from lluma_cli.report.mapchart import map_svg
from lluma_cli.report.mapdata import find_map, read_map
from lluma_cli.report.marks import mark_action
from lluma_cli.report.progress_charts import progress_charts
from lluma_cli.report.turnview import TurnView

COLOURS = {"uncached": "#e4572e", "cache write": "#f3a712", "cache read": "#2e86ab"}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;
 padding:16px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}h4{margin:10px 0 2px;font-size:13px;color:#555}
.sub{color:#666;margin-bottom:12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:8px}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px}
.card b{display:block;font-size:17px}.card span{color:#666;font-size:12px}
table.careers{border-collapse:collapse;font-size:13px;margin:6px 0;display:block;overflow-x:auto}
table.careers td,table.careers th{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
.chart{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px;margin:8px 0}
svg text{font-size:11px;fill:#444}svg .ct{font-size:13px;font-weight:600;fill:#222}svg .grid{stroke:#e5e5e5}
svg .edge{font-size:10px;fill:#555}
details.turn{background:#fff;border:1px solid #ddd;border-radius:6px;margin:4px 0}
details.turn>summary{cursor:pointer;padding:6px 8px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
details.turn.err>summary{background:#fdecea}details.turn.stuck>summary{background:#fff7e0}
.n{font-weight:600;display:inline-block;min-width:44px}.cost{color:#666}.bad{color:#b00020;font-weight:600}
.body{display:flex;gap:14px;padding:8px 10px;border-top:1px solid #eee;align-items:flex-start}
.shot{max-width:260px;border:1px solid #ccc;border-radius:4px}.info{flex:1;min-width:0}
pre{white-space:pre-wrap;word-break:break-word;background:#f4f4f4;padding:6px;border-radius:4px;margin:2px 0;
 font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
ul{margin:2px 0;padding-left:20px}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.errors li{color:#b00020}.muted{color:#888}
.calls{border-collapse:collapse;font-size:12px;margin:2px 0}.calls td,.calls th{padding:1px 8px 1px 0;text-align:right}
.calls td:first-child,.calls th:first-child{text-align:left}
.tag{font-size:11px;border-radius:3px;padding:0 4px;margin-left:4px;background:#e8eef7;color:#234}
.progress{display:block;white-space:normal;font-size:11px;color:#555;margin:2px 0 0 48px}
.tag.person{background:#f6e3f0;color:#7a1457}.tag.resume{background:#e3f4e8;color:#1d5c2e}
.tag.nav{background:#e0f0f8;color:#0d4a66}.tag.routine{background:#ececec;color:#444}
.timeline{max-width:360px;border:1px solid #ccc;border-radius:4px}
.toolbar{margin:4px 0}.toolbar button{font:inherit;padding:2px 10px;margin-right:6px;cursor:pointer}
"""

# Expand or collapse every turn; `report.html#all` opens them all on load (and lets a test see the script ran).
SCRIPT = (
    "function setAll(o){document.querySelectorAll('details.turn').forEach(function(d){d.open=o})}"
    "document.getElementById('expand').onclick=function(){setAll(true)};"
    "document.getElementById('collapse').onclick=function(){setAll(false)};"
    "if(location.hash==='#all'){setAll(true)}"
)
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")

# Nothing may be fetched: images are data: URIs, styles are inline, and the only script is ours (by hash).
CSP = f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{SCRIPT_HASH}'"


def thumbnail(path: Path, long_side: int, point: list[int] | None = None,
              swipe: list[int] | None = None) -> str | None:
    """The screenshot as a small base64 JPEG data URI, the action marked on it; None when it is gone
    (screenshot retention)."""
    try:
        with Image.open(path) as src:
            img = src.convert("RGB")
            mark_action(img, point, swipe)
            img.thumbnail((long_side, long_side))
            buf = io.BytesIO()
            img.save(buf, format="JPEG", quality=70)
    except (OSError, ValueError, Image.DecompressionBombError):  # gone, damaged, or too large to decode
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _map_cards(turns: list[TurnLog]) -> list[tuple[str, str, str]]:
    """goTo walks and routine passes (the screen map: no model call for either); none when the run made neither."""
    walks = [t.navigation for t in turns if t.navigation]
    passes = sum(1 for t in turns if t.routine is not None)
    surveys = [t.survey for t in turns if t.survey is not None]
    if not walks and not passes and not surveys:
        return []
    stopped = sum(1 for w in walks if not w[-1].ok)
    decided = [t for t in turns if t.decided_on_options]
    full = sum(1 for t in decided if t.survey is not None and t.survey.complete)
    return [("goTo walks", f"{len(walks)}", f"{sum(len(w) for w in walks)} steps; {stopped} stopped on a surprise"),
            ("routine passes", f"{passes}", "screens passed without a model call"),
            ("surveys", f"{len(surveys)}", f"options raised and read before a choice; {full} of {len(decided)} "
                                           "choices made with every option in view")]


def _header(s: RunStats, turns: list[TurnLog]) -> str:
    total_in = s.uncached_input_tokens + s.cache_write_tokens + s.cache_read_tokens
    calls = ", ".join(f"{k} {c.count} {figures.usd(c.cost_usd)}" for k, c in s.calls.items()) or "none"
    cards = [
        ("stopped", s.stop_reason, "why the run ended"),
        ("model calls", f"{s.model_calls}", calls),
        ("turns", f"{s.turns}", f"{s.active_s:.0f} s active, {s.wall_s:.0f} s wall time"),
        ("cost", figures.usd(s.cost_usd), f"total; {figures.usd(s.cost_per_turn_usd)} per turn"),
        ("cache hit", figures.percent(s.cache_hit_ratio), "of input tokens read from cache"),
        ("input tokens", f"{total_in:,}", f"uncached {s.uncached_input_tokens:,} / cache write "
         f"{s.cache_write_tokens:,} / cache read {s.cache_read_tokens:,}"),
        ("out tokens", f"{s.output_tokens:,}", f"{s.output_tokens // max(s.turns, 1):,} per turn"),
        ("model latency", f"{s.model_latency_p50_s:.2f} s", f"p50; p90 {s.model_latency_p90_s:.2f} s"),
        ("past turn", f"{s.median_past_turn_tokens:.0f} tok", "median, in every later request"),
        ("actions", f"{sum(s.actions.values())}", ", ".join(f"{k} {v}" for k, v in s.actions.items()) or "none"),
        ("errors", f"{s.errors}", f"in {s.turns_with_errors} turns"),
        ("stuck", f"{sum(s.stuck.values())}", ", ".join(f"{k} {v}" for k, v in s.stuck.items()) or "never"),
        ("recoveries", f"{sum(s.recoveries.values())}",
         ", ".join(f"{k} {v}" for k, v in s.recoveries.items()) or "no rung of the ladder taken"),
        ("game starts", f"{s.game_starts}", f"{s.game_start_failures} failed" if s.game_start_failures
         else "the game started again by the agent"),
        *_map_cards(turns),
        ("memory changes", f"{sum(s.memory_changes.values())}",
         ", ".join(f"by {k} {v}" for k, v in s.memory_changes.items()) or "none"),
    ]
    html = "".join(f'<div class="card"><span>{escape(k)}</span><b>{escape(v)}</b><span>{escape(sub)}</span></div>'
                   for k, v, sub in cards)
    return f'<div class="cards">{html}</div>'


def _careers(s: RunStats) -> str:
    """A row per career: how it ended, what it cost, where it got (its last turn links to the turn)."""
    if not s.careers:
        return ""
    stats = [k for k in STATS if any(k in c.stats for c in s.careers)]
    head = ["career", "ended", "goals met", "rating", "turns", "model calls", "cost", "wall", *stats, "skill pts",
            "races won", "recoveries", "game starts"]
    rows = []
    for c in s.careers:
        state = escape(career_state(c))  # the same words as `lluma stats` and the live output
        cells = [escape(str(c.number)),
                 f'{state}: <a href="#t{c.last_turn}">turn {c.last_turn}</a>' if c.ended else state,
                 f"{sum(g.met for g in c.goals)}/{len(c.goals)}" if c.goals else "",
                 "" if c.rating is None else escape(f"{c.rating:,}" + (f" ({c.rank})" if c.rank else "")),
                 f"{c.turns} ({c.first_turn}–{c.last_turn})", str(c.model_calls), escape(figures.usd(c.cost_usd)),
                 f"{c.wall_s:.0f} s", *(str(c.stats.get(k, "")) for k in stats),
                 "" if c.skill_points is None else str(c.skill_points), f"{c.races_won}/{c.races_entered}",
                 escape(", ".join(f"{k} {n}" for k, n in c.recoveries.items()) or "none"), str(c.game_starts)]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    th = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f'<h2>Careers</h2><table class="careers"><tr>{th}</tr>{"".join(rows)}</table>'


def _charts(turns: list[TurnLog]) -> str:
    xs = [t.turn for t in turns]
    series = [
        ("uncached", COLOURS["uncached"], [float(t.usage.input_tokens) for t in turns]),
        ("cache write", COLOURS["cache write"], [float(t.usage.cache_creation_input_tokens) for t in turns]),
        ("cache read", COLOURS["cache read"], [float(t.usage.cache_read_input_tokens) for t in turns]),
    ]
    cumulative = list(itertools.accumulate(t.cost.turn_usd for t in turns))
    return (f'<div class="chart">{charts.stacked_bars("Input tokens per turn", xs, series)}</div>'
            f'<div class="chart">{charts.line("Cumulative cost (USD)", xs, cumulative)}</div>')


def _screen_map(folder: Path) -> str:
    """The screen map the run played with, drawn (a demo keeps its own beside its memory; a run on a phone shares
    the one beside memory.dir, as it is now); "" when there is none."""
    try:
        path = find_map(folder)
        if not path.is_file():
            return ""
        svg = map_svg(read_map(path))
    except MapError as exc:
        return f'<h2>Screen map</h2><p class="muted">{escape(str(exc))}</p>'
    return (f'<h2>Screen map</h2><p class="muted">{escape(str(path))}: what every run with this memory folder has '
            f'learned so far (<code>lluma map</code> lists it)</p><div class="chart">{svg}</div>') if svg else ""


def _event_book(folder: Path) -> str:
    """What each event choice did, as the runs with this memory folder measured it; "" when nothing yet."""
    try:
        path = find_book(folder)
        if not path.is_file():
            return ""
        book = read_book(path)
    except (MapError, BookError) as exc:
        return f'<h2>Event choices</h2><p class="muted">{escape(str(exc))}</p>'
    if not book.events:
        return ""
    body = "".join(f"<tr><td>{escape(name) if i == 0 else ''}</td><td>{escape(choice)}</td><td>{times}</td>"
                   f"<td>{escape(means)}</td></tr>"
                   for name, rec in ordered(book) for i, (choice, times, means) in enumerate(rows(rec)))
    return (f'<h2>Event choices</h2><p class="muted">{escape(str(path))}: what each choice did, as measured in play '
            f'(<code>lluma events</code> lists it)</p><table><tr><th>event</th><th>choice</th><th>times</th>'
            f"<th>mean change</th></tr>{body}</table>")


def _marks(log: TurnLog, resumed: bool) -> list[tuple[str, str]]:
    """What the turn list flags, as (class, words): a resume point, a person's hand (memory edit, a veto or own
    action), the agent's memory edits."""
    tags = [("resume", "resumed here")] if resumed else []
    if log.person:
        tags.append(("person", f"person: {log.person}"))
    for m in log.memory_changes:
        tags.append(("person" if m.by == "person" else "memory", f"memory {m.op} {m.name} by {m.by}"))
    if kept := kept_label(log):  # a person's lines the agent's write left out, kept
        tags.append(("person", f"memory: {kept}"))
    if log.recovery is not None:
        tags.append(("recovery", f"recovery: {log.recovery.rung}"))
    if log.game_start is not None:
        tags.append(("game", "game started" if log.game_start.ok else "game start failed"))
    tags += [("guard", f"guard: {g}") for g in log.guard]
    if log.navigation:
        last = log.navigation[-1]
        tags.append(("nav", f"goTo {last.target}: step {last.step} of {last.of}" if last.ok
                     else f"goTo {last.target}: stopped at step {last.step} of {last.of}"))
    if log.routine is not None:
        tags.append(("routine", f"routine: {log.routine.action}"))
    return tags


# The turn's HTML (one template, autoescaped: the model's words and the game's text are never markup).
_TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader("lluma_cli.report", "templates"), autoescape=True,
                                undefined=jinja2.StrictUndefined, keep_trailing_newline=False)
_TEMPLATES.globals["usd"] = figures.usd


def _turn(log: TurnLog, folder: Path, thumb: int, out_dir: Path, resumed: bool = False) -> str:
    view = TurnView.of(log, folder)
    cls = "turn err" if log.errors else "turn stuck" if log.stuck.level != "ok" else "turn"
    uri = full = None
    if thumb > 0 and log.frame.path:
        a = log.action
        uri = thumbnail(folder / log.frame.path, thumb, a.point if a else None, a.swipe if a else None)
        full = Path(os.path.relpath(folder / log.frame.path, out_dir)).as_posix()
    return _TEMPLATES.get_template("turn.html").render(
        v=view, cls=cls, marks=_marks(log, resumed), progress=" · ".join(progress.facts(log)),
        show_shot=thumb > 0 and bool(log.frame.path), thumb=uri, full=full)


def resume_points(folder: Path) -> set[int]:
    """The first turn of each resumed sitting (its `memory_at_turn_N.json`)."""
    return {n for p in RunFolder.at(folder).memory_snapshots() if (n := resumed_at(p)) is not None}


def render(run: Run, thumb: int = 480, out_dir: Path | None = None, gif: bytes | None = None) -> str:
    """The page; screenshots link to their full-size files relative to `out_dir` (default the run's folder);
    `gif` (timeline.make) is shown at the top of the turns."""
    s = compute(run.turns, str(run.folder), run.stop_reason)
    out_dir = out_dir or run.folder
    resumed = resume_points(run.folder)
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(run.turns[0].started_at))
    err_links = ", ".join(f'<a href="#t{t.turn}">T{t.turn}</a>' for t in run.turns if t.errors)
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>LLuMa run {escape(run.folder.name)}</title><style>{CSS}</style></head><body>",
        f"<h1>LLuMa run {escape(run.folder.name)}</h1>",
        f'<div class="sub">{escape(str(run.folder))} · started {escape(when)} · model {escape(", ".join(s.models))}'
        f" · turns {s.first_turn}–{s.last_turn} · stopped: {escape(s.stop_reason)}</div>",
        _header(s, run.turns),
        _careers(s),
        "<h2>Tokens and cost</h2>",
        _charts(run.turns),
        *(["<h2>Game progress</h2>", shown]
          if (shown := progress_charts(progress.readings(run.turns), s.careers)) else []),
        *([drawn] if (drawn := _screen_map(run.folder)) else []),
        *([told] if (told := _event_book(run.folder)) else []),
        "<h2>Turns</h2>",
        '<div class="toolbar"><button id="expand" type="button">expand all</button>'
        '<button id="collapse" type="button">collapse all</button></div>',
        f'<p class="muted">Click a turn to open it.{" Turns with errors: " + err_links if err_links else ""}</p>',
        *([f'<h2>Timeline</h2><img class="timeline" src="data:image/gif;base64,'
           f'{base64.b64encode(gif).decode("ascii")}" alt="the run as an animation">'] if gif else []),
        *(_turn(t, run.folder, thumb, out_dir, t.turn in resumed) for t in run.turns),
        f"<script>{SCRIPT}</script>",
        "</body></html>",
    ]
    return "\n".join(parts)


def fleet_page(folder: Path, runs: dict[str, Run], thumb: int) -> int:
    """A fleet's folder: each device's page in its own run folder, and the fleet's (FLEETDIR/report.html) linking
    them beside the devices' figures side by side."""
    fleet = FleetFolder(folder)
    links = []
    for serial, run in runs.items():
        page = run.folder / "report.html"
        write_output(page, render(run, thumb, page.parent, None).encode("utf-8", "replace"))
        links.append(f'<li><a href="{escape(str(page.relative_to(fleet.root)))}">{escape(serial)}</a> '
                     f"({len(run.turns)} turns)</li>")
    out = fleet.root / "report.html"
    index = (f"<!doctype html><meta charset=utf-8><title>LLuMa fleet {escape(fleet.root.name)}</title>"
             f"<h1>Fleet {escape(fleet.root.name)}</h1><ul>{''.join(links)}</ul>"
             f"<pre>{escape(stats_table(all_stats(runs)))}</pre>")
    write_output(out, index.encode("utf-8"))
    print(f"wrote {out} and {len(runs)} device page(s)")
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma report", description=__doc__.splitlines()[0])
    add_dir_argument(ap)
    ap.add_argument("-o", "--output", type=Path, help="HTML file to write (default DIR/report.html)")
    ap.add_argument("--thumb", type=int, default=480, help="screenshot long side in pixels; 0 leaves them out")
    ap.add_argument("--gif", action="store_true",
                    help=f"also write DIR/{timeline.FILE}: the run as an animation (the tap marked, the action "
                         "captioned), shown on the page")
    args = ap.parse_args(argv)
    if (fleet := fleet_runs(args.dir, "lluma report")) is not None:  # a fleet's folder: a page per device, one index
        return fleet_page(args.dir, fleet, args.thumb)
    run = open_run(args.dir, "lluma report")
    if run is None:
        return 1
    out = args.output or run.folder / "report.html"
    try:
        gif = timeline.make(run) if args.gif else None
        if gif is not None:
            write_output(run.folder / timeline.FILE, gif)  # made to be shared, as the page: the user's umask
        write_output(out, render(run, args.thumb, out.parent, gif).encode("utf-8", "replace"))
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out  # the file named once (cli/errors.disk_line's form)
        print(f"lluma report: cannot write {where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KB, {len(run.turns)} turns)")
    if args.gif:
        print(f"wrote {run.folder / timeline.FILE}" if gif else "no timeline: no screenshot of the run is kept")
    return 0
