"""`lluma replay RUN_DIR_or_TURN_FILE [--model M] [--prompt FILE] [--turns A-B] [--api stand-in|real] [--json]`.

Feeds recorded turns to a model again: each turn's stored request (`requests/turn_N.json.gz`: the
recorded history, memory and notes as they were sent), with the screen re-read by vision from the saved
frame and the screenshot re-encoded from it. Optionally another model or system prompt. Prints per turn
the recorded and the replayed action and whether they agree, then the agreement and the cost.

Against the Messages API stand-in on 127.0.0.1 by default (no key, no network); `--api real` sends the
requests to the API with ANTHROPIC_API_KEY, billed at the model's prices. Turns are replayed in order;
each is sent on its own, so a replayed answer never changes a later turn's history.
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
from lluma_agent.model.calls import ToolCall
from lluma_agent.model.claude import Model, ModelError, make_client, stored_request
from lluma_agent.runlog.logread import LogDirError, load_run
from lluma_agent.runlog.requestlog import image_blocks, load_request
from lluma_agent.runlog.turnlog import TurnLog
from lluma_facts import cost_usd
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


def replay_request(request: dict[str, Any], frame: Image.Image, view_json: str, model: str | None,
                   prompt: str | None, screenshot_max_side: int) -> dict[str, Any]:
    """The stored request with the screen re-read, the screenshot re-encoded, and the model or prompt swapped."""
    req = dict(request)
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
    if model:
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


@contextlib.contextmanager
def _endpoint(api: str) -> Iterator[tuple[Any, str]]:
    """(anthropic client, label): the stand-in on loopback, or the real API with the user's key."""
    if api == "real":
        cfg = ModelConfig()
        yield make_client(cfg), cfg.base_url or os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        return
    from lluma_sim.api.server import ApiServer

    with ApiServer() as server:
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
                          prompt=str(prompt_file) if prompt_file else None)
    with _endpoint(api) as (client, label):
        result.api = label
        decide = Model(ModelConfig(retry_window_s=30), client).decide
        for log in chosen:
            request = load_request(folder, log.turn)
            shot = folder / log.frame.path if log.frame.path else None
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
            req = replay_request(request, frame, view, model, prompt, max(frame.size))
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
    lines.append(f"agreement: {100 * r.agreement:.0f}% of {r.compared} turn(s); cost ${r.cost_usd:.4f}")
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
