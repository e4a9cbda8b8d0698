"""The endpoint probe against fake model servers over real HTTP (and, for servers the
fakes do not imitate, Ollama and OpenRouter, against scripted answers behind the URL guard)."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx2
import pytest

from arena.clients.base import ModelCallError
from arena.clients.openai_compat import OpenAICompatibleClient
from arena.probe import (
    DEFAULT_CONTEXT_WINDOW,
    ProbeResult,
    is_context_exceeded,
    is_image_refusal,
    probe_endpoint,
    probe_endpoint_sync,
)
from arena.clients.urlguard import GuardedTransport
from arena.probe.run import decoding_speed
from tests.support.clients import client_options, user
from tests.support.fake_openai import LLAMACPP_IMAGE_ERROR, FakeOpenAIServer, Fault
from tests.support.fake_providers import FakeAnthropicServer, FakeGeminiServer
from tests.support.guard import answering

KEY = "sk-probe-CANARY-0123456789"


async def probe(server_or_url, **options) -> ProbeResult:
    base_url = server_or_url if isinstance(server_or_url, str) else server_or_url.base_url
    arguments = dict(
        provider="openai", base_url=base_url, api_key=KEY, model="fake-model", allow_loopback=True, timeout_seconds=3.0
    )
    return await probe_endpoint(**(arguments | options))


def paths(server: FakeOpenAIServer) -> list[str]:
    return [f"{request.method} {request.path}" for request in server.requests]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scripted(routes: dict[str, object]) -> GuardedTransport:
    """The URL guard with its network stood in for (tests.support.guard), answering
    "METHOD /path" from `routes` (a JSON payload, or a (status, payload) pair, or a
    function of the request's JSON body); 404 otherwise."""

    async def handle(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content) if request.content else None
        route = routes.get(f"{request.method} {request.url.path}")
        if callable(route):
            route = await route(body) if asyncio.iscoroutinefunction(route) else route(body)
        if route is None:
            return httpx2.Response(404, json={"error": {"message": "Not Found"}})
        status, payload = route if isinstance(route, tuple) else (200, route)
        return httpx2.Response(status, json=payload)

    return answering(handle)


def chat_answer(text: str = "1", completion_tokens: int = 1) -> dict:
    return {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": completion_tokens},
    }


def has_image(body: dict) -> bool:
    return any(
        isinstance(message.get("content"), list)
        and any(part.get("type") == "image_url" for part in message["content"])
        for message in body["messages"]
    )


# --- what the probe finds out ------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_llama_cpp_server_reports_the_context_it_runs_with_and_refuses_images():
    listed = {"id": "qwen2.5-7b.gguf", "owned_by": "llamacpp", "meta": {"n_ctx_train": 32768}}
    with FakeOpenAIServer(models=[listed], props_n_ctx=4096, accepts_images=False) as server:
        result = await probe(server, model="qwen2.5-7b.gguf", stated_context_window=16384)

    assert result.ok and result.field_errors == {}
    assert result.model_found is True
    # /props says what each request really gets, not what the model was trained for.
    assert (result.context_window, result.context_window_source, result.context_window_server) == (4096, "server", 4096)
    assert "The server reports a context window of 4,096 tokens (llama.cpp /props)." in result.notes
    assert "You stated 16,384 tokens; the arena goes by the server's 4,096." in result.notes
    assert result.accepts_images is False
    assert any("refuses images" in note and "mmproj" in note for note in result.notes)
    assert result.latency_ms > 0 and result.tokens_per_second > 0
    assert "GET /props" in paths(server)


@pytest.mark.asyncio
async def test_a_vllm_server_reports_max_model_len_and_takes_images():
    listed = {"id": "Qwen/Qwen2.5-VL-7B-Instruct", "owned_by": "vllm", "max_model_len": 16384}
    with FakeOpenAIServer(models=[listed]) as server:
        result = await probe(server, model="Qwen/Qwen2.5-VL-7B-Instruct")

    assert result.ok
    assert (result.context_window, result.context_window_source) == (16384, "server")
    assert result.accepts_images is True
    assert "GET /props" not in paths(server)  # the model list already said it
    completions = [request for request in server.requests if request.path.endswith("/chat/completions")]
    # one token, sixteen, one token to a longer prompt (the reading speed), then one
    # token each: content parts, a system message, two user messages in a row, an image
    assert [request.json["max_tokens"] for request in completions] == [1, 16, 1, 1, 1, 1, 1]
    # Every prompt starts differently, so no server answers one from its prompt cache.
    openings = [json.dumps(request.json["messages"])[:80] for request in completions]
    assert len(set(openings)) == len(openings)
    assert result.prompt_tokens_per_second > 0
    assert result.message_shape == {"content_parts": True, "system_role": True, "consecutive_roles": True}


@pytest.mark.asyncio
async def test_the_stated_window_is_used_when_the_server_gives_none():
    with FakeOpenAIServer() as server:
        result = await probe(server, stated_context_window=8192)

    assert result.ok
    assert (result.context_window, result.context_window_source, result.context_window_server) == (8192, "stated", None)
    assert "The arena uses the context window you stated: 8,192 tokens." in result.notes


@pytest.mark.asyncio
async def test_a_safe_default_is_used_and_said_when_nobody_gives_a_window():
    with FakeOpenAIServer() as server:
        result = await probe(server)

    assert (result.context_window, result.context_window_source) == (DEFAULT_CONTEXT_WINDOW, "default")
    assert any(f"the arena assumes {DEFAULT_CONTEXT_WINDOW:,} tokens" in note for note in result.notes)


@pytest.mark.asyncio
async def test_ollama_reports_the_context_the_loaded_model_runs_with():
    transport = scripted({
        "GET /v1/models": {"object": "list", "data": [{"id": "llama3.2:latest", "owned_by": "library"}]},
        "POST /v1/chat/completions": lambda body: (
            (500, {"error": {"message": "this model is missing data required for image input"}})
            if has_image(body) else chat_answer()
        ),
        "POST /api/show": {"model_info": {"llama.context_length": 131072}, "capabilities": ["completion"]},
        "GET /api/ps": {"models": [{"name": "llama3.2:latest", "context_length": 8192}]},
    })
    result = await probe("http://ollama.test:11434/v1", model="llama3.2", transport=transport)

    assert result.ok and result.model_found is True  # "llama3.2" is "llama3.2:latest"
    assert (result.context_window, result.context_window_source) == (8192, "server")
    assert result.accepts_images is False


@pytest.mark.asyncio
async def test_ollama_without_a_loaded_context_is_assumed_small_unless_stated():
    routes = {
        "GET /v1/models": {"object": "list", "data": [{"id": "llama3.2:latest"}]},
        "POST /v1/chat/completions": lambda body: chat_answer(),
        "POST /api/show": {"model_info": {"llama.context_length": 131072}, "parameters": "temperature 0.7"},
    }
    result = await probe("http://ollama.test:11434/v1", model="llama3.2", transport=scripted(routes))
    assert (result.context_window, result.context_window_source, result.context_window_server) == (2048, "default", 131072)
    assert any("OLLAMA_CONTEXT_LENGTH" in note for note in result.notes)

    stated = await probe(
        "http://ollama.test:11434/v1", model="llama3.2", transport=scripted(routes), stated_context_window=32768
    )
    assert (stated.context_window, stated.context_window_source) == (32768, "stated")

    routes["POST /api/show"] = {"model_info": {"llama.context_length": 131072}, "parameters": "num_ctx 16384"}
    configured = await probe("http://ollama.test:11434/v1", model="llama3.2", transport=scripted(routes))
    assert (configured.context_window, configured.context_window_source) == (16384, "server")


@pytest.mark.asyncio
async def test_openrouter_gives_context_length_and_the_speed_is_measured():
    async def answer(body):
        # 50 ms of overhead, then 20 ms per generated token: 50 tokens per second.
        await asyncio.sleep(0.05 + 0.02 * body["max_tokens"])
        return chat_answer("1 2 3", completion_tokens=body["max_tokens"])

    listed = {"id": "openai/gpt-4o-mini", "context_length": 128000, "architecture": {"input_modalities": ["text", "image"]}}
    transport = scripted({"GET /api/v1/models": {"data": [listed]}, "POST /api/v1/chat/completions": answer})
    result = await probe("https://openrouter.test/api/v1", model="openai/gpt-4o-mini", transport=transport)

    assert result.ok
    assert (result.context_window, result.context_window_source) == (128000, "server")
    assert result.accepts_images is True
    assert result.latency_ms >= 70
    assert 25 <= result.tokens_per_second <= 60


@pytest.mark.parametrize(
    "first, second, speed",
    [
        ((1, 50.0), (16, 350.0), 50.0),  # 15 more tokens in 300 ms more: decoding alone
        # A tiny model: 16 tokens half a millisecond after one. The difference is the
        # clock's jitter (it read as 30,000 tokens per second); the whole call errs low.
        ((1, 10.0), (16, 10.5), 16 / 0.0105),
        ((1, 10.0), (16, 9.0), 16 / 0.009),  # the longer answer came back sooner
        ((14, 50.0), (16, 350.0), 16 / 0.35),  # the short answer was not short
    ],
)
def test_the_decoding_speed_is_read_from_the_difference_only_when_it_is_measurable(first, second, speed):
    assert decoding_speed(*first, *second) == pytest.approx(speed)


@pytest.mark.asyncio
async def test_a_reasoning_model_that_answers_without_text_still_passes():
    thinking = {
        "choices": [
            {"message": {"role": "assistant", "content": None, "reasoning_content": "Hmm"}, "finish_reason": "length"}
        ]
    }
    transport = scripted({"POST /v1/chat/completions": lambda body: thinking})
    result = await probe("http://reasoner.test/v1", transport=transport)

    assert result.ok and result.field_errors == {}
    assert result.accepts_images is True
    assert result.model_found is None  # the endpoint lists no models


# --- what stops a submission ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_an_unreachable_url_is_a_base_url_error():
    result = await probe(f"http://127.0.0.1:{closed_port()}/v1")

    assert not result.ok
    assert list(result.field_errors) == ["base_url"]
    assert result.field_errors["base_url"].startswith("The arena could not reach the endpoint")


@pytest.mark.asyncio
async def test_a_server_that_lists_its_models_but_answers_slowly_is_accepted_as_slow_not_unreachable():
    # A CPU llama.cpp server reading the test prompt at a few tokens per second: the
    # submission goes in, and the note says what was not checked and why.
    with FakeOpenAIServer(models=["fake-model"], props_n_ctx=4096) as server:
        server.enqueue(Fault.delay(2.0), Fault.delay(2.0))
        result = await probe(server, timeout_seconds=0.5)

    assert result.ok and result.field_errors == {}
    slow = [note for note in result.notes if "not a one-token test request within 0.5 s" in note]
    assert slow and "reachable, and slow or busy" in slow[0] and "“Test endpoint”" in slow[0]
    assert result.tokens_per_second is None  # nothing measured, nothing claimed
    assert not any("could not reach" in note for note in result.notes)


@pytest.mark.asyncio
async def test_a_server_silent_on_every_route_is_still_unreachable():
    with FakeOpenAIServer(models=["fake-model"]) as server:
        server.enqueue(Fault.delay(2.0), Fault.delay(2.0))
        server.metadata_delay = 2.0
        result = await probe(server, timeout_seconds=0.5)

    assert not result.ok
    assert result.field_errors["base_url"].startswith("The arena could not reach the endpoint")


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("http://169.254.169.254/v1", "link-local address (this range includes the cloud metadata service)"),
        ("http://10.0.0.5:8000/v1", "private address"),
        ("http://127.0.0.1:8000/v1", "loopback address"),
        ("http://[::ffff:192.168.1.10]/v1", "private address"),
    ],
)
async def test_a_private_or_metadata_address_is_refused_without_any_request(url, what):
    connections = []
    transport = GuardedTransport(False, transport_factory=lambda **options: connections.append(options))
    result = await probe(url, allow_loopback=False, transport=transport)

    assert list(result.field_errors) == ["base_url"]
    assert result.field_errors["base_url"].startswith("The arena will not call this address")
    assert what in result.field_errors["base_url"]
    assert connections == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("given", "expected"), [(KEY, "refused the API key"), ("", "asks for an API key")])
