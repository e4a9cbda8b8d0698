"""OpenAI's calls on the URL guard's direct lane (arena.clients.openai_compat.openai_post
-> GuardedTransport.fetch -> aiohttp): every duty httpx2's client and response hook had
on this path still holds against real sockets: redirects refused, cookies kept and sent
back, the body cap, the address check at each call, the next checked address, the
gate told of every answer, compressed answers read."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from arena.clients import ModelCallError, OpenAICompatibleClient
from arena.clients.errors import ErrorKind
from tests.support.fake_openai import Fault, FakeOpenAIServer

HI = [{"role": "user", "content": "hi"}]


def _completion(text: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}]}).encode()


class RawServer:
    """A keep-alive HTTP/1.1 server on 127.0.0.1 answering each request with the next
    scripted (status, headers, body); it records every request's head."""

    def __init__(self, *answers: tuple[int, dict, bytes]) -> None:
        self.answers = list(answers)
        self.heads: list[dict[str, str]] = []

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                lines = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")[1:]
                head = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines if line)}
                self.heads.append(head)
                await reader.readexactly(int(head.get("content-length", 0)))
                status, headers, body = self.answers.pop(0)
                fields = "".join(f"{name}: {value}\r\n" for name, value in {**headers, "Content-Length": len(body)}.items())
                writer.write(f"HTTP/1.1 {status} X\r\n{fields}\r\n".encode() + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def __aenter__(self) -> str:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"

    async def __aexit__(self, *exc_info) -> None:
        self._server.close()


def _client(base_url: str, **options) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(base_url, "", "m", allow_loopback=True, max_retries=0, **options)


async def _on_direct_lane(client: OpenAICompatibleClient) -> OpenAICompatibleClient:
    assert client._connected().guard is not None  # these tests are about that lane
    return client


@pytest.mark.asyncio
async def test_a_redirect_is_refused_and_not_followed():
    async with RawServer((302, {"Location": "http://169.254.169.254/latest/"}, b"")) as base_url:
        async with await _on_direct_lane(_client(base_url)) as client:
            with pytest.raises(ModelCallError) as caught:
                await client.complete(HI)
    assert caught.value.http_status == 302
    assert "does not follow redirects" in caught.value.message


@pytest.mark.asyncio
async def test_a_cookie_the_endpoint_sets_goes_back_with_the_next_calls_only():
    server = RawServer((200, {"Set-Cookie": "lb=7; Path=/"}, _completion("a")), (200, {}, _completion("b")),
                       (200, {}, _completion("c")))
    async with server as base_url:
        async with await _on_direct_lane(_client(base_url)) as client:
            texts = [(await client.complete(HI)).text for _ in range(3)]
    assert texts == ["a", "b", "c"]
    assert [head.get("cookie") for head in server.heads] == [None, "lb=7", "lb=7"]
    assert server.heads[0]["host"] == base_url.split("/")[2]  # the name called, not a rewritten one


@pytest.mark.asyncio
async def test_the_gate_is_told_every_answer_and_a_compressed_answer_is_read():
    seen = []
    server = RawServer((429, {"Retry-After": "3", "X-RateLimit-Remaining-Requests": "0"}, b'{"error": "slow"}'),
                       (200, {"Content-Encoding": "gzip"}, gzip.compress(_completion("Action: up"))))
    async with server as base_url:
        async with await _on_direct_lane(_client(base_url)) as client:
            client.observer = lambda status, headers, timed_out: seen.append(
                (status, headers.get("retry-after"), headers.get("x-ratelimit-remaining-requests")))
            with pytest.raises(ModelCallError) as caught:
                await client.complete(HI)
            assert (await client.complete(HI)).text == "Action: up"
    assert caught.value.http_status == 429
    assert seen == [(429, "3", "0"), (200, None, None)]


@pytest.mark.asyncio
@pytest.mark.parametrize("declared", [True, False], ids=["declared length", "read past the cap"])
async def test_a_body_over_the_cap_is_refused(declared):
    with FakeOpenAIServer() as server:
        server.enqueue(Fault.oversized(200_000, declare_length=declared))
        async with await _on_direct_lane(_client(server.base_url, max_response_bytes=64 * 1024)) as client:
            with pytest.raises(ModelCallError) as caught:
                await client.complete(HI)
            server.enqueue(Fault.reply("Action: up"))  # the connection's pool still serves
            assert (await client.complete(HI)).text == "Action: up"
    assert "larger than the 65,536 byte limit" in caught.value.message
    assert caught.value.http_status == 200


@pytest.mark.asyncio
async def test_a_host_resolving_to_a_private_address_is_refused_at_every_call(fake_dns):
    with FakeOpenAIServer() as server:
        fake_dns("model.test", ["127.0.0.1"], ["10.0.0.5"])
        client = OpenAICompatibleClient(f"http://model.test:{server.port}/v1", "", "m", max_retries=0,
                                        allow_loopback=True)
        async with await _on_direct_lane(client):
            assert (await client.complete(HI)).text  # loopback is allowed here
            with pytest.raises(ModelCallError) as caught:
                await client.complete(HI)  # the name now points into the private network
    assert caught.value.kind == ErrorKind.URL_REFUSED
    assert "address was refused: it is a private address" in caught.value.message
    assert "10.0.0.5" not in caught.value.message and "model.test" not in caught.value.message
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_the_next_checked_address_is_tried_when_one_refuses(fake_dns):
    with FakeOpenAIServer() as server:  # listens on 127.0.0.1 only: 127.0.0.2 refuses
        port = server.port
        fake_dns("two.test", ["127.0.0.2", "127.0.0.1"])
        client = OpenAICompatibleClient(f"http://two.test:{server.port}/v1", "", "m", max_retries=0,
                                        allow_loopback=True)
        async with await _on_direct_lane(client):
            reply = await client.complete(HI)
    assert reply.text and not reply.error
    assert server.requests[0].headers["host"] == f"two.test:{port}"


@pytest.mark.asyncio
async def test_a_reset_connection_reads_as_a_connection_problem_not_as_slow():
    with FakeOpenAIServer() as server:
        server.enqueue(Fault.reset())
        async with await _on_direct_lane(_client(server.base_url, timeout_seconds=5)) as client:
            with pytest.raises(ModelCallError) as caught:
                await client.complete(HI)
    assert caught.value.kind == ErrorKind.CONNECTION
    assert "within" not in caught.value.message
    assert "127.0.0.1" not in caught.value.message
