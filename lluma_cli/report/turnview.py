"""One view of a turn, rendered twice: as text (`lluma logs --turn N`) and as HTML (`lluma report`).

`TurnView.of(log)` reads a TurnLog once into the facts both renderings show, each already worded; the text
renderer lays them out in the order the turn happened, the HTML template (report/templates/turn.html,
Jinja2 with autoescaping: the model's words can never become markup) does the same in a <details>.
A fact added here shows in both.
"""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

from pydantic import BaseModel

from lluma_agent.runlog import figures
from lluma_agent.runlog.logread import action_label, call_line, effect_words, screen_label, turn_calls
from lluma_agent.runlog.turnlog import TurnLog


class ResultLine(BaseModel):
    name: str
    content: str
    is_error: bool


class CallRow(BaseModel):
    kind: str
    model: str
    uncached: int
    cache_read: int
    cache_write: int
    out: int
    cost_usd: float
    line: str  # the same call as one line of text


class MemoryChangeView(BaseModel):
    title: str
    by: str
    diff: str


class TurnView(BaseModel):
    turn: int
    when: str
    model: str
    timings: str
    frame_path: str  # relative to the run folder ("" when none was saved)
    frame_line: str
    waited: str
    screen: str
    vision_backend: str  # "ocr", "ocr, cached"...
    seen_by_model: str  # the compact vision JSON, pretty (one key per line)
    seen_by_model_indented: str  # the same, indented JSON (the page)
    tool_results: list[ResultLine]
    notes: list[str]
    context: str
    fold: str
    thinking: str
    text: str
    tool_calls: list[str]
    stop_reason: str
    retries: list[str]
    action: str  # pressButton(OK) [forced]
    action_point: str  # " at (540, 1210)"
    action_where: str  # where it went: point, swipe or key
    effect: str  # the full effect text
    effect_short: str  # 'screen changed'
    usage: str
    calls: list[CallRow]
    turn_usd: float
    run_usd: float
    model_s: float
    memory: list[MemoryChangeView]
    stuck_level: str
    stuck_line: str
    stuck_reason: str
    unattended: list[str]  # the recovery ladder's rung, the game started, what the guard did
    navigation: list[str]  # a goTo walk's steps, a routine pass, a survey, a plan (no model call per step)
    errors: list[str]

    @classmethod
    def of(cls, log: TurnLog, folder: Path) -> TurnView:
        t, f, r, a = log.timings, log.frame, log.response, log.action
        frame_line = ""
        if f.path:
            kept = "" if (folder / f.path).exists() else " (no longer kept)"
            settled = "settled" if f.settled else "NOT settled"
            frame_line = (f"{folder / f.path}{kept}, {f.width}x{f.height}, phash {f.phash}, {settled} after "
                          f"{f.settle_captures} capture(s), cinematic {f.cinematic}")
        seen = json.dumps(log.vision.seen_by_model, ensure_ascii=False) if log.vision else ""
        u, c = log.usage, log.cost
        where = ""
        if a:
            where = (f" at {tuple(a.point)}" if a.point else f" swipe {a.swipe}" if a.swipe
                     else f" key {a.key}" if a.key else "")
        s = log.stuck
        return cls(
            turn=log.turn, when=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(log.started_at)), model=log.model,
            timings=(f"capture {t.capture_s:.2f}s, settle {t.settle_s:.2f}s, vision {t.vision_s:.2f}s, "
                     f"model {t.model_s:.2f}s, action {t.action_s:.2f}s, total {t.total_s:.2f}s"),
            frame_path=f.path or "", frame_line=frame_line, waited=log.waited or "", screen=screen_label(log),
            vision_backend=(f"{log.vision.backend or '?'}{', cached' if log.vision.cached else ''}"
                            if log.vision else ""),
            seen_by_model=_pretty_json(seen) if seen else "",
            seen_by_model_indented=(json.dumps(log.vision.seen_by_model, indent=1, ensure_ascii=False)
                                    if log.vision else ""),
            tool_results=[ResultLine(name=x.name, content=x.content, is_error=x.is_error) for x in log.tool_results],
            notes=list(log.notes),
            context=", ".join(f"{x.name} {x.tokens}{' |bp' if x.breakpoint else ''}" for x in log.context),
            fold=log.history_fold or "",
            thinking=r.thinking if r else "", text=r.text if r else "",
            tool_calls=[f"{x.name} {json.dumps(x.input, ensure_ascii=False)}" for x in r.tool_calls] if r else [],
            stop_reason=str(r.stop_reason) if r else "",
            retries=[json.dumps(x.model_dump(), ensure_ascii=False) for x in r.retries] if r else [],
            action=action_label(log), action_point=f" at {tuple(a.point)}" if a and a.point else "",
            action_where=where, effect=a.effect if a else "", effect_short=effect_words(a.effect) if a else "",
            usage=(f"decision uncached {u.input_tokens}, cache write {u.cache_creation_input_tokens}, cache read "
                   f"{u.cache_read_input_tokens}, out {u.output_tokens}; this turn (every call): "
                   f"{figures.tokens(figures.turn_usage(log))}, {figures.usd(c.turn_usd)}; run so far: "
                   f"{figures.usd(c.run_usd)}, cache hit {figures.percent(c.run_cache_hit_ratio)} (this turn's "
                   f"decision {figures.percent(c.cache_hit_ratio)}); past-turn tokens {log.past_turn_tokens}"),
            calls=[CallRow(kind=x.kind, model=x.model, uncached=x.usage.input_tokens,
                           cache_read=x.usage.cache_read_input_tokens, cache_write=x.usage.cache_creation_input_tokens,
                           out=x.usage.output_tokens, cost_usd=x.cost_usd, line=call_line(x)) for x in turn_calls(log)],
            turn_usd=c.turn_usd, run_usd=c.run_usd, model_s=t.model_s,
            memory=[MemoryChangeView(
                title=(f"memory {m.op} {m.name} by {m.by} ({m.tokens_after} tokens after"
                       + (f", KEEPS {len(m.kept_person_lines)} line(s) a person wrote its content left out"
                          if m.kept_person_lines else "")
                       + (f", DROPS {len(m.dropped_person_lines)} line(s) a person wrote" if m.dropped_person_lines
                          else "") + ")"),
                by=m.by, diff=m.diff) for m in log.memory_changes],
            stuck_level=s.level, stuck_reason=s.reason,
            stuck_line=(f"stuck: {s.level} (unchanged {s.unchanged_streak}, loop {s.loop_streak}): {s.reason}"
                        if s.level != "ok" else ""),
            unattended=unattended_lines(log),
            navigation=navigation_lines(log),
            errors=list(log.errors),
        )