async def test_a_wrong_or_missing_key_is_an_api_key_error(given, expected):
    with FakeOpenAIServer(api_key="sk-the-right-one-0000") as server:
        result = await probe(server, api_key=given)

    assert list(result.field_errors) == ["api_key"]
    assert expected in result.field_errors["api_key"] and "HTTP 401" in result.field_errors["api_key"]
    assert paths(server) == ["GET /v1/models", "POST /v1/chat/completions"]  # nothing after the refusal


@pytest.mark.asyncio
async def test_a_key_that_may_not_list_models_but_may_chat_is_accepted():
    missing_scope = "You have insufficient permissions for this operation. Missing scopes: api.model.read."
    refused = (403, {"error": {"message": missing_scope}})
    transport = scripted({"GET /v1/models": refused, "POST /v1/chat/completions": lambda body: chat_answer()})
    result = await probe("https://api.openai.test/v1", model="gpt-4o-mini", transport=transport)

    assert result.ok and result.model_found is None
    assert f"The key may not list the models (HTTP 403: {missing_scope[:-1]}), but it can use this one." in result.notes


@pytest.mark.asyncio
async def test_a_key_refused_only_by_completions_is_an_api_key_error():
    with FakeOpenAIServer() as server:  # like llama.cpp, whose model list needs no key
        server.enqueue(Fault.status(401))
        result = await probe(server)

    assert list(result.field_errors) == ["api_key"]


