"""Model clients keep an endpoint's cookies as httpx does, and read an answer for cookies
only when it sets one (arena.clients.http.CookiesWhenSet)."""

from __future__ import annotations

import http.cookiejar

import httpx
import pytest

from arena.clients import OpenAICompatibleClient
from arena.clients.http import CookiesWhenSet


def test_model_clients_use_the_jar():
    client = OpenAICompatibleClient("http://127.0.0.1:9/v1", allow_loopback=True)
    assert isinstance(client._http.cookies, CookiesWhenSet)


@pytest.mark.asyncio
async def test_cookies_set_are_sent_back_and_answers_without_one_are_not_read(monkeypatch):
    seen: list[str | None] = []
    replies = iter([
        httpx.Response(200, headers={"Set-Cookie": "lb=7; Path=/"}, text="a"),
        httpx.Response(200, text="b"),
        httpx.Response(200, text="c"),
    ])

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie"))
        return next(replies)

    reads = []
    original = http.cookiejar.CookieJar.extract_cookies
    monkeypatch.setattr(http.cookiejar.CookieJar, "extract_cookies",
                        lambda self, *args: reads.append(1) or original(self, *args))
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        client._cookies = CookiesWhenSet()
        for _ in range(3):
            await client.post("http://93.184.215.14/v1/chat/completions", content=b"{}")
    assert seen == [None, "lb=7", "lb=7"]
    assert len(reads) == 1
