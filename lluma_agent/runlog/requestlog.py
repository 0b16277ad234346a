"""The request each turn sent, kept beside its turn log: `requests/turn_000123.json.gz` (atomic, gzip).

Every text the model was given (tools, system prompt, memory, history, tool results, vision JSON, notes)
is there byte for byte, so `lluma logs --turn N --request` prints exactly what was sent and `lluma replay`
can send it again. Screenshots are left out (the turn's frame is in `screens/`): an image block keeps its
media type and a note of the bytes it carried. Requests hold no headers, so the API key is never here.
"""

from __future__ import annotations

import copy
import gzip
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lluma_agent.atomic import atomic_write_bytes
from lluma_agent.interrupts import no_interrupt

REQUESTS_DIR = "requests"
OMITTED = "omitted:"  # image data in a stored request starts with this


def request_path(folder: Path, turn: int) -> Path:
    return Path(folder) / REQUESTS_DIR / f"turn_{turn:06d}.json.gz"


def _strip_images(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_images(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strip_images(v) for k, v in node.items()}
    src = out.get("source")
    if out.get("type") == "image" and isinstance(src, dict) and isinstance(src.get("data"), str):
        data = src["data"]
        digest = hashlib.sha256(data.encode("ascii", "replace")).hexdigest()[:16]
        out["source"] = {**src, "data": f"{OMITTED} {len(data):,} base64 characters, sha256 {digest}"}
    return out


def stored_form(request: Mapping[str, object]) -> dict[str, Any]:
    """The request as kept: everything as sent, image bytes replaced by a note."""
    stored: dict[str, Any] = _strip_images(copy.deepcopy(dict(request)))
    return stored


def write_request(folder: Path, turn: int, request: Mapping[str, object]) -> Path:
    path = request_path(folder, turn)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(stored_form(request), ensure_ascii=False).encode("utf-8")
    with no_interrupt():
        atomic_write_bytes(path, gzip.compress(data, mtime=0))
    return path


def load_request(folder: Path, turn: int) -> dict[str, Any] | None:
    """The stored request of a turn, or None when the turn made no call (or predates request logs)."""
    path = request_path(folder, turn)
    if not path.is_file():
        return None
    result: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    return result


def image_blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The image blocks of the current turn (the last user message), in order."""
    messages = request.get("messages") or []
    content = messages[-1].get("content") if messages else None
    return [b for b in content if isinstance(b, dict) and b.get("type") == "image"] if isinstance(content, list) else []
