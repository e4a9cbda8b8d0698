"""aiohttp under httpx2: the connections the URL guard makes for every SDK.

httpx2's own connection layer (httpcore2 on anyio) cost about 1.6 ms of CPU per request
behind the guard on a loaded 2-core machine (1.5 kB posted to a local server, 8 in
flight), aiohttp about 0.7 ms through httpx2's transport interface (`httpx-aiohttp`'s
adapter), and 0.25 ms less through this one, which hands aiohttp the request's headers
as they are and the answer's body to httpx2 through one stream. The session has no
cookie jar of its own (httpx2's client keeps an endpoint's cookies), and aiohttp's
failures become the httpx2 kinds the guard and the clients read (a refused connection
is a connect error, not a timeout: it would tell a submitter their server was slow when
it was down). Redirects are not followed, proxies not read, answers handed over
undecoded. aiohttp keeps every connection of its pool alive (up to `max_connections`),
so 64 episodes in flight reuse 64 connections.
"""

from __future__ import annotations

import os

import aiohttp
import httpx2


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


# aiohttp's defaults it would add to every request; httpx2's client sets its own.
_NOT_ADDED = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
BODY_CHUNK_BYTES = 64 * 1024


class _Body(httpx2.AsyncByteStream):
    """An aiohttp answer's body for httpx2, its failures in httpx2's kinds."""

    def __init__(self, response: aiohttp.ClientResponse, request: httpx2.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self):
        try:
            async for chunk in self._response.content.iter_chunked(BODY_CHUNK_BYTES):
                yield chunk
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _as_httpx(exc, self._request) from exc

    async def aclose(self) -> None:
        self._response.release()  # back to the pool once read whole, else closed


def _as_httpx(exc: BaseException, request: httpx2.Request) -> BaseException:
    timeout = isinstance(exc, TimeoutError) and not isinstance(exc, aiohttp.ClientError)
    return (httpx2.ReadTimeout(str(exc) or "timed out", request=request) if timeout else
            httpx_error(exc, request) or httpx2.TransportError(str(exc) or type(exc).__name__, request=request))


class AiohttpConnections(httpx2.AsyncBaseTransport):
    """An httpx2 transport whose connections aiohttp makes (one session, one pool).

    Takes the keyword arguments of httpx2's own transport that the guard passes:
    `verify` (an `ssl.SSLContext`) and `limits`.
    """

    def __init__(self, *, verify, limits: httpx2.Limits | None = None, **_ignored) -> None:
        self._limits = limits or httpx2.Limits(max_connections=100)
        self._ssl = verify
        self._session: aiohttp.ClientSession | None = None

    def _opened(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=self._limits.max_connections or 0,
                keepalive_timeout=self._limits.keepalive_expiry,
                ssl=self._ssl,
            )
            self._session = aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
                auto_decompress=False, skip_auto_headers=_NOT_ADDED,
            )
        return self._session

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        headers = request.headers.multi_items()
        try:
            body = request.content
        except httpx2.RequestNotRead:
            # A body given as a stream (the guard's pinned copy of a streamed request)
            # goes read whole, with its length, not chunked.
            body = await request.aread()
            headers = [(name, value) for name, value in headers if name.lower() != "transfer-encoding"]
        timeout = request.extensions.get("timeout") or {}
        try:
            response = await self._opened().request(
                request.method, str(request.url),
                headers=headers,
                data=body or None,
                allow_redirects=False,
                compress=False,
                timeout=aiohttp.ClientTimeout(sock_connect=timeout.get("connect"), sock_read=timeout.get("read"),
                                              connect=timeout.get("pool")),
                server_hostname=request.extensions.get("sni_hostname"),
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _as_httpx(exc, request) from exc
        extensions = {"http_version": b"HTTP/1.1", "reason_phrase": (response.reason or "").encode()}
        return httpx2.Response(response.status, headers=response.raw_headers, stream=_Body(response, request),
                               request=request, extensions=extensions)

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
