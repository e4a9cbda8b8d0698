"""Where the context window comes from, for the servers the arena meets beyond llama.cpp
and Ollama (those are in test_probe.py): LM Studio, Mistral's and OpenAI's hosted APIs,
and a stated value smaller than the server's. llama-cpp-python's server is played for
real in test_real_servers.py."""

from __future__ import annotations

import pytest

from tests.arena.test_probe import chat_answer, probe, scripted


@pytest.mark.asyncio
async def test_lm_studio_states_the_loaded_context_in_its_own_model_list():
    routes = {
        "GET /v1/models": {"object": "list", "data": [{"id": "qwen2.5-7b-instruct", "object": "model"}]},
        "POST /v1/chat/completions": lambda body: chat_answer(),
        "GET /api/v0/models": {"object": "list", "data": [
            {"id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768,
             "loaded_context_length": 8192},
        ]},
    }
    result = await probe("http://lmstudio.test:1234/v1", model="qwen2.5-7b-instruct", transport=scripted(routes))
    assert (result.context_window, result.context_window_source) == (8192, "server")
    assert "LM Studio" in result.context_window_where

    del routes["GET /api/v0/models"]["data"][0]["loaded_context_length"]
    unloaded = await probe("http://lmstudio.test:1234/v1", model="qwen2.5-7b-instruct", transport=scripted(routes))
    # The model's maximum only caps what the submitter states.
    assert (unloaded.context_window, unloaded.context_window_source, unloaded.context_window_server) == (
        4096, "default", 32768)


@pytest.mark.asyncio
async def test_hosted_apis_windows_come_from_their_list_or_the_published_table():
    mistral = {
        "GET /v1/models": {"data": [{"id": "mistral-small-latest", "max_context_length": 131072}]},
        "POST /v1/chat/completions": lambda body: chat_answer(),
    }
    result = await probe("https://api.mistral.ai/v1", model="mistral-small-latest", transport=scripted(mistral))
    assert (result.context_window, result.context_window_source) == (131072, "server")

    openai = {
        "GET /v1/models": {"data": [{"id": "gpt-4o-mini-2024-07-18", "owned_by": "system"}]},
        "POST /v1/chat/completions": lambda body: chat_answer(),
    }
    result = await probe("https://api.openai.com/v1", model="gpt-4o-mini-2024-07-18", transport=scripted(openai))
    assert (result.context_window, result.context_window_source) == (128000, "server")
    assert result.context_window_where == "the provider's published window for gpt-4o-mini"


@pytest.mark.asyncio
async def test_a_stated_window_smaller_than_the_servers_wins_and_a_larger_one_does_not():
    routes = {
        "GET /v1/models": {"data": [{"id": "m", "max_model_len": 32768}]},
        "POST /v1/chat/completions": lambda body: chat_answer(),
    }
    smaller = await probe("http://vllm.test:8000/v1", model="m", transport=scripted(routes), stated_context_window=8000)
    assert (smaller.context_window, smaller.context_window_source, smaller.context_window_server) == (
        8000, "stated", 32768)
    assert "less than the server's" in " ".join(smaller.notes)
    larger = await probe("http://vllm.test:8000/v1", model="m", transport=scripted(routes), stated_context_window=65536)
    assert (larger.context_window, larger.context_window_source) == (32768, "server")
