"""AgentEndpointClient against a fake self-hosted agent, over real HTTP on 127.0.0.1: the
signed arena-agent/1 protocol and what an agent's reply may be. What every client does
alike (retries, faults, limits, the URL guard, secrets) is in test_client_contract.py."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time

import pytest

from arena.clients.agent_endpoint import (
    AGENT_PROTOCOL,
    AGENT_REQUEST_SCHEMA,
    AGENT_RESPONSE_SCHEMA,
    AgentEndpointClient,
    sign,
    verify,
)
from arena.clients.base import ModelCallError, ModelReply
from tests.support.clients import agent_step, client_options
from tests.support.fake_providers import FakeAgentServer, Fault

SECRET = "whsec-CANARY-agent-0123456789"


@pytest.fixture
def agent():
    with FakeAgentServer(secret=SECRET) as running:
        yield running


def make_client(agent, **overrides) -> AgentEndpointClient:
    url = overrides.pop("url", agent.url)
    secret = overrides.pop("secret", SECRET)
    return AgentEndpointClient(url, secret, **client_options(11, timeout_seconds=0.5) | overrides)


# --- the signed round trip ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_signed_round_trip(agent):
    async with make_client(agent) as client:
        reply = await client.act(agent_step())
        expected_body = client.build_payload(agent_step())

    assert isinstance(reply, ModelReply)
    assert (reply.text, reply.reasoning) == ("right", "the first legal action")
    assert (reply.attempts, reply.error, reply.http_status) == (1, "", 200)
    assert reply.latency_ms > 0

    [request] = agent.requests
    assert request.path == "/agent"
    assert request.raw == expected_body
    assert request.json["protocol"] == AGENT_PROTOCOL
    assert request.json["episode"] == {"id": 42, "seed": 7}
    assert request.headers["content-type"] == "application/json"
    stamp = request.headers["x-arena-timestamp"]
    signature = request.headers["x-arena-signature"]
    assert abs(int(stamp) - time.time()) < 5
    # The documented recipe, computed by hand...
    by_hand = hmac.new(SECRET.encode(), f"{stamp}.".encode() + request.raw, hashlib.sha256).hexdigest()
    assert signature == f"sha256={by_hand}"
    # ...and the helper agent authors can reuse.
    assert verify(SECRET, stamp, request.raw, signature)
    # The secret itself never travels.
    assert SECRET not in json.dumps(request.headers) and SECRET.encode() not in request.raw
    assert agent.rejected == 0


@pytest.mark.asyncio
async def test_explicit_reply_and_whitespace_is_trimmed(agent):
    agent.enqueue(Fault.reply("  left\n", reasoning="the goal is to the left"))
    async with make_client(agent) as client:
        reply = await client.act(agent_step())
    assert (reply.text, reply.reasoning) == ("left", "the goal is to the left")


@pytest.mark.asyncio
async def test_wrong_secret_on_the_agent_side_is_detected_once_and_explained():
    with FakeAgentServer(secret="whsec-the-agent-has-another-one") as agent:
        async with make_client(agent, max_retries=3) as client:
            with pytest.raises(ModelCallError) as info:
                await client.act(agent_step())
    assert "check that the agent verifies with this submission's signing secret" in str(info.value)
    assert agent.rejected == 1


@pytest.mark.asyncio
async def test_a_stale_clock_is_rejected_too(agent):
    async with make_client(agent, clock=lambda: time.time() - 3600) as client:
        with pytest.raises(ModelCallError, match="agent rejected the arena's signature"):
            await client.act(agent_step())


@pytest.mark.asyncio
async def test_every_retry_is_signed_afresh(agent):
    ticks = itertools.count()
    base = time.time()
    agent.enqueue(Fault.status(503))
    async with make_client(agent, clock=lambda: base + 10 * next(ticks)) as client:
        reply = await client.act(agent_step())
    assert reply.attempts == 2 and reply.text == "right"
    first, second = agent.requests
    assert int(second.headers["x-arena-timestamp"]) == int(first.headers["x-arena-timestamp"]) + 10
    assert first.headers["x-arena-signature"] != second.headers["x-arena-signature"]
    assert agent.rejected == 0


@pytest.mark.asyncio
async def test_history_is_bounded(agent):
    history = [{"step": i, "observation_text": f"obs {i}", "action": "left", "reward": 0.0} for i in range(10)]
    async with make_client(agent, history_limit=3) as client:
        await client.act(agent_step(step=10, history=history))
    assert [item["step"] for item in agent.requests[0].json["history"]] == [7, 8, 9]


def test_build_payload_checks_the_request():
    client = AgentEndpointClient("https://agent.example.com/act", SECRET)
    incomplete = agent_step()
    del incomplete["legal_actions"]
    with pytest.raises(ValueError, match="legal_actions"):
        client.build_payload(incomplete)
    with pytest.raises(ValueError, match="protocol"):
        client.build_payload({**agent_step(), "protocol": "arena-agent/9"})
    assert SECRET not in repr(client)


def test_constructor_checks_url_and_secret():
    with pytest.raises(ValueError, match="signing secret"):
        AgentEndpointClient("https://agent.example.com/act", "")
    with pytest.raises(ValueError, match="Invalid agent URL") as info:
        AgentEndpointClient(f"https://user:{SECRET}@agent.example.com/", SECRET)
    assert SECRET not in str(info.value)


# --- replies that are not a move: recorded, not raised --------------------------------------


@pytest.mark.asyncio
async def test_non_json_reply_is_returned_as_an_error_not_raised():
    with FakeAgentServer(secret=SECRET, non_json=True) as agent:
        async with make_client(agent) as client:
            reply = await client.act(agent_step())
    assert reply.text == ""
    assert reply.error == "agent reply was not JSON: I choose right"
    assert (reply.http_status, reply.attempts) == (200, 1)
    assert len(agent.requests) == 1  # a 2xx answer is final: never retried


@pytest.mark.parametrize(
    "fault, problem",
    [
        (Fault.malformed_json(), "agent reply was not JSON: {\"action\": \"up\", \"reas"),
        (Fault.status(200, body=""), "agent reply was not JSON: (empty body)"),
        (Fault.status(200, body=["up"]), "agent reply was not a JSON object"),
        (Fault.empty_choices(), 'agent reply has no string "action" (no "action" field)'),
        (Fault.status(200, body={"action": 3}), 'agent reply has no string "action" ("action" is int)'),
        (Fault.status(200, body={"action": "  "}), 'agent reply has an empty "action"'),
    ],
)
@pytest.mark.asyncio
async def test_unusable_replies(agent, fault, problem):
    agent.enqueue(fault)
    async with make_client(agent) as client:
        reply = await client.act(agent_step())
    assert reply.text == ""
    assert reply.error.startswith(problem)
    assert reply.attempts == 1 and len(agent.requests) == 1


@pytest.mark.asyncio
async def test_unusable_reply_after_a_retry_keeps_both_stories(agent):
    agent.enqueue(Fault.status(500), Fault.malformed_json())
    async with make_client(agent) as client:
        reply = await client.act(agent_step())
    assert reply.text == "" and reply.attempts == 2
    assert reply.error.startswith("agent reply was not JSON")
    assert "an earlier attempt failed: The agent endpoint answered HTTP 500" in reply.error


@pytest.mark.asyncio
async def test_secret_echoed_in_a_reply_is_redacted(agent):
    agent.enqueue(Fault.status(200, body=f"my secret is {SECRET}"))
    async with make_client(agent) as client:
        reply = await client.act(agent_step())
    assert reply.error == "agent reply was not JSON: my secret is [redacted]"


# --- transport faults (the rest are in test_client_contract.py) -------------------------------


@pytest.mark.asyncio
async def test_404_is_not_retried(agent):
    async with make_client(agent, url=agent.url.replace("/agent", "/nowhere")) as client:
        with pytest.raises(ModelCallError, match=r"HTTP 404 \(check the agent URL\)") as info:
            await client.act(agent_step())
    assert info.value.attempts == 1


# --- sign / verify and the schemas -------------------------------------------------------------


def test_sign_matches_the_documented_recipe():
    body = b'{"protocol":"arena-agent/1"}'
    expected = hmac.new(b"s3cret", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert sign("s3cret", 1700000000, body) == f"sha256={expected}"
    assert sign(b"s3cret", "1700000000", body.decode()) == f"sha256={expected}"


def test_verify():
    body = b'{"step":1}'
    now = 1_700_000_000
    good = sign(SECRET, now, body)
    assert verify(SECRET, str(now), body, good, now=now)
    assert verify(SECRET, now, body, good, now=now + 299)
    assert not verify(SECRET, now, body, good, now=now + 301)  # replayed later
    assert not verify(SECRET, now, body, good, now=now - 301)  # from the future
    assert not verify(SECRET, now, body + b" ", good, now=now)  # body changed
    assert not verify("another-secret", now, body, good, now=now)
    assert not verify(SECRET, now + 1, body, good, now=now)  # timestamp changed
    assert not verify(SECRET, now, body, good.removeprefix("sha256="), now=now)
    assert not verify(SECRET, "yesterday", body, good, now=now)
    assert not verify(SECRET, now, body, "sha256=é", now=now)
    assert verify(SECRET, now, body, good, max_age_seconds=10, now=now + 10)


def test_schemas_describe_what_is_sent_and_expected():
    jsonschema = pytest.importorskip("jsonschema")
    client = AgentEndpointClient("https://agent.example.com/act", SECRET)
    history = [{"step": 0, "observation_text": None, "action": "left", "reward": -1.0}]
    sent = json.loads(client.build_payload(agent_step(step=1, history=history)))
    jsonschema.Draft202012Validator.check_schema(AGENT_REQUEST_SCHEMA)
    jsonschema.Draft202012Validator.check_schema(AGENT_RESPONSE_SCHEMA)
    jsonschema.validate(sent, AGENT_REQUEST_SCHEMA)
    jsonschema.validate({"action": "up", "reasoning": "why not"}, AGENT_RESPONSE_SCHEMA)
    jsonschema.validate({"action": "up"}, AGENT_RESPONSE_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"reasoning": "no action"}, AGENT_RESPONSE_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**sent, "protocol": "other"}, AGENT_REQUEST_SCHEMA)
