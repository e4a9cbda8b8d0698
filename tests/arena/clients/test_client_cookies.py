"""Model clients keep an endpoint's cookies (a load balancer's stickiness) and send
them back, as their HTTP client does."""

from __future__ import annotations

import json

import httpx2
import pytest

from arena.clients import OpenAICompatibleClient
from tests.support.guard import answering


def _answer(text: str, **headers) -> httpx2.Response:
    body = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}
    return httpx2.Response(200, headers=headers, content=json.dumps(body).encode())


@pytest.mark.asyncio
async def test_cookies_set_are_sent_back():
    seen: list[str | None] = []
    replies = iter([_answer("a", **{"Set-Cookie": "lb=7; Path=/"}), _answer("b"), _answer("c")])

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.headers.get("cookie"))
        return next(replies)

    client = OpenAICompatibleClient("http://93.184.215.14/v1", model="m", transport=answering(handler))
    async with client:
        texts = [(await client.complete([{"role": "user", "content": "hi"}])).text for _ in range(3)]
    assert texts == ["a", "b", "c"]
    assert seen == [None, "lb=7", "lb=7"]
