"""The output limit's field name on OpenAI's own API.

OpenAI's API answers a chat completion that sends `max_tokens` to a reasoning model
(o1, o3, o4-mini, gpt-5) with a 400 asking for `max_completion_tokens`, which it takes
for every model; the servers that copy its API (llama.cpp, vLLM, Ollama) read
`max_tokens`. Asserted on the request the client builds, since no test reaches OpenAI.
"""

import pytest

from arena.clients.openai_compat import OpenAICompatibleClient

MESSAGES = [{"role": "user", "content": "Your move."}]


@pytest.mark.parametrize("base_url", ["https://api.openai.com/v1", "https://API.OpenAI.com/v1/"])
def test_openai_itself_gets_max_completion_tokens(base_url):
    client = OpenAICompatibleClient(base_url, "sk-test", "o3-mini", max_tokens=256)
    request = client._request(MESSAGES)
    assert request["max_completion_tokens"] == 256
    assert "max_tokens" not in request


@pytest.mark.parametrize(
    "base_url", ["https://openrouter.ai/api/v1", "http://127.0.0.1:8080/v1", "https://api.openai.com.example.org/v1"]
)
def test_servers_that_copy_the_api_keep_max_tokens(base_url):
    client = OpenAICompatibleClient(base_url, "k", "m", max_tokens=256)
    request = client._request(MESSAGES)
    assert request["max_tokens"] == 256
    assert "max_completion_tokens" not in request


def test_a_call_that_asks_for_its_own_limit_uses_the_same_field():
    # The probe's one-token calls pass their own limit.
    client = OpenAICompatibleClient("https://api.openai.com/v1", "sk-test", "gpt-5", max_tokens=8192)
    request = client._request(MESSAGES, max_tokens=1)
    assert request["max_completion_tokens"] == 1 and "max_tokens" not in request
