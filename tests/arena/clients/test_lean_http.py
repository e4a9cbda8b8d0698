"""The lean HTTP/1.1 transport under the URL guard: it connects to IP literals only, keeps
connections alive, reads Content-Length, chunked and close-delimited bodies, sends a
request once more only when a kept connection was closed before any answer, and raises
httpx's errors (timeouts, protocol errors) as httpx's own transport does."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from arena.clients.lean_http import LeanHTTP11Transport


class RawServer:
    """A loopback HTTP server answering each request with the next scripted reply (raw
    bytes, or a callable given the writer); counts connections and requests."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.connections = 0
        self.requests: list[bytes] = []

    async def __aenter__(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc):
        self.server.close()

    async def _handle(self, reader, writer):
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                self.requests.append(head + await reader.readexactly(length))
                reply = self.replies.pop(0)
                if callable(reply):
                    if await reply(writer) == "close":
                        break
                else:
                    writer.write(reply)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


def ok(body: bytes, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(body)).encode() + b"\r\n" + extra + b"\r\n" + body


async def post(client: httpx.AsyncClient, port: int, body: bytes = b'{"q": 1}', host: str = "127.0.0.1"):
    async with client.stream("POST", f"http://{host}:{port}/v1/chat", content=body,
                             timeout=httpx.Timeout(2.0)) as response:
        return response.status_code, b"".join([chunk async for chunk in response.aiter_bytes()])


@pytest.mark.asyncio
async def test_a_host_name_is_refused_without_being_resolved():
    async with httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.ConnectError, match="not a checked address"):
            await post(client, 80, host="localhost")


@pytest.mark.asyncio
async def test_keep_alive_content_length_chunked_and_close_delimited_bodies():
    async def closing(writer):
        writer.write(b"HTTP/1.0 200 OK\r\n\r\nuntil the end")
        await writer.drain()
        return "close"

    replies = [
        ok(b"first"),
        b"HTTP/1.1 100 Continue\r\n\r\n" + ok(b"second"),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nthird\r\n6;x=1\r\n chunk\r\n0\r\nX-T: 1\r\n\r\n",
        closing,
        ok(b"fresh"),
    ]
    async with RawServer(replies) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        answers = [await post(client, server.port) for _ in range(5)]
    assert answers == [(200, b"first"), (200, b"second"), (200, b"third chunk"), (200, b"until the end"),
                       (200, b"fresh")]
    assert server.connections == 2  # one kept alive for four requests, one after the close
    first = server.requests[0]
    assert first.startswith(b"POST /v1/chat HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in first and first.endswith(b'\r\n\r\n{"q": 1}')


@pytest.mark.asyncio
async def test_a_kept_connection_closed_by_the_peer_is_replaced_once():
    async def answer_then_hang_up(writer):
        writer.write(ok(b"one"))
        await writer.drain()
        return "close"

    async with RawServer([answer_then_hang_up, ok(b"two")]) as server, httpx.AsyncClient(
        transport=LeanHTTP11Transport()
    ) as client:
        assert await post(client, server.port) == (200, b"one")
        await asyncio.sleep(0.05)
        assert await post(client, server.port) == (200, b"two")
    assert server.connections == 2


@pytest.mark.asyncio
async def test_errors_are_httpx_errors():
    async def silent(writer):
        await asyncio.sleep(5)

    async def broken_head(writer):
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
        await writer.drain()
        return "close"

    async with RawServer([silent]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.ReadTimeout):
            async with client.stream("POST", f"http://127.0.0.1:{server.port}/", content=b"x",
                                     timeout=httpx.Timeout(0.3)) as response:
                await response.aread()
    async with RawServer([broken_head]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await post(client, server.port)
    async with RawServer([b"garbage\r\n\r\n"]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="status line"):
            await post(client, server.port)
    async with RawServer([]) as server:
        port = server.port
    async with httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.ConnectError):
            await post(client, port)


@pytest.mark.asyncio
async def test_a_huge_declared_chunk_arrives_in_pieces_so_the_callers_cap_can_stop_it():
    """A hostile endpoint declares a chunk of ~1 TB and streams it: the transport hands it
    on piece by piece (never buffering the chunk whole), so the client's response-size
    cap sees the bytes as they come and ends the call."""
    async def endless_chunk(writer):
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffff\r\n")
        try:
            for _ in range(64):
                writer.write(b"x" * 65536)
                await writer.drain()
        except ConnectionError:
            pass
        return "close"

    async with RawServer([endless_chunk]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        async with client.stream("POST", f"http://127.0.0.1:{server.port}/", content=b"x",
                                 timeout=httpx.Timeout(5.0)) as response:
            received, largest = 0, 0
            async for piece in response.aiter_raw():
                received += len(piece)
                largest = max(largest, len(piece))
                if received >= 1024 * 1024:
                    break
    assert received >= 1024 * 1024 and largest <= 64 * 1024


@pytest.mark.asyncio
async def test_endless_trailers_are_a_protocol_error():
    trailers = b"".join(b"X-T%d: 1\r\n" % i for i in range(200))
    reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n" + trailers + b"\r\n"
    async with RawServer([reply]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        with pytest.raises(httpx.RemoteProtocolError, match="trailer"):
            await post(client, server.port)


@pytest.mark.asyncio
async def test_a_header_value_with_a_line_break_is_refused_not_sent():
    """An API key pasted with a line break would otherwise start a header of its own on
    the wire; the request is refused before anything is sent, without quoting the value."""
    async with RawServer([ok(b"never")]) as server, httpx.AsyncClient(transport=LeanHTTP11Transport()) as client:
        for value in ("Bearer sk-canary\r\nX-Injected: yes", "Bearer sk-canary\nX-Injected: yes", "sk\x00canary"):
            with pytest.raises(httpx.LocalProtocolError) as refused:
                await client.post(f"http://127.0.0.1:{server.port}/", content=b"x",
                                  headers={"Authorization": value}, timeout=httpx.Timeout(2.0))
            assert "canary" not in str(refused.value)
    assert server.requests == []
