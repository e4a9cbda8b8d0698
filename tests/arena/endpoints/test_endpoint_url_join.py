"""A base URL with a query string (`http://gw.example/v1?key=…`, a gateway's credential)
must reach the server with its route before the query: `/v1/chat/completions?key=…`.
Appending the route to the URL as a string puts it inside the query
(`/v1?key=…/chat/completions`), which the server reads as the path `/v1`.

arena.endpoints.url.join_path and on_path build the URL on the path alone; the last test
shows every client calling its route with the base URL's query after it, at the
transport level."""

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest

from arena.endpoints.url import join_path, on_path, url_path
from tests.support.fake_openai import FakeOpenAIServer


@pytest.mark.parametrize(
    "base, route, ends, query, joined",
    [
        ("http://gw.example/v1?key=K9", "/chat/completions", ("/chat/completions",), "",
         "http://gw.example/v1/chat/completions?key=K9"),
        ("http://gw.example/v1/chat/completions/?key=K9", "/chat/completions", ("/chat/completions",), "",
         "http://gw.example/v1/chat/completions?key=K9"),
        ("http://gw.example:8443/tenant/v1/", "/models", (), "", "http://gw.example:8443/tenant/v1/models"),
        ("http://gw.example?key=K9&region=eu", "/v1/messages", (), "", "http://gw.example/v1/messages?key=K9&region=eu"),
        ("https://user:pw@gw.example/v1?key=K9#frag", "/models", (), "?limit=100",
         "https://user:pw@gw.example/v1/models?key=K9&limit=100"),
        ("http://gw.example/v1?key=a%2Fb%3F", "/responses", (), "", "http://gw.example/v1/responses?key=a%2Fb%3F"),
    ],
)
def test_a_route_goes_before_the_base_urls_query(base, route, ends, query, joined):
    assert join_path(base, route, unless_ends_with=ends, query=query) == joined


def test_a_clients_version_rules_read_the_path_not_the_query():
    base = "http://gw.example/v1?key=K9"
    assert url_path(base) == "/v1" and url_path("http://gw.example/?key=K9") == ""
    messages = on_path(base, lambda path: path + "/messages" if path.endswith("/v1") else path + "/v1/messages")
    assert messages == "http://gw.example/v1/messages?key=K9"


class AnyRoute(FakeOpenAIServer):
    """Answers every path as the chat-completions route, recording what was asked."""

    def handles(self, path: str) -> bool:
        return True


def _seen(server) -> list[tuple[str, str]]:
    return [(urlsplit(request.path).path, urlsplit(request.path).query) for request in server.requests]


def test_a_joined_url_reaches_the_server_with_its_route_and_its_query():
    with AnyRoute() as server:
        url = join_path(f"{server.base_url}?key=K9", "/chat/completions", unless_ends_with=("/chat/completions",))

        async def post():
            async with httpx.AsyncClient() as client:
                return await client.post(url, json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})

        assert asyncio.run(post()).status_code == 200
        assert _seen(server) == [("/v1/chat/completions", "key=K9")]


def _openai(base):
    from arena.clients.openai_compat import OpenAICompatibleClient

    return OpenAICompatibleClient(base + "/v1?key=K9", "sk-x", "m", allow_loopback=True, max_retries=0)


def _responses(base):
    from arena.clients.responses import ResponsesClient

    return ResponsesClient(base + "/v1?key=K9", "sk-x", "m", allow_loopback=True, max_retries=0)


def _anthropic(base):
    from arena.clients.anthropic import AnthropicClient

    return AnthropicClient(base + "/v1?key=K9", "sk-x", "m", allow_loopback=True, max_retries=0)


def _gemini(base):
    from arena.clients.gemini import GeminiClient

    return GeminiClient(base + "/v1beta?key=K9", "sk-x", "gemini-x", allow_loopback=True, max_retries=0)


# The SDK clients put the base URL's query after their route: OpenAI's and Anthropic's
# SDKs take it as their default_query; Gemini's joins its route onto the base URL's path.


@pytest.mark.parametrize(
    "make, route",
    [(_openai, "/v1/chat/completions"), (_responses, "/v1/responses"), (_anthropic, "/v1/messages"),
     (_gemini, "/v1beta/models/gemini-x:generateContent")],
    ids=["openai-compatible", "responses", "anthropic", "gemini"],
)
def test_each_client_calls_its_route_with_the_base_urls_query(make, route):
    with AnyRoute() as server:
        async def call():
            client = make(f"http://127.0.0.1:{server.port}")
            try:
                await client.complete([{"role": "user", "content": "hi"}])
            except Exception:  # the fake answers in OpenAI's shape: only the URL matters here
                pass
            finally:
                await client.aclose()

        asyncio.run(call())
        assert _seen(server)[:1] == [(route, "key=K9")], _seen(server)
