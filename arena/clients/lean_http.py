"""A lean HTTP/1.1 transport for model calls, behind the URL guard.

httpx's default transport (httpcore on anyio, h11 for the protocol) costs the worker
more CPU per model call than the rest of a step together: every read and write goes
through anyio's cancel scopes, h11's event machinery and httpcore's pool bookkeeping.
A model call is one POST with a body in memory and one JSON answer: this transport
speaks just that much HTTP/1.1 on asyncio streams (keep-alive, Content-Length or
chunked bodies, TLS), with the same timeouts and the same httpx errors.

It sits *under* arena.clients.urlguard.GuardedTransport, which resolves and checks the
host and hands it requests whose URL names the checked IP literal: this transport
refuses any other URL (it never resolves a name), so every connection it opens is to a
validated address. TLS keeps the original host name for SNI and the certificate check
(the ``sni_hostname`` extension, as httpcore reads it). Redirects are answered, never
followed (the client reports a 3xx).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import ssl
import time

import httpx

# A model's answer headers are a few hundred bytes; a peer sending more is refused.
MAX_HEADER_BYTES = 64 * 1024
MAX_TRAILER_LINES = 100
# RFC 9110 §5.6.2: a header name is a token; a value never holds CR, LF or NUL.
_HEADER_NAME = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_UNSENDABLE_IN_VALUE = re.compile(rb"[\r\n\x00]")
READ_CHUNK = 64 * 1024
# Header lines a transport found sendable are not checked again: a model's client sends
# the same few at every call (the body's length aside), and checking each against the
# patterns above cost more than writing it. Bounded: forgotten all at once when full.
MAX_SENDABLE_REMEMBERED = 256


@functools.lru_cache(maxsize=1024)
def _is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _timeouts(request: httpx.Request) -> dict:
    return request.extensions.get("timeout") or {}


class _PeerGone(httpx.RemoteProtocolError):
    """The connection was closed or reset before any byte of an answer arrived."""


class _Connection:
    __slots__ = ("reader", "writer", "idle_since")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def close(self) -> None:
        self.writer.close()

    def reusable(self, expiry: float) -> bool:
        return (not self.reader.at_eof() and not self.writer.is_closing()
                and time.monotonic() - self.idle_since < expiry)


class LeanHTTP11Transport(httpx.AsyncBaseTransport):
    """HTTP/1.1 to IP-literal URLs only, with a keep-alive pool per (address, port, TLS
    name). `limits` and `verify` as httpx.AsyncHTTPTransport takes them; nothing else
    of httpx's transport options is used by the arena's clients."""

    def __init__(self, *, verify: ssl.SSLContext | bool = True, limits: httpx.Limits | None = None, **_ignored):
        if isinstance(verify, ssl.SSLContext):
            self._ssl = verify
        else:
            self._ssl = httpx.create_ssl_context(verify=verify)
        limits = limits or httpx.Limits()
        self._slots = asyncio.Semaphore(limits.max_connections) if limits.max_connections else None
        self._keep = limits.max_keepalive_connections if limits.max_keepalive_connections is not None else 1 << 30
        self._expiry = limits.keepalive_expiry if limits.keepalive_expiry is not None else float("inf")
        self._idle: dict[tuple, list[_Connection]] = {}
        self._closed = False
        # Kept by this transport (its client's headers), not shared between clients.
        self._sendable: set[tuple[bytes, bytes]] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"{url.scheme!r} is not http or https", request=request)
        if not _is_ip_literal(url.host):
            # Only the guard resolves names: a name here would be connected to unchecked.
            raise httpx.ConnectError(f"{url.host} is not a checked address", request=request)
        timeouts = _timeouts(request)
        sni = request.extensions.get("sni_hostname") or url.host
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80), sni)
        body = b"".join([part async for part in request.stream])
        head = self._head(request.method, url.raw_path or b"/", request.headers.raw, url.netloc, body, request)
        status, reason, headers, version, connection = await self._round_trip(key, head, body, request, timeouts)
        stream = _ResponseStream(self, key, connection, request, request.method, status, headers, version, timeouts)
        return httpx.Response(status, headers=headers, stream=stream,
                              extensions={"http_version": version, "reason_phrase": reason})

    async def send_pinned(self, key: tuple[str, str, int, str], target: bytes, header_lines: list[tuple[bytes, bytes]],
                          body: bytes, timeouts: dict) -> "LeanResponse":
        """POST `body` without httpx's request and response objects (the URL guard's
        direct path, arena.clients.urlguard.GuardedTransport.send_direct): `key` is
        (scheme, checked IP literal as the pinned URL names it, port, TLS name),
        `target` the request target, `header_lines` the request's header lines as
        httpx.Request would hold them (Host first, Content-Length last). The same
        bytes go on the wire, through the same pool, slots and timeouts, as
        `handle_async_request` sends for that request; errors carry no request."""
        scheme, host = key[0], key[1]
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"{scheme!r} is not http or https")
        if not _is_ip_literal(host):
            raise httpx.ConnectError(f"{host} is not a checked address")
        head = self._head("POST", target, header_lines, b"", body, None)
        status, reason, headers, version, connection = await self._round_trip(key, head, body, None, timeouts)
        stream = _ResponseStream(self, key, connection, None, "POST", status, headers, version, timeouts)
        return LeanResponse(status, headers, stream, version, reason)

    async def _round_trip(self, key: tuple, head: bytes, body: bytes, request: httpx.Request | None, timeouts: dict):
        """(status, reason, headers, version, connection) of the answer to `head` and
        `body` on a pooled or new connection; the connection's slot is held until its
        response stream is closed."""
        if self._slots is not None:
            if self._slots.locked():
                try:
                    async with asyncio.timeout(timeouts.get("pool")):
                        await self._slots.acquire()
                except TimeoutError:
                    raise httpx.PoolTimeout("No connection slot became free in time", request=request) from None
            else:  # a free slot is taken at once: no wait to bound
                await self._slots.acquire()
        connection = None
        try:
            connection = self._pooled(key)
            try:
                if connection is None:
                    connection = await self._connect(request, key, timeouts)
                    answer = await self._exchange(connection, head, body, request, timeouts)
                else:
                    try:
                        answer = await self._exchange(connection, head, body, request, timeouts)
                    except _PeerGone:
                        # The peer closed the idle connection as it was taken and answered
                        # nothing: the request is sent once more on a fresh connection.
                        connection.close()
                        connection = await self._connect(request, key, timeouts)
                        answer = await self._exchange(connection, head, body, request, timeouts)
            except BaseException:
                if connection is not None:
                    connection.close()
                raise
        except BaseException:
            if self._slots is not None:
                self._slots.release()
            raise
        return (*answer, connection)

    # -- connections -----------------------------------------------------------------------
    def _pooled(self, key: tuple) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            connection = idle.pop()
            if connection.reusable(self._expiry):
                return connection
            connection.close()
        return None

    def _give_back(self, key: tuple, connection: _Connection | None) -> None:
        if connection is not None:
            idle = self._idle.setdefault(key, [])
            if self._closed or len(idle) >= self._keep:
                connection.close()
            else:
                connection.idle_since = time.monotonic()
                idle.append(connection)
        if self._slots is not None:
            self._slots.release()

    async def _connect(self, request: httpx.Request, key: tuple, timeouts: dict) -> _Connection:
        scheme, host, port, sni = key
        tls = {"ssl": self._ssl, "server_hostname": sni} if scheme == "https" else {}
        try:
            async with asyncio.timeout(timeouts.get("connect")):
                reader, writer = await asyncio.open_connection(host, port, limit=MAX_HEADER_BYTES, **tls)
        except TimeoutError:
            raise httpx.ConnectTimeout(f"Timed out connecting to {host}:{port}", request=request) from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(str(exc) or type(exc).__name__, request=request) from None
        return _Connection(reader, writer)

    # -- one exchange ----------------------------------------------------------------------
    def _head(self, method: str, target: bytes, header_lines, netloc: bytes, body: bytes,
              request: httpx.Request | None) -> bytes:
        lines = [method.encode("ascii") + b" " + target + b" HTTP/1.1"]
        names = set()
        sendable = self._sendable
        for header in header_lines:
            name, value = header
            if header in sendable:  # checked at an earlier call
                names.add(name.lower())
                lines.append(name + b": " + value)
                continue
            # A value is sent as it is: a line break in it (an API key pasted with one)
            # would start a header of the endpoint's choosing. Refused, as h11 refuses it,
            # without quoting the value (it may be the key).
            if not _HEADER_NAME.fullmatch(name) or _UNSENDABLE_IN_VALUE.search(value):
                raise httpx.LocalProtocolError(
                    f"Illegal header value in {name[:40].decode('ascii', 'replace')!r}: it holds a line break or "
                    "a null character", request=request)
            if len(sendable) >= MAX_SENDABLE_REMEMBERED:
                sendable.clear()
            sendable.add(header)
            names.add(name.lower())
            lines.append(name + b": " + value)
        if b"host" not in names:
            lines.append(b"Host: " + netloc)
        if b"content-length" not in names and b"transfer-encoding" not in names and (body or method in (
                "POST", "PUT", "PATCH")):
            lines.append(b"Content-Length: " + str(len(body)).encode("ascii"))
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def _exchange(self, connection: _Connection, head: bytes, body: bytes, request, timeouts: dict):
        try:
            connection.writer.write(head + body if len(body) < 65536 else head)
            if len(body) >= 65536:
                connection.writer.write(body)
            writer = connection.writer
            if writer.transport.get_write_buffer_size():
                async with asyncio.timeout(timeouts.get("write")):
                    await writer.drain()
            else:  # all sent already: drain only reports a lost connection, it never waits
                await writer.drain()
        except TimeoutError:
            raise httpx.WriteTimeout("Timed out sending the request", request=request) from None
        except OSError as exc:
            raise _PeerGone(f"Could not send the request: {exc or type(exc).__name__}", request=request) from None
        while True:
            status, reason, headers, version = await self._read_head(connection, request, timeouts)
            if not 100 <= status < 200 or status == 101:
                return status, reason, headers, version

    async def _read_head(self, connection: _Connection, request, timeouts: dict):
        try:
            async with asyncio.timeout(timeouts.get("read")):
                raw = await connection.reader.readuntil(b"\r\n\r\n")
        except TimeoutError:
            raise httpx.ReadTimeout("Timed out waiting for the response", request=request) from None
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise _PeerGone("Server disconnected without sending a response.", request=request) from None
            raise httpx.RemoteProtocolError("Server closed the connection in the response headers",
                                            request=request) from None
        except asyncio.LimitOverrunError:
            raise httpx.RemoteProtocolError("The response headers are too large", request=request) from None
        except OSError as exc:
            raise _PeerGone(f"The connection failed before the answer: {exc or type(exc).__name__}",
                            request=request) from None
        lines = raw[:-4].split(b"\r\n")
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit() or len(parts[1]) != 3:
            raise httpx.RemoteProtocolError(f"Not an HTTP/1.x status line: {lines[0][:80]!r}", request=request)
        headers = []
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon or not name or name != name.strip():
                raise httpx.RemoteProtocolError(f"Malformed header line {line[:80]!r}", request=request)
            headers.append((name, value.strip()))
        return int(parts[1]), parts[2] if len(parts) > 2 else b"", headers, parts[0]

    async def aclose(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()


class _ResponseStream(httpx.AsyncByteStream):
    """The response body as it arrives: Content-Length, chunked or until the connection
    closes; the connection goes back to the pool when the body was read whole and both
    sides keep it alive."""

    def __init__(self, transport: LeanHTTP11Transport, key, connection: _Connection, request, method: str,
                 status: int, headers: list, version: bytes, timeouts: dict):
        self._transport = transport
        self._key = key
        self._connection: _Connection | None = connection
        self._request = request
        self._read_timeout = timeouts.get("read")
        fields = {}
        for name, value in headers:
            fields[name.lower()] = value.lower()
        self._keep_alive = version == b"HTTP/1.1" and b"close" not in fields.get(b"connection", b"")
        self._chunked = b"chunked" in fields.get(b"transfer-encoding", b"")
        length = fields.get(b"content-length")
        if method == "HEAD" or status in (204, 304):
            self._remaining: int | None = 0
        elif self._chunked:
            self._remaining = None
        elif length is not None:
            if not length.isdigit():
                raise httpx.RemoteProtocolError(f"Bad Content-Length {length[:40]!r}", request=request)
            self._remaining = int(length)
        else:
            self._remaining = None
            self._keep_alive = False  # the body ends when the connection does
        self._done = False

    async def _read(self, call):
        try:
            async with asyncio.timeout(self._read_timeout):
                return await call
        except TimeoutError:
            raise httpx.ReadTimeout("Timed out reading the response", request=self._request) from None
        except asyncio.IncompleteReadError:
            raise httpx.RemoteProtocolError("Server closed the connection in the response body",
                                            request=self._request) from None
        except (asyncio.LimitOverrunError, ValueError):
            raise httpx.RemoteProtocolError("Malformed chunked body", request=self._request) from None
        except OSError as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__, request=self._request) from None

    async def __aiter__(self):
        reader = self._connection.reader
        if self._chunked:
            while True:
                size_line = await self._read(reader.readuntil(b"\r\n"))
                try:
                    size = int(size_line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise httpx.RemoteProtocolError("Malformed chunk size", request=self._request) from None
                if size == 0:
                    for _ in range(MAX_TRAILER_LINES):
                        if (await self._read(reader.readuntil(b"\r\n"))) == b"\r\n":
                            break
                    else:
                        raise httpx.RemoteProtocolError("Too many trailer lines", request=self._request)
                    break
                # A chunk is read in pieces, never whole: a hostile size ("ffffffffff")
                # must not make the worker buffer it before the caller's size cap sees it.
                while size:
                    piece = await self._read(reader.readexactly(min(size, READ_CHUNK)))
                    size -= len(piece)
                    yield piece
                if (await self._read(reader.readexactly(2))) != b"\r\n":
                    raise httpx.RemoteProtocolError("Malformed chunked body", request=self._request)
        elif self._remaining is not None:
            while self._remaining:
                chunk = await self._read(reader.read(min(self._remaining, READ_CHUNK)))
                if not chunk:
                    raise httpx.RemoteProtocolError("Server closed the connection in the response body",
                                                    request=self._request)
                self._remaining -= len(chunk)
                yield chunk
        else:
            while chunk := await self._read(reader.read(READ_CHUNK)):
                yield chunk
        self._done = True

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None:
            return
        if not (self._done and self._keep_alive):
            connection.close()
            connection = None
        self._transport._give_back(self._key, connection)


# The status codes httpx.Response.has_redirect_location names.
_REDIRECTS = frozenset((301, 302, 303, 307, 308))


class LeanResponse:
    """The answer `LeanHTTP11Transport.send_pinned` gives: what of httpx.Response a model
    client reads (status, headers as httpx.Headers, the body stream, closing it), without
    building one. `as_httpx` gives the httpx.Response the transport would have returned,
    for what needs httpx's own (its cookie jar, its content decoders)."""

    __slots__ = ("status_code", "headers", "stream", "_version", "_reason", "_closed")

    def __init__(self, status: int, headers: list, stream: _ResponseStream, version: bytes, reason: bytes):
        self.status_code = status
        self.headers = httpx.Headers(headers)
        self.stream = stream
        self._version = version
        self._reason = reason
        self._closed = False

    @property
    def has_redirect_location(self) -> bool:
        return self.status_code in _REDIRECTS and "Location" in self.headers

    def as_httpx(self, request: httpx.Request) -> httpx.Response:
        """This answer as the httpx.Response for `request`, reading the same stream
        (closing either closes it)."""
        response = httpx.Response(self.status_code, headers=self.headers, stream=self.stream, request=request,
                                  extensions={"http_version": self._version, "reason_phrase": self._reason})
        return response

    async def aread(self) -> bytes:
        return b"".join([chunk async for chunk in self.stream])

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self.stream.aclose()
