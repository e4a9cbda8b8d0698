"""Anthropic's Messages API against recorded real answers (tests/arena/clients/recorded/
anthropic, provenance in PROVENANCE.md there): the request's documented shape, and what
the arena keeps of each answer for the step."""

from __future__ import annotations

import pytest

from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind, describe, ends_run
from tests.support.recordings import KEY, exchange, image_question, replies, runner_client, shape
from tests.support.replay_server import ReplayServer

pytestmark = pytest.mark.usefixtures("allow_loopback")

ORDER = "Extract order: 2 Green Tea at $5.50 and 1 Coffee at $3.00. Total $14."


def answer_of(name: str, index: int = 0) -> dict:
    return exchange(name, index)["response"]["body"]


@pytest.mark.asyncio
async def test_a_question_is_sent_as_documented_and_the_answer_read():
    recorded = exchange("anthropic/text_end_turn")
    with ReplayServer(replies("anthropic/text_end_turn")) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5", max_tokens=1024) as client:
            reply = await client.complete([{"role": "user", "content": ORDER}])
    sent = server.received[0]
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == recorded["request"]["headers"]["anthropic-version"]
    assert "authorization" not in sent.headers
    body = sent.json
    assert (body["model"], body["max_tokens"]) == ("claude-sonnet-4-5", 1024)
    assert body["messages"] == recorded["request"]["body"]["messages"]

    assert reply.text == answer_of("anthropic/text_end_turn")["content"][0]["text"]
    assert (reply.reasoning, reply.finish_reason, reply.cut_off) == ("", "end_turn", False)
    assert (reply.tokens_in, reply.tokens_out, reply.cached_tokens_in, reply.cache_write_tokens_in) == (406, 50, 0, 0)


@pytest.mark.asyncio
async def test_an_image_goes_as_a_base64_image_block():
    recorded = exchange("anthropic/image_input")
    with ReplayServer(replies("anthropic/image_input")) as server:
        async with runner_client("anthropic", server.base_url, "claude-haiku-4-5", max_tokens=4096) as client:
            reply = await client.complete(image_question("What is this vegetable?"))
    sent = server.received[0].json
    assert shape(sent["messages"]) == shape(recorded["request"]["body"]["messages"])
    image = sent["messages"][0]["content"][1]
    assert image["source"]["type"] == "base64" and image["source"]["media_type"] == "image/png"
    assert reply.text.startswith("This is a **potato**")


@pytest.mark.asyncio
async def test_thinking_is_kept_apart_and_its_signed_block_goes_back_with_the_answer():
    """The recorded conversation's second request carried the first answer's thinking
    block, signature intact, before its text: the arena's second request does too."""
    first, second = answer_of("anthropic/thinking_two_turns", 0), answer_of("anthropic/thinking_two_turns", 1)
    recorded_second = exchange("anthropic/thinking_two_turns", 1)["request"]["body"]
    question = "How do I cross the street?"
    with ReplayServer(replies("anthropic/thinking_two_turns")) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5", max_tokens=4096,
                                 temperature=1.0, thinking_budget_tokens=1024) as client:
            reply = await client.complete([{"role": "user", "content": question}])
            follow_up = await client.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": recorded_second["messages"][2]["content"][0]["text"]},
            ])
    assert server.received[0].json["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    thinking, text = first["content"]
    assert (reply.text, reply.reasoning) == (text["text"], thinking["thinking"])
    assert reply.finish_reason == "end_turn"

    answer_sent = server.received[1].json["messages"][1]
    assert answer_sent["role"] == "assistant"
    assert answer_sent["content"] == [thinking, {"type": "text", "text": text["text"]}]
    assert shape(answer_sent) == shape(recorded_second["messages"][1])
    assert follow_up.reasoning == second["content"][0]["thinking"]
    assert follow_up.text == "".join(block["text"] for block in second["content"] if block["type"] == "text")


@pytest.mark.asyncio
async def test_redacted_thinking_is_not_shown_but_goes_back_with_the_answer():
    first = answer_of("anthropic/redacted_thinking", 0)
    recorded_second = exchange("anthropic/redacted_thinking", 1)["request"]["body"]
    question = recorded_second["messages"][0]["content"][0]["text"]
    with ReplayServer(replies("anthropic/redacted_thinking")) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5-20250929", max_tokens=4096,
                                 temperature=1.0, thinking_budget_tokens=1024) as client:
            reply = await client.complete([{"role": "user", "content": question}])
            await client.complete([
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": "What was that?"},
            ])
    redacted, text = first["content"]
    assert (reply.text, reply.reasoning) == (text["text"], "")
    assert (reply.tokens_in, reply.tokens_out) == (92, 196)
    answer_sent = server.received[1].json["messages"][1]
    assert answer_sent["content"] == [redacted, {"type": "text", "text": text["text"]}]
    assert shape(answer_sent) == shape(recorded_second["messages"][1])


