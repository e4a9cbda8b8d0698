"""Gemini's generateContent against recorded real answers (tests/arena/clients/recorded/
gemini, provenance in PROVENANCE.md there): the request's documented shape, and what the
arena keeps of each answer for the step."""

from __future__ import annotations

import base64

import pytest

from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind
from tests.support.recordings import KEY, camel, exchange, image_question, replies, runner_client, shape
from tests.support.replay_server import ReplayServer

pytestmark = pytest.mark.usefixtures("allow_loopback")


def decoded(parts: list[dict]) -> list[dict]:
    """Parts with their thought signatures as bytes: the SDK writes bytes in URL-safe
    base64, the recording holds the standard alphabet (Google's JSON mapping of bytes
    accepts both)."""
    return [
        {**part, "thoughtSignature": base64.urlsafe_b64decode(part["thoughtSignature"].translate(_URL_SAFE))}
        if "thoughtSignature" in part else part
        for part in parts
    ]


_URL_SAFE = str.maketrans("+/", "-_")


def candidate_of(name: str, index: int = 0) -> dict:
    return exchange(name, index)["response"]["body"]["candidates"][0]


@pytest.mark.asyncio
async def test_an_image_question_is_sent_as_documented_and_the_answer_read():
    recorded = exchange("gemini/image_input")["request"]
    with ReplayServer(replies("gemini/image_input")) as server:
        async with runner_client("gemini", server.base_url, "gemini-2.0-flash", max_tokens=256) as client:
            reply = await client.complete(image_question("What fruit is in the image?", system="You are a helpful chatbot."))
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/v1beta/models/gemini-2.0-flash:generateContent")
    assert sent.headers["x-goog-api-key"] == KEY
    assert KEY not in sent.query and "authorization" not in sent.headers  # never in the URL
    body = camel(sent.json)
    assert shape(body["contents"]) == shape(camel(recorded["body"]["contents"]))
    assert body["contents"][0]["parts"][1]["inlineData"]["mimeType"] == "image/png"
    assert body["systemInstruction"]["parts"] == recorded["body"]["systemInstruction"]["parts"]
    assert body["generationConfig"]["maxOutputTokens"] == 256

    assert (reply.text, reply.reasoning, reply.finish_reason, reply.cut_off) == (
        "The fruit in the image is a kiwi.", "", "STOP", False)
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == (3367, 9, None)


@pytest.mark.asyncio
async def test_an_answer_stopped_by_max_tokens_is_cut_off_and_keeps_its_text():
    with ReplayServer(replies("gemini/max_tokens")) as server:
        async with runner_client("gemini", server.base_url, "gemini-2.5-flash", max_tokens=5) as client:
            reply = await client.complete([{"role": "user", "content": "What is the capital of France?"}])
    assert server.received[0].json["generationConfig"]["maxOutputTokens"] == 5
    assert (reply.text, reply.finish_reason, reply.cut_off) == ("The capital of France is", "MAX_TOKENS", True)
    assert (reply.tokens_in, reply.tokens_out) == (15, 5)


@pytest.mark.asyncio
async def test_a_thinking_model_that_spent_the_limit_thinking_is_an_empty_cut_off_answer():
    """Gemini 2.5 Pro with five output tokens: a candidate with no parts at all, only the
    thought count. An "answer cut off" step, not a failed call."""
    with ReplayServer(replies("gemini/max_tokens_while_thinking")) as server:
        async with runner_client("gemini", server.base_url, "gemini-2.5-pro", max_tokens=5) as client:
            reply = await client.complete([{"role": "user", "content": "What is the capital of France?"}])
    assert (reply.text, reply.reasoning, reply.cut_off, reply.attempts) == ("", "", True, 1)
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == (15, 2, 2)


