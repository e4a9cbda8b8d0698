"""GeminiClient against the fake generateContent API, over real HTTP on 127.0.0.1: its
wire format and Gemini's own ways of failing. What every client does alike (retries,
faults, limits, the URL guard, keys) is in test_client_contract.py."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.clients.base import ModelCallError, ModelReply
from arena.clients.gemini import GeminiClient, to_gemini_contents
from tests.support.clients import PNG_B64, PNG_URL, PROMPT, client_options, user
from tests.support.fake_providers import FakeGeminiServer, Fault

KEY = "AIza-CANARY-gemini-0123456789"


@pytest.fixture
def server():
    with FakeGeminiServer(api_key=KEY) as running:
        yield running


def make_client(server, **overrides) -> GeminiClient:
    base_url = overrides.pop("base_url", server.base_url)
    options = client_options(5, api_key=KEY, model="gemini-fake", timeout_seconds=0.5) | overrides
    return GeminiClient(base_url, **options)


# --- success and the wire format -----------------------------------------------------------


@pytest.mark.asyncio
async def test_success_request_format_and_usage():
    with FakeGeminiServer(api_key=KEY, cached_tokens=4) as server:
        async with make_client(server, temperature=0.2, max_tokens=64) as client:
            reply = await client.complete(
                [{"role": "system", "content": "Be brief."}, {"role": "user", "content": PROMPT}]
            )

    assert isinstance(reply, ModelReply)
    assert reply.text == "Reasoning: picking the first legal move.\nAction: a1"
    assert reply.finish_reason == "STOP"
    assert reply.tokens_in == (len(PROMPT) + len("Be brief.")) // 4
    assert reply.cached_tokens_in == 4
    assert reply.tokens_out == len(reply.text) // 4
    assert reply.reasoning_tokens is None
    assert (reply.attempts, reply.error, reply.http_status) == (1, "", 200)

    [request] = server.requests
    # The key travels in a header, never in the URL (which ends up in logs).
    assert request.path == "/v1beta/models/gemini-fake:generateContent"
    assert KEY not in request.path and "key=" not in request.path
    assert request.headers["x-goog-api-key"] == KEY
    assert "authorization" not in request.headers
    assert request.json == {
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}], "role": "user"},
        "generationConfig": {"temperature": 0.2, "maxOutputTokens": 64},
    }


@pytest.mark.asyncio
async def test_thought_parts_become_reasoning(server):
    server.enqueue(Fault.reply("Action: up", reasoning="The goal is above me."))
    async with make_client(server) as client:
        reply = await client.complete(user("go"))
    assert (reply.text, reply.reasoning) == ("Action: up", "The goal is above me.")
    thoughts = len("The goal is above me.") // 4
    assert reply.reasoning_tokens == thoughts
    assert reply.tokens_out == len("Action: up") // 4 + thoughts


def test_message_conversion_with_images():
    instruction, contents = to_gemini_contents(
        [
            {"role": "system", "content": "Rules."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "The board:"},
                    {"type": "image_url", "image_url": {"url": PNG_URL}},
                ],
            },
            {"role": "assistant", "content": "Action: up"},
            {"role": "user", "content": "Next?"},
        ]
    )
    assert instruction == "Rules."
    assert [content.model_dump(mode="json", exclude_none=True, by_alias=True) for content in contents] == [
        {"role": "user", "parts": [{"text": "The board:"}, {"inlineData": {"mimeType": "image/png", "data": PNG_B64}}]},
        {"role": "model", "parts": [{"text": "Action: up"}]},
        {"role": "user", "parts": [{"text": "Next?"}]},
    ]
    with pytest.raises(ValueError, match="data: URLs"):
        to_gemini_contents([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}])
    with pytest.raises(ValueError, match="not valid base64"):
        to_gemini_contents([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@"}}]}])


def test_url_forms():
    for base, model in (
        ("https://generativelanguage.googleapis.com", "gemini-2.5-flash"),
        ("https://generativelanguage.googleapis.com/v1beta/", "models/gemini-2.5-flash"),
    ):
        client = GeminiClient(base, KEY, model)
        assert client.url == "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
        assert KEY not in client.url and KEY not in repr(client)
        asyncio.run(client.aclose())
    with pytest.raises(ValueError, match="model"):
        GeminiClient("https://generativelanguage.googleapis.com", KEY, "")


# --- Gemini's own faults ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_429_uses_retry_info_from_the_body(server):
    body = {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted (e.g. check quota).",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}],
        }
    }
    server.enqueue(Fault.status(429, body=body))
    async with make_client(server, backoff_base_seconds=0.0) as client:
        started = time.perf_counter()
        reply = await client.complete(user(PROMPT))
        waited = time.perf_counter() - started
    assert reply.attempts == 2
    assert "Resource has been exhausted" in reply.error
    assert 0.5 <= waited < 1.2


@pytest.mark.asyncio
async def test_blocked_prompt_is_a_clear_error_and_not_retried(server):
    server.enqueue(Fault.empty_choices())  # no candidates, promptFeedback.blockReason = SAFETY
    async with make_client(server) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    assert "blocked the prompt (promptFeedback.blockReason: SAFETY)" in str(info.value)
    assert (info.value.attempts, info.value.retryable, info.value.http_status) == (1, False, 200)
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_empty_candidates_without_a_reason(server):
    server.enqueue(Fault.status(200, body={"candidates": []}))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match="without any candidates") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1


@pytest.mark.asyncio
async def test_withheld_answer_reports_the_finish_reason(server):
    server.enqueue(Fault.status(200, body={"candidates": [{"finishReason": "SAFETY", "index": 0}]}))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match=r"withheld the answer \(finishReason: SAFETY\)") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1
