"""What every endpoint client does the same way, over real HTTP on 127.0.0.1.

The OpenAI-compatible, Anthropic, Gemini and agent-endpoint clients share one transport
(arena.clients.http): the same retries, waits, caps, URL guard, redaction and error
kinds. Each test here runs once per client against the fake that speaks its wire format
(tests/support/clients.py); what only one provider does is tested in its own file.
"""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
import random
import time
from email.utils import formatdate

import pytest

from arena.clients.base import ModelCallError, RetryPolicy, parse_retry_after, redact
from arena.clients.errors import ErrorKind
from tests.support.clients import (
    CHAT_CLIENTS_UNDER_TEST,
    CLIENTS_UNDER_TEST,
    PROMPT,
    ClientUnderTest,
    assert_no_secret,
    client_options,
    user,
)
from tests.support.fake_openai import Fault

KEY = "sk-CANARY-contract-0123456789"
WRONG_KEY = "sk-CANARY-not-this-one-0000"


def each(clients):
    return pytest.mark.parametrize("under_test", clients, ids=[c.name for c in clients])


every_client = each(CLIENTS_UNDER_TEST)
every_chat_client = each(CHAT_CLIENTS_UNDER_TEST)


@pytest.fixture
def server(under_test: ClientUnderTest):
    with under_test.fake(KEY) as running:
        asyncio.run(_first_call(under_test, running))
        yield running


async def _first_call(under_test: ClientUnderTest, server) -> None:
    """One call before the test: an SDK builds its request types at its first request
    of a process (half a second for the Responses API's), which would count against
    the sub-second timeouts these tests play with."""
    async with connect(under_test, server) as client:
        await under_test.ask(client)
    server.clear()


def connect(under_test: ClientUnderTest, server, key: str = KEY, **options):
    """The client under test pointed at its fake; a timeout that leaves the loaded
    machine room, unless the test is about timeouts."""
    return under_test.client(server.base_url, key, **client_options(7, **{"timeout_seconds": 2.0, **options}))


def assert_never_shown(error, client=None) -> None:
    assert_no_secret(error, KEY, WRONG_KEY, "Bearer")
    if client is not None:
        assert KEY not in repr(client) and WRONG_KEY not in repr(client)


# --- faults that pass, and the same faults when they last ------------------------------------


@dataclasses.dataclass(frozen=True)
class TransientFault:
    name: str
    fault: Fault
    # What the reply's note says once a retry got past it ("{label}": the client's).
    note: str
    # The failure's kind, and the last HTTP status seen, when it happens every time.
    kind: ErrorKind
    status: int | None
    # Client options the fault is measured against.
    options: dict = dataclasses.field(default_factory=dict)
    # Bounds on how long the call that got past it took (seconds), where they matter.
    took: tuple[float, float] | None = None


TRANSIENT_FAULTS = [
    TransientFault(
        "timeout", Fault.delay(1.5), "The {label} did not answer within 0.3 s",
        ErrorKind.TIMEOUT, None, {"timeout_seconds": 0.3}, took=(0.0, 1.5),
    ),
    TransientFault("connection reset", Fault.reset(), "Could not talk to the {label}", ErrorKind.CONNECTION, None),
    TransientFault(
        "429 with Retry-After", Fault.status(429, retry_after=1), "The {label} answered HTTP 429: fake error 429",
        ErrorKind.RATE_LIMITED, 429, {"backoff_base_seconds": 0.0}, took=(1.0, 2.0),
    ),
    TransientFault("500", Fault.status(500), "The {label} answered HTTP 500: fake error 500", ErrorKind.SERVER_ERROR, 500),
    TransientFault(
        "slow drip", Fault.slow_drip(interval=0.05), "The {label} did not finish answering within 0.6 s",
        ErrorKind.TIMEOUT, 200, {"timeout_seconds": 0.3, "total_timeout_seconds": 0.6}, took=(0.6, 1.5),
    ),
]
transient_faults = pytest.mark.parametrize("case", TRANSIENT_FAULTS, ids=[case.name for case in TRANSIENT_FAULTS])


@every_client
@transient_faults
@pytest.mark.asyncio
async def test_a_fault_that_passes_is_retried_and_noted(under_test, server, case):
    server.enqueue(case.fault)
    async with connect(under_test, server, **case.options) as client:
        started = time.perf_counter()
        reply = await under_test.ask(client)
        took = time.perf_counter() - started
    assert reply.text == under_test.answer
    assert reply.attempts == 2 and len(server.requests) == 2
    assert case.note.format(label=under_test.label) in reply.error
    if case.took is not None:
        low, high = case.took
        assert low <= took < high


@every_client
@transient_faults
@pytest.mark.asyncio
async def test_a_fault_that_lasts_ends_the_call_with_its_kind(under_test, server, case):
    server.enqueue(case.fault, case.fault)
    # Retry-After waits are capped by max_wait_seconds: the test need not sit them out.
    options = case.options | {"max_retries": 1, "max_wait_seconds": 0.1}
    async with connect(under_test, server, **options) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
    error = info.value
    assert (error.attempts, error.retryable, error.http_status, error.kind) == (2, True, case.status, case.kind)
    assert case.note.format(label=under_test.label) in str(error)
    assert str(error).endswith("(gave up after 2 attempts)")
    assert len(server.requests) == 2


