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

There are two entry points:

``check_url(url, allow_loopback)``
    Syntactic checks plus a DNS lookup, for form and API validation. It gives the
    submitter an early, readable error, but on its own it is not enough: DNS can
    answer differently a second later ("DNS rebinding").

``GuardedTransport(allow_loopback)``
    An ``httpx`` transport that closes that gap. For every request it resolves the
    host itself, checks every address, and sends the request to the checked IP
    literal; the ``Host`` header and, for https, the TLS SNI name and certificate
    verification keep using the original host name (the ``sni_hostname``
    request extension). Nothing is resolved again after the check, so there is no
    window in which the name can be re-pointed. Each original host gets its own
    connection pool, so a TLS connection verified for one name is never reused for
    another name that happens to share the IP.

Redirects: the arena's clients never follow redirects (httpx's default, which
``arena.clients`` keeps and reports a 3xx as an error). So every request that leaves
the arena is a request this transport checked; there is no second hop to a Location
header that nobody looked at. Anyone building a client on this transport must keep
``follow_redirects=False`` *and* ``trust_env=False`` (environment proxies would be
mounted as separate, unguarded transports).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable

import httpx2

from arena.clients.aio_transport import AiohttpConnections

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOWED_SCHEMES = ("http", "https")
PUBLIC_ONLY = "the arena only calls public addresses"

# Ranges refused on top of what `ipaddress` already classifies. Python's own tables
# differ between patch releases, so the ranges that matter are spelled out here.
_EXTRA_V4: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), label)
    for net, label in (
        ("0.0.0.0/8", "an unspecified (\"this network\") address"),
        ("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("192.0.2.0/24", "a documentation address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("192.88.99.0/24", "a 6to4 relay address"),
        ("240.0.0.0/4", "a reserved address"),
    )
)
_EXTRA_V6: tuple[tuple[ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.IPv6Network(net), label)
    for net, label in (
        ("fec0::/10", "a site-local address"),
        ("100::/64", "a discard-only address"),
        ("2001::/23", "an IETF protocol address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("64:ff9b:1::/48", "a local NAT64 address"),
        ("::/8", "a reserved address"),
    )
)
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class ResponseTooLarge(Exception):
    """An answer whose body passed the transport's byte cap (it stopped reading)."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"the answer was larger than {cap:,} bytes")
        self.cap = cap


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, stream, cap: int) -> None:
        self._stream = stream
        self._cap = cap

    async def __aiter__(self):
        size = 0
        async for chunk in self._stream:
            size += len(chunk)
            if size > self._cap:
                raise ResponseTooLarge(self._cap)
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class UnsafeURL(ValueError):
    """A URL (or the address it resolves to) the arena refuses to call.

    The message is written for the person who typed the URL; `reason` says the same
    without naming the host or its address (for messages others may read).
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)


def address_problem(ip: IPAddress, allow_loopback: bool = False) -> str | None:
    """Why the arena must not connect to `ip`, as a noun phrase; None if it may.

    `allow_loopback` permits 127.0.0.0/8 and ::1 (and an IPv4-mapped form of a
    127.x address, which is the same socket destination), nothing else.
    """
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(ip.compressed.split("%", 1)[0])
        mapped = ip.ipv4_mapped
        if mapped is not None:
            inner = address_problem(mapped, allow_loopback)
            return f"an IPv4-mapped form of {mapped}, {inner}" if inner else None
        if ip.is_loopback:
            return None if allow_loopback else "a loopback address"
        if ip.is_unspecified:
            return "the unspecified address"
        if ip in _V4_COMPATIBLE:
            v4 = _embedded_v4(ip)
            inner = address_problem(v4)
            detail = f", {inner}" if inner else ""
            return f"an IPv4-compatible IPv6 address (deprecated) embedding {v4}{detail}"
        if ip in _NAT64:
            v4 = _embedded_v4(ip)
            inner = address_problem(v4)
            return f"a NAT64 address embedding {v4}, {inner}" if inner else None
        if ip.sixtofour is not None:
            inner = address_problem(ip.sixtofour)
            if inner:
                return f"a 6to4 address embedding {ip.sixtofour}, {inner}"
        if ip.teredo is not None:
            for v4 in ip.teredo:
                inner = address_problem(v4)
                if inner:
                    return f"a Teredo address embedding {v4}, {inner}"
        if ip.is_multicast:
            return "a multicast address"
        if ip.is_link_local:
            return "a link-local address"
        if ip.is_site_local:
            return "a site-local address"
        for net, label in _EXTRA_V6:
            if ip in net:
                return label
        if ip.is_private:
            # fc00::/7 unique-local and the other non-public special ranges
            return "a private address"
        if ip.is_reserved:
            return "a reserved address"
        if not ip.is_global:
            return "not a public address"
        return None

    # IPv4
    if ip.is_unspecified:
        return "the unspecified address"
    if ip.is_loopback:
        return None if allow_loopback else "a loopback address"
    if ip.is_link_local:
        return "a link-local address (this range includes the cloud metadata service)"
    if ip.is_multicast:
        return "a multicast address"
    if ip == ipaddress.IPv4Address("255.255.255.255"):
        return "the broadcast address"
    for net, label in _EXTRA_V4:
        if ip in net:
            return label
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    if not ip.is_global:
        return "not a public address"
    return None


