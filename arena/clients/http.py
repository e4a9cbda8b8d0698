"""The provider-independent half of every model client, `HTTPModelClient`:

* the connection: an `httpx2.AsyncClient` through `arena.clients.urlguard.GuardedTransport`
  (addresses checked at connect time, bodies capped, aiohttp's connections), no
  redirects, no environment proxies. The vendors' SDKs are given it as their HTTP
  client: they build the requests and read the replies (OpenAI's calls go on the
  guard's direct lane, `arena.clients.openai_compat.openai_post`). It is
  shared by every client of the endpoint and tenant in the loop (`arena.clients.shared`);
* the retry loop (`arena.clients.base`; the SDKs' own retries are off) and the
  per-attempt deadline (`total_timeout_seconds`) against a server trickling its answer;
* the wording of every failure, whatever library raised it (`arena.clients.attempts`),
  never quoting the endpoint's address; redaction of each registered secret;
* normalising what came back before anything stores it (`normalise_reply`).

A provider implements `_sdk` (its SDK client on the shared HTTP client), `_call` (one
attempt) and `_parse` (what `_call` returned and the answer's JSON object -> ModelReply,
or AttemptFailed via `_malformed` / `_unusable`).
"""

from __future__ import annotations

import abc
import asyncio
import contextvars
import random
import time
from collections.abc import Iterable, Mapping
from typing import Any

import httpx2

from arena.clients import shared
from arena.clients.attempts import AttemptFailed, AttemptReading, RedirectRefused
from arena.clients.base import ModelCallError, ModelReply, RetryPolicy, redact
from arena.clients.reasoning import AnswerMemory
from arena.clients.replies import MAX_ERROR_CHARS, capped_text, normalise_reply
from arena.clients.sdk_reading import sdk_object
from arena.clients.urlguard import Answer, GuardedTransport, UnsafeURL, parse_url

__all__ = ["AttemptFailed", "ChatCompletionClient", "DEFAULT_MAX_RESPONSE_BYTES", "HTTPModelClient", "check_base_url"]

DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024

# The attempt running in this task: the HTTP answers it got and the client that made it
# (the guard and the connection, which show it each answer, serve every client of an endpoint).
_ATTEMPT: contextvars.ContextVar[tuple[list, "HTTPModelClient"] | None] = contextvars.ContextVar(
    "arena_http_attempt", default=None
)


def check_base_url(base_url: str, secrets: Iterable[str | None] = (), what: str = "model base URL") -> str:
    """`base_url` stripped, or ValueError("Invalid <what>: ...") if it is not an http(s)
    URL the arena could call (the DNS part of the check happens at connect time)."""
    base_url = (base_url or "").strip()
    try:
        parse_url(base_url)
    except UnsafeURL as exc:
        raise ValueError(f"Invalid {what}: {redact(str(exc), *secrets)}") from None
    return base_url


def answer_seen(response: Answer) -> None:
    """Every HTTP answer, before its body is read (the guard shows it, on either lane):
    the attempt remembers it, its client's gate is told, and a redirect is refused there."""
    attempt = _ATTEMPT.get()
    if attempt is not None:
        answers, client = attempt
        answers.append(response)
        if client.observer is not None:
            client.observer(response.status_code, response.headers, False)
    if 300 <= response.status_code < 400:
        raise RedirectRefused(response.status_code)


async def _watched(request: httpx2.Request) -> None:
    request.extensions["on_head"] = answer_seen  # the guard shows it the answer (an SDK's request)