@every_client
@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.asyncio
async def test_when_retries_run_out_the_error_says_so_and_never_shows_the_key(under_test, server, status):
    server.enqueue(*[Fault.status(status, body={"error": {"message": f"crashed; key={KEY}"}})] * 3)
    async with connect(under_test, server, max_retries=2) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
    error = info.value
    assert (error.attempts, error.http_status, error.retryable, error.kind) == (3, status, True, ErrorKind.SERVER_ERROR)
    label = under_test.label
    assert str(error) == f"The {label} answered HTTP {status}: crashed; key=[redacted] (gave up after 3 attempts)"
    assert_never_shown(error)
    assert len(server.requests) == 3


@every_client
@pytest.mark.parametrize(
    "echo",
    [
        Fault.status(500, body=f"upstream said {KEY}"),
        Fault.status(503, body={"error": {"code": 503, "message": f"upstream said {KEY}"}}),
    ],
    ids=["text", "json"],
)
@pytest.mark.asyncio
async def test_a_key_the_endpoint_echoes_is_redacted_from_notes_errors_and_repr(under_test, server, echo):
    server.enqueue(Fault.reset(), echo)
    async with connect(under_test, server, max_retries=2) as client:
        reply = await under_test.ask(client)  # reset, the echo, then the answer
        assert reply.attempts == 3 and reply.text == under_test.answer
        assert "upstream said [redacted]" in reply.error and KEY not in reply.error
        server.enqueue(echo, echo, echo)
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
        assert_never_shown(info.value, client)
    assert "upstream said [redacted]" in str(info.value)


# --- refusals that are final ------------------------------------------------------------------


@every_client
@pytest.mark.asyncio
async def test_a_401_is_not_retried_and_never_shows_the_key(under_test, server):
    server.enqueue(Fault.status(401, body={"error": {"message": f"Incorrect API key provided: {KEY}"}}))
    async with connect(under_test, server, max_retries=3) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
        assert_never_shown(info.value, client)
    error = info.value
    assert (error.attempts, error.http_status, error.retryable, error.kind) == (1, 401, False, ErrorKind.AUTH)
    assert under_test.refused_401 in str(error)
    assert len(server.requests) == 1


@every_client
@pytest.mark.asyncio
async def test_a_key_the_endpoint_refuses_fails_at_once_with_the_auth_kind(under_test, server):
    async with connect(under_test, server, key=WRONG_KEY, max_retries=3) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
        assert_never_shown(info.value, client)
    error = info.value
    assert (error.attempts, error.retryable, error.kind) == (1, False, ErrorKind.AUTH)
    assert under_test.refused_credential in str(error)
    assert len(server.requests) == 1


@every_client
@pytest.mark.parametrize(
    "status, kind", [(400, ErrorKind.BAD_REQUEST), (404, ErrorKind.MODEL_NOT_FOUND), (422, ErrorKind.BAD_REQUEST)]
)
@pytest.mark.asyncio
async def test_other_4xx_are_not_retried(under_test, server, status, kind):
    server.enqueue(Fault.status(status))
    async with connect(under_test, server) as client:
        with pytest.raises(ModelCallError, match=f"HTTP {status}") as info:
            await under_test.ask(client)
    assert (info.value.attempts, info.value.retryable, info.value.kind) == (1, False, kind)
    assert len(server.requests) == 1


@every_client
@pytest.mark.parametrize("declare_length", [False, True])
@pytest.mark.asyncio
async def test_an_oversized_body_is_refused_and_the_client_stays_usable(under_test, server, declare_length):
    server.enqueue(Fault.oversized(1_000_000, declare_length=declare_length))
    async with connect(under_test, server, max_response_bytes=64 * 1024) as client:
        with pytest.raises(ModelCallError) as info:
            await under_test.ask(client)
        error = info.value
        assert str(error) == (
            "The response was larger than the 65,536 byte limit; the arena stopped reading it" + under_test.too_big_hint
        )
        assert (error.attempts, error.retryable, error.kind) == (1, False, ErrorKind.BAD_ANSWER)
        reply = await under_test.ask(client)
    assert reply.text == under_test.answer


@every_client
@pytest.mark.asyncio
async def test_redirects_are_not_followed(under_test, server):
    server.enqueue(Fault.status(302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}))
    async with connect(under_test, server) as client:
        with pytest.raises(ModelCallError, match="redirect") as info:
            await under_test.ask(client)
    error = info.value
    assert (error.attempts, error.http_status, error.kind) == (1, 302, ErrorKind.BAD_REQUEST)
    assert len(server.requests) == 1


# --- the URL guard and the key at rest --------------------------------------------------------


