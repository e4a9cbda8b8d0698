"""A URL guard that reaches no network, for the tests of model clients and the probe:
its DNS stand-in resolves every name to one public address, and its stand-in for
aiohttp's connections (`AiohttpConnections.fetch`) answers each request the guard would
send by a handler, as httpx2's MockTransport does. So every request still goes through
the guard's checks and lanes (OpenAI's direct lane and the other SDKs' requests), and the
handler sees an httpx2 request holding what would have gone on the wire: the head's URL
and headers, the body, the timeout.

    client = OpenAICompatibleClient(URL, "sk-key", "m", transport=answering(handler))
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable

import httpx2

from arena.clients.urlguard import GuardedTransport

PUBLIC_ADDRESS = "93.184.215.14"

Handler = Callable[[httpx2.Request], httpx2.Response | Awaitable[httpx2.Response]]


class _Answer:
    """The pool's answer as the guard hands it on: status, headers, body, and httpx2's
    response for a request an SDK sent through httpx2's client."""

    def __init__(self, response: httpx2.Response) -> None:
        self.status_code, self.headers, self.content = response.status_code, response.headers, b""

    def as_httpx(self, request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(self.status_code, headers=self.headers, content=self.content, request=request)


class _Connections:
    def __init__(self, handler: Handler) -> None:
        self._handler = handler

    async def fetch(self, head, url, headers, body, timeout, on_head, request=None) -> _Answer:
        seconds = {"connect": timeout.sock_connect, "read": timeout.sock_read, "pool": timeout.connect}
        sent = httpx2.Request(head.method, head.url, headers=headers, content=body, extensions={"timeout": seconds})
        response = self._handler(sent)
        if inspect.isawaitable(response):
            response = await response
        answer = _Answer(response)
        if on_head is not None:
            on_head(answer)  # before the body, as aiohttp's pool does
        answer.content = await response.aread()
        return answer

    async def aclose(self) -> None:
        pass


def answering(handler: Handler, allow_loopback: bool = False) -> GuardedTransport:
    """The guard, every name resolved to PUBLIC_ADDRESS, every request answered by `handler`."""

    async def resolve(host: str, port: int) -> list[str]:
        return [PUBLIC_ADDRESS]

    return GuardedTransport(allow_loopback, resolver=resolve, transport_factory=lambda **options: _Connections(handler))
