"""aiohttp makes every connection the URL guard allows (arena.clients.urlguard), all through
`AiohttpConnections.fetch`: a request's head (`Head`: method, URL, headers, TLS name),
its body and timeout go to aiohttp, and the answer comes back as an `Answer`, its body
read whole, at most `max_response_bytes` (ResponseTooLarge), after `on_head` has seen its
status. OpenAI's calls come this way directly, from a head the SDK built once per
connection (the direct lane: httpx2's client, header and stream machinery cost about
1.3 ms of CPU per call at 64 in flight, more than the rest of a step); the other SDKs'
requests (Anthropic, Gemini, agent endpoints, the probe) come through httpx2's transport
interface (`GuardedTransport.handle_async_request`), a `Head` made of each request and
the answer handed back as httpx2's (`Answer.as_httpx`).

The session has no cookie jar of its own (the httpx2 client's jar keeps an endpoint's
cookies). aiohttp's failures become the httpx2 kinds the guard and the clients read: a
refused connection is a connect error, not a timeout (it would tell a submitter their
server was slow when it was down). Redirects are not followed, proxies not read. aiohttp
keeps every connection of its pool alive (up to `max_connections`), so 64 episodes in
flight reuse 64 connections.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

import aiohttp
import httpx2
import yarl

from arena.clients.addresses import IPAddress, parse_ip, parse_url


class ResponseTooLarge(Exception):
    """An answer whose body passed the byte cap (reading stopped there)."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"the answer was larger than {cap:,} bytes")
        self.cap = cap


def httpx_error(error: BaseException, request: httpx2.Request | None = None) -> httpx2.TransportError:
    """aiohttp's `error` (or asyncio's timeout) as the httpx2 exception that means the same."""
    message = str(error) or type(error).__name__
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return httpx2.ConnectTimeout(message, request=request)
    if isinstance(error, TimeoutError):  # aiohttp's read timeouts are TimeoutErrors too
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
    return httpx2.TransportError(message, request=request)


@functools.lru_cache(maxsize=64)
def client_timeout(connect: float | None, read: float | None, pool: float | None) -> aiohttp.ClientTimeout:
    """httpx2's timeouts as aiohttp's (the same few values at every call)."""
    return aiohttp.ClientTimeout(sock_connect=connect, sock_read=read, connect=pool)


# aiohttp's defaults it would add to every request; httpx2's client sets its own.
_NOT_ADDED = ("Accept", "Accept-Encoding", "User-Agent", "Content-Type")
BODY_CHUNK_BYTES = 64 * 1024


class Head:
    """A request's head for the direct lane, computed once from the httpx2 request the
    SDK built (arena.clients.openai_compat.sdk_head): the method, where it goes
    (`origin`: scheme, host, port; `sni`: the name TLS checks), the headers as aiohttp
    takes them (Host naming the original host), and the URL pinned to each checked
    address (`pinned`)."""

    def __init__(self, request: httpx2.Request) -> None:
        self.method = request.method
        self.url = request.url
        self.origin = scheme, host, _ = parse_url(request.url)
        self.sni = host if scheme == "https" and parse_ip(host) is None else None
        self.headers = request.headers.multi_items()
        self.variants: dict = {}  # what a caller derives from `headers` (arena.clients.openai_compat)
        self._pinned: dict[IPAddress, yarl.URL] = {}

    def pinned(self, ip: IPAddress) -> yarl.URL:
        url = self._pinned.get(ip)
        if url is None:
            if len(self._pinned) >= 16:  # a name whose addresses rotate
                self._pinned.clear()
            url = self._pinned[ip] = yarl.URL(str(self.url.copy_with(host=str(ip))), encoded=True)
        return url


class Answer:
    """An answer read whole: what the clients read of an httpx2 response (`status_code`,
    `headers` looked up in any case, `content`), or httpx2's own for an SDK (`as_httpx`)."""

    __slots__ = ("status_code", "headers", "content", "response")

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.status_code, self.headers, self.content, self.response = response.status, response.headers, b"", response

    def as_httpx(self, request: httpx2.Request) -> httpx2.Response:
        """The answer as httpx2's, for an SDK that sent `request` (its body as received:
        httpx2 decodes it)."""
        extensions = {"http_version": b"HTTP/1.1", "reason_phrase": (self.response.reason or "").encode()}
        return httpx2.Response(self.status_code, headers=self.response.raw_headers, content=self.content,
                               request=request, extensions=extensions)


async def _read_capped(response: aiohttp.ClientResponse, cap: int | None) -> bytes:
    """The whole body, or ResponseTooLarge once it passes `cap` bytes (declared or read)."""
    declared = response.content_length
    if cap is None or (declared is not None and declared <= cap):
        return await response.read()
    if declared is not None:
        raise ResponseTooLarge(cap)
    chunks, size = [], 0
    async for chunk in response.content.iter_chunked(BODY_CHUNK_BYTES):
        size += len(chunk)
        if size > cap:
            raise ResponseTooLarge(cap)
        chunks.append(chunk)
    return b"".join(chunks)


class AiohttpConnections:
    """The connections aiohttp makes for one origin (one session, one pool); the guard
    (arena.clients.urlguard.GuardedTransport) sends every request through `fetch`.

    Takes `verify` (an `ssl.SSLContext`; False for a plain-http origin), httpx2's `limits`, and the cap of every
    answer's body (`max_response_bytes`: a model's or an agent's answer is read whole
    into memory, so an endless one must not be).
    """

    def __init__(self, *, verify, limits: httpx2.Limits | None = None, max_response_bytes: int | None = None) -> None:
        self._limits = limits or httpx2.Limits(max_connections=100)
        self._ssl = verify
        self._cap = max_response_bytes
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

    async def fetch(self, head: Head, url: yarl.URL, headers: list, body: bytes | None,
                    timeout: aiohttp.ClientTimeout, on_head: Callable[[Answer], None] | None,
                    request: httpx2.Request | None = None) -> Answer:
        """`head` sent to `url` (pinned to a checked address) with `headers` and `body`,
        the answer read whole; `on_head` sees it before its body is read, and may refuse
        it by raising. On the direct lane (no `request`) a compressed body is decoded
        here; for an SDK's `request` it is left as received, for httpx2 to decode."""
        try:
            response = await self._opened().request(
                head.method, url, headers=headers, data=body, allow_redirects=False, compress=False, timeout=timeout,
                server_hostname=head.sni, auto_decompress=request is None)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise httpx_error(exc, request) from exc
        answer = Answer(response)
        try:
            if on_head is not None:
                on_head(answer)
            answer.content = await _read_capped(response, self._cap)
        except (aiohttp.ClientError, TimeoutError) as exc:
            response.close()
            raise httpx_error(exc, request) from exc
        except BaseException:
            response.close()  # not read whole: the connection cannot be reused
            raise
        return answer

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
