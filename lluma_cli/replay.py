"""`lluma replay RUN_DIR_or_TURN_FILE [--model M] [--prompt FILE] [--turns A-B] [--api stand-in|real] [--json]`.

Feeds recorded turns to a model again: each turn's stored request (`requests/turn_N.json.gz`: the
recorded history, memory and notes as they were sent), with the screen re-read by vision from the saved
frame and the screenshot re-encoded from it. Optionally another model or system prompt. Prints per turn
the recorded and the replayed action and whether they agree, then the agreement and the cost.

Against the Messages API stand-in on 127.0.0.1 by default (no key, no network); `--api real` sends the
requests to the API with ANTHROPIC_API_KEY, billed at the model's prices. Turns are replayed in order;
each is sent on its own, so a replayed answer never changes a later turn's history.

Thinking in the recorded history is signed by the account that made it and is the recorded model's own.
It is sent back only where it is valid: to the recorded model, on the API that signed it (a demo run's
stand-in is started again with the run's signing key, which its checkpoint holds; a run on the real API
replayed with `--api real`). Anywhere else the past turns' thinking blocks are removed (the provider's
own advice for a trimmed history) and the result says so: a replay never sends a block it knows is invalid.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel, Field, ValidationError

from lluma_agent.config import ModelConfig
from lluma_agent.context.request import screenshot_block
from lluma_agent.loop import checkpoint
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.claude import Model, ModelError, make_client, request_shape, stored_request
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import LogDirError, resolve_dir
from lluma_agent.runlog.requestlog import OMITTED, image_blocks, load_request, restore_images
from lluma_agent.runlog.turnlog import TurnLog, read_turn
from lluma_cli.errors import INTERRUPTED_EXIT, one_line
from lluma_facts import RetiredModelError, UnknownModelError, cost_usd, model_spec, usable_model
from lluma_vision.config import VisionConfig
from lluma_vision.facts.compact import compact

_VISION = re.compile(r"<vision>.*?</vision>", re.DOTALL)


class ReplayTurn(BaseModel):
    turn: int
    recorded_action: str
    replayed_action: str
    same: bool
    cost_usd: float = 0.0
    error: str = ""


class ReplayResult(BaseModel):
    source: str
    api: str  # "stand-in" or the API's base URL
    model: str
    prompt: str | None = None
    turns: list[ReplayTurn] = Field(default_factory=list)
    compared: int = 0
    agreement: float = 0.0  # share of compared turns whose replayed action is the recorded one
    cost_usd: float = 0.0
    skipped: list[str] = Field(default_factory=list)  # turns that could not be replayed, and why
    notes: list[str] = Field(default_factory=list)  # turns replayed with a difference (thinking removed), and why
    chosen: int = 0  # turns in the range asked for: replayed, failed or skipped
    not_replayed: int = 0  # of those, turns with no replayed action (skipped, or the API refused the request)
    agreement_of_chosen: float = 0.0  # share of ALL chosen turns whose replayed action is the recorded one
    thinking: str = ""  # what became of the recorded thinking blocks, and why
    measures: str = ""  # whose choices the agreement measures: the model's (real API) or the harness's (stand-in)
    interrupted: bool = False  # Ctrl+C: the turns finished before it are kept, the rest listed as not replayed
    run_turns: str = ""  # the turns the run holds (e.g. "1-19"), said when the range chose none


def parse_range(text: str | None) -> tuple[int, int]:
    if not text:
        return 1, 10**9
    m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not m:
        raise ValueError(f"--turns {text!r}: expected A-B or N, e.g. 3-10")
    a = int(m.group(1))
    b = int(m.group(2)) if m.group(2) else a
    if b < a:
        raise ValueError(f"--turns {text!r}: the range ends before it starts")
    return a, b


def _is_input(call: ToolCall) -> bool:
    return "Memory" not in call.name  # memory tools are bookkeeping; the rest act on the phone


def action_of(calls: list[ToolCall]) -> str:
    """The first input tool call as `pressButton(name=Rest)`; `-` when the reply had none."""
    call = next((c for c in calls if _is_input(c)), None)
    if call is None:
        return "-"
    args = ", ".join(f"{k}={v}" for k, v in sorted(call.input.items()))
    return f"{call.name}({args})" if args else call.name


def _norm(action: str) -> str:
    return re.sub(r"[^0-9a-z(=,)]+", "", action.casefold())


def without_thinking(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history with every assistant turn's thinking removed (what is left of a turn is sent as it was)."""
    out = []
    for msg in messages:
        content = msg.get("content")
        if msg.get("role") == "assistant" and isinstance(content, list):
            kept = [b for b in content if b.get("type") not in ("thinking", "redacted_thinking")]
            msg = {**msg, "content": kept or [{"type": "text", "text": "(thinking only)"}]}
        out.append(msg)
    return out


