"""OpenAI chat completions and the OpenAI-compatible servers (DeepSeek, OpenRouter,
Ollama), against their recorded real answers (tests/arena/clients/recorded, provenance in
PROVENANCE.md there).

Each test builds the client the runner builds for a submission, points it at a local
server replaying the recorded response, and checks (a) that the request has the shape
the recorded request had (path, bearer key, message and content-part layout) and (b)
what the arena keeps of the reply for the step: the answer, the reasoning apart, the
token counts, cut off or not, or the failure's kind.
"""

from __future__ import annotations

import pytest

from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind
from tests.support.recordings import KEY, exchange, image_question, replies, runner_client, shape
from tests.support.replay_server import ReplayServer

pytestmark = pytest.mark.usefixtures("allow_loopback")


def message_of(name: str) -> dict:
    return exchange(name)["response"]["body"]["choices"][0]["message"]


@pytest.mark.asyncio
async def test_an_image_question_to_openai_is_sent_as_documented_and_its_answer_read():
    recorded = exchange("openai/image_input")
    with ReplayServer(replies("openai/image_input")) as server:
        async with runner_client("openai", server.base_url + "/v1", "gpt-4o", max_tokens=300) as client:
            reply = await client.complete(image_question("What fruit is in the image?"))
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.headers["content-type"].startswith("application/json")
    body = sent.json
    assert (body["model"], body["max_tokens"]) == ("gpt-4o", 300)
    # The text part and the image part have the layout OpenAI was sent.
    assert shape(body["messages"]) == shape(recorded["request"]["body"]["messages"])
    assert body["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")

    assert (reply.text, reply.reasoning, reply.finish_reason, reply.cut_off) == (
        "The fruit in the image is a kiwi.", "", "stop", False)
    assert (reply.tokens_in, reply.tokens_out, reply.cached_tokens_in, reply.reasoning_tokens) == (1119, 10, 0, 0)
    assert (reply.http_status, reply.attempts, reply.error) == (200, 1, "")


@pytest.mark.asyncio
async def test_a_reasoning_models_hidden_reasoning_is_counted_not_shown():
    with ReplayServer(replies("openai/reasoning_model_usage")) as server:
        async with runner_client("openai", server.base_url + "/v1", "o3-mini") as client:
            reply = await client.complete([{"role": "user", "content": "hello"}])
    assert reply.text == "Hello there! How can I help you today?"
    # OpenAI returns no reasoning text, only its token count, part of the output tokens.
    assert (reply.reasoning, reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == ("", 7, 87, 64)


@pytest.mark.asyncio
async def test_openais_refusal_of_a_request_is_a_bad_request_not_retried():
    with ReplayServer(replies("openai/error_400_unsupported_value")) as server:
        async with runner_client("openai", server.base_url + "/v1", "o1-mini") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "system", "content": "You are a helpful assistant."},
                                       {"role": "user", "content": "Hello"}])
    error = failure.value
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (400, 1, False, ErrorKind.BAD_REQUEST)
    assert "does not support 'system' with this model" in str(error)
    assert KEY not in str(error)


@pytest.mark.asyncio
async def test_deepseeks_reasoning_content_is_kept_apart_from_the_answer():
    message = message_of("openai_compatible/deepseek_reasoning_content")
    with ReplayServer(replies("openai_compatible/deepseek_reasoning_content")) as server:
        async with runner_client("openai", server.base_url, "deepseek-reasoner") as client:
            reply = await client.complete([{"role": "user", "content": "How do I cross the street?"}])
    assert server.received[0].path == "/chat/completions"  # DeepSeek's API root has no /v1
    assert reply.text == message["content"]
    assert reply.reasoning == message["reasoning_content"]
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens, reply.cached_tokens_in) == (12, 789, 415, 0)


@pytest.mark.asyncio
async def test_openrouters_reasoning_is_kept_apart_from_the_answer():
    message = message_of("openai_compatible/openrouter_reasoning")
    with ReplayServer(replies("openai_compatible/openrouter_reasoning")) as server:
        async with runner_client("openai", server.base_url + "/api/v1", "z-ai/glm-4.6") as client:
            reply = await client.complete([{"role": "user", "content": "Think about your answer."}])
    assert server.received[0].path == "/api/v1/chat/completions"
    assert reply.reasoning == message["reasoning"]
    assert reply.text.strip() == message["content"].strip()
    assert message["reasoning"][:40] not in reply.text
    assert (reply.tokens_in, reply.tokens_out, reply.finish_reason) == (24, 2801, "stop")


@pytest.mark.asyncio
async def test_ollamas_reasoning_field_is_kept_apart_from_the_answer():
    message = message_of("openai_compatible/ollama_chat")
    with ReplayServer(replies("openai_compatible/ollama_chat")) as server:
        async with runner_client("openai", server.base_url + "/v1", "qwen3:0.6b", max_tokens=512,
                                 reasoning_effort="high") as client:
            reply = await client.complete([{"role": "user", "content": "What is the capital of France?"}])
    sent = server.received[0]
    assert sent.path == "/v1/chat/completions"
    assert "authorization" in sent.headers  # the submission has a key: it is sent
    # Fields Ollama's OpenAI compatibility page lists: max_tokens, reasoning_effort.
    assert (sent.json["max_tokens"], sent.json["reasoning_effort"]) == (512, "high")
    assert (reply.text, reply.reasoning) == (message["content"], message["reasoning"])
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == (136, 15, None)


@pytest.mark.asyncio
async def test_openrouters_upstream_rate_limit_is_retried_then_reported_with_the_upstreams_words(settings):
    settings.ARENA_MODEL_MAX_RETRIES = 2  # three attempts: the three recorded 429s
    with ReplayServer(replies("openai_compatible/openrouter_429")) as server:
        async with runner_client("openai", server.base_url + "/api/v1", "google/gemini-2.0-flash-exp:free") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "system", "content": "Be helpful."},
                                       {"role": "user", "content": "Tell me a joke."}])
    error = failure.value
    assert len(server.received) == 3
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (429, 3, True, ErrorKind.RATE_LIMITED)
    # OpenRouter's own message ("Provider returned error") says nothing; the upstream's does.
    assert "temporarily rate-limited upstream" in str(error)
