"""Model clients keep an endpoint's cookies as httpx.AsyncClient does, and read an
answer for cookies only when it sets one."""

from __future__ import annotations

import http.cookiejar
import json

import httpx
import pytest

from arena.clients import OpenAICompatibleClient


def _answer(text: str, **headers) -> httpx.Response:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}
    return httpx.Response(200, headers=headers, content=json.dumps(body).encode())


@pytest.mark.asyncio
async def test_cookies_set_are_sent_back_and_answers_without_one_are_not_read(monkeypatch):
    seen: list[str | None] = []
    replies = iter([_answer("a", **{"Set-Cookie": "lb=7; Path=/"}), _answer("b"), _answer("c")])

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie"))
        return next(replies)

    reads = []
    original = http.cookiejar.CookieJar.extract_cookies
    monkeypatch.setattr(http.cookiejar.CookieJar, "extract_cookies",
                        lambda self, *args: reads.append(1) or original(self, *args))
    client = OpenAICompatibleClient("http://93.184.215.14/v1", model="m", transport=httpx.MockTransport(handler))
    async with client:
        texts = [(await client.complete([{"role": "user", "content": "hi"}])).text for _ in range(3)]
    assert texts == ["a", "b", "c"]
    assert seen == [None, "lb=7", "lb=7"]
    assert len(reads) == 1