@pytest.mark.asyncio
async def test_an_unknown_model_is_a_model_error_listing_the_available_ones():
    names = ["mistral-7b-instruct", "llama-3.1-8b-instruct", "qwen2.5-7b-instruct"]
    with FakeOpenAIServer(models=names) as server:
        result = await probe(server, model="llama-3.1-8b-instrcut")

    assert list(result.field_errors) == ["model"]
    message = result.field_errors["model"]
    assert message.startswith("The endpoint does not serve a model called “llama-3.1-8b-instrcut”.")
    assert all(name in message for name in names)
    assert result.model_found is False
    assert result.models_listed[0] == "llama-3.1-8b-instruct"  # the likely correction first
    assert set(result.models_listed) == set(names)


@pytest.mark.asyncio
async def test_a_model_missing_from_the_list_that_still_answers_is_accepted():
    with FakeOpenAIServer() as server:  # lists "fake-model", answers to any name
        result = await probe(server, model="my-local-model")

    assert result.ok
    assert result.model_found is False
    assert any("does not list “my-local-model” but answered" in note for note in result.notes)


@pytest.mark.asyncio
async def test_a_missing_chat_route_and_a_failing_server_are_base_url_errors():
    missing = await probe("http://wrong-path.test/api", transport=scripted({}))
    assert list(missing.field_errors) == ["base_url"]
    assert missing.field_errors["base_url"].startswith("There is no chat endpoint at this URL")

    with FakeOpenAIServer() as server:
        server.enqueue(Fault.status(500), Fault.status(500))
        failing = await probe(server)
    assert list(failing.field_errors) == ["base_url"]
    assert "HTTP 500" in failing.field_errors["base_url"]