def reshape(req: dict[str, Any], model: str) -> dict[str, Any]:
    """The request's thinking settings for another model (an adaptive model's effort carried over when it takes it)."""
    spec = model_spec(model)
    effort = (req.get("output_config") or {}).get("effort")
    cfg = ModelConfig(name=model, effort=effort if effort in spec.efforts else (spec.default_effort or "low"))
    shape = request_shape(cfg)
    out = {k: v for k, v in req.items() if k not in ("thinking", "output_config")}
    if shape.thinking is not None:
        out["thinking"] = shape.thinking
    if shape.output_config is not None:
        out["output_config"] = {**(req.get("output_config") or {}), **shape.output_config}
    return out


def replay_request(request: dict[str, Any], frame: Image.Image, view_json: str, model: str | None,
                   prompt: str | None, screenshot_max_side: int, keep_thinking: bool = True) -> dict[str, Any]:
    """The stored request with the screen re-read, the screenshot re-encoded, the model or prompt swapped, and
    the past turns' thinking removed unless `keep_thinking`."""
    req = dict(request)
    if not keep_thinking:
        req["messages"] = without_thinking(req["messages"])
    current = req["messages"][-1]
    blocks = []
    for block in current["content"]:
        if block.get("type") == "text" and _VISION.search(block.get("text", "")):
            block = {**block, "text": _VISION.sub(lambda _: f"<vision>{view_json}</vision>", block["text"])}
        elif block in image_blocks(request):
            block = {**screenshot_block(frame, screenshot_max_side), **{k: v for k, v in block.items()
                                                                          if k == "cache_control"}}
        blocks.append(block)
    req["messages"] = [*req["messages"][:-1], {**current, "content": blocks}]
    if model and model != request.get("model"):
        req = reshape(req, model)
        req["model"] = model
    if prompt is not None:
        system = list(req.get("system") or [])
        first = dict(system[0]) if system else {"type": "text"}
        first["text"] = prompt
        req["system"] = [first, *system[1:]]
    return req


class _Damaged(BaseModel):
    """A turn of the run that cannot be replayed before anything is sent, and why."""

    turn: int
    reason: str


def _turn_number(path: Path) -> int | None:
    digits = path.name.split(".", 1)[0].removeprefix("turn_")
    return int(digits) if digits.isdigit() else None


def _turns_of(source: Path) -> tuple[Path, list[TurnLog | _Damaged]]:
    """Every turn of the run, in order: its log, or why its log cannot be read (a torn or damaged file, or no
    log at all beside a stored request). Nothing is left out silently."""
    if source.is_file():
        try:
            return source.parent, [TurnLog.model_validate_json(source.read_text(encoding="utf-8"))]
        except (UnicodeDecodeError, ValidationError) as exc:
            raise ValueError(f"{source}: not a readable turn log ({one_line(exc)})") from None
    folder, _ = resolve_dir(source)
    rf = RunFolder.at(folder)
    found: dict[int, TurnLog | _Damaged] = {}
    for path in rf.turn_logs():
        number = _turn_number(path)
        if number is None:
            continue
        try:
            found[number] = read_turn(path)
        except (OSError, ValueError, ValidationError) as exc:
            found[number] = _Damaged(turn=number, reason=f"its turn log {path.name} cannot be read (torn or "
                                                         f"damaged: {one_line(exc)[:120]})")
    for path in rf.stored_requests():
        number = _turn_number(path)
        if number is not None and number not in found:
            found[number] = _Damaged(turn=number, reason=f"its turn log {rf.turn_log(number).name} is missing "
                                                         "(a request was stored for it)")
    return folder, [found[n] for n in sorted(found)]


