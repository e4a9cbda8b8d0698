"""AnthropicClient against the fake Messages API, over real HTTP on 127.0.0.1: its wire
format and Anthropic's own ways of failing. What every client does alike (retries,
faults, limits, the URL guard, keys) is in test_client_contract.py."""

from __future__ import annotations

import asyncio

import pytest

from arena.clients.anthropic import AnthropicClient, to_anthropic_messages
from arena.clients.base import ModelCallError, ModelReply
from tests.support.clients import PNG_B64, PNG_URL, PROMPT, assert_no_secret, client_options, user
from tests.support.fake_providers import FakeAnthropicServer, Fault

KEY = "sk-ant-CANARY-anthropic-0123456789"


@pytest.fixture
def server():
    with FakeAnthropicServer(api_key=KEY) as running:
        yield running


def make_client(server, **overrides) -> AnthropicClient:
    base_url = overrides.pop("base_url", server.base_url)
    options = client_options(3, api_key=KEY, model="claude-fake", timeout_seconds=0.5) | overrides
    return AnthropicClient(base_url, **options)


# --- success and the wire format -----------------------------------------------------------


@pytest.mark.asyncio
async def test_success_request_format_and_usage():
    with FakeAnthropicServer(api_key=KEY, cached_tokens=5) as server:
        async with make_client(server, temperature=0.2, max_tokens=64) as client:
            reply = await client.complete(
                [{"role": "system", "content": "Be brief."}, {"role": "user", "content": PROMPT}]
            )

    assert isinstance(reply, ModelReply)
    assert reply.text == "Reasoning: picking the first legal move.\nAction: a1"
    assert reply.finish_reason == "end_turn"
    prompt_tokens = (len(PROMPT) + len("Be brief.")) // 4
    assert reply.tokens_in == prompt_tokens  # input_tokens + cache reads: the whole prompt
    assert reply.cached_tokens_in == 5
    assert reply.tokens_out == len(reply.text) // 4
    assert reply.reasoning_tokens is None
    assert (reply.attempts, reply.error, reply.http_status) == (1, "", 200)

    [request] = server.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.json == {
        "model": "claude-fake",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": PROMPT}],
        "temperature": 0.2,
    }


@pytest.mark.asyncio
async def test_thinking_blocks_become_reasoning(server):
    server.enqueue(Fault.reply("Action: up", reasoning="The goal is above me."))
    async with make_client(server) as client:
        reply = await client.complete(user("go"))
    assert (reply.text, reply.reasoning) == ("Action: up", "The goal is above me.")
    assert reply.tokens_out == (len("Action: up") + len("The goal is above me.")) // 4


def test_message_conversion_with_images():
    system, messages = to_anthropic_messages(
        [
            {"role": "system", "content": [{"type": "text", "text": "Rules."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "The board:"},
                    {"type": "image_url", "image_url": {"url": PNG_URL}},
                    {"type": "image_url", "image_url": {"url": "https://example.com/b.png"}},
                ],
            },
            {"role": "assistant", "content": "Action: up"},
        ]
    )
    assert system == "Rules."
    assert messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The board:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/b.png"}},
            ],
        },
        {"role": "assistant", "content": "Action: up"},
    ]
    with pytest.raises(ValueError, match="role"):
        to_anthropic_messages([{"role": "tool", "content": "x"}])


@pytest.mark.asyncio
async def test_image_request_reaches_the_server(server):
    messages = [
        {"role": "user", "content": [{"type": "text", "text": PROMPT}, {"type": "image_url", "image_url": {"url": PNG_URL}}]}
    ]
    async with make_client(server) as client:
        reply = await client.complete(messages)
    assert reply.text.endswith("Action: a1")
    sent = server.requests[0].json["messages"][0]["content"]
    assert sent[1]["source"] == {"type": "base64", "media_type": "image/png", "data": PNG_B64}


def test_base_url_forms():
    for base in ("https://api.anthropic.com", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1/messages"):
        client = AnthropicClient(base, KEY, "m")
        assert client.url == "https://api.anthropic.com/v1/messages"
        assert KEY not in repr(client)
        asyncio.run(client.aclose())
    with pytest.raises(ValueError, match="Invalid Anthropic base URL"):
        AnthropicClient("ftp://example.com", KEY, "m")


# --- Anthropic's own faults ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_overloaded_is_retried(server):
    server.enqueue(Fault.status(529))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert reply.attempts == 2
    assert "HTTP 529 (overloaded)" in reply.error


@pytest.mark.asyncio
async def test_overloaded_until_retries_run_out(server):
    body = {"type": "error", "error": {"type": "overloaded_error", "message": f"Overloaded (key {KEY})"}}
    server.enqueue(*[Fault.status(529, body=body)] * 3)
    async with make_client(server, max_retries=2) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    error = info.value
    assert (error.attempts, error.http_status, error.retryable) == (3, 529, True)
    assert "HTTP 529 (overloaded): Overloaded" in str(error)
    assert "gave up after 3 attempts" in str(error)
    assert "[redacted]" in str(error)
    _assert_no_secret(error)


@pytest.mark.asyncio
async def test_error_object_in_a_200_is_retried(server):
    server.enqueue(Fault.status(200, body={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert reply.attempts == 2
    assert "reported an error: Overloaded" in reply.error


@pytest.mark.asyncio
async def test_empty_content_is_an_answer_without_an_action(server):
    """No content blocks at end_turn (the model said nothing): an empty answer, one
    illegal step, not retried and not a failed call."""
    server.enqueue(Fault.empty_choices())
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert (reply.text, reply.finish_reason, reply.attempts) == ("", "end_turn", 1)


@pytest.mark.asyncio
async def test_thinking_cut_off_by_max_tokens_is_an_empty_answer_not_a_failure(server):
    block = {"type": "thinking", "thinking": "Let me think...", "signature": "s"}
    body = {"type": "message", "content": [block], "stop_reason": "max_tokens"}
    server.enqueue(Fault.status(200, body=body))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert (reply.text, reply.reasoning, reply.cut_off) == ("", "Let me think...", True)
    assert reply.reasoning_items == [block]  # the signed block, to be passed back


@pytest.mark.asyncio
async def test_only_thinking_without_the_limit_reached_is_an_empty_answer(server):
    body = {
        "type": "message",
        "content": [{"type": "thinking", "thinking": "Let me think...", "signature": "s"}],
        "stop_reason": "end_turn",
    }
    server.enqueue(Fault.status(200, body=body))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    # An answer without an action (one illegal step), not a failed call.
    assert (reply.text, reply.reasoning, reply.finish_reason, reply.cut_off) == ("", "Let me think...", "end_turn", False)
    assert reply.attempts == 1


def _assert_no_secret(error) -> None:
    assert_no_secret(error, KEY)


@pytest.mark.asyncio
async def test_signed_thinking_blocks_go_back_with_their_answer_on_the_next_turn(server):
    block = {"type": "thinking", "thinking": "Up is open.", "signature": "sig-1"}
    body = {"type": "message", "content": [block, {"type": "text", "text": "Action: up"}], "stop_reason": "end_turn"}
    server.enqueue(Fault.status(200, body=body))
    async with make_client(server) as client:
        await client.complete(user(PROMPT))
        await client.complete(
            [*user(PROMPT), {"role": "assistant", "content": "Action: up"}, {"role": "user", "content": "Next?"}]
        )
    sent = server.requests[-1].json["messages"]
    assert sent[1] == {"role": "assistant", "content": [block, {"type": "text", "text": "Action: up"}]}