def navigation_lines(log: TurnLog) -> list[str]:
    """What the coordinator did this turn without asking the model: each step of a goTo walk (step k of n, the
    action, the screen the map expected and the one reached), a routine screen passed, a survey's rows and commit."""
    lines = []
    for s in log.navigation:
        outcome = (f"reached {s.reached}" if s.ok else f"SURPRISE: expected {s.expected}, reached "
                   f"{s.reached or 'nothing read'}")
        lines.append(f"goTo {s.target}: step {s.step} of {s.of}, {s.action} -> {outcome}"
                     + (f" ({s.seconds:.1f} s)" if s.seconds else "") + (f"; {s.note}" if s.note else ""))
    if (r := log.routine) is not None:
        lines.append(f"routine pass (no model call): {r.action} on {r.screen}"
                     + (f", expecting {r.expected}" if r.expected else "") + f"; taken {r.uses} time(s) before")
    if (sv := log.survey) is not None:  # each option raised and read, then the chosen one committed
        if sv.lead_in is not None:
            lines.append(f"survey: pressed {sv.lead_in.option} ({sv.lead_in.line}) to open {sv.screen}")
        for row in sv.rows:
            lines.append(f"survey of {sv.screen}: {row.line or row.option}" + (f" [{row.frame}]" if row.frame else "")
                         + (f"; {row.note}" if row.note else ""))
        for row in sv.commit:
            lines.append(f"survey: committed {row.option}" + (f"; {row.note}" if row.note else ""))
    if (p := log.plan) is not None:  # a procedure carried out, press by press
        for st in p.steps:
            outcome = (f"reached {st.reached}" if st.ok else f"SURPRISE: expected {st.expected or 'a change'}, "
                       f"reached {st.reached or 'nothing read'}") if st.reached else "not sent"
            lines.append(f"runPlan {p.name}: step {st.step}, {st.action or '(none)'} -> {outcome}"
                         + (f"; {st.note}" if st.note else ""))
    return lines