@pytest.mark.asyncio
@pytest.mark.parametrize("completion_status", [200, 401, 500])
async def test_the_api_key_appears_nowhere_in_the_result_even_when_the_server_echoes_it(completion_status):
    def completion(body):
        if completion_status != 200:
            return completion_status, {"error": {"message": f"Incorrect API key provided: {KEY}"}}
        if has_image(body):
            refusal = f"Invalid content type. image_url is only supported by certain models ({KEY})"
            return 400, {"error": {"message": refusal}}
        return chat_answer(f"your key is {KEY}")

    transport = scripted({
        "GET /v1/models": {"data": [{"id": f"model-of-{KEY}"}, {"id": "fake-model"}]},
        "POST /v1/chat/completions": completion,
    })
    result = await probe("http://echo.test/v1", transport=transport)

    stored = json.dumps(result.to_json())
    assert KEY not in stored and KEY not in repr(result)
    assert "[redacted]" in stored
    assert result.ok is (completion_status == 200)


@pytest.mark.asyncio
async def test_an_agent_endpoint_is_only_checked_against_the_url_guard():
    allowed = await probe("http://127.0.0.1:9/agent", provider="agent", model="")
    assert allowed.ok and allowed.accepts_images is None and allowed.latency_ms is None
    assert any("not probed beyond the address check" in note for note in allowed.notes)

    refused = await probe("http://169.254.169.254/agent", provider="agent", model="")
    assert list(refused.field_errors) == ["base_url"]


