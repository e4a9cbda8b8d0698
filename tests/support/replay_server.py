"""A local HTTP server that answers with recorded vendor responses, in order.

    with ReplayServer([recorded["response"], ...]) as server:
        ... point a client at server.base_url ...
        server.received[0].json      # what the client sent, as the server read it

Each request (any method, any path) is answered with the next recorded response: its
status, its headers (the framing ones excepted: this server frames the body itself, with
a Content-Length), and its body (a recorded JSON value is sent as compact JSON bytes).
When the recordings run out it answers HTTP 500 with an error body that names the
cause, so a client that asks more often than the recording did fails its test loudly;
with ``repeat_last=True`` it answers every further request with the last recording
instead (a whole episode played on one recorded answer).

The recordings come from tests/arena/clients/recorded (see PROVENANCE.md there).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FRAMING = frozenset({"content-length", "transfer-encoding", "content-encoding", "connection", "keep-alive"})
RAN_OUT = {"error": {"message": "the replay server has no more recorded responses", "type": "replay_exhausted"}}


@dataclasses.dataclass(frozen=True)
class Received:
    """One request as the server read it."""

    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]  # lower-cased names
    body: bytes
    at: float  # time.monotonic() when it arrived

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def body_bytes(body: Any) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class ReplayServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 replaying `responses` one per request."""

    def __init__(self, responses: list[dict], *, repeat_last: bool = False):
        self._queue = collections.deque(responses)
        self._repeat = responses[-1] if repeat_last and responses else None
        self._lock = threading.Lock()
        self.received: list[Received] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def _next(self, request: Received) -> dict:
        with self._lock:
            self.received.append(request)
            if self._queue:
                return self._queue.popleft()
            if self._repeat is not None:
                return self._repeat
        return {"status": 500, "headers": {"content-type": "application/json"}, "body": RAN_OUT}

    def __enter__(self) -> ReplayServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                path, _, query = self.path.partition("?")
                recorded = server._next(Received(
                    method=self.command,
                    path=path,
                    query=query,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                ))
                payload = body_bytes(recorded.get("body"))
                self.send_response(recorded["status"])
                for name, value in (recorded.get("headers") or {}).items():
                    if name.lower() not in FRAMING:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _answer

            def log_message(self, *args) -> None:  # keep test output clean
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
