"""A Messages API stand-in on 127.0.0.1 that the real anthropic SDK talks to (`base_url`).

POST /v1/messages and /v1/messages/count_tokens. Requests are validated like the real API
(api_validate), tokens are counted the stand-in's own way (api_tokens), prompt caching is emulated
(api_cache), a `Policy` writes the reply (api_policy), a `FaultSchedule` injects failures (api_faults),
and every request is recorded in `server.log` (never with its Authorization / x-api-key header).

Stdlib `ThreadingHTTPServer`: no extra dependency, and one thread per connection means a deliberately
slow reply (the timeout fault) does not hold up the SDK's retry on a fresh connection.
"""

from __future__ import annotations

import json
import os
import random
import re
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from lluma_facts import ModelSpec, Usage, cost_usd
from lluma_facts.request import Section
from lluma_sim.api.cache import PromptCache
from lluma_sim.api.errors import ApiError
from lluma_sim.api.faults import ERROR_FAULTS, REPLY_FAULTS, Fault, FaultSchedule, malform_tool_input
from lluma_sim.api.log import LogEntry, elide_images
from lluma_sim.api.policy import Policy, PolicyReply, ScriptedPolicy
from lluma_sim.api.response import error_json, fit_max_tokens, message_json, new_id, sse_body, usage_json
from lluma_sim.api.talk import Talk
from lluma_sim.api.thinking import betas, check_bindings, prefix_digest, sign
from lluma_sim.api.tokens import RequestCount, block_tokens, count_request
from lluma_sim.api.validate import CURRENT_API_VERSION, effort_of, validate_request

__all__ = ["ApiServer", "LogEntry", "thinking_level"]

HOST = "127.0.0.1"  # loopback only: the stand-in accepts any key and must never face a network
LOG_KEPT = 5_000  # requests `log` keeps, newest last (a thousand-turn night makes about 2,000)
PATHS = {"/v1/messages": "messages", "/v1/messages/count_tokens": "count_tokens"}


def thinking_level(body: dict[str, Any], spec: ModelSpec) -> str | None:
    """How the model thinks for this request: its effort (adaptive models, on unless disabled; off by
    default where the model says so), "budget" (budget models with thinking enabled), or None."""
    kind = (body.get("thinking") or {}).get("type")
    if spec.thinking == "budget":
        return "budget" if kind == "enabled" else None
    if kind == "disabled" or (kind is None and not spec.thinking_default_on):
        return None
    return effort_of(body, spec) or "medium"


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-request (the agent stopped by a second Ctrl+C) is no server error: no
        traceback on stderr for it; anything else is reported as before."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handle_error(request, client_address)


