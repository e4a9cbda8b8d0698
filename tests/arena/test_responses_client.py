"""The OpenAI Responses API client against a fake Responses server over real HTTP:
chat messages converted, nothing stored on the provider's side, the encrypted
reasoning of each answer carried into the turns that follow, answers cut off by
max_output_tokens told apart."""

from __future__ import annotations

import pytest

from arena.clients.base import ModelCallError
from arena.clients.responses import ResponsesClient, to_responses_input
from tests.support.fake_openai import Fault
from tests.support.fake_reasoning import reasoning_text
from tests.support.fake_responses import FakeResponsesServer, encrypted

KEY = "sk-responses-canary-0123456789"


@pytest.fixture
def server():
    with FakeResponsesServer(api_key=KEY, cut_off_every=3) as running:
        yield running


def make_client(server, **overrides) -> ResponsesClient:
    options = dict(api_key=KEY, model="o-fake", temperature=None, max_tokens=256, allow_loopback=True,
                   max_retries=1, backoff_base_seconds=0.01,
                   extra_body={"reasoning": {"effort": "high", "summary": "auto"}})
    options.update(overrides)
    return ResponsesClient(server.base_url, **options)


SYSTEM = {"role": "system", "content": "You play a game. Answer with Action: <move>."}


def user(text):
    return {"role": "user", "content": text}


@pytest.mark.asyncio
async def test_reasoning_items_are_carried_across_the_turns_with_store_false(server):
    conversation = [SYSTEM, user("Legal moves:\nup, down")]
    async with make_client(server) as client:
        first = await client.complete(conversation)
        conversation += [{"role": "assistant", "content": first.text}, user("Legal moves:\nleft, right")]
        second = await client.complete(conversation)

    assert (first.text, first.reasoning) == ("Reasoning: picking the first legal move.\nAction: up", reasoning_text(1))
    assert second.text.endswith("Action: left") and second.reasoning == reasoning_text(2)
    assert (first.reasoning_tokens, first.cut_off, first.finish_reason) == (7, False, "stop")
    sent = server.requests[-1].json
    assert sent["store"] is False and sent["include"] == ["reasoning.encrypted_content"]
    assert sent["instructions"] == SYSTEM["content"]
    assert sent["reasoning"] == {"effort": "high", "summary": "auto"}
    kinds = [item.get("type", item.get("role")) for item in sent["input"]]
    assert kinds == ["user", "reasoning", "message", "user"]
    assert sent["input"][1]["encrypted_content"] == encrypted(1)  # the first answer's own reasoning
    assert sent["input"][2]["content"][0]["text"] == first.text


@pytest.mark.asyncio
async def test_an_answer_cut_off_by_max_output_tokens_is_an_empty_answer_not_a_failure(server):
    async with make_client(server) as client:
        for _ in range(2):
            await client.complete([user("Legal moves:\nup")])
        third = await client.complete([user("Legal moves:\nup")])
    assert (third.text, third.reasoning, third.cut_off) == ("", reasoning_text(3), True)
    assert third.finish_reason == "max_output_tokens"


@pytest.mark.asyncio
async def test_a_refusal_and_an_error_object_are_told_apart(server):
    refusal = {"status": "completed", "output": [
        {"type": "message", "content": [{"type": "refusal", "refusal": "I cannot help with that."}]}]}
    server.enqueue(Fault.status(200, body=refusal))
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match="refused to answer: I cannot help") as info:
            await client.complete([user("hi")])
    assert info.value.attempts == 1
    server.enqueue(Fault.status(200, body={"error": {"message": "upstream overloaded"}, "output": []}),
                   Fault.status(200, body={"error": {"message": "upstream overloaded"}, "output": []}))
    async with make_client(server, malformed_retries=1) as client:
        with pytest.raises(ModelCallError, match="upstream overloaded"):
            await client.complete([user("hi")])
    assert KEY not in str(info.value)


def test_images_become_input_images_and_the_probe_one_token_call_asks_for_the_least_allowed():
    instructions, items = to_responses_input([
        user([{"type": "text", "text": "What is this?"},
              {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]),
    ])
    assert instructions == ""
    assert items == [{"role": "user", "content": [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
    ]}]
    client = ResponsesClient("https://api.openai.com/v1", "k", "o-fake", max_tokens=1)
    import json

    assert client._request([user("hi")])["max_output_tokens"] == 16
