"""Prompt-cache emulation: what the API would bill as uncached input, cache write and cache read.

Model of the real cache (per the prompt-caching docs):
- The prompt is a sequence of blocks in prefix order: every tool, every system block, every message
  content block. A cache entry is keyed by a hash of the whole prefix up to a block (chained hashes of
  canonical JSON, `cache_control` itself excluded), per model.
- Entries are only WRITTEN at breakpoints (blocks with cache_control, or the last block for top-level
  automatic caching), and only when the prefix up to there reaches the model's minimum cacheable length
  (counted by the stand-in's own tokenizer, api_tokens). Below it nothing is cached, silently.
- A READ checks each breakpoint and the 20 block boundaries before it for the longest live entry.
- Entries live 5 minutes (1 hour when the breakpoint asks), refreshed each time they are read.
- tool_choice, thinking settings and the presence of images (any at all, not how many) seed the message part
  of the chain, so changing them invalidates cached messages but not tools/system; changing tools changes
  everything after them. The docs list "adding or removing images anywhere in the prompt" under message
  invalidation and their troubleshooting names "the presence/absence of images"; otherwise an image is a block
  of the prefix like any other (its bytes are hashed into the chain): a screenshot appended in the newest turn
  leaves earlier entries readable, and changing or removing one inside the prefix misses from there on.
- Budget-thinking models (Haiku 4.5) with thinking enabled: when the last user message is not only tool
  results, the API strips earlier thinking blocks from the context, so nothing from the first thinking
  block on is read from or written to the cache (`thinking_stripped`): that history is billed uncached.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from lluma_facts import model_spec
from lluma_facts.clock import Clock
from lluma_facts.request import content_blocks, strip_cache_control, system_blocks
from lluma_sim.api.tokens import RequestCount, count_request

LOOKBACK_BLOCKS = 20  # a breakpoint reads a cache entry at most 20 blocks back (the prompt caching documentation)
TTL_SECONDS = {"5m": 300.0, "1h": 3600.0}


class ManualClock:
    """An injectable clock for tests: `clock()` returns the current time; `advance(s)` moves it."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class ShiftedClock(Clock):
    """The real clock plus a shift that `advance(s)` grows: a break of minutes, as the cache's TTL (and an agent on
    the same clock) sees it, without waiting them out (bench/long_runs.py measures a resume after 10 minutes this
    way)."""

    def __init__(self, base: Callable[[], float] = time.monotonic) -> None:
        self.base, self.shift = base, 0.0

    def now(self) -> float:
        return self.base() + self.shift

    def advance(self, seconds: float) -> None:
        self.shift += seconds


CacheResult = Literal["read", "write", "covered", "below_minimum", "thinking_stripped"]


class BreakpointResult(BaseModel):
    index: int = Field(description="Block index in prefix order (tools -> system -> messages).")
    path: str = Field(description="e.g. system.1, messages.7.content.0; `auto` for top-level cache_control.")
    ttl: Literal["5m", "1h"]
    prefix_tokens: int = Field(description="Tokens (the stand-in's count) up to and including this block.")
    result: CacheResult = Field(
        description="read: a live entry here was read; write: a new entry was written; covered: inside a longer "
        "read; below_minimum: prefix too short, nothing cached; thinking_stripped: earlier thinking was stripped "
        "from the context (budget-thinking model, a user turn that is not only tool results): not cached."
    )


class CacheOutcome(BaseModel):
    """How one request's input tokens split, and why."""

    input_tokens: int = Field(description="Uncached input: everything after the last cached block.")
    cache_read_input_tokens: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    read_index: int | None = Field(None, description="Last block index covered by the read, if any.")
    breakpoints: list[BreakpointResult] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Human-readable reasons (minimum, lookback...).")

    @property
    def cache_creation_input_tokens(self) -> int:
        return self.cache_write_5m + self.cache_write_1h


class _Entry(BaseModel):
    expires_at: float
    ttl: Literal["5m", "1h"]


