"""The outbound URL guard: the arena only ever calls public addresses.

Submitters give the arena a URL (their model's endpoint) and the arena sends HTTP
requests to it from inside the operator's network. Without a guard that is a
server-side request forgery hole: a "model" at http://169.254.169.254/ would read the
cloud metadata service, one at http://10.0.0.5/ would probe the private network. The
rule enforced here is therefore simple and strict:

* only ``http`` and ``https``, no ``user:pass@`` in the URL, a non-empty host;
* every address the host resolves to must be *global*: no loopback, private, link-local
  (which includes the metadata service), carrier-grade NAT, multicast, reserved,
  unspecified, documentation or benchmarking ranges, and no IPv6 address that merely
  wraps one of those (IPv4-mapped, IPv4-compatible, 6to4, Teredo, NAT64);
* the operator flag ``allow_loopback`` (for models served on the same machine) permits
  127.0.0.0/8 and ::1, and nothing else.

The rules live in `arena.clients.addresses` (re-exported here); two entry points:

``check_url(url, allow_loopback)``
    Syntactic checks plus a DNS lookup, for form and API validation. It gives the
    submitter an early, readable error, but on its own it is not enough: DNS can
    answer differently a second later ("DNS rebinding").

``GuardedTransport(allow_loopback)``
    An ``httpx`` transport that closes that gap, and the direct lane of OpenAI's calls
    (`GuardedTransport.fetch`). For every request it resolves the host itself, checks
    every address, and sends the request to the checked IP literal; the ``Host``
    header and, for https, the TLS SNI name and certificate verification keep using
    the original host name. Nothing is resolved again after the check, so there is no
    window in which the name can be re-pointed. Each original host gets its own
    connection pool, so a TLS connection verified for one name is never reused for
    another name that happens to share the IP. The connections are aiohttp's
    (`arena.clients.aio_transport`).

Redirects are never followed (a 3xx is an error), so every request that leaves the
arena is one this transport checked. A client built on it must keep
``follow_redirects=False`` and ``trust_env=False`` (proxies would be unguarded).
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import Awaitable, Callable
import httpx2

# The guard's address rules, read here by its callers too.
from arena.clients.addresses import (ALLOWED_SCHEMES, PUBLIC_ONLY, IPAddress, UnsafeURL, address_problem,
                                     addresses_from_getaddrinfo, check_address, check_url, parse_ip, parse_url,
                                     resolve)
from arena.clients.aio_transport import AiohttpConnections, Answer, Head, ResponseTooLarge, client_timeout

__all__ = ["ALLOWED_SCHEMES", "PUBLIC_ONLY", "GuardedTransport", "ResponseTooLarge", "UnsafeURL", "address_problem",
           "check_address", "check_url", "parse_url", "resolve", "shared_ssl_context"]


# --- connect-time enforcement ----------------------------------------------------------

Resolver = Callable[[str, int], Awaitable[list[str]]]
# The checked addresses of a name tried in turn while none accepts the connection.
MAX_ADDRESSES = 4


async def _system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return addresses_from_getaddrinfo(infos)


@functools.lru_cache(maxsize=1)
def shared_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for all model and agent connections (SSLContext is
    safe to share between connections)."""
    return httpx2.create_ssl_context()


