"""The provider-independent half of every model client.

`HTTPModelClient` owns what does not depend on the provider:

* one `httpx2.AsyncClient` per client instance, sending through
  `arena.clients.urlguard.GuardedTransport` (every address checked at connect time, every
  answer's body capped) unless a test injects a transport, never following redirects,
  ignoring environment proxies. The vendors' SDKs (`openai`, `anthropic`,
  `google-genai`) are given this client as their HTTP client: they build the requests
  and read the replies, the guard carries them;
* the retry loop (see `arena.clients.base` for what is retried, the backoff, jitter and
  Retry-After rules; the SDKs' own retries are off) and the per-attempt deadline
  (`total_timeout_seconds`) that cuts a server trickling its answer a byte at a time;
* the wording of every failure, whatever library raised it: the HTTP answer each attempt
  got is seen by a response hook, so a status, a body that is not JSON or a body too
  large reads the same for every provider, and never quotes the endpoint's address;
* redaction: each secret the subclass registers is removed from every error message;
* normalising what came back before anything stores it (`normalise_reply`).

A provider client implements `_call` (one attempt through its SDK, or a plain POST)
and `_parse` (what `_call` returned and the answer's JSON object -> ModelReply, or
raise AttemptFailed via `_malformed` / `_unusable`).
"""

from __future__ import annotations

import abc
import asyncio
import contextvars
import json
import random
import time
from collections.abc import Iterable, Mapping
from typing import Any

import httpx2

from arena.clients.base import ModelCallError, ModelReply, RetryPolicy, is_retryable_status, parse_retry_after, redact
from arena.clients.errors import KINDS, ErrorKind, classify_status
from arena.clients.replies import (
    MAX_ERROR_CHARS,
    JSONTooDeep,
    capped_text,
    error_excerpt,
    excerpt,
    normalise_reply,
    parse_json,
)
from arena.clients.sdk_reading import RedirectRefused, causes, network_problem
from arena.clients.urlguard import GuardedTransport, ResponseTooLarge, UnsafeURL, parse_url

DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024

# The HTTP answers of the attempt running in this task (see HTTPModelClient._on_response).
_ANSWERS: contextvars.ContextVar[list | None] = contextvars.ContextVar("arena_http_answers", default=None)