def stand_in_key(folder: Path) -> bytes | None:
    """The signing key of the stand-in a demo run played against (its checkpoint's `env`), or None."""
    return _checkpoint_key(folder)[0]


def _checkpoint_key(folder: Path) -> tuple[bytes | None, str]:
    """(the stand-in's signing key from the run's checkpoint, or None; why there is none)."""
    path = RunFolder.at(folder).checkpoint
    if not path.exists():
        return None, f"the run's {path.name} is missing, so the key that signed it is unknown"
    try:
        cp = checkpoint.Checkpoint.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        why = f"the run's {path.name} cannot be read ({one_line(exc)[:80]})"
        return None, f"{why}, so the key that signed it is unknown"
    secret = cp.env.get("api_secret")
    if secret is None:
        return None, "the API signed it, the stand-in cannot check its signatures"
    try:
        return bytes.fromhex(str(secret)), ""
    except ValueError:
        return None, f"the run's {path.name} holds no valid signing key, so the key that signed it is unknown"


def thinking_plan(api: str, key: bytes | None, recorded_model: str, model: str | None,
                  no_key: str = "the API signed it, the stand-in cannot check its signatures") -> tuple[bool, str]:
    """(send the recorded thinking back?, why): only to the model that made it, on the API that signed it.
    `no_key`: why the run's key is unknown, when it is."""
    if model and model != recorded_model:
        return False, f"removed: it is {recorded_model}'s own thinking, not {model}'s"
    if api == "real":
        if key is not None:
            return False, "removed: the run's stand-in signed it, the real API would refuse it"
        return True, "sent back as recorded (the API and account that signed it)"
    if key is not None:
        return True, "sent back as recorded (the stand-in runs with the run's signing key, from its checkpoint)"
    return False, f"removed: {no_key}"


def measures(api: str, model: str) -> str:
    """Whose choices the agreement figure measures."""
    if api == "real":
        return f"the model's: {model}'s answers on the real API compared with the recorded ones"
    return ("the harness's, not the model's: the stand-in's scripted player chooses from the screen reading and "
            "does not depend on the model named, so any model agrees alike; this checks the request, the "
            "re-read screen and the tools (`--api real` measures a model)")


def _placeholders(node: Any) -> Any:
    """Image blocks whose bytes are no longer kept become a text block that says so (the API refuses the note a
    stored request keeps in their place)."""
    if isinstance(node, list):
        return [_placeholders(x) for x in node]
    if not isinstance(node, dict):
        return node
    src = node.get("source")
    if node.get("type") == "image" and isinstance(src, dict) and str(src.get("data", "")).startswith(OMITTED):
        return {"type": "text", "text": "(a screenshot sent here is no longer kept)"}
    return {k: _placeholders(v) for k, v in node.items()}


@contextlib.contextmanager
def _endpoint(api: str, key: bytes | None) -> Iterator[tuple[Any, str]]:
    """(anthropic client, label): the stand-in on loopback (with the run's signing key when it has one), or the
    real API with the user's key."""
    if api == "real":
        cfg = ModelConfig()
        yield make_client(cfg), cfg.base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        return
    from lluma_sim.api.server import ApiServer

    with ApiServer(secret=key) as server:
        yield server.client(timeout=60.0), "stand-in"


