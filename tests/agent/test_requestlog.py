"""Stored requests keep every image once, by digest, and give the exact bytes back (a replay needs them:
recorded thinking is bound to its prefix, past screenshots included)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from lluma_agent.runlog.folder import RunFolder
from lluma_agent.runlog.requestlog import OMITTED, load_request, restore_images, write_request


def _jpeg(colour: str) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), colour).save(buf, format="JPEG")
    return base64.b64encode(buf.getvalue()).decode()


def _image(data: str) -> dict[str, object]:
    return {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": data}}


def _request(*images: str) -> dict[str, object]:
    turns = [{"role": "user", "content": [_image(d), {"type": "text", "text": f"T{i}"}]} for i, d in enumerate(images)]
    return {"model": "claude-haiku-5-5", "max_tokens": 10, "messages": turns}


def test_images_are_kept_once_and_restored_byte_for_byte(tmp_path: Path) -> None:
    red, blue = _jpeg("red"), _jpeg("blue")
    write_request(tmp_path, 1, _request(red))
    write_request(tmp_path, 2, _request(red, blue))  # turn 1's screenshot again, kept in history
    assert len(list(RunFolder.at(tmp_path).images.iterdir())) == 2
    stored = load_request(tmp_path, 2)
    assert stored is not None and all(
        m["content"][0]["source"]["data"].startswith(OMITTED) for m in stored["messages"])
    restored, missing = restore_images(tmp_path, stored)
    assert missing == 0 and restored == _request(red, blue)


def test_a_lost_or_changed_image_is_counted_and_keeps_its_note(tmp_path: Path) -> None:
    red, blue = _jpeg("red"), _jpeg("blue")
    write_request(tmp_path, 1, _request(red, blue))
    files = sorted(RunFolder.at(tmp_path).images.iterdir())
    files[0].unlink()
    files[1].write_bytes(b"not the same bytes")
    stored = load_request(tmp_path, 1)
    assert stored is not None
    restored, missing = restore_images(tmp_path, stored)
    assert missing == 2 and restored == stored
