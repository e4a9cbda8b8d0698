"""OpenAICompatibleClient against the fake server, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import random
import time
from email.utils import formatdate

import pytest

from arena.clients import ModelCallError, ModelReply, OpenAICompatibleClient, RetryPolicy
from arena.clients.base import parse_retry_after, redact
from tests.support.clients import PNG_URL, PROMPT, assert_no_secret, client_options, user
from tests.support.fake_openai import FakeOpenAIServer, Fault, legal_moves

KEY = "sk-test-VERY-SECRET-0123456789"


@pytest.fixture
def server():
    with FakeOpenAIServer() as running:
        yield running


def make_client(server: FakeOpenAIServer, **overrides) -> OpenAICompatibleClient:
    base_url = overrides.pop("base_url", server.base_url)
    options = client_options(7, api_key=KEY, model="fake-model", timeout_seconds=2.0) | overrides
    return OpenAICompatibleClient(base_url, **options)





# --- success -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_success_captures_text_usage_and_latency(server):
    async with make_client(server, temperature=0.3, max_tokens=64) as client:
        reply = await client.complete(user(PROMPT))

    assert isinstance(reply, ModelReply)
    assert reply.text == "Reasoning: picking the first legal move.\nAction: a1"
    assert reply.finish_reason == "stop"
    assert reply.tokens_in == len(PROMPT) // 4
    assert reply.tokens_out == len(reply.text) // 4
    assert reply.http_status == 200
    assert reply.attempts == 1
    assert reply.error == ""
    assert reply.reasoning == ""
    assert reply.latency_ms > 0

    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.json == {
        "model": "fake-model",
        "messages": user(PROMPT),
        "temperature": 0.3,
        "max_tokens": 64,
    }
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"


@pytest.mark.asyncio
async def test_default_player_without_legal_list():
    with FakeOpenAIServer(default_action="left") as server:
        async with make_client(server) as client:
            reply = await client.complete(user("What now?"))
    assert reply.text == "Action: left"


@pytest.mark.asyncio
async def test_no_api_key_means_no_authorization_header(server):
    async with make_client(server, api_key="") as client:
        await client.complete(user("hi"))
    assert "authorization" not in server.requests[0].headers


@pytest.mark.asyncio
async def test_base_url_with_trailing_path_is_accepted(server):
    async with make_client(server, base_url=server.base_url + "/chat/completions/") as client:
        await client.complete(user("hi"))
    assert server.requests[0].path == "/v1/chat/completions"


@pytest.mark.asyncio
async def test_reasoning_is_captured(server):
    server.enqueue(
        Fault.reply("Action: up", reasoning="The goal is above me."),
        Fault.status(
            200,
            body={
                "choices": [
                    {
                        "message": {
                            "role": "assistant",
                            "content": [{"type": "text", "text": "Action: "}, {"type": "text", "text": "down"}],
                            "reasoning": "OpenRouter style.",
                        },
                        "finish_reason": "stop",
                    }
                ]
            },
        ),
    )
    async with make_client(server) as client:
        first = await client.complete(user("go"))
        second = await client.complete(user("go"))
    assert (first.text, first.reasoning) == ("Action: up", "The goal is above me.")
    assert (second.text, second.reasoning) == ("Action: down", "OpenRouter style.")
    assert second.tokens_in is None and second.tokens_out is None  # no usage block


@pytest.mark.asyncio
async def test_image_parts_are_sent_as_data_urls(server):
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The board:"},
                {"type": "image_url", "image_url": {"url": PNG_URL}},
                {"type": "text", "text": "\nLegal moves:\nup, down"},
            ],
        }
    ]
    async with make_client(server) as client:
        reply = await client.complete(messages)
    assert reply.text.endswith("Action: up")
    sent = server.requests[0].json["messages"]
    assert sent == messages
    assert sent[0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.asyncio
async def test_many_concurrent_calls_share_one_client():
    with FakeOpenAIServer(latency=0.05) as server:
        async with make_client(server) as client:
            started = time.perf_counter()
            replies = await asyncio.gather(*(client.complete(user(f"{PROMPT}\n#{i}")) for i in range(40)))
            elapsed = time.perf_counter() - started
    assert all(reply.text.endswith("Action: a1") for reply in replies)
    assert len(server.requests) == 40
    assert elapsed < 2.0  # concurrent, not 40 × 50 ms in a row


# --- retried failures --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_429_honours_retry_after(server):
    server.enqueue(Fault.status(429, retry_after=1))
    async with make_client(server, backoff_base_seconds=0.0) as client:
        started = time.perf_counter()
        reply = await client.complete(user(PROMPT))
        waited = time.perf_counter() - started
    assert reply.attempts == 2
    assert "429" in reply.error
    assert 1.0 <= waited < 2.0
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_500_then_success(server):
    server.enqueue(Fault.status(500))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert reply.attempts == 2
    assert reply.text.endswith("Action: a1")
    assert "HTTP 500" in reply.error


@pytest.mark.asyncio
async def test_timeout_then_success(server):
    server.enqueue(Fault.delay(1.5))
    async with make_client(server, timeout_seconds=0.3) as client:
        started = time.perf_counter()
        reply = await client.complete(user(PROMPT))
        elapsed = time.perf_counter() - started
    assert reply.attempts == 2
    assert "did not answer within 0.3 s" in reply.error
    assert elapsed < 1.5


@pytest.mark.asyncio
async def test_connection_reset_then_success(server):
    server.enqueue(Fault.reset())
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert reply.attempts == 2
    assert "Could not talk to the model endpoint" in reply.error


@pytest.mark.asyncio
async def test_malformed_json_is_retried_then_succeeds(server):
    server.enqueue(Fault.malformed_json())
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert reply.attempts == 2
    assert "not valid JSON" in reply.error


@pytest.mark.asyncio
async def test_malformed_json_retries_are_limited(server):
    server.enqueue(*[Fault.malformed_json()] * 10)
    async with make_client(server, max_retries=6, malformed_retries=2) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 3
    assert info.value.http_status == 200
    assert "not valid JSON" in str(info.value)
    assert len(server.requests) == 3


@pytest.mark.asyncio
async def test_all_attempts_fail(server):
    server.enqueue(*[Fault.status(503, body={"error": {"message": f"overloaded, key {KEY}"}})] * 3)
    async with make_client(server, max_retries=2) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    error = info.value
    assert error.attempts == 3  # max_retries + 1
    assert error.http_status == 503
    assert error.retryable
    assert "gave up after 3 attempts" in str(error)
    assert "[redacted]" in str(error)
    _assert_no_secret(error)
    assert len(server.requests) == 3


# --- failures that are not retried ----------------------------------------------------------


@pytest.mark.asyncio
async def test_401_is_not_retried_and_never_shows_the_key(server):
    server.enqueue(Fault.status(401, body={"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    async with make_client(server, max_retries=3) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    error = info.value
    assert error.attempts == 1
    assert error.http_status == 401
    assert not error.retryable
    assert "HTTP 401 (check the API key)" in str(error)
    _assert_no_secret(error)
    assert len(server.requests) == 1
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("status", [400, 404, 422])
@pytest.mark.asyncio
async def test_other_4xx_are_not_retried(server, status):
    server.enqueue(Fault.status(status))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match=f"HTTP {status}") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_empty_choices(server):
    server.enqueue(Fault.empty_choices())
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match="without any choices") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1


@pytest.mark.asyncio
async def test_missing_content(server):
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": None, "reasoning_content": "Let me think..."},
                "finish_reason": "length",
            }
        ]
    }
    server.enqueue(Fault.status(200, body=body))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError) as info:
            await client.complete(user(PROMPT))
    message = str(info.value)
    assert "no text content" in message
    assert "finish_reason: length" in message
    assert "max_tokens may be too small" in message
    assert info.value.attempts == 1


@pytest.mark.parametrize("declare_length", [False, True])
@pytest.mark.asyncio
async def test_oversized_body_is_refused(server, declare_length):
    server.enqueue(Fault.oversized(1_000_000, declare_length=declare_length))
    async with make_client(server, max_response_bytes=64 * 1024) as client:
        with pytest.raises(ModelCallError, match="larger than the 65,536 byte limit") as info:
            await client.complete(user(PROMPT))
        assert info.value.attempts == 1
        # the client is still usable afterwards
        reply = await client.complete(user(PROMPT))
    assert reply.text.endswith("Action: a1")


@pytest.mark.asyncio
async def test_redirects_are_not_followed(server):
    server.enqueue(Fault.status(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match="redirect") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1
    assert info.value.http_status == 302
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_guard_refuses_loopback_unless_allowed(server):
    async with make_client(server, allow_loopback=False) as client:
        with pytest.raises(ModelCallError, match="loopback") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1
    assert server.requests == []


@pytest.mark.asyncio
async def test_guard_refuses_private_address():
    async with OpenAICompatibleClient("http://10.0.0.1:8000/v1", KEY, "m", allow_loopback=True) as client:
        with pytest.raises(ModelCallError, match="10.0.0.1 is a private address") as info:
            await client.complete(user("hi"))
    assert info.value.attempts == 1
    _assert_no_secret(info.value)


def test_constructor_rejects_non_http_urls():
    with pytest.raises(ValueError, match="Only http and https"):
        OpenAICompatibleClient("file:///etc/passwd", KEY, "m")


def test_client_repr_has_no_key():
    client = OpenAICompatibleClient("https://api.example.com/v1", KEY, "m")
    assert KEY not in repr(client)
    asyncio.run(client.aclose())


# --- retry policy and helpers ------------------------------------------------------------


def test_parse_retry_after():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = time.time()
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_retry_policy_backoff_jitter_and_cap():
    policy = RetryPolicy(max_retries=5, backoff_base_seconds=1.0, max_wait_seconds=60.0, rng=random.Random(1))
    for retry in range(1, 6):
        wait = policy.delay(retry)
        assert 0.5 * 2 ** (retry - 1) <= wait <= 2 ** (retry - 1)
    assert policy.delay(30) == 60.0
    assert 5.0 <= policy.delay(1, retry_after=5.0) <= 5.5
    assert policy.delay(1, retry_after=3600) == 60.0  # Retry-After is capped too
    assert policy.max_attempts == 6


def test_model_call_error_survives_pickling():
    import pickle

    error = pickle.loads(pickle.dumps(ModelCallError("HTTP 500", attempts=3, http_status=500, retryable=True)))
    assert (str(error), error.attempts, error.http_status, error.retryable) == ("HTTP 500", 3, 500, True)


def test_fake_server_can_restart():
    server = FakeOpenAIServer(latency=0.01)
    with server:
        first_port = server.port
    with server:
        assert server.port  # a fresh ephemeral port, serving again
    assert first_port


def test_redact():
    assert redact(f"key={KEY}!", KEY) == "key=[redacted]!"
    assert redact("abc", "") == "abc"


def test_legal_moves_parser():
    assert legal_moves(PROMPT) == ["a1", "b2", "c3"]
    assert legal_moves("no list here") == []
    assert legal_moves("An illegal move loses.\nLegal actions:\n\nleft, right") == ["left", "right"]
    arena_tail = (
        "\nThe legal actions in this situation are:\nb1, c2, d3\n"
        "\nDecide the next action; it must be one of the legal actions. Reply in this format:\n"
        "Action: ...\n"
    )
    assert legal_moves(arena_tail) == ["b1", "c2", "d3"]


def _assert_no_secret(error) -> None:
    assert_no_secret(error, KEY, "Bearer")