def _canon(value: Any) -> str:
    return json.dumps(strip_cache_control(value), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _h(*parts: str) -> str:
    d = hashlib.sha256()
    for p in parts:
        d.update(p.encode())
        d.update(b"\x00")
    return d.hexdigest()


def _has_images(request: dict[str, Any]) -> bool:
    """Any image in the messages, tool results included (presence, not count, seeds the message part)."""
    for msg in request.get("messages") or []:
        for b in content_blocks(msg.get("content", "")):
            if b.get("type") == "image":
                return True
            if b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                if any(isinstance(x, dict) and x.get("type") == "image" for x in b["content"]):
                    return True
    return False


def stripped_from(request: dict[str, Any], kinds: list[str], thinking: str) -> int | None:
    """Index of the first block the API strips thinking from (budget-thinking models, thinking enabled, a last
    user message that is not only tool results), or None."""
    if thinking != "budget" or (request.get("thinking") or {}).get("type") != "enabled":
        return None
    last = (request.get("messages") or [{}])[-1]
    if last.get("role") != "user" or all(
        b.get("type") == "tool_result" for b in content_blocks(last.get("content", ""))
    ):
        return None
    return next((i for i, k in enumerate(kinds) if k in ("thinking", "redacted_thinking")), None)


def prefix_hashes(request: dict[str, Any], model_id: str) -> list[str]:
    """The chained hash of the prefix ending at each block, in prefix order."""
    out: list[str] = []
    h = _h("model", model_id)
    for tool in request.get("tools") or []:
        h = _h(h, "tool", _canon(tool))
        out.append(h)
    for block in system_blocks(request.get("system")):
        h = _h(h, "system", _canon(block))
        out.append(h)
    seed = {
        "tool_choice": request.get("tool_choice"),
        "thinking": request.get("thinking"),
        "images": _has_images(request),
    }
    h = _h(h, "messages-seed", _canon(seed))
    for msg in request.get("messages") or []:
        for j, block in enumerate(content_blocks(msg.get("content", ""))):
            h = _h(h, str(msg.get("role")), "first" if j == 0 else "", _canon(block))
            out.append(h)
    return out


class PromptCache:
    """Thread-safe cache state for one stand-in server (one organisation)."""

    def __init__(self, clock: Callable[[], float] | None = None, lookback: int = LOOKBACK_BLOCKS) -> None:
        self.clock = clock or time.monotonic
        self.lookback = lookback
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        now = self.clock()
        return sum(1 for e in self._entries.values() if e.expires_at > now)

    def process(self, request: dict[str, Any], count: RequestCount | None = None) -> CacheOutcome:
        """Look up and update the cache for a (validated) request; returns the token split."""
        spec = model_spec(request["model"])
        blocks = (count or count_request(request)).blocks
        hashes = prefix_hashes(request, spec.id)
        cum: list[int] = []
        running = 0
        for b in blocks:
            running += b.tokens
            cum.append(running)
        total = running
        bps: list[tuple[int, str, Literal["5m", "1h"]]] = [
            (b.index, b.path, (b.cache_control or {}).get("ttl", "5m")) for b in blocks if b.cache_control
        ]
        auto = request.get("cache_control")
        if isinstance(auto, dict) and blocks:
            last = len(blocks) - 1
            # Automatic caching marks the last cacheable block (thinking blocks and empty text cannot be marked).
            while last > 0 and blocks[last].kind in ("thinking", "redacted_thinking"):
                last -= 1
            bps = [bp for bp in bps if bp[0] != last] + [(last, "auto", auto.get("ttl", "5m"))]
            bps.sort(key=lambda bp: bp[0])
        notes: list[str] = []
        strip = stripped_from(request, [b.kind for b in blocks], spec.thinking)
        if strip is not None:
            notes.append(
                f"{blocks[strip].path}: thinking with a user turn that is not only tool results: earlier thinking "
                "is stripped, history from here is not cached"
            )
        with self._lock:
            now = self.clock()
            self._entries = {k: e for k, e in self._entries.items() if e.expires_at > now}
            # READ: longest live prefix within the lookback window of any breakpoint.
            read_index: int | None = None
            for idx, path, _ttl in bps:
                top = idx if strip is None else min(idx, strip - 1)
                for k in range(top, max(-1, idx - self.lookback - 1), -1):
                    if hashes[k] in self._entries:
                        if read_index is None or k > read_index:
                            read_index = k
                        break
                else:
                    older = [k for k in range(0, max(0, idx - self.lookback)) if hashes[k] in self._entries]
                    if older:
                        notes.append(
                            f"{path}: a cached prefix ends at block {older[-1]}, {idx - older[-1]} blocks back; "
                            f"reads look back at most {self.lookback} blocks: miss"
                        )
            if read_index is not None:
                for k in range(read_index + 1):  # a read refreshes every entry along the prefix it used
                    e = self._entries.get(hashes[k])
                    if e is not None:
                        e.expires_at = now + TTL_SECONDS[e.ttl]
            read_tokens = cum[read_index] if read_index is not None else 0
            # WRITE: each breakpoint past the read whose prefix reaches the minimum.
            results: list[BreakpointResult] = []
            written_upto = read_index if read_index is not None else -1
            w5 = w1h = 0
            for idx, path, ttl in bps:
                prefix = cum[idx]
                result: CacheResult
                if read_index is not None and idx == read_index:
                    result = "read"
                elif read_index is not None and idx < read_index:
                    result = "covered"
                    if hashes[idx] not in self._entries:
                        self._entries[hashes[idx]] = _Entry(expires_at=now + TTL_SECONDS[ttl], ttl=ttl)
                elif strip is not None and idx >= strip:
                    result = "thinking_stripped"
                elif prefix < spec.min_cacheable_tokens:
                    result = "below_minimum"
                    notes.append(
                        f"{path}: prefix {prefix:,} tokens is below the "
                        f"{spec.min_cacheable_tokens:,}-token minimum for {spec.id}: not cached"
                    )
                else:
                    result = "write"
                    segment = prefix - (cum[written_upto] if written_upto >= 0 else 0)
                    if ttl == "1h":
                        w1h += segment
                    else:
                        w5 += segment
                    written_upto = idx
                    self._entries[hashes[idx]] = _Entry(expires_at=now + TTL_SECONDS[ttl], ttl=ttl)
                results.append(BreakpointResult(index=idx, path=path, ttl=ttl, prefix_tokens=prefix, result=result))
        cached_upto = cum[written_upto] if written_upto >= 0 else 0
        return CacheOutcome(
            input_tokens=total - cached_upto,
            cache_read_input_tokens=read_tokens,
            cache_write_5m=w5,
            cache_write_1h=w1h,
            read_index=read_index,
            breakpoints=results,
            notes=notes,
        )