@pytest.mark.asyncio
async def test_an_empty_model_name_or_unknown_provider_is_refused():
    with FakeOpenAIServer() as server:
        result = await probe(server, model="  ")
        assert list(result.field_errors) == ["model"] and server.requests == []
    with pytest.raises(ValueError, match="unknown provider"):
        await probe("http://x.test/v1", provider="cohere")


# --- Anthropic and Gemini --------------------------------------------------------------------


@pytest.mark.asyncio
async def test_anthropic_model_information_gives_the_window_and_image_support():
    listed = {"id": "claude-fake", "max_input_tokens": 200000, "capabilities": {"image_input": {"supported": True}}}
    with FakeAnthropicServer(api_key=KEY, models=[listed, "claude-other"]) as server:
        result = await probe(server, provider="anthropic", model="claude-fake")
        wrong_key = await probe(server, provider="anthropic", model="claude-fake", api_key="sk-ant-wrong-0000")
        unknown = await probe(server, provider="anthropic", model="claude-unknown")

    assert result.ok and result.model_found is True
    assert (result.context_window, result.context_window_source) == (200000, "server")
    assert result.accepts_images is True
    assert list(wrong_key.field_errors) == ["api_key"]
    assert list(unknown.field_errors) == ["model"]
    assert "claude-fake, claude-other" in unknown.field_errors["model"]


@pytest.mark.asyncio
async def test_gemini_model_information_gives_the_input_token_limit():
    with FakeGeminiServer(api_key=KEY, models=[{"id": "gemini-fake", "inputTokenLimit": 1048576}]) as server:
        result = await probe(server, provider="gemini", model="gemini-fake")
        wrong_key = await probe(server, provider="gemini", model="gemini-fake", api_key="AIza-wrong-0000")
        unknown = await probe(server, provider="gemini", model="gemini-unknown")

    assert result.ok and result.accepts_images is True
    assert (result.context_window, result.context_window_source) == (1048576, "server")
    assert list(wrong_key.field_errors) == ["api_key"]  # Gemini says so with a 400
    assert list(unknown.field_errors) == ["model"] and "gemini-fake" in unknown.field_errors["model"]


# --- storing and calling ---------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_result_survives_a_json_round_trip():
    with FakeOpenAIServer(props_n_ctx=2048) as server:
        result = await probe(server)
    stored = json.loads(json.dumps(result.to_json()))

    assert ProbeResult.from_json(stored) == result
    older = ProbeResult.from_json({"ok": True, "provider": "openai", "no_longer_a_field": 1})
    assert older.ok and older.context_window == DEFAULT_CONTEXT_WINDOW and older.notes == []