def _prepare(folder: Path, log: TurnLog, vision: Any, model: str | None, prompt: str | None,
             keep: bool) -> tuple[dict[str, Any], str]:
    """(the request to send, a note or ""); raises _Skip with the turn's true reason when it cannot be sent."""
    path = RunFolder.at(folder).request(log.turn)
    if log.response is None:
        raise _Skip("no model call was recorded (the turn log holds no reply)")
    if not path.is_file():
        raise _Skip(f"its request file requests/{path.name} is missing")
    try:
        request = load_request(folder, log.turn)
        if not isinstance(request, dict) or not isinstance(request.get("messages"), list) or not request["messages"]:
            raise ValueError("not a stored request (no messages)")
    except (OSError, EOFError, ValueError, zlib.error) as exc:
        raise _Skip(f"its request file requests/{path.name} cannot be read ({one_line(exc)[:120]})") from None
    assert request is not None
    request, missing = restore_images(folder, request)
    shot = folder / log.frame.path if log.frame.path else None
    if shot is None or not shot.is_file():
        raise _Skip("its screenshot is no longer kept")
    try:
        with Image.open(shot) as im:
            frame = im.convert("RGB")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise _Skip(f"its screenshot {shot.name} cannot be read ({one_line(exc)[:120]})") from None
    view = compact(vision.analyze(frame)).to_json()
    note = ""
    # Recorded thinking is bound to its prefix, past screenshots included: without their bytes it cannot go.
    if missing:
        note = f"{missing} past screenshot(s) no longer kept (sent as a line that says so)"
        if keep:
            note += "; its thinking removed"
    try:
        req = replay_request(request, frame, view, model, prompt, max(frame.size), keep_thinking=keep and not missing)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
        raise _Skip(f"its request file requests/{path.name} is not a request this replay can send "
                    f"({type(exc).__name__}: {one_line(exc)[:80]})") from None
    if missing:
        req["messages"] = _placeholders(req["messages"])
    return req, note


class _Skip(Exception):
    """A turn that cannot be replayed; the message is its reason."""


def replay(source: Path, *, model: str | None = None, prompt_file: Path | None = None, turns: str | None = None,
           api: str = "stand-in", progress: bool = False) -> ReplayResult:
    """Replays the chosen turns. Ctrl+C keeps what was finished: the result comes back with `interrupted` set
    and the turns not reached listed as not replayed."""
    if model:
        usable_model(model)  # an unknown or retired model is refused before any turn (both are ValueErrors)
    folder, logs = _turns_of(source)
    first, last = parse_range(turns)
    prompt = prompt_file.read_text(encoding="utf-8") if prompt_file else None
    chosen = [t for t in logs if first <= t.turn <= last]
    readable = [t for t in chosen if isinstance(t, TurnLog)]
    recorded_model = readable[0].model if readable else ""
    if not model and recorded_model:
        try:
            usable_model(recorded_model)
        except RetiredModelError as exc:  # every turn would be refused: say so before the first
            raise ValueError(f"{exc}; replay with --model {exc.replacement or 'MODEL'}") from None
        except UnknownModelError:
            pass  # an old log's model: its turns are reported one by one
    result = ReplayResult(source=str(source), api=api, model=model or recorded_model,
                          prompt=str(prompt_file) if prompt_file else None, chosen=len(chosen))
    if logs:
        result.run_turns = f"{logs[0].turn}-{logs[-1].turn}" if len(logs) > 1 else str(logs[0].turn)
    key, no_key = _checkpoint_key(folder)
    keep, result.thinking = thinking_plan(api, key, recorded_model, model, no_key)
    result.measures = measures(api, result.model)
    if not chosen:
        return _totals(result)
    from lluma_vision.pipeline import Vision

    vision = Vision(VisionConfig(backend="ocr"))
    with _endpoint(api, key if keep else None) as (client, label):
        result.api = label
        decide = Model(ModelConfig(retry_window_s=30), client).decide
        for i, log in enumerate(chosen, 1):
            try:
                if isinstance(log, _Damaged):
                    result.skipped.append(f"T{log.turn}: {log.reason}")
                    continue
                if progress:
                    print(f"lluma replay: T{log.turn} ({i}/{len(chosen)})", file=sys.stderr, flush=True)
                try:
                    req, note = _prepare(folder, log, vision, model, prompt, keep)
                except _Skip as why:
                    result.skipped.append(f"T{log.turn}: {why}")
                    continue
                if note:
                    result.notes.append(f"T{log.turn}: {note}")
                recorded = action_of(log.response.tool_calls) if log.response else "-"
                try:
                    reply = decide(stored_request(req))
                except ModelError as exc:
                    result.turns.append(ReplayTurn(turn=log.turn, recorded_action=recorded, replayed_action="",
                                                   same=False, error=one_line(exc)))
                    continue
                replayed = action_of(reply.tool_calls)
                result.turns.append(ReplayTurn(turn=log.turn, recorded_action=recorded, replayed_action=replayed,
                                               same=_norm(recorded) == _norm(replayed),
                                               cost_usd=cost_usd(reply.usage, req["model"])))
            except KeyboardInterrupt:
                result.interrupted = True
                result.skipped += [f"T{t.turn}: not replayed: interrupted (Ctrl+C)" for t in chosen[i - 1:]]
                break
    return _totals(result)