@functools.lru_cache(maxsize=1024)
def _parse_ip(text: str) -> IPAddress | None:
    # The same endpoint hosts and addresses are parsed at every model call.
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _loopback_hint(problem: str) -> str:
    if problem == "a loopback address":
        return " (loopback is only allowed when the operator enables it for local models)"
    return ""


def check_address(host: str, address: str, allow_loopback: bool) -> IPAddress:
    """Raise UnsafeURL unless `address` (what `host` resolved to) is allowed."""
    ip = _parse_ip(address)
    if ip is None:
        raise UnsafeURL(f"{host} resolved to {address!r}, which is not an IP address", "it resolved to something that is not an IP address")
    problem = address_problem(ip, allow_loopback)
    if problem:
        reason = f"it is {problem}; {PUBLIC_ONLY}{_loopback_hint(problem)}"
        if _parse_ip(host) is not None:
            raise UnsafeURL(f"{host} is {problem}; {PUBLIC_ONLY}{_loopback_hint(problem)}", reason)
        raise UnsafeURL(
            f"{host} resolves to {ip}, {problem}; {PUBLIC_ONLY}{_loopback_hint(problem)}", reason
        )
    return ip


def parse_url(url: str | httpx2.URL) -> tuple[str, str, int]:
    """The syntactic half of the check: (scheme, ASCII host, port) or UnsafeURL."""
    if isinstance(url, str):
        if not url.strip():
            raise UnsafeURL("The URL is empty")
        if any(ch.isspace() or ord(ch) < 32 for ch in url.strip()):
            raise UnsafeURL("The URL must not contain spaces or control characters")
        try:
            parsed = httpx2.URL(url.strip())
        except (httpx2.InvalidURL, TypeError, ValueError) as exc:
            raise UnsafeURL(f"Not a valid URL: {exc}", "it is not a valid URL") from None
    else:
        parsed = url
    scheme = parsed.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        shown = f" ({scheme}: given)" if scheme else ""
        raise UnsafeURL(f"Only http and https URLs are allowed{shown}")
    if parsed.userinfo:
        raise UnsafeURL(
            "URLs with a user name or password (user:pass@host) are not allowed; "
            "put the API key in its own field"
        )
    try:
        host = parsed.raw_host.decode("ascii")
    except UnicodeDecodeError:
        raise UnsafeURL("The URL's host name is not valid") from None
    if not host:
        raise UnsafeURL("The URL has no host name")
    port = parsed.port or (443 if scheme == "https" else 80)
    return scheme, host, port


def _addresses_from_getaddrinfo(infos: Iterable) -> list[str]:
    seen: list[str] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in seen:
            seen.append(address)
    return seen


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (blocking). UnsafeURL if it does not resolve."""
    if _parse_ip(host) is not None:
        return [host]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeURL(f"Could not resolve the host name {host}: {exc}") from None
    addresses = _addresses_from_getaddrinfo(infos)
    if not addresses:
        raise UnsafeURL(f"The host name {host} has no addresses")
    return addresses


def check_url(url: str, allow_loopback: bool) -> None:
    """Raise UnsafeURL unless `url` is an http(s) URL whose host only resolves to
    addresses the arena may call. Used by form and API validation; connections are
    checked again at connect time by GuardedTransport."""
    _scheme, host, port = parse_url(url)
    for address in resolve(host, port):
        check_address(host, address, allow_loopback)


# --- connect-time enforcement ----------------------------------------------------------

Resolver = Callable[[str, int], Awaitable[list[str]]]


async def _system_resolver(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return _addresses_from_getaddrinfo(infos)


@functools.lru_cache(maxsize=1)
def shared_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for all model and agent connections (SSLContext is
    safe to share between connections)."""
    return httpx2.create_ssl_context()