def test_the_sync_wrapper_works_outside_an_event_loop():
    with FakeOpenAIServer(props_n_ctx=8192) as server:
        result = probe_endpoint_sync(
            provider="openai", base_url=server.base_url, api_key=KEY, model="fake-model", allow_loopback=True
        )
    assert result.ok and result.context_window == 8192


@pytest.mark.asyncio
async def test_the_sync_wrapper_works_inside_a_running_event_loop():
    with FakeOpenAIServer() as server:
        result = probe_endpoint_sync(
            provider="openai", base_url=server.base_url, api_key=KEY, model="fake-model", allow_loopback=True
        )
    assert result.ok


# --- reading error messages --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (500, LLAMACPP_IMAGE_ERROR),  # llama.cpp without a vision projector
        (400, "Invalid content type. image_url is only supported by certain models."),  # OpenAI
        (400, "meta-llama/Llama-3.1-8B-Instruct is not a multimodal model"),  # vLLM
        (404, "No endpoints found that support image input"),  # OpenRouter
        (500, "this model is missing data required for image input"),  # Ollama
        (422, "Failed to deserialize the JSON body into the target type: messages[0]: unknown variant `image_url`, "
              "expected `text` at line 1 column 120"),  # DeepSeek
        (400, "messages[0].content must be a string"),  # Groq, text-only model
        (400, "Image input modality is not enabled for models/gemma-3-1b-it"),  # Gemini API
        (400, "This model does not support image input."),
        (400, "Images are not supported by this model."),
        (None, "The model endpoint answered HTTP 500: image input is not supported - hint: if this is unexpected"),
    ],
)
def test_image_refusals_in_real_servers_words_are_recognised(status, message):
    assert is_image_refusal(status, message)
    assert not is_context_exceeded(status, message)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it"),  # llama.cpp
        (400, "the request exceeds the available context size, try increasing it"),  # older llama.cpp
        (400, "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the "
              "messages, 1000 in the completion). Please reduce the length of the messages or completion."),  # vLLM, OpenAI
        (400, "The decoder prompt (length 8825) is longer than the maximum model length of 8192. Make sure that "
              "`max_model_len` is no smaller than the number of text tokens."),  # vLLM
        (400, "prompt is too long: 208310 tokens > 200000 maximum"),  # Anthropic
        (400, "input length and `max_tokens` exceed context limit: 188059 + 20000 > 200000, decrease input length "
              "or `max_tokens` and try again"),  # Anthropic
        (400, "The input token count (1300000) exceeds the maximum number of tokens allowed (1048575)."),  # Gemini
        (400, "This endpoint's maximum context length is 8192 tokens. However, you requested about 9000 tokens. "
              "Please reduce the length of either one, or use the \"middle-out\" transform."),  # OpenRouter
        (422, "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` "
              "tokens and 1000 `max_new_tokens`"),  # Text Generation Inference
        (400, "Your input exceeds the context window of this model. Please adjust your input and try again."),
        (None, '{"error":{"code":400,"type":"exceed_context_size_error","message":"request too big"}}'),
    ],
)
def test_context_overflows_in_real_servers_words_are_recognised(status, message):
    assert is_context_exceeded(status, message)
    assert not is_image_refusal(status, message)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (429, "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000."),
        (400, "The model `foo` does not exist."),
        (400, "Unable to process input image. Please retry or report in https://developers.generativeai.google"),
        (400, "At most 1 image(s) may be provided in one request."),  # vLLM: images accepted, too many
        (401, "Invalid API Key"),
        (500, "Internal Server Error"),
        (200, "maximum context length; image input is not supported"),  # not an error at all
        (400, ""),
    ],
)
def test_other_errors_are_neither_an_image_refusal_nor_a_context_overflow(status, message):
    assert not is_image_refusal(status, message)
    assert not is_context_exceeded(status, message)


