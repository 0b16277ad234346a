"""`lluma models [--json]`: the model registry, one row per model id, retired ones marked."""

from __future__ import annotations

import argparse
import json
from datetime import date

from lluma_agent.config import Config, ConfigError, find_config, load_config
from lluma_facts.registry import MODELS, ModelSpec, registry_day


def _money(x: float) -> str:
    return f"${x:g}"


def sent_effort() -> str:
    """The effort LLuMa sends an adaptive model: model.effort of ./config.yaml and LLUMA_*, else its default (a
    listing must not fail on a configuration it barely needs)."""
    try:
        return load_config(find_config(None)).model.effort
    except (ConfigError, OSError, ValueError):
        return Config().model.effort


def _rows(spec: ModelSpec, today: date, effort: str) -> list[str]:
    state: str = "retired" if spec.retired(today) else spec.status
    if spec.retires and not spec.retired(today):
        state += f" (retires {spec.retires})"
    if spec.replaced_by:
        state += f", replaced by {spec.replaced_by}"
    if spec.thinking == "adaptive":
        cap = spec.disable_thinking_max_effort
        switch = f"on by default, off allowed at effort <= {cap}" if cap else "always on"
        thinking = f"adaptive ({switch}), effort "
        # The registry's default is the API's, for a request that names none; LLuMa always names one (model.effort).
        thinking += f"{'/'.join(spec.efforts)} (API default {spec.default_effort}; LLuMa sends {effort}: model.effort)"
    else:
        thinking = "budget (thinking.budget_tokens >= 1024, below max_tokens)"
    lines = [f"{spec.id}  {spec.name}  {state}"]
    for tier in spec.prices:
        p = tier.price
        where = f"prompts > {tier.above_prompt_tokens:,} tokens" if tier.above_prompt_tokens else "per MTok"
        lines.append(
            f"  {where}: in {_money(p.input)}  out {_money(p.output)}  cache read {_money(p.cache_read)}  "
            f"write 5m {_money(p.cache_write_5m)} / 1h {_money(p.cache_write_1h)}"
        )
    lines.append(
        f"  context {spec.context_window:,}  max output {spec.max_output_tokens:,}  "
        f"cache minimum {spec.min_cacheable_tokens:,}  tokenizer x{spec.tokenizer_factor:g}  "
        f"images <= {spec.image_max_long_edge} px / {spec.image_max_tokens:,} tokens"
    )
    lines.append(f"  thinking: {thinking}")
    rejected = list(spec.rejected_params) + (["assistant prefill"] if spec.rejects_prefill else [])
    if rejected:
        lines.append(f"  rejects (400): {', '.join(rejected)}")
    if spec.note:
        lines.append(f"  note: {spec.note}{'' if spec.confirmed else ' (some figures unconfirmed)'}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="lluma models", description="The Claude models LLuMa knows, with prices.")
    ap.add_argument("--json", action="store_true", help="one JSON object per model, in a list")
    ap.add_argument("--today", type=date.fromisoformat, default=None,
                    help="judge retirement as of this day (default: LLUMA_TODAY, else the real date)")
    args = ap.parse_args(argv)
    today, effort = args.today or registry_day(), sent_effort()
    if args.json:
        out = [{**m.model_dump(mode="json"), "retired": m.retired(today),
                "lluma_effort": effort if m.thinking == "adaptive" else None} for m in MODELS.values()]
        print(json.dumps(out, indent=2))
        return 0
    for spec in MODELS.values():
        print("\n".join(_rows(spec, today, effort)))
    return 0