class HTTPModelClient(AttemptReading, abc.ABC):
    """A JSON-over-HTTP client with retries; subclasses speak one provider's format.

    `timeout_seconds` is the connect and read (and write/pool) timeout; the whole of one
    attempt is also bounded by `total_timeout_seconds` (default twice
    `timeout_seconds`). `secrets` are redacted from every error message; `headers` are
    sent with every request (put credentials there, never in the URL). `transport` is
    the URL guard to send through (the probe's, or a test's with stand-ins for DNS and
    aiohttp's connections) instead of one of the connection's own.
    """

    #: How error messages name the other side ("The model endpoint answered HTTP 500").
    endpoint_label = "model endpoint"
    #: Appended to the "response too large" message.
    too_big_hint = " (is max_tokens very large?)"
    #: The SDK's type of the answer, read by `sdk_object`; None: what `_call` returned.
    reply_type: type | None = None

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        secrets: Iterable[str | None] = (),
        timeout_seconds: float = 60.0,
        total_timeout_seconds: float | None = None,
        max_retries: int = 3,
        backoff_base_seconds: float = 1.0,
        max_wait_seconds: float = 60.0,
        malformed_retries: int = 2,
        allow_loopback: bool = False,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: GuardedTransport | None = None,
        max_connections: int = 256,
        rng: random.Random | None = None,
    ) -> None:
        self.url = url
        # Told of every attempt's status and headers, or of its timeout
        # (arena.clients.limits.EndpointGate.observe paces the endpoint by them).
        self.observer = None
        self._secrets = tuple(secret for secret in secrets if secret)
        self.timeout_seconds = timeout_seconds
        self.total_timeout_seconds = total_timeout_seconds or 2 * timeout_seconds
        self.max_response_bytes = max_response_bytes
        self.policy = RetryPolicy(max_retries=max_retries, backoff_base_seconds=backoff_base_seconds,
                                  max_wait_seconds=max_wait_seconds, malformed_retries=malformed_retries,
                                  rng=rng or random.Random())
        self._headers = {"Accept": "application/json", "User-Agent": "the-arena/1", **(headers or {})}
        self._allow_loopback = allow_loopback
        self._max_connections = max_connections
        # A given guard is part of the key: only clients given the same one share it.
        self._transport = transport
        self._connection: shared.Connection | None = None
        self._closed = False

    def __repr__(self) -> str:  # no secret here, ever
        model = getattr(self, "model", None)
        shown = f", model={model!r}" if model is not None else ""
        return f"{type(self).__name__}(url={self.url!r}{shown})"

    def set_timeout(self, seconds: float) -> None:
        """Change the per-attempt timeout for the next calls (arena.clients.limits
        adapts it to the endpoint's measured latency); the whole-attempt deadline keeps
        its ratio to it."""
        ratio = self.total_timeout_seconds / self.timeout_seconds if self.timeout_seconds else 2.0
        self.timeout_seconds = seconds
        self.total_timeout_seconds = seconds * ratio

    @property
    def timeout(self) -> httpx2.Timeout:
        return httpx2.Timeout(self.timeout_seconds)

    # --- the shared connection ---------------------------------------------------------

    def _connection_key(self) -> tuple:
        headers = tuple(sorted((name.lower(), shared.digest(value)) for name, value in self._headers.items()))
        return (type(self), self._sdk_identity(), headers, self._allow_loopback, self.max_response_bytes,
                self._max_connections, self._transport)

    def _open(self) -> tuple[httpx2.AsyncClient, Any, GuardedTransport]:
        # aiohttp keeps every connection alive up to the limit (64 episodes in flight: 64).
        limits = httpx2.Limits(max_connections=self._max_connections, keepalive_expiry=30.0)
        guard = self._transport or GuardedTransport(self._allow_loopback, limits=limits,
                                                    max_response_bytes=self.max_response_bytes)
        http = httpx2.AsyncClient(
            transport=guard,
            headers=self._headers,
            timeout=httpx2.Timeout(self.timeout_seconds),
            follow_redirects=False,  # every hop must be checked; see arena.clients.urlguard
            trust_env=False,  # environment proxies would bypass the guard
            event_hooks={"request": [_watched]},  # OpenAI's direct lane passes `answer_seen` itself
        )
        return http, self._sdk(http), guard

    def _connected(self) -> shared.Connection:
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        if self._connection is None:
            self._connection = shared.acquire(self._connection_key(), self._open)
        return self._connection

    @property
    def http(self) -> httpx2.AsyncClient:  # shared: see arena.clients.shared
        return self._connected().http

    @property
    def sdk(self) -> Any:  # the provider's SDK client on `http`
        return self._connected().sdk

    # --- lifecycle ---------------------------------------------------------------------

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            connection, self._connection = self._connection, None
            if connection is not None:
                await shared.release(self._connection_key(), connection)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info) -> None:
        await self.aclose()

    # --- hooks for subclasses ----------------------------------------------------------

    @abc.abstractmethod
    async def _call(self, payload: Any) -> Any:
        """One attempt: send `payload` (through the provider's SDK); what it returned."""

    @abc.abstractmethod
    def _parse(self, result: Any, data: dict, status: int) -> ModelReply:
        """Turn what `_call` returned (and the answer's JSON object) into a reply, or
        raise `_malformed(...)` / `_unusable(...)`."""

    def _sdk(self, http: httpx2.AsyncClient) -> Any:
        """The provider's SDK client sending through `http`, or None (a client that
        posts its JSON itself)."""
        return None

    def _sdk_identity(self) -> tuple:
        """What, besides the connection's settings, tells this client's SDK client
        from another's: the URL and a digest of each secret (an API key, a signing
        secret: a tenant's cookies stay its own too)."""
        return (self.url, *map(shared.digest, self._secrets))

    # --- the call ----------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        """`text` without the secrets, cleaned and cut to what an error may hold (it is
        shown on pages and stored with steps and episodes)."""
        return capped_text(redact(text, *self._secrets), MAX_ERROR_CHARS)

    async def _send(self, payload: Any) -> ModelReply:
        """Send `payload` with retries; the parsed reply or ModelCallError."""
        self._connected()
        policy = self.policy
        attempts = 0
        malformed = 0
        last_problem = ""
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                reply = await self._attempt(payload)
            except AttemptFailed as failure:
                elapsed_ms = (time.perf_counter() - started) * 1000.0
                if failure.malformed:
                    malformed += 1
                give_up = (
                    not failure.retryable
                    or attempts >= policy.max_attempts
                    or (failure.malformed and malformed > policy.malformed_retries)
                )
                if give_up:
                    message = failure.message
                    if failure.retryable:
                        message += f" (gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
                    raise ModelCallError(
                        self._redact(message),
                        attempts=attempts,
                        http_status=failure.status,
                        retryable=failure.retryable,
                        latency_ms=elapsed_ms,
                        kind=failure.kind,
                    ) from None
                last_problem = self._redact(failure.message)
                await asyncio.sleep(policy.delay(attempts, failure.retry_after))
                continue
            reply.latency_ms = (time.perf_counter() - started) * 1000.0
            reply.attempts = attempts
            if reply.error:  # the parser's own verdict (agent endpoints) comes first
                reply.error = self._redact(reply.error)
                if last_problem:
                    reply.error += f" (an earlier attempt failed: {last_problem})"
            else:
                reply.error = last_problem
            return normalise_reply(reply)

    async def _attempt(self, payload: Any) -> ModelReply:
        answers: list[Answer] = []
        token = _ATTEMPT.set((answers, self))
        try:
            async with asyncio.timeout(self.total_timeout_seconds):
                result = await self._call(payload)
        except TimeoutError:  # asyncio.timeout: the whole attempt took too long
            raise self._timed_out(answers, whole=True) from None
        except Exception as exc:
            raise self._failure(exc, answers) from None
        finally:
            _ATTEMPT.reset(token)
        response = answers[-1]
        status = response.status_code
        if not 200 <= status < 300:
            raise self._status_failure(status, response.headers, response.content)
        return self._read(result, response)

    def _read(self, result: Any, response: Answer) -> ModelReply:
        """The reply of a 2xx answer: its body must be a JSON object, read as the
        provider's type (`_typed`), then `_parse`d."""
        status = response.status_code
        data = self._json_object(response.content, status)
        return self._parse(self._typed(result, data), data, status)

    def _typed(self, result: Any, data: dict) -> Any:
        """The answer as its SDK's type (`reply_type`, or what `_call` returned)."""
        return result if self.reply_type is None else sdk_object(self.reply_type, data)