@pytest.mark.asyncio
async def test_prompt_cache_reads_and_writes_are_counted_in_the_prompt():
    with ReplayServer(replies("anthropic/prompt_cache_usage", 1)) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5") as client:
            reply = await client.complete([{"role": "user", "content": "Can you summarize that in one sentence?"}])
    # input_tokens 3 + cache_creation_input_tokens 418 + cache_read_input_tokens 1111.
    assert (reply.tokens_in, reply.cached_tokens_in, reply.cache_write_tokens_in, reply.tokens_out) == (1532, 1111, 418, 33)


@pytest.mark.asyncio
async def test_an_answer_stopped_by_max_tokens_is_cut_off_and_keeps_its_text():
    recorded = answer_of("anthropic/max_tokens_mid_answer")
    with ReplayServer(replies("anthropic/max_tokens_mid_answer")) as server:
        async with runner_client("anthropic", server.base_url, "claude-3-7-sonnet-20250219", max_tokens=124) as client:
            reply = await client.complete([{"role": "user", "content": "Write a tax guide."}])
    assert (reply.text, reply.finish_reason, reply.cut_off) == (recorded["content"][0]["text"], "max_tokens", True)
    assert (reply.tokens_in, reply.tokens_out) == (450, 124)


@pytest.mark.asyncio
async def test_rate_limited_twice_then_answered(settings):
    settings.ARENA_MODEL_MAX_RETRIES = 2
    with ReplayServer(replies("anthropic/rate_limited_twice_then_answered")) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5", max_tokens=1024) as client:
            reply = await client.complete([{"role": "user", "content": ORDER}])
    assert len(server.received) == 3
    assert reply.attempts == 3
    assert reply.text == answer_of("anthropic/rate_limited_twice_then_answered", 2)["content"][0]["text"]
    # The step keeps a note of what was overcome, in Anthropic's words.
    assert "HTTP 429" in reply.error and "rate limit" in reply.error


@pytest.mark.asyncio
async def test_a_rate_limits_retry_after_is_waited_for(settings):
    """Anthropic sends retry-after with a 429 (documented; the recording's headers were
    filtered): the header is added to the recorded 429, and the next attempt comes no
    sooner than it asks."""
    settings.ARENA_MODEL_MAX_RETRIES = 1
    limited, answered = replies("anthropic/rate_limited_twice_then_answered", 0, 2)
    limited = {**limited, "headers": {**limited["headers"], "retry-after": "1"}}
    with ReplayServer([limited, answered]) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5", max_tokens=1024) as client:
            reply = await client.complete([{"role": "user", "content": ORDER}])
    first, second = server.received
    assert second.at - first.at >= 1.0
    assert reply.attempts == 2


@pytest.mark.asyncio
async def test_overloaded_is_retried_and_then_reported_as_a_server_error(settings):
    settings.ARENA_MODEL_MAX_RETRIES = 1
    overloaded = replies("anthropic/overloaded_529")[0]
    with ReplayServer([overloaded, *replies("anthropic/text_end_turn")]) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5") as client:
            reply = await client.complete([{"role": "user", "content": ORDER}])
    assert reply.attempts == 2 and "HTTP 529" in reply.error and "Overloaded" in reply.error

    with ReplayServer([overloaded, overloaded]) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "user", "content": ORDER}])
    error = failure.value
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (529, 2, True, ErrorKind.SERVER_ERROR)
    assert KEY not in str(error)


@pytest.mark.asyncio
@pytest.mark.parametrize("recorded, status", [("anthropic/spend_limit_429", 429), ("anthropic/usage_limits_400", 400)])
async def test_a_spend_limit_is_not_retried_and_ends_the_run_with_what_to_do(settings, recorded, status):
    """A spend limit lifts when the month turns, not in minutes: one attempt, and a kind
    that ends the run (its other episodes would meet the same wall) saying what to do."""
    settings.ARENA_MODEL_MAX_RETRIES = 3
    limit = replies(recorded)[0]
    with ReplayServer([limit, limit, limit, limit]) as server:
        async with runner_client("anthropic", server.base_url, "claude-sonnet-4-5") as client:
            with pytest.raises(ModelCallError) as failure:
                await client.complete([{"role": "user", "content": ORDER}])
    error = failure.value
    assert (error.http_status, error.attempts, error.retryable, error.kind) == (status, 1, False, ErrorKind.SPEND_LIMIT)
    assert len(server.received) == 1
    assert ends_run(error.kind) and "spend limit" in describe(error.kind).fix
    said = answer_of(recorded)["error"]["message"]
    assert said in str(error) and KEY not in str(error)