class ApiServer:
    """The stand-in. `with ApiServer() as api: Anthropic(api_key="x", base_url=api.base_url)`."""

    def __init__(
        self,
        port: int = 0,
        policy: Policy | None = None,
        clock: Callable[[], float] | None = None,
        faults: FaultSchedule | None = None,
        keep_bodies: bool = False,
        on_request: Callable[[LogEntry], None] | None = None,
        seed: int = 0,
        today: date | None = None,
        secret: bytes | None = None,
    ) -> None:
        """`secret` signs thinking blocks and stands for the account: a stand-in started again with the same
        one accepts the blocks the last one made, as the API does for the same account (a resumed demo)."""
        self.port = port
        self.policy: Policy = policy or ScriptedPolicy()
        self.clock = clock or time.monotonic
        self.faults = faults or FaultSchedule()
        self.cache = PromptCache(clock=self.clock)
        self.keep_bodies = keep_bodies
        self.on_request = on_request
        # The newest requests (a night's stand-in would otherwise hold one entry per request for ever).
        self._log: deque[LogEntry] = deque(maxlen=LOG_KEPT)
        self._lock = threading.Lock()  # policy and log: one request at a time
        self._count = 0
        self._messages_count = 0
        self.secret = secret or os.urandom(16)  # signs thinking blocks; tampered ones are rejected
        self._rng = random.Random()
        self.talk = Talk(seed)  # reply and thinking lengths
        self.today = today  # retirement is judged as of this day (None: the real date)
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._conns: set[socket.socket] = set()

    # ---- lifecycle ------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def log(self) -> list[LogEntry]:
        with self._lock:
            return list(self._log)

    def start(self) -> ApiServer:
        if self._httpd is not None:
            return self
        self._stop.clear()
        handler = type("Handler", (_Handler,), {"api": self})
        httpd = _Server((HOST, self.port), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self.port = httpd.server_address[1]
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=f"api-stand-in:{self.port}", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stop.set()  # wakes slow-reply sleepers
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            conns, self._conns = list(self._conns), set()
        for conn in conns:  # keep-alive connections would otherwise outlive the server
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client(self, *, max_retries: int = 0, timeout: float = 10.0, api_key: str = "sk-ant-stand-in") -> Any:
        """An `anthropic.Anthropic` pointed at this server (any key works; it is never logged)."""
        import anthropic  # only callers that want a client pay for the import

        return anthropic.Anthropic(api_key=api_key, base_url=self.base_url, max_retries=max_retries, timeout=timeout)

    def reset(self) -> None:
        """Forget the cache and the log (the policy keeps its state)."""
        self.cache.clear()
        with self._lock:
            self._log.clear()

    # ---- one request ----------------------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, str], bytes]:
        """Process one HTTP request; returns (status, headers, body). Headers keys are lower-case."""
        request_id = new_id("req_", self._rng)
        with self._lock:
            index = self._count
            self._count += 1
        endpoint = PATHS.get(path.split("?", 1)[0])
        entry = LogEntry(
            index=index,
            at=self.clock(),
            endpoint=endpoint or path,
            status=0,
            api_version=headers.get("anthropic-version"),
        )
        try:
            retry = headers.get("x-stainless-retry-count")
            entry.retry_count = int(retry) if retry and retry.isdigit() else None
            if method != "POST" or endpoint is None:
                raise ApiError(404, "not_found_error", f"Not found: {method} {path}")
            if endpoint == "messages":
                with self._lock:
                    entry.messages_index = self._messages_count
                    self._messages_count += 1
            self._check_headers(headers)
            fault = self.faults.next(entry.messages_index, raw) if entry.messages_index is not None else None
            if fault is not None:
                entry.fault = fault.kind
                self._fault_before(fault)
            try:
                body = json.loads(raw or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ApiError(400, "invalid_request_error", f"There was an error parsing the body: {exc}") from exc
            _check_encodable(body)
            if isinstance(body, dict):
                entry.model = body.get("model") if isinstance(body.get("model"), str) else None
                entry.stream = bool(body.get("stream"))
                if self.keep_bodies:
                    entry.request = elide_images(body)
            spec = validate_request(
                body,
                api_version=entry.api_version or CURRENT_API_VERSION,
                endpoint=endpoint,
                thinking_secret=self.secret,
                today=self.today,
            )
            # Judged against the request as sent; `seen` is what the model reads (dropped blocks removed).
            kept, dropped = check_bindings(body, self.secret, spec, betas(headers))
            seen = {**body, "messages": kept}
            entry.input_transformations = dropped
            count = count_request(seen)
            sections: tuple[Section, ...] = ("tools", "system", "messages")
            entry.layout = {s: sum(1 for b in count.blocks if b.section == s) for s in sections}
            entry.section_tokens = {s: count.section(s) for s in sections}
            entry.message_count = len(body["messages"])
            if endpoint == "count_tokens":
                return self._reply(entry, 200, json.dumps({"input_tokens": count.total}).encode(), request_id)
            status, payload = self._messages(body, seen, spec, count, entry, fault, request_id)
            return self._reply(entry, status, payload, request_id, sse=bool(body.get("stream")))
        except ApiError as err:
            entry.error_type, entry.error_message = err.type, err.message
            payload = json.dumps(error_json(err.type, err.message, request_id)).encode()
            return self._reply(entry, err.status, payload, request_id, extra=err.headers)
        except Exception as exc:  # noqa: BLE001 - a policy bug must surface as a 500, not a dropped connection
            entry.error_type, entry.error_message = "api_error", f"stand-in failure: {exc!r}"
            traceback.print_exc(file=sys.stderr)
            payload = json.dumps(error_json("api_error", "Internal server error (stand-in)", request_id)).encode()
            return self._reply(entry, 500, payload, request_id)

    def _check_headers(self, headers: dict[str, str]) -> None:
        auth = headers.get("authorization", "")
        bearer = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        if not bearer and not headers.get("x-api-key"):
            raise ApiError(
                401, "authentication_error", "missing credentials: send `Authorization: Bearer <key>` (or x-api-key)"
            )
        if not headers.get("anthropic-version"):
            raise ApiError(400, "invalid_request_error", "anthropic-version: header is required")

    def _fault_before(self, fault: Fault) -> None:
        if fault.kind in ERROR_FAULTS:
            status, type_, message = ERROR_FAULTS[fault.kind]
            extra = {"retry-after": f"{fault.retry_after_s:g}"} if fault.retry_after_s is not None else {}
            raise ApiError(status, type_, message, extra)
        if fault.kind == "slow":
            self._stop.wait(fault.delay_s)

    def _messages(
        self,
        body: dict[str, Any],
        seen: dict[str, Any],
        spec: ModelSpec,
        count: RequestCount,
        entry: LogEntry,
        fault: Fault | None,
        request_id: str,
    ) -> tuple[int, bytes]:
        """`body` as sent (replies are signed against it: the client replays what it sent), `seen` as the
        model reads it (thinking blocks dropped by drop_block removed)."""
        cache = self.cache.process(seen, count)
        entry.breakpoints, entry.cache_notes, entry.read_index = cache.breakpoints, cache.notes, cache.read_index
        model = body["model"]
        with self._lock:
            reply = self.policy.respond(seen) if body["max_tokens"] > 0 else None
            content = self._speak(reply, seen, spec) if reply else []
        entry.policy = reply.decision if reply else "max_tokens=0: cache pre-warm, no reply"
        if fault is not None and fault.kind == "malformed_tool_input":
            what = malform_tool_input(content, body.get("tools") or [], fault.malformed)
            entry.fault = f"malformed_tool_input: {what}"
        if fault is not None and fault.kind == "refusal":  # a safety classifier declined: nothing is said
            content, entry.policy = [], "refused (injected fault)"
        content, out_tokens, cut = fit_max_tokens(content, body["max_tokens"], model)
        if fault is not None and fault.kind == "max_tokens":  # ran out mid-reply: the tool call never came
            content, _, _ = fit_max_tokens([b for b in content if b.get("type") != "tool_use"], 8, model)
            out_tokens, cut = body["max_tokens"], True
        content = self._sign(content, body, spec)
        if fault is not None and fault.kind in REPLY_FAULTS:  # cut-off VLM JSON (api_faults)
            content = REPLY_FAULTS[fault.kind](content)
        has_tool = any(b.get("type") == "tool_use" for b in content)
        stop = (
            "refusal"
            if fault is not None and fault.kind == "refusal"
            else "max_tokens"
            if cut or body["max_tokens"] == 0
            else (reply.stop_reason if reply and reply.stop_reason else "tool_use" if has_tool else "end_turn")
        )
        usage = usage_json(cache, out_tokens)
        entry.usage = Usage.from_api(usage)
        entry.cost_usd = cost_usd(entry.usage, model)
        entry.stop_reason = stop
        entry.thinking_tokens = sum(block_tokens(b, model) for b in content if b.get("type") == "thinking")
        entry.tool_calls = [
            f"{b['name']}({json.dumps(b['input'], ensure_ascii=False)})" for b in content if b.get("type") == "tool_use"
        ]
        msg = message_json(
            msg_id=new_id("msg_01", self._rng), model=model, content=content, stop_reason=stop, usage=usage
        )
        if entry.input_transformations:
            msg["input_transformations"] = entry.input_transformations
        return 200, (sse_body(msg) if body.get("stream") else json.dumps(msg, ensure_ascii=False).encode())

    def _speak(self, reply: PolicyReply, seen: dict[str, Any], spec: ModelSpec) -> list[dict[str, Any]]:
        """The policy's content as a model says it: a game turn's reasoning at a realistic length, and a
        thinking block first when the request's thinking settings (or the model's default) say it thinks."""
        model = seen["model"]
        content = self.talk.pad_reply([dict(b) for b in reply.content], reply.notes, model)
        level = thinking_level(seen, spec)
        if level is not None and not any(b.get("type") == "thinking" for b in content):
            content.insert(
                0, {"type": "thinking", "thinking": self.talk.thinking(reply.notes or [reply.decision], level, model)}
            )
        return content

    def _sign(self, content: list[dict[str, Any]], body: dict[str, Any], spec: ModelSpec) -> list[dict[str, Any]]:
        """Thinking blocks get their signature (committing to the request as sent); adaptive models omit the
        text unless `thinking.display` is "summarized" (it was billed all the same)."""
        omit = spec.thinking == "adaptive" and (body.get("thinking") or {}).get("display") != "summarized"
        messages = body["messages"]
        out: list[dict[str, Any]] = []
        for i, block in enumerate(content):
            if block.get("type") == "thinking":
                text = "" if omit else str(block["thinking"])
                prefix = prefix_digest(
                    body.get("system"),
                    body.get("tools"),
                    [*messages, {"role": "assistant", "content": out}],
                    len(messages),
                    i,
                )
                block = {"type": "thinking", "thinking": text, "signature": sign(self.secret, text, prefix)}
            out.append(block)
        return out

    def _reply(
        self,
        entry: LogEntry,
        status: int,
        payload: bytes,
        request_id: str,
        *,
        sse: bool = False,
        extra: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        entry.status = status
        with self._lock:
            self._log.append(entry)
        if self.on_request:
            self.on_request(entry)
        headers = {
            "content-type": "text/event-stream" if sse and status == 200 else "application/json",
            "request-id": request_id,
            **(extra or {}),
        }
        return status, headers, payload


MAX_BODY = 32 * 1024 * 1024  # the Messages API's request limit (larger: 413 request_too_large)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDK's connection pool expects
    api: ApiServer

    def setup(self) -> None:
        super().setup()
        with self.api._lock:
            self.api._conns.add(self.connection)

    def finish(self) -> None:
        with self.api._lock:
            self.api._conns.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def _serve(self) -> None:
        try:
            try:
                raw = self._body()
            except ApiError as err:  # a body that cannot be framed: answered as the API does, then the connection ends
                self.close_connection = True
                payload = json.dumps(error_json(err.type, err.message, "req_unframed")).encode()
                self.send_response(err.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, out_headers, payload = self.api.handle(self.command, self.path, headers, raw)
            self.send_response(status)
            for k, v in out_headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, OSError):
            self.close_connection = True  # the client gave up (e.g. its timeout fired during a slow reply)

    def _body(self) -> bytes:
        """The request body, by its Content-Length or its chunks; ApiError 400 for a length or chunk size that is
        not a number, 413 past MAX_BODY (nothing larger is held in memory)."""
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            return self._read_chunked()
        length = (self.headers.get("content-length") or "0").strip()
        if not re.fullmatch(r"\d{1,12}", length):
            raise ApiError(400, "invalid_request_error", f"Content-Length {length[:40]!r} is not a length")
        if int(length) > MAX_BODY:
            raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY:,} bytes")
        return self.rfile.read(int(length))

    def _read_chunked(self) -> bytes:
        out = bytearray()
        while True:
            line = self.rfile.readline(1024).split(b";")[0].strip() or b"0"
            if not re.fullmatch(rb"[0-9a-fA-F]{1,12}", line):
                raise ApiError(400, "invalid_request_error", f"chunk size {line[:40]!r} is not a hexadecimal length")
            size = int(line, 16)
            if size == 0:
                self.rfile.readline(1024)
                return bytes(out)
            if len(out) + size > MAX_BODY:
                raise ApiError(413, "request_too_large", f"Request exceeds the maximum size of {MAX_BODY:,} bytes")
            out += self.rfile.read(size)
            self.rfile.readline(1024)

    do_POST = do_GET = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass  # the request log replaces the stdlib's stderr lines


# ---- `lluma sim api` -----------------------------------------------------------------------------------


def _check_encodable(body: Any) -> None:
    """JSON may spell a lone surrogate ("\\ud800"), which no UTF-8 text can hold; the API refuses such a body,
    and `stream` must be a boolean (anything truthy would otherwise switch the answer to SSE)."""
    try:
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ApiError(
            400, "invalid_request_error", f"The request body is not valid UTF-8 (a lone surrogate at {exc.start})"
        ) from None
    if isinstance(body, dict) and "stream" in body and not isinstance(body["stream"], bool):
        raise ApiError(400, "invalid_request_error", "stream: Input should be a valid boolean")