class ChatCompletionClient(HTTPModelClient):
    """A client that answers OpenAI-style chat messages; providers build the request."""

    @abc.abstractmethod
    def _request(self, messages: list[dict], max_tokens: int | None = None) -> Any:
        """What `_call` sends for `messages` (OpenAI chat format): the SDK call's
        arguments. ValueError if the messages cannot be converted."""

    #: Leading characters of the first message that never change (see `complete`).
    frozen_chars = 0
    #: What the provider wants back with this conversation's answers, if it wants any.
    _answers: AnswerMemory | None = None

    def recall(self, text: str, items: list) -> None:
        """An answer of this conversation that an earlier client received (the episode
        resumed after a worker restart), with its ModelReply.reasoning_items, remembered
        as if this client had made the call, so later requests send what they would
        have. Only providers that want something given back keep it."""
        if self._answers is not None:
            self._answers.remember(text, items)

    async def complete(self, messages: list[dict], *, max_tokens: int | None = None, frozen_chars: int = 0) -> ModelReply:
        """Send `messages` (content a string or a list of text / image_url parts) and
        return the reply, or raise ModelCallError. `max_tokens` overrides the client's
        own for this call (a prompt near the end of a context window leaves less room
        for the answer). `frozen_chars`: how many leading characters of the first
        message's text are the same at every call of the episode (a provider that
        caches only marked prefixes marks them). ValueError if the messages cannot be
        converted."""
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of chat messages")
        self.frozen_chars = frozen_chars
        return await self._send(self._request(messages, max_tokens))