def _totals(result: ReplayResult) -> ReplayResult:
    done = [t for t in result.turns if not t.error]
    result.compared = len(done)
    result.agreement = round(sum(t.same for t in done) / len(done), 4) if done else 0.0
    result.not_replayed = result.chosen - len(done)
    result.agreement_of_chosen = round(sum(t.same for t in done) / result.chosen, 4) if result.chosen else 0.0
    result.cost_usd = round(sum(t.cost_usd for t in result.turns), 6)
    return result


def format_result(r: ReplayResult) -> str:
    width = max([len(t.recorded_action) for t in r.turns] + [8])
    lines = [f"replay of {r.source} against {r.api}, model {r.model}" + (f", prompt {r.prompt}" if r.prompt else "")]
    if not r.chosen:
        lines.append(f"no turn chosen: the run holds turns {r.run_turns or '(none)'}")
        return "\n".join(lines)
    lines.append(f"{'turn':>5}  {'recorded':<{width}}  {'replayed':<{width}}  same")
    for t in r.turns:
        shown = t.replayed_action if not t.error else f"error: {t.error}"
        lines.append(f"{t.turn:>5}  {t.recorded_action:<{width}}  {shown:<{width}}  {'yes' if t.same else 'NO'}")
    lines += [f"skipped {s}" for s in r.skipped]
    lines += [f"note {s}" for s in r.notes]
    if r.thinking:
        lines.append(f"recorded thinking: {r.thinking}")
    same = sum(t.same for t in r.turns if not t.error)
    lines.append(f"agreement: {100 * r.agreement:.2f}% of the {r.compared} replayed turn(s) ({same} the same); "
                 f"{100 * r.agreement_of_chosen:.2f}% of all {r.chosen} chosen, {r.not_replayed} of them not "
                 f"replayed; cost ${r.cost_usd:.4f}")
    if r.measures:
        lines.append(f"this figure measures {r.measures}")
    if r.interrupted:
        lines.append(f"interrupted (Ctrl+C): {len(r.turns)} turn(s) finished before it are shown above")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma replay", description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="a run's log folder, or one turn_NNNNNN.json")
    ap.add_argument("-m", "--model", help="send the turns to this model instead of the recorded one")
    ap.add_argument("--prompt", type=Path, help="a system prompt file to use instead of the recorded one")
    ap.add_argument("--turns", help="only these turns: A-B or N")
    ap.add_argument("--api", choices=["stand-in", "real"], default="stand-in",
                    help="stand-in (default: on 127.0.0.1, no key; it measures the harness, its player ignores the "
                         "model) or real (ANTHROPIC_API_KEY, billed; it measures the model)")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    try:
        parse_range(args.turns)
        if args.prompt is not None and not args.prompt.is_file():
            raise ValueError(f"--prompt {args.prompt}: no such file")
        result = replay(args.source, model=args.model, prompt_file=args.prompt, turns=args.turns, api=args.api,
                        progress=True)
    except (ValueError, LogDirError, ModelError, OSError) as exc:
        print(f"lluma replay: {one_line(exc)}", file=sys.stderr)
        return 2
    print(result.model_dump_json(indent=2) if args.json else format_result(result), flush=True)
    if result.interrupted:
        return INTERRUPTED_EXIT
    if not result.chosen:
        print(f"lluma replay: no turn in --turns {args.turns}: the run holds turns {result.run_turns or '(none)'}",
              file=sys.stderr)
    return 0 if result.compared else 1
