"""The URL guard's connections are aiohttp's (arena.clients.aio_transport): what a
submitter reads when the server is down, and requests that reach it whole."""

from __future__ import annotations

import socket

import httpx2
import pytest

from arena.clients import ModelCallError, OpenAICompatibleClient
from arena.clients.aio_transport import httpx_error
from arena.clients.urlguard import GuardedTransport
from tests.support.fake_openai import FakeOpenAIServer


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.asyncio
async def test_a_server_that_is_down_reads_as_refused_not_as_slow():
    client = OpenAICompatibleClient(f"http://127.0.0.1:{_closed_port()}/v1", "", "m", allow_loopback=True,
                                    max_retries=0, timeout_seconds=5)
    async with client:
        with pytest.raises(ModelCallError) as caught:
            await client.complete([{"role": "user", "content": "hi"}])
    assert "connection refused" in caught.value.message
    assert "within" not in caught.value.message  # not a timeout
    assert "127.0.0.1" not in caught.value.message


@pytest.mark.asyncio
async def test_gets_and_posts_on_one_kept_alive_connection_all_reach_the_server():
    with FakeOpenAIServer() as server:
        async with httpx2.AsyncClient(transport=GuardedTransport(allow_loopback=True)) as http:
            statuses = [(await http.get(f"{server.base_url}/models")).status_code for _ in range(2)]
            statuses.append((await http.post(f"{server.base_url}/chat/completions", json={
                "model": "m", "messages": [{"role": "user", "content": "hi"}]})).status_code)
            statuses.append((await http.get(f"{server.base_url}/models")).status_code)
    assert statuses == [200, 200, 200, 200]
    assert [request.method for request in server.requests] == ["GET", "GET", "POST", "GET"]


def test_aiohttp_failures_map_to_the_httpx2_kinds_the_clients_read():
    import aiohttp

    refused = aiohttp.ClientConnectorError(aiohttp.client_reqrep.ConnectionKey(
        "h", 80, False, True, None, None, None), OSError(111, "Connection refused"))
    assert isinstance(httpx_error(refused), httpx2.ConnectError)
    assert isinstance(httpx_error(aiohttp.ServerDisconnectedError()), httpx2.RemoteProtocolError)
    assert isinstance(httpx_error(aiohttp.SocketTimeoutError()), httpx2.ReadTimeout)
    assert isinstance(httpx_error(aiohttp.ConnectionTimeoutError()), httpx2.ConnectTimeout)
    assert isinstance(httpx_error(TimeoutError()), httpx2.ReadTimeout)  # asyncio's, reading the body
    assert type(httpx_error(aiohttp.ClientError("other"))) is httpx2.TransportError


@pytest.mark.asyncio
async def test_an_answer_past_the_guards_cap_reads_as_too_large_in_the_probe_not_as_a_crash():
    from arena.probe.servers import MetadataReader
    from tests.support.fake_openai import Fault

    with FakeOpenAIServer() as server:
        server.enqueue(Fault.oversized(100_000), Fault.oversized(100_000, declare_length=True))
        reader = MetadataReader(GuardedTransport(allow_loopback=True, max_response_bytes=64 * 1024), headers={},
                                secrets=[], timeout_seconds=5)
        try:
            answers = [await reader.post(f"{server.base_url}/chat/completions", {"model": "m"}) for _ in range(2)]
        finally:
            await reader.aclose()
    assert [answer.problem for answer in answers] == ["the answer was larger than 65,536 bytes"] * 2