class AttemptFailed(Exception):
    """One attempt went wrong; the retry loop decides what happens next.

    `malformed` marks a 2xx answer whose body could not be read as the provider's
    format; those are retried at most `RetryPolicy.malformed_retries` times.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after: float | None = None,
        malformed: bool = False,
        kind: ErrorKind | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.malformed = malformed
        self.kind = kind or (ErrorKind.BAD_ANSWER if malformed else None)


def check_base_url(base_url: str, secrets: Iterable[str | None] = (), what: str = "model base URL") -> str:
    """`base_url` stripped, or ValueError("Invalid <what>: ...") if it is not an http(s)
    URL the arena could call (the DNS part of the check happens at connect time)."""
    base_url = (base_url or "").strip()
    try:
        parse_url(base_url)
    except UnsafeURL as exc:
        raise ValueError(f"Invalid {what}: {redact(str(exc), *secrets)}") from None
    return base_url


class HTTPModelClient(abc.ABC):
    """A JSON-over-HTTP client with retries; subclasses speak one provider's format.

    `timeout_seconds` is the connect and read (and write/pool) timeout; the whole of one
    attempt is also bounded by `total_timeout_seconds` (default twice
    `timeout_seconds`). `secrets` are redacted from every error message; `headers` are
    sent with every request (put credentials there, never in the URL).
    """

    #: How error messages name the other side ("The model endpoint answered HTTP 500").
    endpoint_label = "model endpoint"
    #: Appended to the "response too large" message.
    too_big_hint = " (is max_tokens very large?)"

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
        transport: httpx2.AsyncBaseTransport | None = None,
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
        self.policy = RetryPolicy(
            max_retries=max_retries,
            backoff_base_seconds=backoff_base_seconds,
            max_wait_seconds=max_wait_seconds,
            malformed_retries=malformed_retries,
            rng=rng or random.Random(),
        )
        if transport is None:
            limits = httpx2.Limits(
                max_connections=max_connections,
                max_keepalive_connections=max(1, max_connections // 4),
                keepalive_expiry=30.0,
            )
            transport = GuardedTransport(allow_loopback, limits=limits, max_response_bytes=max_response_bytes)
        self.http = httpx2.AsyncClient(
            transport=transport,
            headers={"Accept": "application/json", "User-Agent": "the-arena/1", **(headers or {})},
            timeout=httpx2.Timeout(timeout_seconds),
            follow_redirects=False,  # every hop must be checked; see arena.clients.urlguard
            trust_env=False,  # environment proxies would bypass the guard
            event_hooks={"response": [self._on_response]},
        )
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

    # --- lifecycle ---------------------------------------------------------------------

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self.http.aclose()

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

    def _status_hint(self, status: int) -> str:
        if status in (401, 403):
            return " (check the API key)"
        if status == 404:
            return " (check the base URL and the model name)"
        return ""

    def _retry_after(self, status: int, headers: httpx2.Headers, body: bytes) -> float | None:
        return parse_retry_after(headers.get("retry-after"))

    def _status_failure(self, status: int, headers: httpx2.Headers, body: bytes) -> AttemptFailed:
        """What a non-2xx, non-3xx answer means. A 5xx is normally worth another try,
        but not when the server says why it can never succeed (a text-only model
        refusing an image, a prompt longer than the context window)."""
        said = error_excerpt(body)
        kind = classify_status(status, said)
        retryable = is_retryable_status(status) and KINDS[kind].transient
        return AttemptFailed(
            f"The {self.endpoint_label} answered HTTP {status}{self._status_hint(status)}: {said}",
            retryable=retryable,
            status=status,
            retry_after=self._retry_after(status, headers, body) if retryable else None,
            kind=kind,
        )

    # --- helpers for _parse ------------------------------------------------------------

    @staticmethod
    def _malformed(what: str, status: int) -> AttemptFailed:
        """A 2xx answer that is not in the expected format: retried (a little)."""
        return AttemptFailed(what, retryable=True, status=status, malformed=True)

    @staticmethod
    def _unusable(what: str, status: int) -> AttemptFailed:
        """A well-formed answer without a usable reply: asking again would not help."""
        return AttemptFailed(what, retryable=False, status=status, kind=ErrorKind.BAD_ANSWER)

    def _json_object(self, body: bytes, status: int) -> dict:
        """The body as a JSON object, or a malformed-answer failure."""
        label = self.endpoint_label
        if not body.strip():
            raise self._malformed(f"The {label} answered HTTP {status} with an empty body", status)
        try:
            data = parse_json(body)
        except JSONTooDeep:
            raise self._malformed(f"The {label}'s answer was JSON nested too deeply to read", status) from None
        except ValueError:
            text = body.decode("utf-8", errors="replace")
            raise self._malformed(f"The {label}'s answer was not valid JSON: {excerpt(text, 120)}", status) from None
        if not isinstance(data, dict):
            raise self._malformed(f"The {label}'s answer was JSON but not an object", status)
        return data

    # --- the call ----------------------------------------------------------------------

    def _redact(self, text: str) -> str:
        """`text` without the secrets, cleaned and cut to what an error may hold (it is
        shown on pages and stored with steps and episodes)."""
        return capped_text(redact(text, *self._secrets), MAX_ERROR_CHARS)

    async def _on_response(self, response: httpx2.Response) -> None:
        """Every HTTP answer, before its body is read: the gate is told, the attempt
        remembers it, and a redirect is refused there."""
        answers = _ANSWERS.get()
        if answers is not None:
            answers.append(response)
        if self.observer is not None:
            self.observer(response.status_code, response.headers, False)
        if 300 <= response.status_code < 400:
            raise RedirectRefused(response.status_code)

    async def _send(self, payload: Any) -> ModelReply:
        """Send `payload` with retries; the parsed reply or ModelCallError."""
        if self._closed:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
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
        answers: list[httpx2.Response] = []
        token = _ANSWERS.set(answers)
        try:
            async with asyncio.timeout(self.total_timeout_seconds):
                result = await self._call(payload)
        except TimeoutError:  # asyncio.timeout: the whole attempt took too long
            raise self._timed_out(answers, whole=True) from None
        except Exception as exc:
            raise self._failure(exc, answers) from None
        finally:
            _ANSWERS.reset(token)
        if not answers:  # a test's transport may answer without the hook (never in play)
            raise AttemptFailed(f"The {self.endpoint_label} sent no answer", retryable=True,
                                kind=ErrorKind.CONNECTION)
        response = answers[-1]
        status = response.status_code
        if not 200 <= status < 300:
            raise self._status_failure(status, response.headers, response.content)
        return self._read(result, response)

    def _read(self, result: Any, response: httpx2.Response) -> ModelReply:
        """The reply of a 2xx answer: its body must be a JSON object, read as the
        provider's type (`_typed`), then `_parse`d."""
        status = response.status_code
        data = self._json_object(response.content, status)
        return self._parse(self._typed(result, data), data, status)

    def _typed(self, result: Any, data: dict) -> Any:
        """The answer as its SDK's type: what `_call` returned, unless the provider
        reads the body itself (see `sdk_object`)."""
        return result

    def _timed_out(self, answers: list, whole: bool) -> AttemptFailed:
        if self.observer is not None:
            self.observer(None, None, True)
        label = self.endpoint_label
        if not whole:
            return AttemptFailed(f"The {label} did not answer within {self.timeout_seconds:g} s", retryable=True,
                                 kind=ErrorKind.TIMEOUT)
        status = answers[-1].status_code if answers else None
        got = f" (HTTP {status} headers arrived, the body was still coming)" if status else ""
        return AttemptFailed(
            f"The {label} did not finish answering within {self.total_timeout_seconds:g} s, "
            f"the limit for one attempt{got}",
            retryable=True, status=status, kind=ErrorKind.TIMEOUT,
        )

    def _failure(self, exc: Exception, answers: list) -> AttemptFailed:
        """What an exception out of `_call` (an SDK's, httpx's, the guard's) means, in
        the arena's words: a status answer is read from the answer itself."""
        label = self.endpoint_label
        for cause in causes(exc):
            if isinstance(cause, AttemptFailed):
                return cause
            if isinstance(cause, RedirectRefused):
                return AttemptFailed(
                    f"The {label} answered with a redirect (HTTP {cause.status}); the arena does not "
                    "follow redirects, so give the final URL instead",
                    retryable=False, status=cause.status, kind=ErrorKind.BAD_REQUEST,
                )
            if isinstance(cause, ResponseTooLarge):
                status = answers[-1].status_code if answers else None
                return AttemptFailed(
                    f"The response was larger than the {cause.cap:,} byte limit; "
                    f"the arena stopped reading it{self.too_big_hint}",
                    retryable=False, status=status, kind=ErrorKind.BAD_ANSWER,
                )
            if isinstance(cause, UnsafeURL):
                return AttemptFailed(f"The {label}'s address was refused: {cause.reason}", retryable=False,
                                     kind=ErrorKind.URL_REFUSED)
            if isinstance(cause, httpx2.TimeoutException):
                return self._timed_out(answers, whole=False)
            if isinstance(cause, (httpx2.NetworkError, httpx2.RemoteProtocolError)):
                return AttemptFailed(f"Could not talk to the {label}: {network_problem(cause)}", retryable=True,
                                     kind=ErrorKind.CONNECTION)
            if isinstance(cause, httpx2.DecodingError):
                return self._malformed("The response body could not be decoded", answers[-1].status_code
                                       if answers else None)
        if answers:
            response = answers[-1]
            status = response.status_code
            if not 200 <= status < 300:
                return self._status_failure(status, response.headers, response.content)
            # A 2xx answer the SDK could not read: ours to say why, in the same words
            # for every provider.
            try:
                self._json_object(response.content, status)
            except AttemptFailed as failure:
                return failure
            return self._malformed(f"The {label}'s answer is not in its documented format: "
                                   f"{excerpt(str(exc) or type(exc).__name__, 200)}", status)
        if isinstance(exc, (ValueError, TypeError)) and not isinstance(exc, json.JSONDecodeError):
            raise exc  # the request could not be built: the caller's messages are wrong
        return AttemptFailed(f"The request to the {label} failed: {type(exc).__name__}", retryable=False,
                             kind=ErrorKind.CONNECTION)


class ChatCompletionClient(HTTPModelClient):
    """A client that answers OpenAI-style chat messages; providers build the request."""

    @abc.abstractmethod
    def _request(self, messages: list[dict], max_tokens: int | None = None) -> Any:
        """What `_call` sends for `messages` (OpenAI chat format): the SDK call's
        arguments. ValueError if the messages cannot be converted."""

    #: Leading characters of the first message that never change (see `complete`).
    frozen_chars = 0

    def recall(self, text: str, items: list) -> None:
        """An answer of this conversation that an earlier client received (the episode
        resumed after a worker restart), with its ModelReply.reasoning_items, remembered
        as if this client had made the call, so later requests send what they would
        have. Only providers that want something given back keep it."""

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
