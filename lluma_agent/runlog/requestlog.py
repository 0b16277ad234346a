"""The request each turn sent, kept beside its turn log: `requests/turn_000123.json.gz` (atomic, gzip).

Every text the model was given (tools, system prompt, memory, history, tool results, vision JSON, notes)
is there byte for byte, so `lluma logs --turn N --request` prints exactly what was sent and `lluma replay`
can send it again. Image bytes are not inside the request: an image block keeps its media type and a note
of the bytes it carried (their length and digest), and the bytes themselves are kept once per image under
`requests/images/<digest>.<ext>`. A screenshot sent with turn N sits in every later request until the next
fold (a thinking turn is kept as sent), so this stores it once; `restore_images` puts the exact bytes back,
which a replay needs: a kept thinking block is bound to its prefix, images included. Requests hold no
headers, so the API key is never here.
"""

from __future__ import annotations

import base64
import binascii
import copy
import gzip
import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lluma_agent.atomic import atomic_write_bytes
from lluma_agent.interrupts import no_interrupt
from lluma_agent.runlog.folder import RunFolder

OMITTED = "omitted:"  # image data in a stored request starts with this
_EXT = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}


def _digest(data: str) -> str:
    return hashlib.sha256(data.encode("ascii", "replace")).hexdigest()[:16]


def _image_sources(node: Any) -> Iterator[dict[str, Any]]:
    """Every base64 image source in a request (current turn, kept turns, tool results), in order."""
    if isinstance(node, list):
        for x in node:
            yield from _image_sources(x)
    elif isinstance(node, dict):
        src = node.get("source")
        if node.get("type") == "image" and isinstance(src, dict) and isinstance(src.get("data"), str):
            yield src
        for v in node.values():
            if isinstance(v, (list, dict)):
                yield from _image_sources(v)


def _image_path(folder: Path | RunFolder, digest: str, media_type: str) -> Path:
    return RunFolder.at(folder).images / f"{digest}.{_EXT.get(media_type, 'bin')}"


def _strip_images(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_images(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _strip_images(v) for k, v in node.items()}
    src = out.get("source")
    if out.get("type") == "image" and isinstance(src, dict) and isinstance(src.get("data"), str):
        data = src["data"]
        digest = _digest(data)
        out["source"] = {**src, "data": f"{OMITTED} {len(data):,} base64 characters, sha256 {digest}"}
    return out


def stored_form(request: Mapping[str, object]) -> dict[str, Any]:
    """The request as kept: everything as sent, image bytes replaced by a note."""
    stored: dict[str, Any] = _strip_images(copy.deepcopy(dict(request)))
    return stored


def write_request(folder: Path, turn: int, request: Mapping[str, object]) -> Path:
    path = RunFolder.at(folder).request(turn)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(stored_form(request), ensure_ascii=False).encode("utf-8")
    with no_interrupt():
        for src in _image_sources(dict(request)):
            if src["data"].startswith(OMITTED):
                continue
            kept = _image_path(folder, _digest(src["data"]), str(src.get("media_type", "")))
            if not kept.exists():  # a screenshot kept in history is written once, with its first request
                kept.parent.mkdir(parents=True, exist_ok=True)
                try:
                    atomic_write_bytes(kept, base64.b64decode(src["data"], validate=True))
                except binascii.Error:
                    pass  # not base64: the API would have refused it; nothing to keep
        atomic_write_bytes(path, gzip.compress(data, mtime=0))
    return path


def restore_images(folder: Path, request: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A stored request with its images' bytes put back from `requests/images/`, and how many could not be
    (their file is gone, or its bytes no longer match the digest): those keep their note."""
    restored = copy.deepcopy(request)
    missing = 0
    for src in _image_sources(restored):
        note = src["data"]
        if not note.startswith(OMITTED):
            continue
        digest = note.rsplit(" ", 1)[-1]
        try:
            data = base64.b64encode(_image_path(folder, digest, str(src.get("media_type", ""))).read_bytes()).decode()
        except OSError:
            missing += 1
            continue
        if _digest(data) != digest:
            missing += 1
            continue
        src["data"] = data
    return restored, missing


def load_request(folder: Path, turn: int) -> dict[str, Any] | None:
    """The stored request of a turn, or None when the turn made no call (or predates request logs)."""
    path = RunFolder.at(folder).request(turn)
    if not path.is_file():
        return None
    result: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    return result


def image_blocks(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The image blocks of the current turn (the last user message), in order."""
    messages = request.get("messages") or []
    content = messages[-1].get("content") if messages else None
    return [b for b in content if isinstance(b, dict) and b.get("type") == "image"] if isinstance(content, list) else []