@every_client
@pytest.mark.asyncio
async def test_the_guard_refuses_loopback_unless_allowed(under_test, server):
    async with connect(under_test, server, allow_loopback=False) as client:
        with pytest.raises(ModelCallError, match="loopback") as info:
            await under_test.ask(client)
    assert (info.value.attempts, info.value.kind) == (1, ErrorKind.URL_REFUSED)
    assert server.requests == []


@every_client
@pytest.mark.asyncio
async def test_the_guard_refuses_a_private_address(under_test):
    async with under_test.client("http://10.0.0.1:8000/v1", KEY, allow_loopback=True) as client:
        with pytest.raises(ModelCallError, match="address was refused: it is a private address") as info:
            await under_test.ask(client)
    assert (info.value.attempts, info.value.kind) == (1, ErrorKind.URL_REFUSED)
    assert_never_shown(info.value)
    assert "10.0.0.1" not in str(info.value)  # the arena's messages never quote an endpoint's address


@every_client
def test_the_constructor_refuses_urls_that_are_not_http(under_test):
    with pytest.raises(ValueError, match="Only http and https") as info:
        under_test.client("file:///etc/passwd", KEY)
    assert KEY not in str(info.value)


@every_client
def test_the_client_repr_has_no_key(under_test):
    client = under_test.client("https://api.example.com/v1", KEY)
    assert KEY not in repr(client)
    asyncio.run(client.aclose())


# --- concurrency ------------------------------------------------------------------------------


@every_client
@pytest.mark.asyncio
async def test_many_concurrent_calls_share_one_client(under_test, server):
    server.latency = 0.05
    async with connect(under_test, server) as client:
        started = time.perf_counter()
        replies = await asyncio.gather(*(under_test.ask(client) for _ in range(40)))
        elapsed = time.perf_counter() - started
    assert all(reply.text == under_test.answer for reply in replies)
    assert len(server.requests) == 40
    assert elapsed < 2.0  # concurrent, not 40 × 50 ms in a row


# --- the chat clients' shared call (ChatCompletionClient.complete) ---------------------------


@every_chat_client
@pytest.mark.asyncio
async def test_a_call_may_ask_for_another_answer_length_than_the_clients(under_test, server):
    async with connect(under_test, server, max_tokens=64) as client:
        await client.complete(user(PROMPT))
        await client.complete(user(PROMPT), max_tokens=17)
        with pytest.raises(ValueError, match="non-empty list"):
            await client.complete([])
    # The fake reads the limit from wherever its wire format keeps it.
    assert [server.measure(request.json)[2] for request in server.requests] == [64, 17]


# --- answers that are not JSON: retried a little by the chat clients --------------------------
# (an agent's 2xx answer is its move, never retried: tests/arena/test_agent_endpoint.py)


@every_chat_client
@pytest.mark.asyncio
async def test_a_malformed_answer_is_retried_then_succeeds(under_test, server):
    server.enqueue(Fault.malformed_json())
    async with connect(under_test, server) as client:
        reply = await under_test.ask(client)
    assert reply.attempts == 2 and reply.text == under_test.answer
    assert f"The {under_test.label}'s answer was not valid JSON" in reply.error


@every_chat_client
@pytest.mark.parametrize("malformed_retries", [1, 2])
@pytest.mark.asyncio
async def test_malformed_answers_are_retried_a_limited_number_of_times(under_test, server, malformed_retries):
    server.enqueue(*[Fault.malformed_json()] * 10)
    async with connect(under_test, server, max_retries=6, malformed_retries=malformed_retries) as client:
        with pytest.raises(ModelCallError, match="not valid JSON") as info:
            await under_test.ask(client)
    error = info.value
    assert (error.attempts, error.http_status, error.kind) == (malformed_retries + 1, 200, ErrorKind.BAD_ANSWER)
    assert len(server.requests) == malformed_retries + 1


# --- the retry rules and helpers every client uses --------------------------------------------


def test_parse_retry_after():
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after("-3") == 0.0
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = time.time()
    assert parse_retry_after(formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after(formatdate(now - 30, usegmt=True), now=now) == 0.0


def test_retry_policy_backoff_jitter_and_cap():
    policy = RetryPolicy(max_retries=5, backoff_base_seconds=1.0, max_wait_seconds=60.0, rng=random.Random(1))
    for retry in range(1, 6):
        wait = policy.delay(retry)
        assert 0.5 * 2 ** (retry - 1) <= wait <= 2 ** (retry - 1)
    assert policy.delay(30) == 60.0
    assert 5.0 <= policy.delay(1, retry_after=5.0) <= 5.5
    assert policy.delay(1, retry_after=3600) == 60.0  # Retry-After is capped too
    assert policy.max_attempts == 6


def test_model_call_error_survives_pickling():
    error = pickle.loads(pickle.dumps(ModelCallError("HTTP 500", attempts=3, http_status=500, retryable=True)))
    assert (str(error), error.attempts, error.http_status, error.retryable) == ("HTTP 500", 3, 500, True)


def test_redact():
    assert redact(f"key={KEY}!", KEY) == "key=[redacted]!"
    assert redact("abc", "") == "abc"
