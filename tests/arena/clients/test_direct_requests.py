"""Model clients send their requests straight to the transport, without
httpx.AsyncClient's per-request machinery: what goes on the wire is byte for byte what
httpx.AsyncClient sends for the same request through the same guarded transport
(headers in the same order, the endpoint's cookie sent back, the body), and a redirect
with a malformed Location fails with httpx's own message."""

from __future__ import annotations

import httpx
import pytest

from arena.clients import OpenAICompatibleClient
from arena.clients.agent_endpoint import AgentEndpointClient
from arena.clients.anthropic import AnthropicClient
from arena.clients.gemini import GeminiClient
from arena.clients.urlguard import GuardedTransport
from tests.arena.clients.test_lean_http import RawServer, ok

MESSAGES = [{"role": "system", "content": "Play."}, {"role": "user", "content": "Grid: ab\ncd"}]


def clients(port: int):
    base = f"http://127.0.0.1:{port}"
    options = {"allow_loopback": True, "max_retries": 0, "malformed_retries": 0}
    return [
        OpenAICompatibleClient(base + "/v1", "sk-test-key", "m", max_tokens=16, **options),
        AnthropicClient(base, "sk-ant-test", "claude", max_tokens=16, **options),
        GeminiClient(base, "g-test-key", "gemini", max_tokens=16, **options),
        AgentEndpointClient(base + "/act", "agent-secret", allow_loopback=True, max_retries=0),
    ]


def reference_client(client) -> httpx.AsyncClient:
    """What the model clients built before: httpx.AsyncClient over the guarded transport."""
    return httpx.AsyncClient(transport=GuardedTransport(True), headers=client._headers,
                             timeout=httpx.Timeout(client.timeout_seconds), follow_redirects=False, trust_env=False)


async def reference_post(reference: httpx.AsyncClient, client, payload: bytes) -> None:
    async with reference.stream("POST", client.url, content=payload, headers=client._attempt_headers(payload),
                                timeout=httpx.Timeout(client.timeout_seconds)) as response:
        await response.aread()


@pytest.mark.asyncio
async def test_the_wire_bytes_are_httpx_clients_own_including_cookies_sent_back():
    replies = [ok(b"{}", b"Set-Cookie: lb=7; Path=/\r\n"), ok(b"{}")] * 8
    async with RawServer(replies) as direct, RawServer(list(replies)) as through_httpx:
        for made, reference_made in zip(clients(direct.port), clients(through_httpx.port)):
            payload = (made._payload(MESSAGES, None) if hasattr(made, "_payload")
                       else b'{"observation": "Grid: ab\\ncd"}')
            reference = reference_client(reference_made)
            async with made:
                for _ in range(2):
                    response = await made._request(payload)
                    await response.aread()
                    await response.aclose()
                    await reference_post(reference, reference_made, payload)
            await reference.aclose()
        sent = [request.replace(str(direct.port).encode(), b"PORT") for request in direct.requests]
        expected = [request.replace(str(through_httpx.port).encode(), b"PORT") for request in through_httpx.requests]
    assert len(sent) == 8
    assert sent == expected
    assert b"Cookie: lb=7" in sent[1] and b"Cookie" not in sent[0]


@pytest.mark.asyncio
async def test_a_malformed_redirect_location_fails_as_in_httpx():
    redirect = b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n"
    async with RawServer([redirect, redirect]) as server:
        client = clients(server.port)[0]
        reference = reference_client(client)
        with pytest.raises(httpx.RemoteProtocolError) as expected:
            await reference_post(reference, client, b"{}")
        async with client:
            with pytest.raises(httpx.RemoteProtocolError) as got:
                await client._request(b"{}")
        await reference.aclose()
    assert str(got.value) == str(expected.value)
    assert str(got.value).startswith("Invalid URL in location header")


def _attempts(client, payload: bytes, count: int):
    async def run():
        for _ in range(count):
            response = await client._request(payload)
            body = await client._read_capped(response)
            await response.aclose()
            assert body == b"{}"
    return run()