@pytest.mark.asyncio
async def test_the_fake_servers_context_error_is_recognised_through_the_client():
    with FakeOpenAIServer(context_window=64) as server:
        options = client_options(1, model="fake-model", max_tokens=16)
        async with OpenAICompatibleClient(server.base_url, **options) as client:
            await client.complete(user("short"))  # 2 + 16 tokens fit
            with pytest.raises(ModelCallError) as failure:
                await client.complete(user("x" * 200))  # 50 + 16 do not

    assert failure.value.http_status == 400
    assert "request (66 tokens) exceeds the available context size (64 tokens)" in failure.value.message
    assert is_context_exceeded(failure.value.http_status, failure.value.message)


@pytest.mark.asyncio
async def test_an_endpoint_playing_episodes_is_sent_no_completion():
    """A probe of an endpoint the arena's episodes are playing on sends it nothing that
    could take an episode's slot and evict its cached prompt, and says so."""
    with FakeOpenAIServer() as server:
        result = await probe(server, endpoint_busy=True)
    assert result.ok and result.tokens_per_second is None and result.message_shape is None
    assert not [request for request in server.requests if request.path.endswith("/chat/completions")]
    assert any("playing the arena's episodes right now" in note for note in result.notes)


@pytest.mark.asyncio
async def test_an_endpoint_playing_episodes_gets_the_window_and_images_its_server_reports():
    """A second submission to a llama.cpp server while the first one's episodes play on
    it: the window and the image support come from /props (metadata, no slot taken),
    not the 4,096-token default that would trim every prompt to half the server's."""
    with FakeOpenAIServer(props_n_ctx=8192, accepts_images=False) as server:
        result = await probe(server, endpoint_busy=True)
    assert not [request for request in server.requests if request.path.endswith("/chat/completions")]
    assert "GET /props" in paths(server)
    assert (result.context_window, result.context_window_source) == (8192, "server")
    assert "The server reports a context window of 8,192 tokens (llama.cpp /props)." in result.notes
    assert result.accepts_images is False
    assert "Going by llama.cpp's server properties, it does not accept images." in result.notes


@pytest.mark.asyncio
async def test_a_slow_endpoint_gets_the_window_its_server_reports():
    with FakeOpenAIServer(models=["fake-model"], props_n_ctx=8192) as server:
        server.enqueue(Fault.delay(2.0), Fault.delay(2.0))
        result = await probe(server, timeout_seconds=0.5)
    assert result.ok and any("reachable, and slow or busy" in note for note in result.notes)
    assert (result.context_window, result.context_window_source) == (8192, "server")


@pytest.mark.asyncio
async def test_a_busy_llama_cpp_python_server_is_sent_no_over_long_prompt():
    """llama-cpp-python tells its window only by refusing a prompt past it, a completion
    request: a busy one is not sent it, and the window falls back to the default."""
    completions = []
    transport = scripted({
        "GET /v1/models": {"data": [{"id": "fake-model"}]},
        "POST /extras/tokenize": {"tokens": [1, 2, 3, 4]},
        "POST /v1/chat/completions": lambda body: completions.append(body) or chat_answer(),
    })
    result = await probe("http://llm.example/v1", transport=transport, endpoint_busy=True)
    assert completions == []
    assert result.ok and result.context_window_source == "default"


@pytest.mark.parametrize("answer, ollama", [
    ({"ok": True}, False),
    ({"detail": "not here"}, False),
    ({"model_info": {"llama.context_length": 8192}}, True),
    ({"details": {"family": "llama"}, "template": "{{ .Prompt }}"}, True),
])
def test_ollama_is_recognised_by_the_shape_of_its_show_answer(answer, ollama):
    from arena.probe.lookups import is_ollama_show

    assert is_ollama_show(answer) is ollama