# (URL, checked address) -> the URL naming that address; see GuardedTransport._pinned_url.
_PINNED_URLS: dict[tuple[httpx2.URL, IPAddress], httpx2.URL] = {}


class GuardedTransport(httpx2.AsyncBaseTransport):
    """An httpx transport that only connects to addresses `address_problem` allows.

    For each request: resolve the host once (``loop.getaddrinfo``), refuse with
    UnsafeURL if *any* address is not allowed, then send the request to the first
    checked IP literal (falling back to the next one if the connection cannot be
    made). The ``Host`` header and the TLS SNI / certificate check keep the original
    host name. Keyword arguments (``limits``, ``verify``) go to the underlying
    transport (httpx's own, httpcore's connection pool), one per original
    scheme/host/port. `max_response_bytes`, when given, caps every answer's body:
    a larger one (declared or read) raises ResponseTooLarge, whichever client library
    reads it.

    ``resolver`` (async ``(host, port) -> [address, ...]``) and ``transport_factory``
    exist for tests.
    """

    def __init__(
        self,
        allow_loopback: bool = False,
        *,
        resolver: Resolver | None = None,
        transport_factory: Callable[..., httpx2.AsyncBaseTransport] | None = None,
        max_addresses: int = 4,
        max_response_bytes: int | None = None,
        **transport_kwargs,
    ) -> None:
        self.allow_loopback = allow_loopback
        self._resolver = resolver or _system_resolver
        self._factory = transport_factory or AiohttpConnections
        self.max_response_bytes = max_response_bytes
        # Loading the CA bundle costs ~50 ms; every transport shares one context.
        transport_kwargs.setdefault("verify", shared_ssl_context())
        self._kwargs = transport_kwargs
        self._max_addresses = max_addresses
        self._inner: dict[tuple[str, str, int], httpx2.AsyncBaseTransport] = {}

    def _transport_for(self, key: tuple[str, str, int]) -> httpx2.AsyncBaseTransport:
        inner = self._inner.get(key)
        if inner is None:
            inner = self._inner[key] = self._factory(**self._kwargs)
        return inner

    async def _checked_addresses(self, connect_timeout: float | None, host: str, port: int,
                                 request: httpx2.Request | None = None) -> list[IPAddress]:
        if _parse_ip(host) is not None:
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
        scheme, host, port = parse_url(request.url)
        connect_timeout = (request.extensions.get("timeout") or {}).get("connect")
        addresses = await self._checked_addresses(connect_timeout, host, port, request)
        inner = self._transport_for((scheme, host, port))

        extensions = dict(request.extensions)
        if scheme == "https" and _parse_ip(host) is None:
            extensions.setdefault("sni_hostname", host)

        last_error: httpx2.ConnectError | None = None
        for ip in addresses[: self._max_addresses]:
            pinned = httpx2.Request(
                request.method,
                self._pinned_url(request.url, ip),
                headers=request.headers,  # already carries Host: <original name>
                stream=request.stream,
                extensions=extensions,
            )
            try:
                response = await inner.handle_async_request(pinned)
            except httpx2.ConnectError as exc:
                # Nothing was sent yet, so trying the next checked address is safe.
                last_error = exc
                continue
            return self._capped(response)
        assert last_error is not None
        raise last_error

    def _capped(self, response: httpx2.Response) -> httpx2.Response:
        """`response` whose body stops at `max_response_bytes`: a model's or an agent's
        answer is read whole into memory, so an endless one must not be."""
        cap = self.max_response_bytes
        if cap is None:
            return response
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise ResponseTooLarge(cap)
        response.stream = _CappedStream(response.stream, cap)
        return response

    @staticmethod
    def _pinned_url(url: httpx2.URL, ip: IPAddress) -> httpx2.URL:
        """`url` with its host replaced by the checked address; the same model is called
        at the same URL step after step, and building it costs more than the rest of the
        request. Shared by every transport: an episode's client has its own, and each
        would otherwise build it again."""
        key = (url, ip)
        pinned = _PINNED_URLS.get(key)
        if pinned is None:
            if len(_PINNED_URLS) >= 1024:
                _PINNED_URLS.clear()
            pinned = _PINNED_URLS[key] = url.copy_with(host=str(ip))
        return pinned

    async def aclose(self) -> None:
        inner, self._inner = list(self._inner.values()), {}
        for transport in inner:
            await transport.aclose()
