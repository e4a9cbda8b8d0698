"""OpenAI's Responses API against recorded real answers (tests/arena/clients/recorded/
responses, provenance in PROVENANCE.md there): the request's documented shape, and what
the arena keeps of each answer for the step."""

from __future__ import annotations

import pytest

from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind
from tests.support.recordings import KEY, exchange, image_question, replies, runner_client
from tests.support.replay_server import ReplayServer

pytestmark = pytest.mark.usefixtures("allow_loopback")


@pytest.mark.asyncio
async def test_an_image_question_is_sent_as_documented_and_the_answer_read():
    recorded = exchange("responses/image_url_input")["request"]["body"]
    with ReplayServer(replies("responses/image_url_input")) as server:
        async with runner_client("responses", server.base_url + "/v1", "gpt-4o") as client:
            reply = await client.complete(image_question("hello"))
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/v1/responses")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    body = sent.json
    # The Responses API's output limit is max_output_tokens (max_tokens is refused).
    assert (body["model"], body["max_output_tokens"]) == ("gpt-4o", 2048)
    assert "max_tokens" not in body
    message = body["input"][0]
    assert message["role"] == "user"
    # Each part carries the recorded part's required fields (the arena leaves the
    # image's "detail" to the API's default, "auto").
    for ours, theirs in zip(message["content"], recorded["input"][0]["content"], strict=True):
        assert ours["type"] == theirs["type"]
        assert set(ours) <= set(theirs)
    assert message["content"][1]["image_url"].startswith("data:image/png;base64,")

    assert reply.text == "Hello! I see you've shared an image of a potato. How can I assist you today?"
    assert (reply.reasoning, reply.finish_reason, reply.cut_off) == ("", "stop", False)
    assert (reply.tokens_in, reply.tokens_out, reply.cached_tokens_in, reply.reasoning_tokens) == (663, 20, 0, 0)


@pytest.mark.asyncio
async def test_reasoning_summaries_are_kept_apart_and_the_encrypted_reasoning_goes_back():
    """The recorded conversation's second request carried the first answer's encrypted
    reasoning item and its message item as they came: the arena's does too."""
    first = exchange("responses/reasoning_summary_two_turns", 0)["response"]["body"]
    recorded_second = exchange("responses/reasoning_summary_two_turns", 1)["request"]["body"]
    question = recorded_second["input"][0]["content"]
    with ReplayServer(replies("responses/reasoning_summary_two_turns")) as server:
        async with runner_client("responses", server.base_url + "/v1", "gpt-5", temperature=1.0,
                                 reasoning_effort="high") as client:
            reply = await client.complete([{"role": "user", "content": question}])
            await client.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": recorded_second["input"][-1]["content"]},
            ])
    sent = server.received[0].json
    assert sent["reasoning"]["effort"] == "high"
    assert sent["include"] == ["reasoning.encrypted_content"]
    assert sent["store"] is False  # nothing kept on OpenAI's side: the reasoning travels encrypted

    reasoning, message = first["output"]
    assert reply.text == message["content"][0]["text"]
    assert reply.reasoning == "\n\n".join(part["text"] for part in reasoning["summary"])
    assert (reply.tokens_in, reply.tokens_out, reply.reasoning_tokens, reply.cut_off) == (13, 2199, 1920, False)

    second_input = server.received[1].json["input"]
    assert second_input[1:3] == [reasoning, message]
    # The same items with the same fields as the recorded request's (which dropped
    # the answer's empty "logprobs"; the API takes its output items back as they came).
    assert [sorted(item) for item in second_input[1:3]] == [sorted(item) for item in recorded_second["input"][1:3]]
    assert second_input[-1]["role"] == "user"


@pytest.mark.asyncio
async def test_a_refused_parameter_is_a_bad_request_not_retried():
    with ReplayServer(replies("responses/error_400")) as server:
        async with runner_client("responses", server.base_url + "/v1", "gpt-4o") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "user", "content": "What is the capital of France?"}])
    error = failure.value
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (400, 1, False, ErrorKind.BAD_REQUEST)
    assert "Invalid 'temperature'" in str(error)
