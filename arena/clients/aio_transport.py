"""aiohttp under httpx2: the connections the URL guard makes for every SDK.

httpx2's own connection layer (httpcore2 on anyio) cost about 1.6 ms of CPU per request
behind the guard on a loaded 2-core machine (1.5 kB posted to a local server, 8 in
flight), aiohttp about 0.7 ms through httpx2's transport interface (`httpx-aiohttp`'s
adapter). Here the adapter gets a session without a cookie jar of its own (httpx2's
client keeps an endpoint's cookies), and aiohttp's failures become the httpx2 kinds the
guard and the clients read: the adapter's own table calls a refused connection a
connect timeout, which would tell a submitter their server was slow when it was down.
Redirects are not followed, proxies not read, answers handed over undecoded.
"""

from __future__ import annotations

import os

import aiohttp
import httpx2
from httpx_aiohttp.httpx2 import AiohttpTransport


def httpx_error(error: BaseException, request: httpx2.Request | None = None) -> httpx2.TransportError | None:
    """aiohttp's `error` as the httpx2 exception that means the same, or None."""
    message = str(error) or type(error).__name__
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return httpx2.ConnectTimeout(message, request=request)
    if isinstance(error, aiohttp.ServerTimeoutError):
        return httpx2.ReadTimeout(message, request=request)
    if isinstance(error, (aiohttp.ClientConnectorCertificateError, aiohttp.ClientSSLError)):
        return httpx2.ConnectError(f"SSL: {message}", request=request)
    if isinstance(error, aiohttp.ClientConnectorError):
        # aiohttp's own text names the host and "ssl:default" even for plain http; the
        # system's reason ("Connection refused") is what the submitter needs.
        code = error.os_error.errno
        return httpx2.ConnectError(os.strerror(code) if code else type(error).__name__, request=request)
    if isinstance(error, aiohttp.ServerDisconnectedError):
        return httpx2.RemoteProtocolError("Server disconnected without sending a complete answer", request=request)
    if isinstance(error, (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError)):
        return httpx2.ReadError(message, request=request)
    return None


def _translated(exc: httpx2.TransportError, request: httpx2.Request | None) -> httpx2.TransportError:
    cause = exc.__cause__
    if isinstance(cause, aiohttp.ClientError):
        return httpx_error(cause, request) or exc
    return exc


class _TranslatedStream(httpx2.AsyncByteStream):
    """The adapter's body stream, its failures in httpx2's kinds."""

    def __init__(self, stream: httpx2.AsyncByteStream, request: httpx2.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self):
        try:
            async for chunk in self._stream:
                yield chunk
        except httpx2.TransportError as exc:
            raise _translated(exc, self._request) from exc.__cause__

    async def aclose(self) -> None:
        await self._stream.aclose()


class AiohttpConnections(httpx2.AsyncBaseTransport):
    """An httpx2 transport whose connections aiohttp makes (one session, one pool).

    Takes the keyword arguments of httpx2's own transport that the guard passes:
    `verify` (an `ssl.SSLContext`) and `limits`.
    """

    def __init__(self, *, verify, limits: httpx2.Limits | None = None, **_ignored) -> None:
        limits = limits or httpx2.Limits(max_connections=100, max_keepalive_connections=20)
        self._adapter = AiohttpTransport(verify=verify, limits=limits, trust_env=False, client=self._session)

    def _session(self) -> aiohttp.ClientSession:
        adapter = self._adapter
        connector = aiohttp.TCPConnector(
            limit=adapter.limits.max_connections or 0,
            keepalive_timeout=adapter.limits.keepalive_expiry,
            ssl=adapter.ssl_context,
        )
        return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            request.content
        except httpx2.RequestNotRead:
            # The guard's pinned copy carries the caller's body as a stream, which the
            # adapter would send chunked, even an empty one after a GET's headers.
            await request.aread()
        try:
            response = await self._adapter.handle_async_request(request)
        except httpx2.TransportError as exc:
            raise _translated(exc, request) from exc.__cause__
        response.stream = _TranslatedStream(response.stream, request)
        return response

    async def aclose(self) -> None:
        await self._adapter.aclose()
