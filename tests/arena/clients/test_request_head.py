"""The OpenAI clients' requests: the head (URL, authentication, the SDK's headers) built
once by OpenAI's SDK per connection, each call's own body, length, timeout and cookies on it
(arena.clients.openai_compat.openai_post); and the guard's aiohttp pool keeping every
connection of 64 episodes in flight alive."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from arena.clients import OpenAICompatibleClient
from arena.clients.responses import ResponsesClient
from tests.support.guard import answering

URL = "http://93.184.215.14/v1"


def _completion(text: str) -> dict:
    return {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}


@pytest.mark.asyncio
async def test_every_call_carries_the_sdk_head_with_its_own_body_and_length():
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=_completion("Action: up"), headers={"Set-Cookie": "lb=3; Path=/"})

    client = OpenAICompatibleClient(URL, "sk-key-one", "m", max_tokens=8, transport=answering(handler))
    async with client:
        for text in ("short", "a much longer prompt é" * 20):
            await client.complete([{"role": "user", "content": text}])
        assert len(client._connected().heads) == 1  # built by the SDK once, for both calls

    first, second = seen
    for request, text in zip(seen, ("short", "a much longer prompt é" * 20)):
        assert str(request.url) == "http://93.184.215.14/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer sk-key-one"
        assert request.headers["content-type"] == "application/json"
        assert request.headers["user-agent"].startswith("AsyncOpenAI/Python")
        assert request.headers["x-stainless-lang"] == "python"
        assert int(request.headers["content-length"]) == len(request.content)
        assert json.loads(request.content) == {"model": "m", "messages": [{"role": "user", "content": text}],
                                               "temperature": 0.0, "max_tokens": 8}
    assert "cookie" not in first.headers and second.headers["cookie"] == "lb=3"


@pytest.mark.asyncio
async def test_the_head_follows_a_new_timeout_without_being_built_again_and_keeps_the_query():
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json={"output": [], "status": "completed"})

    client = ResponsesClient(URL + "?tenant=7", "", "m", timeout_seconds=30, transport=answering(handler))
    async with client:
        await client.complete([{"role": "user", "content": "hi"}])
        client.set_timeout(90)  # the gate adapts the timeout to the endpoint's latency
        await client.complete([{"role": "user", "content": "hi"}])
        assert len(client._connected().heads) == 1
    assert [request.headers["x-stainless-read-timeout"] for request in seen] == ["30", "90"]
    assert [request.extensions["timeout"]["read"] for request in seen] == [30.0, 90.0]
    assert all(str(request.url) == "http://93.184.215.14/v1/responses?tenant=7" for request in seen)
    assert all("authorization" not in request.headers for request in seen)


@pytest.mark.asyncio
async def test_sixty_four_episodes_in_flight_keep_sixty_four_connections_alive():
    connections = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
                await asyncio.sleep(0.05)  # every episode's call is in flight at once
                body = json.dumps(_completion("Action: up")).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    base_url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    episodes = [OpenAICompatibleClient(base_url, "", "m", allow_loopback=True) for _ in range(64)]
    try:
        for _ in range(3):
            replies = await asyncio.gather(*(episode.complete([{"role": "user", "content": "go"}])
                                             for episode in episodes))
            assert {reply.text for reply in replies} == {"Action: up"}
    finally:
        for episode in episodes:
            await episode.aclose()
        server.close()
    assert connections == 64  # the second and third waves opened none
