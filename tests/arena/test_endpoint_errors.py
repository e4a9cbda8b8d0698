"""Endpoint failures are classified by kind: what may pass on retry, what never will."""

import pytest
from asgiref.sync import async_to_sync

from arena.clients.base import ModelCallError
from arena.clients.errors import ErrorKind, classify_status, ends_run, is_context_exceeded, is_image_refusal
from arena.clients.openai_compat import OpenAICompatibleClient
from tests.support.fake_openai import Fault, FakeOpenAIServer

LLAMA_CPP_CONTEXT = "the request exceeds the available context size, try increasing it"
VLLM_CONTEXT = (
    "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens "
    "(3072 in the messages, 2048 in the completion). Please reduce the length of the messages or completion."
)
LLAMA_CPP_IMAGES = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"
VLLM_IMAGES = "Qwen2ForCausalLM does not support content parts of type image_url"


@pytest.mark.parametrize("message", [LLAMA_CPP_CONTEXT, VLLM_CONTEXT, "prompt is too long: 210000 tokens > 200000 maximum",
                                     "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."])
def test_it_recognises_context_window_errors_of_real_servers(message):
    assert is_context_exceeded(400, message)
    assert classify_status(400, message) == ErrorKind.CONTEXT_EXCEEDED


@pytest.mark.parametrize("status,message", [(500, LLAMA_CPP_IMAGES), (400, VLLM_IMAGES)])
def test_it_recognises_image_refusals_of_real_servers(status, message):
    assert is_image_refusal(status, message)
    assert classify_status(status, message) == ErrorKind.IMAGES_UNSUPPORTED
    assert ends_run(ErrorKind.IMAGES_UNSUPPORTED)


def test_an_ordinary_server_error_is_neither():
    assert classify_status(500, "internal error: CUDA out of memory") == ErrorKind.SERVER_ERROR
    assert classify_status(503, "overloaded") == ErrorKind.SERVER_ERROR
    assert classify_status(401, "invalid api key") == ErrorKind.AUTH
    assert classify_status(404, "The model `gpt-9` does not exist") == ErrorKind.MODEL_NOT_FOUND
    assert classify_status(429, "slow down") == ErrorKind.RATE_LIMITED


def _call(server, **kwargs):
    client = OpenAICompatibleClient(server.base_url, "", "m", max_retries=4, backoff_base_seconds=0.01,
                                    allow_loopback=True, **kwargs)

    async def go():
        async with client:
            return await client.complete([{"role": "user", "content": "hi"}])

    return async_to_sync(go)()


def test_an_image_refusal_is_not_retried_even_as_http_500():
    with FakeOpenAIServer() as server:
        server.enqueue(Fault.status(500, body={"error": {"code": 500, "message": LLAMA_CPP_IMAGES, "type": "server_error"}}))
        with pytest.raises(ModelCallError) as caught:
            _call(server)
        assert len(server.requests) == 1
    assert caught.value.kind == ErrorKind.IMAGES_UNSUPPORTED
    assert "gave up" not in str(caught.value)


def test_a_context_error_is_not_retried_and_says_so():
    with FakeOpenAIServer() as server:
        body = {"error": {"code": 400, "message": LLAMA_CPP_CONTEXT, "type": "exceed_context_size_error"}}
        server.enqueue(Fault.status(400, body=body))
        with pytest.raises(ModelCallError) as caught:
            _call(server)
        assert len(server.requests) == 1
    assert caught.value.kind == ErrorKind.CONTEXT_EXCEEDED


def test_a_plain_500_is_still_retried():
    with FakeOpenAIServer() as server:
        server.enqueue(Fault.status(500), Fault.reply("Action: up"))
        reply = _call(server)
    assert reply.text == "Action: up" and reply.attempts == 2


def test_a_connection_failure_is_a_connection_error():
    with FakeOpenAIServer() as server:
        url = server.base_url
    with pytest.raises(ModelCallError) as caught:
        _call(type("Gone", (), {"base_url": url})(), timeout_seconds=0.5)
    assert caught.value.kind == ErrorKind.CONNECTION
