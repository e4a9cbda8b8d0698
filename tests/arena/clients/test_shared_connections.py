"""The episodes of one endpoint and tenant send through one HTTP client and one SDK
client (arena.clients.shared); another key, another connection; the last to close
closes it."""

from __future__ import annotations

import json

import httpx2
import pytest

from arena.clients import OpenAICompatibleClient, shared
from tests.support.guard import answering

URL = "http://93.184.215.14/v1"
HI = [{"role": "user", "content": "hi"}]


def _answer(text: str, **headers) -> httpx2.Response:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}
    return httpx2.Response(200, headers=headers, content=json.dumps(body).encode())


@pytest.mark.asyncio
async def test_clients_of_one_endpoint_and_key_share_a_connection_until_the_last_closes():
    transport = answering(lambda request: _answer("ok"))
    first = OpenAICompatibleClient(URL, "sk-a", "m", transport=transport)
    second = OpenAICompatibleClient(URL, "sk-a", "m", transport=transport)
    other_key = OpenAICompatibleClient(URL, "sk-b", "m", transport=transport)
    for client in (first, second, other_key):
        assert (await client.complete(HI)).text == "ok"

    assert first.http is second.http and first.sdk is second.sdk
    assert other_key.http is not first.http
    assert shared.open_connections() == 2

    http = first.http
    await first.aclose()
    assert not http.is_closed  # the second episode still plays
    assert (await second.complete(HI)).text == "ok"
    await second.aclose()
    await other_key.aclose()
    assert http.is_closed
    assert shared.open_connections() == 0


@pytest.mark.asyncio
async def test_one_tenants_cookies_are_never_sent_for_another():
    seen: list[tuple[str | None, str | None]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append((request.headers.get("authorization"), request.headers.get("cookie")))
        return _answer("ok", **{"Set-Cookie": "lb=tenant-a; Path=/"}) if len(seen) == 1 else _answer("ok")

    transport = answering(handler)
    async with OpenAICompatibleClient(URL, "sk-a", "m", transport=transport) as a, \
            OpenAICompatibleClient(URL, "sk-b", "m", transport=transport) as b:
        await a.complete(HI)
        await b.complete(HI)
        await a.complete(HI)
    assert seen == [("Bearer sk-a", None), ("Bearer sk-b", None), ("Bearer sk-a", "lb=tenant-a")]


@pytest.mark.asyncio
async def test_a_closed_client_refuses_to_send():
    client = OpenAICompatibleClient(URL, "", "m", transport=answering(lambda request: _answer("ok")))
    await client.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await client.complete(HI)
