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