def unattended_lines(log: TurnLog) -> list[str]:
    """What the agent did on its own this turn: a rung of the recovery ladder, a start of the game, the guard."""
    lines = []
    if (r := log.recovery) is not None:
        failed = f"; {r.failed} failed ladder(s) within the window" if r.failed else ""
        lines.append(f"recovery rung {r.rung}: {r.reason}{failed}")
    if (g := log.game_start) is not None:
        lines.append(f"game {'started' if g.ok else 'start FAILED'} ({g.reason}): `{g.command}`"
                     + (f" -> {g.output}" if g.output else ""))
    lines += [f"guard: {x}" for x in log.guard]
    return lines


def _pretty_json(text: str) -> str:
    """One top-level key per line and one list item per line: readable, still close to what was sent."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return json.dumps(data, ensure_ascii=False)
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value:
            lines.append(f"{key}:")
            lines += [f"  {json.dumps(v, ensure_ascii=False)}" for v in value]
        else:
            lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines)


def _block(title: str, body: str) -> list[str]:
    if not body.strip():
        return []
    return [f"{title}:", textwrap.indent(body.rstrip(), "  ")]


def as_text(v: TurnView) -> str:
    """The turn in full, in the order it happened (`lluma logs --turn N`)."""
    out = [f"Turn {v.turn}  {v.when}  model {v.model}", f"timings: {v.timings}"]
    if v.frame_line:
        out.append(f"frame: {v.frame_line}")
    if v.waited:
        out.append(f"waited: {v.waited} (no model call)")
    if v.vision_backend:
        out.append(f"screen: {v.screen}  [vision {v.vision_backend}]")
        out += _block("what the model saw (compact vision JSON)", v.seen_by_model)
    res = [f"{'ERROR ' if x.is_error else ''}{x.name}: {x.content}" for x in v.tool_results]
    out += _block("tool results sent this turn (answers to the previous turn)", "\n".join(res))
    out += _block("notes given to the model this turn", "\n".join(v.notes))
    if v.context:
        out.append(f"context (estimated tokens, |bp = cache breakpoint): {v.context}")
    out += _block("history fold", v.fold)
    if v.stop_reason:
        out += _block("thinking", v.thinking)
        out += _block("text", v.text)
        out += _block("tool calls", "\n".join(v.tool_calls))
        out.append(f"stop reason: {v.stop_reason}")
        out += _block("retries", "\n".join(v.retries))
    out.append(f"action: {v.action}{v.action_where} -> {v.effect}" if v.action or v.effect else "action: none")
    out.append(f"usage: {v.usage}")
    out += _block("calls (each billed to this turn)", "\n".join(c.line for c in v.calls))
    for m in v.memory:
        out += _block(m.title, m.diff or "(no diff)")
    out += _block("screen map, survey, plan (no model call)", "\n".join(v.navigation))
    if v.stuck_line:
        out.append(v.stuck_line)
    out += v.unattended
    out += _block("errors", "\n".join(f"- {e}" for e in v.errors))
    return "\n".join(out)