@pytest.mark.asyncio
async def test_the_guards_direct_path_sends_the_bytes_of_its_pinned_httpx_requests_on_one_kept_connection():
    """GuardedTransport.send_direct (no httpx.Request/httpx.Response between the client
    and the lean transport) against the same client sending httpx.Request objects through
    GuardedTransport.handle_async_request: the same bytes, one connection reused for
    every call, the connection back in the pool once each answer is closed."""
    replies = [ok(b"{}")] * 3
    async with RawServer(list(replies) * 4) as direct, RawServer(list(replies) * 4) as pinned:
        for made, reference in zip(clients(direct.port), clients(pinned.port)):
            assert made._direct and made._transport.sends_direct
            reference._direct = False
            payload = (made._payload(MESSAGES, None) if hasattr(made, "_payload")
                       else b'{"observation": "Grid: ab\\ncd"}')
            async with made, reference:
                await _attempts(made, payload, 3)
                await _attempts(reference, payload, 3)
                for client in (made, reference):
                    (lean,) = client._transport._inner.values()
                    assert [len(idle) for idle in lean._idle.values()] == [1]
                    assert not lean._slots.locked() and lean._slots._value == 256
        sent = [request.replace(str(direct.port).encode(), b"PORT") for request in direct.requests]
        expected = [request.replace(str(pinned.port).encode(), b"PORT") for request in pinned.requests]
    assert len(sent) == 12 and sent == expected
    assert direct.connections == pinned.connections == 4


@pytest.mark.asyncio
async def test_the_direct_path_keys_pools_and_tls_names_as_the_pinned_requests_do():
    """A named https host resolved to two addresses: each is tried in turn with the pool
    key (scheme, pinned address, port, TLS name) that the lean transport makes of the
    guard's pinned httpx.Request, and the last connection error is raised."""
    from arena.clients.lean_http import LeanHTTP11Transport

    keys: dict[str, list] = {"direct": [], "pinned": []}

    class Recording(LeanHTTP11Transport):
        async def send_pinned(self, key, target, header_lines, body, timeouts):
            keys["direct"].append((key, target))
            raise httpx.ConnectError(f"refused {key[1]}")

        async def handle_async_request(self, request):
            url = request.url
            keys["pinned"].append(((url.scheme, url.host, url.port or 443,
                                    request.extensions.get("sni_hostname") or url.host), url.raw_path))
            raise httpx.ConnectError(f"refused {url.host}")

    async def resolver(host, port):
        return ["127.0.0.1", "::1"]

    errors = []
    for direct in (True, False):
        client = OpenAICompatibleClient("https://model.example:8443/v1", "k", "m", allow_loopback=True,
                                        max_retries=0, transport=GuardedTransport(
                                            True, resolver=resolver, transport_factory=Recording))
        client._direct = direct
        with pytest.raises(httpx.ConnectError) as raised:
            await client._request(b"{}")
        errors.append(str(raised.value))
    assert keys["direct"] == keys["pinned"] == [
        (("https", "127.0.0.1", 8443, "model.example"), b"/v1/chat/completions"),
        (("https", "::1", 8443, "model.example"), b"/v1/chat/completions"),
    ]
    assert errors == ["refused ::1", "refused ::1"]


@pytest.mark.asyncio
async def test_an_encoded_answer_and_a_redirect_come_back_as_httpx_responses_on_the_direct_path():
    """What needs httpx's own response (its content decoders, the cookie jar, a
    redirect's Location) gets the httpx.Response the transport would have returned."""
    import gzip

    packed = gzip.compress(b'{"a": 1}')
    encoded = (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + str(len(packed)).encode()
               + b"\r\n\r\n" + packed)
    redirect = b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://example.org/x\r\nContent-Length: 0\r\n\r\n"
    async with RawServer([encoded, redirect, ok(b"{}")]) as server:
        client = clients(server.port)[0]
        async with client:
            response = await client._request(b"{}")
            assert isinstance(response, httpx.Response)
            assert await client._read_capped(response) == b'{"a": 1}'
            await response.aclose()
            response = await client._request(b"{}")
            assert isinstance(response, httpx.Response) and response.has_redirect_location
            await response.aclose()
            response = await client._request(b"{}")
            assert not isinstance(response, httpx.Response) and not response.has_redirect_location
            assert response.status_code == 200 and response.headers["content-length"] == "2"
            await response.aclose()
        # The redirect's answer was closed unread: its connection is not kept (as in
        # the transport's own httpx.Response), the others are.
        assert server.connections == 2
