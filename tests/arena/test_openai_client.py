"""OpenAICompatibleClient against the fake server, over real HTTP on 127.0.0.1: its wire
format. What every client does alike (retries, faults, limits, the URL guard, keys)
is in test_client_contract.py."""

from __future__ import annotations

import pytest

from arena.clients import ModelCallError, ModelReply, OpenAICompatibleClient
from tests.support.clients import PNG_URL, PROMPT, client_options, user
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


# --- success and the wire format -------------------------------------------------------------


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


# --- answers without a usable reply ----------------------------------------------------------


@pytest.mark.asyncio
async def test_empty_choices(server):
    server.enqueue(Fault.empty_choices())
    async with make_client(server) as client:
        with pytest.raises(ModelCallError, match="without any choices") as info:
            await client.complete(user(PROMPT))
    assert info.value.attempts == 1


@pytest.mark.asyncio
async def test_reasoning_cut_off_by_max_tokens_is_an_empty_answer_not_a_failure(server):
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
        reply = await client.complete(user(PROMPT))
    assert (reply.text, reply.reasoning, reply.cut_off) == ("", "Let me think...", True)


@pytest.mark.asyncio
async def test_reasoning_without_text_is_an_answer_without_an_action(server):
    """content null with finish_reason stop (a reasoning model that never wrote its
    answer): an empty answer, the same as content "", not a failed call."""
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": None, "reasoning_content": "Let me think..."},
                "finish_reason": "stop",
            }
        ]
    }
    server.enqueue(Fault.status(200, body=body))
    async with make_client(server) as client:
        reply = await client.complete(user(PROMPT))
    assert (reply.text, reply.reasoning, reply.finish_reason, reply.cut_off) == ("", "Let me think...", "stop", False)
    assert reply.attempts == 1


# --- the fake itself ------------------------------------------------------------------------


def test_fake_server_can_restart():
    server = FakeOpenAIServer(latency=0.01)
    with server:
        first_port = server.port
    with server:
        assert server.port  # a fresh ephemeral port, serving again
    assert first_port


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

