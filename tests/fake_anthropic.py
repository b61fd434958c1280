"""A fake Anthropic Messages API on loopback, for driving the real `anthropic` SDK in tests.

Only the outermost edge is faked: the SDK, its retries, its auth headers and
its response parsing are the real ones. The server accepts the key either as
`x-api-key` or as `Authorization: Bearer` (SDK 2.x sends the latter), records
every request, and answers from a script:

    server.queue(text("It applies from 2 August 2026. [S1]"))   # next POST /v1/messages
    server.queue(status(529), text("..."))                       # overloaded, then success
    server.on("fine", text("..."))                               # any request whose question contains "fine"
    server.respond_with(lambda body: text(...))                  # a scripted model for everything else

A scripted item is a dict: {"kind": "text", "text": ...}, {"kind": "status", "status": 529},
{"kind": "raw", "status": 200, "body": b"...", "content_type": "text/html"}.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "sk-test-lexcite"

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
                500: "api_error", 529: "overloaded_error"}


def text(body: str, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {"kind": "text", "text": body, "stop_reason": stop_reason}


def status(code: int) -> dict[str, Any]:
    return {"kind": "status", "status": code}


def raw(body: bytes, code: int = 200, content_type: str = "application/json") -> dict[str, Any]:
    return {"kind": "raw", "status": code, "body": body, "content_type": content_type}


class FakeAnthropic:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._queue: list[dict[str, Any]] = []
        self._rules: list[tuple[str, dict[str, Any]]] = []
        self._responder: Any = None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                payload = self.rfile.read(length)
                auth = self.headers.get("x-api-key") or ""
                bearer = self.headers.get("authorization") or ""
                if bearer.lower().startswith("bearer "):
                    auth = auth or bearer[7:]
                try:
                    body = json.loads(payload or b"{}")
                except ValueError:
                    body = {}
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if self.path.split("?")[0] != "/v1/messages":
                    return self._send(404, {"type": "error", "error": {"type": "not_found_error",
                                                                       "message": self.path}})
                if auth != API_KEY:
                    return self._send(401, {"type": "error", "error": {"type": "authentication_error",
                                                                       "message": "invalid x-api-key"}})
                item = server._next(body)
                if item["kind"] == "status":
                    code = item["status"]
                    return self._send(code, {"type": "error", "error": {"type": _ERROR_TYPES.get(code, "api_error"),
                                                                        "message": f"scripted {code}"}},
                                      {"retry-after-ms": "5"})
                if item["kind"] == "raw":
                    return self._send_bytes(item["status"], item["body"],
                                            item.get("content_type", "application/json"))
                msg = {
                    "id": f"msg_fake_{len(server.requests)}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "fake"),
                    "content": [{"type": "text", "text": item["text"]}],
                    "stop_reason": item.get("stop_reason", "end_turn"),
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 20},
                }
                return self._send(200, msg)

            def _send(self, code: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                self._send_bytes(code, json.dumps(obj).encode(), "application/json", headers)

            def _send_bytes(self, code: int, data: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            if self._queue:
                return self._queue.pop(0)
            question = _question(body)
            for needle, item in self._rules:
                if needle.lower() in question.lower():
                    return item
            responder = self._responder
        if responder is not None:
            return responder(body)
        return text("Not found in the admitted documents.")

    def queue(self, *items: dict[str, Any]) -> None:
        with self._lock:
            self._queue.extend(items)

    def on(self, needle: str, item: dict[str, Any]) -> None:
        with self._lock:
            self._rules.append((needle, item))

    def respond_with(self, fn: Any) -> None:
        """A scripted model: fn(request body) -> item, for requests the queue and rules do not answer."""
        with self._lock:
            self._responder = fn

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self._rules.clear()
            self._responder = None
            self.requests.clear()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def question_of(body: dict[str, Any]) -> str:
    return _question(body)


def _question(body: dict[str, Any]) -> str:
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            content = " ".join(c.get("text", "") for c in content if isinstance(c, dict))
        if isinstance(content, str) and "Question:" in content:
            return content.rsplit("Question:", 1)[1].strip()
    return ""
