"""The address rules of the outbound URL guard (`arena.clients.urlguard`): `check_url`
for forms and the API, `check_address` again at connect time for every request.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Iterable

import httpx2

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOWED_SCHEMES = ("http", "https")
PUBLIC_ONLY = "the arena only calls public addresses"

# Ranges refused on top of what `ipaddress` already classifies, both families in one
# table (an address is never inside a network of the other family), the first match
# naming the problem. Python's own tables differ between patch releases, so the ranges
# that matter are spelled out here.
_REFUSED_RANGES: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.ip_network(net), label)
    for net, label in (
        ("169.254.0.0/16", "a link-local address (this range includes the cloud metadata service)"),
        ("255.255.255.255/32", "the broadcast address"),
        ("0.0.0.0/8", "an unspecified (\"this network\") address"),
        ("100.64.0.0/10", "a carrier-grade NAT (shared) address"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("192.0.2.0/24", "a documentation address"),
        ("198.51.100.0/24", "a documentation address"),
        ("203.0.113.0/24", "a documentation address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("192.88.99.0/24", "a 6to4 relay address"),
        ("240.0.0.0/4", "a reserved address"),
        ("fec0::/10", "a site-local address"),
        ("100::/64", "a discard-only address"),
        ("2001::/23", "an IETF protocol address"),
        ("2001:db8::/32", "a documentation address"),
        ("3fff::/20", "a documentation address"),
        ("64:ff9b:1::/48", "a local NAT64 address"),
        ("::/8", "a reserved address"),
    )
)
# Then what `ipaddress` classifies (fc00::/7 unique-local is "private"), in this order.
_REFUSED_CLASSES = (
    ("is_multicast", "a multicast address"),
    ("is_link_local", "a link-local address"),
    ("is_private", "a private address"),
    ("is_reserved", "a reserved address"),
)
_V4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


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


def _embedding_problem(ip: ipaddress.IPv6Address) -> str | None:
    """Why an IPv6 address that carries an IPv4 one (other than the IPv4-mapped form)
    is refused; "" for a NAT64 address of a public IPv4 address, which the IPv6 tables
    must not refuse (64:ff9b::/96 lies inside ::/8); None when it carries none."""
    if ip in _V4_COMPATIBLE:
        v4 = _embedded_v4(ip)
        inner = address_problem(v4)
        detail = f", {inner}" if inner else ""
        return f"an IPv4-compatible IPv6 address (deprecated) embedding {v4}{detail}"
    if ip in _NAT64:
        v4 = _embedded_v4(ip)
        inner = address_problem(v4)
        return f"a NAT64 address embedding {v4}, {inner}" if inner else ""
    for form, carried in (("6to4", (ip.sixtofour,)), ("Teredo", ip.teredo or ())):
        for v4 in carried:
            inner = address_problem(v4) if v4 is not None else None
            if inner:
                return f"a {form} address embedding {v4}, {inner}"
    return None


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
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedding_problem(ip)
        if embedded is not None:
            return embedded or None
    for net, label in _REFUSED_RANGES:
        if ip in net:
            return label
    for attribute, label in _REFUSED_CLASSES:
        if getattr(ip, attribute):
            return label
    return None if ip.is_global else "not a public address"


@functools.lru_cache(maxsize=1024)
def parse_ip(text: str) -> IPAddress | None:
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
    ip = parse_ip(address)
    if ip is None:
        raise UnsafeURL(f"{host} resolved to {address!r}, which is not an IP address",
                        "it resolved to something that is not an IP address")
    problem = address_problem(ip, allow_loopback)
    if problem:
        why = f"{problem}; {PUBLIC_ONLY}{_loopback_hint(problem)}"
        said = f"{host} is {why}" if parse_ip(host) is not None else f"{host} resolves to {ip}, {why}"
        raise UnsafeURL(said, f"it is {why}")
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


def addresses_from_getaddrinfo(infos: Iterable) -> list[str]:
    """Each address of getaddrinfo's answer once, in its order."""
    return list(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in infos))


def resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (blocking). UnsafeURL if it does not resolve."""
    if parse_ip(host) is not None:
        return [host]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise UnsafeURL(f"Could not resolve the host name {host}: {exc}") from None
    addresses = addresses_from_getaddrinfo(infos)
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
