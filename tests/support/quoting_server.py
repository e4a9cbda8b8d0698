"""A model server that quotes back every part of the address it was called at, each on
its own, as Express and most gateways do in their 4xx/5xx answers — and more: in upper
case, percent-encoded once and twice, the Host header, the address it listens on.

    with QuotingServer() as server:
        server.answer_with(401, 404, 500)   # the next completions; then it plays normally
        url = server.tenant_url("/Tenant-Canary-x7/v1", "key=Key-Canary-q9")
"""

from __future__ import annotations

import collections
import socket
import threading
from urllib.parse import parse_qsl, quote, urlsplit

from tests.support.fake_openai import FakeOpenAIServer


class QuotingServer(FakeOpenAIServer):
    def __init__(self, **options):
        super().__init__(**options)
        self._statuses: collections.deque[int] = collections.deque()

    def tenant_url(self, path: str, query: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}?{query}"

    def answer_with(self, *statuses: int) -> None:
        with self._lock:
            self._statuses.extend(statuses)

    def answer_normally(self) -> None:
        with self._lock:
            self._statuses.clear()

    def handles(self, path: str) -> bool:
        # The arena's clients may append the route after the base URL's query.
        return "/chat/completions" in path

    def authorize(self, request):
        with self._lock:
            if not request.method == "POST" or not self._statuses:
                return None
            status = self._statuses.popleft()
        return status, {"error": {"message": self.quotes(request), "code": status}}

    def quotes(self, request) -> str:
        split = urlsplit(request.path)
        host = request.headers.get("host", "")
        segments = [segment for segment in split.path.split("/") if segment]
        values = [value for _, value in parse_qsl(split.query)]
        return " | ".join(
            (
                f"Cannot POST {split.path}",
                f"query string: {split.query}",
                f"query values: {', '.join(values)} / {', '.join(value.upper() for value in values)}",
                f"unknown tenant {segments[0].lower()} ({segments[0].upper()})",
                f"route {quote(split.path, safe='')} or {quote(quote(split.path, safe=''), safe='')}",
                f"encoded key {''.join(f'%{ord(c):02X}' for c in values[0]) if values else ''}",
                f"Host: {host.upper()}",
                f"listening on 127.0.0.1:{self.port} (port {self.port}) and [::1]:{self.port}",
                f"called as http://{host}{request.path}",
            )
        )


class SilentServer:
    """Accepts connections and never answers: the arena's call times out."""

    def __init__(self):
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def port(self) -> int:
        return self._socket.getsockname()[1]

    def _accept(self) -> None:
        self._socket.settimeout(0.1)
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except OSError:
                continue
            self._held.append(connection)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()
        for connection in self._held:
            connection.close()
        self._socket.close()
