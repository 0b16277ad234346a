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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import BaseModel, Field

from lluma_agent.config import ModelConfig
from lluma_agent.context.request import screenshot_block
from lluma_agent.loop import checkpoint
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.claude import Model, ModelError, make_client, request_shape, stored_request
from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.logread import LogDirError, load_run
from lluma_agent.runlog.requestlog import image_blocks, load_request, restore_images
from lluma_agent.runlog.turnlog import TurnLog
from lluma_facts import cost_usd, model_spec
from lluma_vision.compact import compact
from lluma_vision.config import VisionConfig

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


def _turns_of(source: Path) -> tuple[Path, list[TurnLog]]:
    if source.is_file():
        return source.parent, [TurnLog.model_validate_json(source.read_text(encoding="utf-8"))]
    run = load_run(source)
    return run.folder, run.turns


def stand_in_key(folder: Path) -> bytes | None:
    """The signing key of the stand-in a demo run played against (its checkpoint's `env`), or None."""
    try:
        cp = checkpoint.Checkpoint.model_validate_json(RunFolder.at(folder).checkpoint.read_text(encoding="utf-8"))
        return bytes.fromhex(str(cp.env["api_secret"]))
    except (OSError, ValueError, KeyError):
        return None


def thinking_plan(api: str, key: bytes | None, recorded_model: str, model: str | None) -> tuple[bool, str]:
    """(send the recorded thinking back?, why): only to the model that made it, on the API that signed it."""
    if model and model != recorded_model:
        return False, f"removed: it is {recorded_model}'s own thinking, not {model}'s"
    if api == "real":
        if key is not None:
            return False, "removed: the run's stand-in signed it, the real API would refuse it"
        return True, "sent back as recorded (the API and account that signed it)"
    if key is not None:
        return True, "sent back as recorded (the stand-in runs with the run's signing key, from its checkpoint)"
    return False, "removed: the API signed it, the stand-in cannot check its signatures"


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


def replay(source: Path, *, model: str | None = None, prompt_file: Path | None = None, turns: str | None = None,
           api: str = "stand-in", progress: bool = False) -> ReplayResult:
    folder, logs = _turns_of(source)
    first, last = parse_range(turns)
    prompt = prompt_file.read_text(encoding="utf-8") if prompt_file else None
    chosen = [t for t in logs if first <= t.turn <= last]
    from lluma_vision.pipeline import Vision

    vision = Vision(VisionConfig(backend="ocr"))
    result = ReplayResult(source=str(source), api=api, model=model or (chosen[0].model if chosen else ""),
                          prompt=str(prompt_file) if prompt_file else None, chosen=len(chosen))
    key = stand_in_key(folder)
    keep, result.thinking = thinking_plan(api, key, chosen[0].model if chosen else "", model)
    with _endpoint(api, key if keep else None) as (client, label):
        result.api = label
        decide = Model(ModelConfig(retry_window_s=30), client).decide
        for log in chosen:
            request = load_request(folder, log.turn)
            shot = folder / log.frame.path if log.frame.path else None
            missing = 0
            if request is not None:
                request, missing = restore_images(folder, request)
            if request is None or log.response is None:
                result.skipped.append(f"T{log.turn}: no model call was recorded")
                continue
            if shot is None or not shot.is_file():
                result.skipped.append(f"T{log.turn}: its screenshot is no longer kept")
                continue
            if progress:
                print(f"lluma replay: T{log.turn}", file=sys.stderr, flush=True)
            with Image.open(shot) as im:
                frame = im.convert("RGB")
            view = compact(vision.analyze(frame)).to_json()
            # Recorded thinking is bound to its prefix, past screenshots included: without their bytes it cannot go.
            keep_turn = keep and not missing
            if keep and missing:
                result.notes.append(f"T{log.turn}: {missing} past screenshot(s) no longer kept; its thinking removed")
            req = replay_request(request, frame, view, model, prompt, max(frame.size), keep_thinking=keep_turn)
            recorded = action_of(log.response.tool_calls)
            try:
                reply = decide(stored_request(req))
            except ModelError as exc:
                result.turns.append(ReplayTurn(turn=log.turn, recorded_action=recorded, replayed_action="",
                                               same=False, error=str(exc)))
                continue
            replayed = action_of(reply.tool_calls)
            cost = cost_usd(reply.usage, req["model"])
            result.turns.append(ReplayTurn(turn=log.turn, recorded_action=recorded, replayed_action=replayed,
                                           same=_norm(recorded) == _norm(replayed), cost_usd=cost))
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
    lines.append(f"{'turn':>5}  {'recorded':<{width}}  {'replayed':<{width}}  same")
    for t in r.turns:
        shown = t.replayed_action if not t.error else f"error: {t.error}"
        lines.append(f"{t.turn:>5}  {t.recorded_action:<{width}}  {shown:<{width}}  {'yes' if t.same else 'NO'}")
    lines += [f"skipped {s}" for s in r.skipped]
    lines += [f"note {s}" for s in r.notes]
    if r.thinking:
        lines.append(f"recorded thinking: {r.thinking}")
    same = sum(t.same for t in r.turns if not t.error)
    lines.append(f"agreement: {100 * r.agreement_of_chosen:.0f}% of {r.chosen} turn(s) ({same} the same); "
                 f"{r.not_replayed} could not be replayed; cost ${r.cost_usd:.4f}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="lluma replay", description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="a run's log folder, or one turn_NNNNNN.json")
    ap.add_argument("--model", help="send the turns to this model instead of the recorded one")
    ap.add_argument("--prompt", type=Path, help="a system prompt file to use instead of the recorded one")
    ap.add_argument("--turns", help="only these turns: A-B or N")
    ap.add_argument("--api", choices=["stand-in", "real"], default="stand-in",
                    help="stand-in (default: on 127.0.0.1, no key) or real (ANTHROPIC_API_KEY, billed)")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)
    try:
        parse_range(args.turns)
        if args.prompt is not None and not args.prompt.is_file():
            raise ValueError(f"--prompt {args.prompt}: no such file")
        result = replay(args.source, model=args.model, prompt_file=args.prompt, turns=args.turns, api=args.api,
                        progress=True)
    except (ValueError, LogDirError, ModelError, OSError) as exc:
        print(f"lluma replay: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    print(result.model_dump_json(indent=2) if args.json else format_result(result))
    return 0 if result.compared else 1