@pytest.mark.asyncio
async def test_thought_parts_are_kept_apart_from_the_answer():
    thought, answer = candidate_of("gemini/thought_parts_two_turns")["content"]["parts"]
    question = "How do I cross the street?"
    follow_up_question = "Considering the way to cross the street, analogously, how do I cross the river?"
    with ReplayServer(replies("gemini/thought_parts_two_turns")) as server:
        async with runner_client("gemini", server.base_url, "gemini-3-pro-preview", temperature=1.0,
                                 reasoning_effort="high") as client:
            reply = await client.complete([{"role": "user", "content": question}])
            follow_up = await client.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": follow_up_question},
            ])
    assert camel(server.received[0].json)["generationConfig"]["thinkingConfig"]["includeThoughts"] is True
    assert (reply.text, reply.reasoning) == (answer["text"], thought["text"])
    # thoughtsTokenCount is part of what was generated: 736 answer + 1001 thought tokens.
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens) == (29, 1737, 1001)

    model_turn = camel(server.received[1].json)["contents"][1]
    # The answer goes back as it came, its thought signature with it (Google's guide to
    # thought signatures: return each one exactly as received); the unsigned thought
    # summary stays out of the prompt.
    assert model_turn["role"] == "model" and decoded(model_turn["parts"]) == decoded([answer])
    second_thought, second_answer = candidate_of("gemini/thought_parts_two_turns", 1)["content"]["parts"]
    assert (follow_up.text, follow_up.reasoning) == (second_answer["text"], second_thought["text"])


@pytest.mark.asyncio
async def test_resource_exhausted_is_a_rate_limit_retried_then_reported(settings):
    settings.ARENA_MODEL_MAX_RETRIES = 1
    exhausted = replies("gemini/resource_exhausted_429")[0]
    with ReplayServer([exhausted, exhausted]) as server:
        async with runner_client("gemini", server.base_url, "gemini-3-pro-preview") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "user", "content": "Hi"}])
    error = failure.value
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (429, 2, True, ErrorKind.RATE_LIMITED)
    assert "Resource has been exhausted" in str(error)
    assert KEY not in str(error)


@pytest.mark.asyncio
async def test_the_retry_delay_gemini_asks_for_is_waited_for(settings):
    """No Retry-After header: Gemini says how long to wait in the error's RetryInfo."""
    settings.ARENA_MODEL_MAX_RETRIES = 1
    with ReplayServer([*replies("gemini/retry_info_429"), *replies("gemini/max_tokens")]) as server:
        async with runner_client("gemini", server.base_url, "gemini-2.5-flash") as client:
            reply = await client.complete([{"role": "user", "content": "What is the capital of France?"}])
    first, second = server.received
    assert second.at - first.at >= 1.0
    assert (reply.attempts, reply.text) == (2, "The capital of France is")


@pytest.mark.asyncio
async def test_a_rewritten_answer_goes_back_unsigned_and_a_resumed_client_is_given_the_signature():
    """A signature belongs to the parts it came with: a turn the strategy rewrote (BALROG
    keeps only the action) is sent as its own text. A client of a resumed episode is
    given the stored parts back (the step's reasoning_items) and signs the turn again."""
    question = "How do I cross the street?"
    answer = candidate_of("gemini/thought_parts_two_turns")["content"]["parts"][1]
    with ReplayServer(replies("gemini/thought_parts_two_turns")) as server:
        async with runner_client("gemini", server.base_url, "gemini-3-pro-preview", temperature=1.0,
                                 reasoning_effort="high") as client:
            reply = await client.complete([{"role": "user", "content": question}])
            await client.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": "Action: cross"},
                {"role": "user", "content": "And the river?"},
            ])
    assert decoded(reply.reasoning_items) == decoded([answer])
    assert camel(server.received[1].json)["contents"][1] == {"role": "model", "parts": [{"text": "Action: cross"}]}

    with ReplayServer(replies("gemini/thought_parts_two_turns", 1)) as server:
        async with runner_client("gemini", server.base_url, "gemini-3-pro-preview", temperature=1.0,
                                 reasoning_effort="high") as resumed:
            resumed.recall(reply.text, reply.reasoning_items)
            await resumed.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": "And the river?"},
            ])
    assert decoded(camel(server.received[0].json)["contents"][1]["parts"]) == decoded([answer])