class GuardedTransport(httpx2.AsyncBaseTransport):
    """An httpx transport that only connects to addresses `address_problem` allows.

    For each request: resolve the host once (``loop.getaddrinfo``), refuse with
    UnsafeURL if *any* address is not allowed, then send the request to the first
    checked IP literal (the next one if no connection can be made). The ``Host`` header
    and the TLS SNI / certificate check keep the original host name. Keyword arguments
    (``limits``, ``verify``) go to the aiohttp pool of each original scheme/host/port
    (`AiohttpConnections`, whose `fetch` sends every request).
    `max_response_bytes` caps every answer's body, read whole (ResponseTooLarge); a
    request's ``on_head`` extension (arena.clients.http sets it) sees its answer before
    the body is read.
    ``resolver`` (async ``(host, port) -> [address, ...]``) and ``transport_factory``
    (keyword arguments -> an object with `AiohttpConnections`' ``fetch`` and ``aclose``)
    exist for tests.
    """

    def __init__(
        self,
        allow_loopback: bool = False,
        *,
        resolver: Resolver | None = None,
        transport_factory: Callable[..., AiohttpConnections] | None = None,
        max_response_bytes: int = 16 * 1024 * 1024,
        **transport_kwargs,
    ) -> None:
        self.allow_loopback = allow_loopback
        self._resolver = resolver or _system_resolver
        self._factory = transport_factory or AiohttpConnections
        transport_kwargs["max_response_bytes"] = max_response_bytes
        self._kwargs = transport_kwargs
        self._inner: dict[tuple[str, str, int], AiohttpConnections] = {}

    async def _checked_addresses(self, connect_timeout: float | None, host: str, port: int,
                                 request: httpx2.Request | None = None) -> list[IPAddress]:
        if parse_ip(host) is not None:
            return [check_address(host, host, self.allow_loopback)]
        try:
            async with asyncio.timeout(connect_timeout):
                addresses = await self._resolver(host, port)
        except TimeoutError:
            raise httpx2.ConnectTimeout(f"Timed out resolving {host}", request=request) from None
        except (socket.gaierror, UnicodeError, OSError) as exc:
            raise httpx2.ConnectError(f"Could not resolve {host}: {exc}", request=request) from None
        if not addresses:
            raise httpx2.ConnectError(f"{host} has no addresses", request=request)
        # Every answer is checked, not just the one used: a mixed answer is a red flag.
        return [check_address(host, address, self.allow_loopback) for address in addresses]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        head = Head(request)
        headers = head.headers
        try:
            body = request.content
        except httpx2.RequestNotRead:
            # A body given as a stream goes read whole, with its length, not chunked.
            body = await request.aread()
            headers = [(name, value) for name, value in headers if name.lower() != "transfer-encoding"]
        seconds = request.extensions.get("timeout") or {}
        timeout = client_timeout(seconds.get("connect"), seconds.get("read"), seconds.get("pool"))
        answer = await self._fetch(head, headers, body or None, timeout, request.extensions.get("on_head"),
                                   seconds.get("connect"), request)
        return answer.as_httpx(request)

    async def fetch(self, head: Head, headers: list, body: bytes, seconds: float,
                    on_head: Callable[[Answer], None]) -> Answer:
        """The direct lane: `head` (built once, arena.clients.openai_compat) sent with
        `headers` and `body` under the rules of every request."""
        return await self._fetch(head, headers, body, client_timeout(seconds, seconds, seconds), on_head, seconds)

    async def _fetch(self, head: Head, headers: list, body: bytes | None, timeout, on_head, connect_seconds,
                     request: httpx2.Request | None = None) -> Answer:
        """The host resolved and every address checked at each call, the first checked
        address that connects, the body capped."""
        addresses = await self._checked_addresses(connect_seconds, *head.origin[1:], request)
        inner = self._inner.get(head.origin)
        if inner is None:
            inner = self._inner[head.origin] = self._factory(**self._pool_kwargs(head.origin[0]))
        for ip in addresses[:MAX_ADDRESSES]:
            try:
                return await inner.fetch(head, head.pinned(ip), headers, body, timeout, on_head, request)
            except httpx2.ConnectError as exc:
                # Nothing was sent yet, so trying the next checked address is safe.
                last_error = exc
        raise last_error

    def _pool_kwargs(self, scheme: str) -> dict:
        """The keyword arguments of one origin's pool: an https origin verifies with the
        shared TLS context unless `verify` was given. Loading the CA bundle takes about
        0.2 s of CPU, on the event loop at a worker's first model call, where it held
        every episode in play; a plain-http origin (a local model server) never needs it."""
        if "verify" in self._kwargs:
            return self._kwargs
        return {**self._kwargs, "verify": shared_ssl_context() if scheme == "https" else False}

    async def aclose(self) -> None:
        inner, self._inner = list(self._inner.values()), {}
        for transport in inner:
            await transport.aclose()
